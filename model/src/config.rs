//! Reading a sentence-transformer directory's configuration files.

use std::path::{Path, PathBuf};

use candle_transformers::models::bert;
use serde::Deserialize;

use crate::error::ModelError;

/// The longest input the model sees, in tokens, when the directory does not
/// say (`sentence_bert_config.json`): all-MiniLM-L6-v2's own limit.
const DEFAULT_MAX_TOKENS: usize = 256;

/// What the directory says about the network and how to use it.
pub(crate) struct ModelConfig {
    pub bert: bert::Config,
    /// Longer inputs are truncated to this many tokens, `[CLS]` and `[SEP]`
    /// included.
    pub max_tokens: usize,
}

/// `1_Pooling/config.json`: only mean pooling is implemented.
#[derive(Deserialize)]
struct Pooling {
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

/// `sentence_bert_config.json`.
#[derive(Deserialize)]
struct SentenceBert {
    max_seq_length: Option<usize>,
}

/// The path of a file the model needs, or [`ModelError::MissingFile`].
pub(crate) fn required(dir: &Path, file: &'static str) -> Result<PathBuf, ModelError> {
    let path = dir.join(file);
    if path.is_file() {
        Ok(path)
    } else {
        Err(ModelError::MissingFile {
            dir: dir.to_path_buf(),
            file,
        })
    }
}

pub(crate) fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|source| ModelError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn parse<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ModelError> {
    serde_json::from_slice(&read(path)?).map_err(|e| ModelError::Config {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Reads `config.json` and, when present, the sentence-transformers files
/// beside it, refusing what this crate cannot run faithfully.
pub(crate) fn load(dir: &Path) -> Result<ModelConfig, ModelError> {
    let path = required(dir, "config.json")?;
    let bert: bert::Config = parse(&path)?;
    let refuse = |reason: String| ModelError::Config {
        path: path.clone(),
        reason,
    };
    if let Some(kind) = bert.model_type.as_deref() {
        if kind != "bert" {
            return Err(refuse(format!("model_type is {kind:?}, not \"bert\"")));
        }
    }
    if bert.hidden_size == 0 || bert.num_attention_heads == 0 {
        return Err(refuse(
            "hidden_size and num_attention_heads must be positive".into(),
        ));
    }
    if bert.hidden_size % bert.num_attention_heads != 0 {
        return Err(refuse(format!(
            "hidden_size {} is not a multiple of num_attention_heads {}",
            bert.hidden_size, bert.num_attention_heads
        )));
    }

    let pooling_path = dir.join("1_Pooling").join("config.json");
    if pooling_path.is_file() {
        let pooling: Pooling = parse(&pooling_path)?;
        let mean_only = pooling.pooling_mode_mean_tokens
            && !pooling.pooling_mode_cls_token
            && !pooling.pooling_mode_max_tokens
            && !pooling.pooling_mode_mean_sqrt_len_tokens;
        if !mean_only {
            return Err(ModelError::Config {
                path: pooling_path,
                reason: "only mean pooling (pooling_mode_mean_tokens alone) is supported".into(),
            });
        }
    }

    let limit = bert.max_position_embeddings;
    let sentence_path = dir.join("sentence_bert_config.json");
    let max_tokens = if sentence_path.is_file() {
        let sentence: SentenceBert = parse(&sentence_path)?;
        sentence.max_seq_length.unwrap_or(DEFAULT_MAX_TOKENS)
    } else {
        DEFAULT_MAX_TOKENS
    }
    .min(limit);
    if max_tokens < 3 {
        return Err(refuse(format!(
            "max_position_embeddings {limit} leaves no room for a text between [CLS] and [SEP]"
        )));
    }
    Ok(ModelConfig { bert, max_tokens })
}
