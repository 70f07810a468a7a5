//! Structured data for agent-to-agent messages: schema templates, structured
//! payloads and their validation, per draft-zhou-structured-data-schema-interaction-00.
//!
//! ```
//! use sdsi::{CompiledSchema, SchemaTemplate};
//! use serde_json::json;
//!
//! let template = SchemaTemplate::from_value(&json!({
//!     "schema_id": "flight_booking_v1", "scenario": "flight_booking",
//!     "keys": [
//!         {"key_name": "origin", "key_type": "string", "required": true,
//!          "semantic_description": "Departure IATA code. Example: 'from Beijing' -> 'PEK'."},
//!         {"key_name": "passenger_count", "key_type": "integer", "required": false,
//!          "default_value": 1, "semantic_description": "Number of passengers, 1-9."}
//!     ]
//! }))?;
//! let schema = CompiledSchema::new(&template)?; // compile once, validate many
//!
//! let message = json!({"schema_id": "flight_booking_v1", "payload": {"origin": "PEK"}});
//! let report = schema.validate(&message);
//! assert_eq!(report.normalized().ok_or("invalid")?["passenger_count"], 1);
//!
//! let bad = br#"{"schema_id": "flight_booking_v1", "payload": {"passenger_count": "two"}}"#;
//! let codes: Vec<_> = schema.validate_slice(bad).errors().iter()
//!     .map(|e| (e.code().as_str(), e.path().to_owned())).collect();
//! assert_eq!(codes, [("missing_required_key", "/payload/origin".to_owned()),
//!                    ("type_mismatch", "/payload/passenger_count".to_owned())]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A server agent publishes a [`SchemaTemplate`]: typed, snake_case keys, each
//! with a semantic description a client's LLM maps user intent against. The
//! client sends a [`StructuredPayload`]; the server compiles the template once
//! into a [`CompiledSchema`] and validates every message it receives, getting
//! a [`Report`] with every problem ([`Issue`]: a stable [`IssueCode`], a JSON
//! Pointer, a message) and the payload normalized with defaults, read through
//! to the message rather than copied; or it reads a valid message straight
//! into its own type with [`CompiledSchema::deserialize_slice`].
//!
//! # Modules
//!
//! | module | what it holds | feature |
//! |---|---|---|
//! | [`key`], [`template`] | key names and types, key definitions, templates and their checks | — |
//! | [`payload`], [`negotiate`] | the structured payload and its builder; negotiation and result messages | — |
//! | [`validate`] | [`CompiledSchema`], options and limits, [`Report`] and its [`Normalized`] payload, typed reads (`deserialize_slice`) | — |
//! | [`issue`] | [`Issue`], [`IssueCode`], the problem list behind every report | — |
//! | [`compat`] | compatibility between template versions (backward, forward, full, transitive) | — |
//! | [`export`] | JSON Schema, MCP, strict constrained-decoding and prompt exports | `export` |
//! | [`import`] | templates from JSON Schema and MCP tools, with what they cannot express | `export` |
//! | [`envelope`] | the Universal Schema envelope and its checks | `envelope` |
//! | [`a2a`] | A2A structured fields, agent-card extension, message parts | `a2a` |
//! | [`patch`] | schema patches, per-client schemas, the key lifecycle, [`SchemaStore`] | `patch` |
//! | [`evolution`] | the Differential Semantic Pool and the self-evolution pipeline | `evolution` |
//! | [`_documentation`] | the guides: protocol, interop, patches, evolution, error codes | — |
//!
//! Every feature is on by default; `default-features = false` leaves the
//! model and the validator (no `uuid`, no `time`).
//!
//! # What it does not do
//!
//! No I/O, no transport, no clock and no model (the optional
//! sentence-transformer is the workspace crate `sdsi-model`). It never calls an LLM; the
//! client's mapping of intent to keys is the caller's. Everything that
//! depends on time takes `now` as an argument.

#![cfg_attr(docsrs, feature(doc_cfg))]
// Links to the modules of features left out cannot resolve.
#![cfg_attr(
    not(all(
        feature = "export",
        feature = "envelope",
        feature = "a2a",
        feature = "patch",
        feature = "evolution"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]

pub mod _documentation;
#[cfg(feature = "a2a")]
pub mod a2a;
pub mod compat;
mod digest;
#[cfg(feature = "envelope")]
pub mod envelope;
#[cfg(feature = "evolution")]
pub mod evolution;
#[cfg(feature = "export")]
pub mod export;
mod extra_members;
#[cfg(feature = "export")]
pub mod import;
pub mod issue;
pub mod key;
pub mod negotiate;
#[cfg(feature = "patch")]
pub mod patch;
pub mod payload;
pub mod template;
pub mod validate;

#[cfg(feature = "envelope")]
pub use envelope::Envelope;
pub use issue::{Issue, IssueCode};
pub use key::{KeyDefinition, KeyName, KeyType};
#[cfg(feature = "patch")]
pub use patch::SchemaStore;
pub use payload::StructuredPayload;
pub use template::{SchemaTemplate, TemplateError};
pub use validate::{CompiledSchema, Normalized, Report};
