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
