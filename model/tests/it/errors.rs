//! A missing or wrong model directory is a typed error that names the file;
//! these need no model, except the last, which copies it.

use std::path::{Path, PathBuf};

use sdsi::evolution::Embedder;
use sdsi_model::{Calibration, ModelError, SentenceModel};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sdsi-model-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn write(&self, file: &str, bytes: &[u8]) {
        let path = self.0.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// all-MiniLM-L6-v2's config.json, shrunk to two layers for these tests.
const CONFIG: &str = r#"{"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
  "intermediate_size": 16, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "max_position_embeddings": 32, "type_vocab_size": 2, "initializer_range": 0.02,
  "layer_norm_eps": 1e-12, "pad_token_id": 0, "vocab_size": 10, "model_type": "bert"}"#;

fn load(dir: &TempDir) -> ModelError {
    SentenceModel::load(dir.path()).expect_err("must not load")
}

#[test]
fn a_directory_that_does_not_exist() {
    let error = SentenceModel::load("/nonexistent/sdsi-model").unwrap_err();
    assert!(matches!(error, ModelError::MissingFile { .. }), "{error}");
    assert!(error.to_string().contains("/nonexistent/sdsi-model"));
}

#[test]
fn each_missing_file_is_named() {
    let dir = TempDir::new("missing");
    let error = load(&dir);
    assert!(
        matches!(
            error,
            ModelError::MissingFile {
                file: "config.json",
                ..
            }
        ),
        "{error}"
    );
    dir.write("config.json", CONFIG.as_bytes());
    let error = load(&dir);
    assert!(
        matches!(
            error,
            ModelError::MissingFile {
                file: "tokenizer.json",
                ..
            }
        ),
        "{error}"
    );
    dir.write("tokenizer.json", b"{}");
    let error = load(&dir);
    assert!(
        matches!(
            error,
            ModelError::MissingFile {
                file: "model.safetensors",
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn another_kind_of_model_is_refused() {
    let dir = TempDir::new("gpt2");
    dir.write(
        "config.json",
        br#"{"model_type": "gpt2", "n_embd": 768, "n_layer": 12}"#,
    );
    let error = load(&dir);
    assert!(matches!(error, ModelError::Config { .. }), "{error}");

    let dir = TempDir::new("roberta");
    dir.write(
        "config.json",
        CONFIG.replace("\"bert\"", "\"roberta\"").as_bytes(),
    );
    let error = load(&dir);
    assert!(error.to_string().contains("roberta"), "{error}");
}

#[test]
fn pooling_other_than_the_mean_is_refused() {
    let dir = TempDir::new("cls");
    dir.write("config.json", CONFIG.as_bytes());
    dir.write(
        "1_Pooling/config.json",
        br#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
    );
    let error = load(&dir);
    assert!(error.to_string().contains("mean pooling"), "{error}");
}

#[test]
fn a_damaged_tokenizer_or_weights_file_is_a_typed_error() {
    let dir = TempDir::new("damaged");
    dir.write("config.json", CONFIG.as_bytes());
    dir.write("tokenizer.json", b"not json");
    dir.write("model.safetensors", b"");
    assert!(matches!(load(&dir), ModelError::Tokenizer { .. }));

    // The smallest valid tokenizer: a word-level vocabulary.
    dir.write(
        "tokenizer.json",
        br#"{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
             "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
             "post_processor": null, "decoder": null,
             "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1},
                       "unk_token": "[UNK]"}}"#,
    );
    dir.write("model.safetensors", b"\x08\x00\x00\x00\x00\x00\x00\x00{}");
    // Weights that are not all-MiniLM-L6-v2's load only with settings of
    // their own.
    let error = load(&dir);
    assert!(matches!(error, ModelError::Uncalibrated { .. }), "{error}");
    assert!(error.to_string().contains("all-MiniLM-L6-v2"), "{error}");
    let error = load_calibrated(&dir);
    assert!(matches!(error, ModelError::Weights { .. }), "{error}");
    dir.write("model.safetensors", b"garbage");
    let error = load_calibrated(&dir);
    assert!(matches!(error, ModelError::Weights { .. }), "{error}");
}

fn load_calibrated(dir: &TempDir) -> ModelError {
    SentenceModel::load_calibrated(dir.path(), Calibration::new(0.5, 0.4))
        .expect_err("must not load")
}

/// all-MiniLM-L6-v2 is known by its weights; the same files with one
/// weight changed are another model, which takes the caller's settings.
#[test]
fn only_all_minilm_l6_v2_brings_its_own_settings() {
    let Some(source) = std::env::var_os("SDSI_MODEL_DIR") else {
        eprintln!("skipped: SDSI_MODEL_DIR is not set (scripts/fetch-model.sh)");
        return;
    };
    let source = Path::new(&source);
    let model = SentenceModel::load(source).unwrap();
    assert_eq!(model.calibration(), Calibration::ALL_MINILM_L6_V2);
    let dir = TempDir::new("other-weights");
    for file in ["config.json", "tokenizer.json"] {
        dir.write(file, &std::fs::read(source.join(file)).unwrap());
    }
    let mut weights = std::fs::read(source.join("model.safetensors")).unwrap();
    let last = weights.len() - 1;
    weights[last] ^= 1;
    dir.write("model.safetensors", &weights);
    let error = load(&dir);
    assert!(matches!(error, ModelError::Uncalibrated { .. }), "{error}");
    let mine = Calibration::new(0.6, 0.5).with_need_contrast(3.0);
    let other = SentenceModel::load_calibrated(dir.path(), mine).unwrap();
    assert_eq!(other.calibration(), mine);
    assert_eq!(other.recommended_threshold(), 0.6);
}
