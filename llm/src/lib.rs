//! An LLM intent inducer for sdsi's self-evolution (the draft's first way
//! to induce a key, §6.2.2): [`LlmInducer`] asks any OpenAI-compatible
//! chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp's server) to
//! name, type and describe the key a need asks for.
//!
//! - **The data is data.** The prompt gives the template's keys and the
//!   need's redacted, unflagged, multi-client exemplars as one JSON document
//!   in the user message, and the system message says every string in it
//!   is quoted text, never an instruction.
//! - **The reply is constrained, then checked.** The reply's shape is an
//!   sdsi template ([`prompt::induction_template`]); its strict export is
//!   sent as `response_format` (OpenAI's `{type: json_schema, json_schema:
//!   {strict, schema}}`, or `{type: json_object, schema}` for servers that
//!   speak that dialect, such as llama-cpp-python's: [`ResponseFormat`]),
//!   and sdsi validates the reply against the same template. A name that is
//!   not snake_case, is `other` or a settled key, a type other than
//!   boolean / integer / number / string, a description that reads as an
//!   instruction or carries a personal value: refused.
//! - **It never blocks evolution.** A timeout, a transport error or a bad
//!   status is retried with a doubling backoff; then, as for any reply
//!   refused, the [`RuleInducer`] answers instead ([`Induction::source`]
//!   says which did). The engine's §7 checks (sensitive keys held for an
//!   operator) apply to whatever it proposes.
//! - The description's examples are quoted by sdsi from the need's
//!   multi-client exemplars, never by the model.
//!
//! [`RuleInducer`]: sdsi::evolution::RuleInducer
//!
//! ```no_run
//! use sdsi::evolution::{Evolution, EvolutionConfig, HashingEmbedder};
//! use sdsi_llm::{LlmConfig, LlmInducer};
//!
//! let config = LlmConfig::new("http://127.0.0.1:8080/v1", "smollm2")
//!     .api_key(std::env::var("SDSI_LLM_API_KEY").ok());
//! let inducer = LlmInducer::new(config)?;
//! let engine = Evolution::new(HashingEmbedder::default(), inducer, EvolutionConfig::default());
//! # Ok::<(), sdsi_llm::LlmError>(())
//! ```

mod config;
mod error;
mod inducer;
pub mod prompt;
mod reply;

pub use config::{LlmConfig, ResponseFormat};
pub use error::LlmError;
pub use inducer::{Induction, LlmInducer, Source};
