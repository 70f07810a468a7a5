//! The embedder `cluster` and `evolve` use: the default hashing embedder, or
//! a sentence-transformer directory given with `--model`.

use std::path::Path;

use sdsi::evolution::{Embedder, HashingEmbedder};

/// The hashing embedder, or the model in `model` (a directory holding
/// `config.json`, `tokenizer.json` and `model.safetensors`).
pub fn load(model: Option<&Path>) -> Result<Box<dyn Embedder>, String> {
    match model {
        None => Ok(Box::new(HashingEmbedder::default())),
        Some(dir) => from_directory(dir),
    }
}

#[cfg(feature = "model")]
fn from_directory(dir: &Path) -> Result<Box<dyn Embedder>, String> {
    sdsi_model::SentenceModel::load(dir)
        .map(|model| Box::new(model) as Box<dyn Embedder>)
        .map_err(|error| error.to_string())
}

#[cfg(not(feature = "model"))]
fn from_directory(dir: &Path) -> Result<Box<dyn Embedder>, String> {
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
