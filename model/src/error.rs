//! What can go wrong loading or running a model.

use std::path::PathBuf;

/// Why a model directory could not be loaded, or a text not embedded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The directory lacks a file the model needs.
    #[error(
        "model directory {dir} has no {file}: expected a sentence-transformer directory \
         holding config.json, tokenizer.json and model.safetensors"
    )]
    MissingFile {
        /// The directory given.
        dir: PathBuf,
        /// The file that is missing.
        file: &'static str,
    },
    /// A file exists but could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A configuration file is not what a BERT sentence-transformer has.
    #[error("{path} is not a BERT sentence-transformer configuration: {reason}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `tokenizer.json` could not be loaded or set up.
    #[error("tokenizer {path}: {reason}")]
    Tokenizer {
        /// The file.
        path: PathBuf,
        /// What the tokenizer library said.
        reason: String,
    },
    /// The weights do not fit the configuration (a missing tensor, a wrong
    /// shape) or are not safetensors.
    #[error("weights {path} do not fit config.json: {reason}")]
    Weights {
        /// The file.
        path: PathBuf,
        /// What the tensor library said.
        reason: String,
    },
    /// The weights are not all-MiniLM-L6-v2's, the only model whose
    /// settings are built in: load them with
    /// `SentenceModel::load_calibrated` and settings measured for them.
    #[error(
        "{path} (SHA-256 {digest}) is not all-MiniLM-L6-v2, whose clustering settings are \
         built in; another model needs its own (its threshold and need contrast or need \
         threshold: docs/evolution.md, \"Models\")"
    )]
    Uncalibrated {
        /// The weights file.
        path: PathBuf,
        /// Its SHA-256, hex.
        digest: String,
    },
    /// Tokenizing or running the model on a text failed.
    #[error("embedding failed: {reason}")]
    Inference {
        /// What the tokenizer or tensor library said.
        reason: String,
    },
}
