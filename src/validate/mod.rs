//! Compiled schemas and payload validation: compile a template once, then
//! validate many messages, from a parsed `Value`, JSON text, any serde
//! source, a payload asked key by key, or straight into your own type.
//!
//! [`CompiledSchema`] is the validator. Every check reports into a
//! [`Report`]: each problem with a stable [`IssueCode`](crate::IssueCode),
//! a JSON Pointer and a message, ordered by path, plus the [`Normalized`]
//! payload when the message is valid, read through to the input rather
//! than copied.
//!
//! # Layers
//!
//! The files form layers that only depend downward:
//!
//! 1. `core/`: the compiled schema (`SchemaCore`, the data every reader
//!    decides on, and the [`CompiledSchema`] handle with its compiling
//!    methods), key lookup, the options, the scalar tables, a value's
//!    `Shape`, the normalization [`Edits`], where issues go (`Outcome`)
//!    and the validation `Pass` that decides on each member.
//! 2. `normalized.rs` and `report.rs`: the results a caller holds.
//! 3. `read/`: one reader per kind of input, each driving the same pass —
//!    a parsed `Value`, any serde source, JSON text (a scanner, with the
//!    serde source reader behind it), a keyed payload, a typed read, and
//!    the result messages of §5.3.
//! 4. This module: the public names.
//!
//! In these files a *member* is always a JSON object member (a name and
//! its value); a *key* is a template key.

pub(crate) mod core;
pub(crate) mod normalized;
pub(crate) mod read;
pub(crate) mod report;

pub use self::core::edits::{Checked, Edits};
pub use self::core::options::{BigIntegers, Limits, UnknownKeys, ValidateOptions};
pub use self::core::schema::CompiledSchema;
pub use normalized::{Members, Normalized};
pub use read::keyed::{KeyedProblems, KeyedVerdict};
pub use read::response::SUGGESTION_MEMBER;
pub use read::typed::{Accepted, Refusal};
pub use report::Report;
