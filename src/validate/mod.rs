//! Compiled schemas and payload validation: compile a template once, then
//! validate many messages, from a parsed `Value` or straight from bytes.
//!
//! [`CompiledSchema`] is the validator; its methods live with the concept
//! they serve:
//!
//! | methods | file |
//! |---|---|
//! | `new`, `with_options`, `template`, `schema_id`, `digest` | `validate/compile.rs` |
//! | `validate`, `validate_owned`, `is_valid`, `validate_payload`, `validate_payload_owned`, `is_valid_payload` (parsed) | `validate/value.rs` |
//! | `validate_slice`, `validate_str`, `is_valid_slice`, `is_valid_str` (bytes) | `validate/stream.rs` |
//! | `deserialize_slice` (bytes into your type) | `validate/typed.rs` |
//! | `is_valid_from`, `is_valid_from_unique`, `problems_from` (any serde source) | `validate/stream.rs` |
//! | `key_names`, `keyed_verdict`, `keyed_problems` (a payload asked key by key) | `validate/keyed.rs` |
//! | `json_schema`, `mcp_input_schema`, `mcp_elicitation_schema`, `strict_schema`, `prompt` (feature `export`) | `export.rs` |
//! | `validate_envelope`, `validate_envelope_slice` (feature `envelope`) | `envelope/parse.rs` |
//! | `a2a_data_part`, `validate_a2a_data_part` (feature `a2a`) | `a2a/part.rs` |
//! | `validate_execution_result`, `validate_structured_content`, `validate_mcp_tool_result`; `SchemaTemplate::check_as_response` | `validate/response.rs` |
//!
//! Every check reports into a [`Report`]: each problem with a stable
//! [`IssueCode`](crate::IssueCode), a JSON Pointer and a message, ordered by
//! path, plus the [`Normalized`] payload when the message is valid, read
//! through to the input rather than copied (`validate/normalized.rs`).

mod compile;
mod edits;
mod key_set;
mod keyed;
mod normalized;
mod options;
mod pass;
mod report;
mod response;
mod scalars;
mod scan;
mod shape;
mod skip;
mod stream;
mod typed;
mod value;

pub use compile::CompiledSchema;
pub use edits::{Checked, Edits};
pub use keyed::{KeyedProblems, KeyedVerdict};
pub use normalized::{Members, Normalized};
pub use options::{BigIntegers, Limits, UnknownKeys, ValidateOptions};
pub use report::Report;
pub use response::SUGGESTION_MEMBER;
pub use typed::{Accepted, Refusal};

#[cfg(feature = "export")]
pub(crate) use compile::CompiledKey;
pub(crate) use compile::{Check, KeyStatus};
#[cfg(feature = "a2a")]
pub(crate) use report::{Collect, finish_report};
