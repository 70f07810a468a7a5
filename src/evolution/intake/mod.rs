//! The first stage of the loop: a client's `other` text made fit to keep.
//! Each fragment loses the values the message's keys already carry
//! (`mapped.rs`), is cleaned, and the parts of it that speak to the system,
//! a model or the schema are dropped ([`sanitize_fragment`]: `pieces.rs`
//! cuts, `vocabulary.rs` holds the words, `address.rs` judges), and
//! personal data and secrets become placeholders ([`redact`]) before
//! anything embeds, clusters or stores it.
//!
//! This folder reads text only: it knows nothing of pools, needs or the
//! engine, and the rest of the loop sees `other` only through it.

mod address;
mod injection;
mod mapped;
mod pieces;
mod redact;
mod sanitize;
mod vocabulary;

pub(in crate::evolution) use mapped::{mapped_values, without_mapped};
pub use redact::{Redacted, Redaction, redact};
pub(in crate::evolution) use sanitize::{Dropped, sanitize_or_why};
pub use sanitize::{MAX_FRAGMENT_CHARS, Sanitized, sanitize_description, sanitize_fragment};
