//! The embedder `cluster` and `evolve` use: the default hashing embedder, or
//! a sentence-transformer directory given with `--model`.

use std::path::Path;

use sdsi::evolution::{Embedder, HashingEmbedder};

use crate::output::{Entry, Outcome};

/// The settings given on the command line (`--threshold`,
/// `--need-threshold`, `--need-contrast`): a model other than
/// all-MiniLM-L6-v2 loads only with a threshold and one of the other two.
#[derive(Debug, Clone, Copy, Default)]
pub struct Given {
    pub threshold: Option<f32>,
    pub need_threshold: Option<f32>,
    pub need_contrast: Option<f32>,
}

/// [`load`], or the command's error outcome naming the model directory.
pub fn load_or_fail(model: Option<&Path>, given: Given) -> Result<Box<dyn Embedder>, Outcome> {
    load(model, given).map_err(|message| {
        let path = model.unwrap_or(Path::new(""));
        Outcome::stream_error(&[Entry::unreadable(&path.display().to_string(), message)])
    })
}

/// The hashing embedder, or the model in `model` (a directory holding
/// `config.json`, `tokenizer.json` and `model.safetensors`).
pub fn load(model: Option<&Path>, given: Given) -> Result<Box<dyn Embedder>, String> {
    match model {
        None => Ok(Box::new(HashingEmbedder::default())),
        Some(dir) => from_directory(dir, given),
    }
}

#[cfg(feature = "model")]
fn from_directory(dir: &Path, given: Given) -> Result<Box<dyn Embedder>, String> {
    use sdsi_model::{ModelError, SentenceModel};
    let model = match SentenceModel::load(dir) {
        Err(ModelError::Uncalibrated { .. }) if calibration(given).is_some() => {
            let calibration = calibration(given).ok_or_else(String::new)?;
            SentenceModel::load_calibrated(dir, calibration)
        }
        other => other,
    };
    match model {
        Ok(model) => Ok(Box::new(model)),
        Err(error @ ModelError::Uncalibrated { .. }) => Err(format!(
            "{error}: give --threshold with --need-contrast or --need-threshold, measured for it"
        )),
        Err(error) => Err(error.to_string()),
    }
}

/// The settings the command line gives a model other than
/// all-MiniLM-L6-v2: a threshold, and a need threshold or contrast.
#[cfg(feature = "model")]
fn calibration(given: Given) -> Option<sdsi_model::Calibration> {
    use sdsi_model::Calibration;
    let threshold = given.threshold?;
    match (given.need_threshold, given.need_contrast) {
        (Some(need), None) => Some(Calibration::new(threshold, need)),
        // Until the pool's background is measured, needs join no looser
        // than the threshold the caller measured.
        (need, Some(contrast)) => Some(
            Calibration::new(threshold, need.unwrap_or(threshold)).with_need_contrast(contrast),
        ),
        (None, None) => None,
    }
}

#[cfg(not(feature = "model"))]
fn from_directory(dir: &Path, _: Given) -> Result<Box<dyn Embedder>, String> {
    Err(format!(
        "--model {}: this sdsi was built without the `model` feature",
        dir.display()
    ))
}

/// A name for the embedder that tells replicas apart when they embed
/// differently: `hashing`, or `model:` and a digest of the model's
/// `config.json` and the size of its weights. An evaluator re-embeds a
/// logged fragment whose tag is not its own.
pub fn tag(model: Option<&Path>) -> String {
    use sha2::{Digest, Sha256};
    let Some(dir) = model else {
        return "hashing".to_owned();
    };
    let mut digest = Sha256::new();
    digest.update(std::fs::read(dir.join("config.json")).unwrap_or_default());
    let weights = std::fs::metadata(dir.join("model.safetensors")).map_or(0, |m| m.len());
    digest.update(weights.to_le_bytes());
    let hex = crate::hex::hex(digest.finalize().get(..8).unwrap_or_default());
    format!("model:{hex}")
}
