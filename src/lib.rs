//! Structured data for agent-to-agent messages: schema templates, structured
//! payloads and their validation, per draft-zhou-structured-data-schema-interaction-00.
//!
//! A server agent publishes a [`SchemaTemplate`]: typed, snake_case keys, each
//! with a semantic description a client's LLM maps user intent against. The
//! client sends a [`StructuredPayload`]; the server compiles the template once
//! into a [`CompiledSchema`] and calls [`validate_payload`] on every message,
//! getting a [`Report`] with every problem (stable code, JSON Pointer, message)
//! and the payload normalized with defaults.
//!
//! ```
//! use sdsi::{CompiledSchema, SchemaTemplate, validate_payload};
//! use serde_json::json;
//!
//! let template = SchemaTemplate::from_value(&json!({
//!     "schema_id": "flight_booking_v1",
//!     "scenario": "flight_booking",
//!     "keys": [
//!         {"key_name": "origin", "key_type": "string", "required": true,
//!          "semantic_description": "Departure IATA code. Example: 'from Beijing' -> 'PEK'."},
//!         {"key_name": "passenger_count", "key_type": "integer", "required": false,
//!          "default_value": 1, "semantic_description": "Number of passengers, 1-9."}
//!     ]
//! }))?;
//! let schema = CompiledSchema::new(&template)?;
//!
//! let message = json!({"schema_id": "flight_booking_v1",
//!                      "payload": {"origin": "PEK", "other": "window seat"}});
//! let report = validate_payload(&schema, &message);
//! assert!(report.is_valid());
//! assert_eq!(report.normalized().unwrap()["passenger_count"], 1);
//!
//! let bad = br#"{"schema_id": "flight_booking_v1", "payload": {"passenger_count": "two"}}"#;
//! let report = schema.validate_slice(bad);
//! let codes: Vec<_> = report.errors().iter().map(|e| (e.code().as_str(), e.path())).collect();
//! assert_eq!(codes, [("missing_required_key", "/payload/origin"),
//!                    ("type_mismatch", "/payload/passenger_count")]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What it does not do: no I/O, no transport, no clock and no model. It never
//! calls an LLM; the client's mapping of intent to keys is the caller's.
//! Everything that depends on time takes `now` as an argument.
//!
//! See `docs/guide.md` for the protocol walk-through and the decisions this
//! crate takes where the draft is silent (e.g. `null` on optional keys), and
//! `docs/error-codes.md` for every [`IssueCode`].

mod a2a;
mod builder;
mod bytes;
mod compile;
mod digest;
mod effective;
mod envelope;
mod error;
mod evolution;
mod export;
mod issue;
mod key;
mod lifecycle;
mod metrics;
mod negotiate;
mod patch;
mod payload;
mod security;
mod shape;
mod store;
mod template;
mod validate;

pub use a2a::{
    AgentExtension, AgentSkill, CompiledFields, FIELDS_SCHEMA_ID, FieldDefinition, FieldKind,
    FieldsConversion, JSON_MEDIA_TYPE, SDSI_A2A_EXTENSION_URI, fields_from_template,
    template_from_fields,
};
pub use builder::{BuildError, DEFAULT_CONFIDENCE_THRESHOLD, PayloadBuilder, Placement};
pub use compile::{CompiledSchema, Limits, UnknownKeys, ValidateOptions};
pub use effective::{AllExperimental, CompileError, EffectiveSchema, KeyStates};
pub use envelope::{
    BROADCAST, Envelope, EnvelopeError, EnvelopeReport, InvalidMessageId, InvalidTimestamp,
    MAX_PAYLOAD_OBJECT_NESTING, MessageId, ProtocolMessage, ProtocolVersion, ReplyToBroadcast,
    Timestamp, VersionError,
};
pub use error::TemplateError;
pub use evolution::{
    Branching, ClusterView, Embedder, Evolution, EvolutionConfig, EvolutionEngine, EvolutionEvent,
    Exemplar, HashingEmbedder, Ingested, IntentInducer, MAX_FRAGMENT_CHARS, Pool, PoolConfig,
    PoolError, PoolKey, RuleInducer, Sanitized, dot, sanitize,
};
pub use export::{Export, JSON_SCHEMA_DIALECT};
pub use issue::{Issue, IssueCode};
pub use key::{
    DEPRECATED_MEMBER, EXPERIMENTAL_MEMBER, InvalidKeyName, KeyDefinition, KeyName, KeyType,
    OTHER_KEY, UnknownKeyType,
};
pub use lifecycle::{
    KeyMetrics, KeyRecord, KeyState, Lifecycle, LifecyclePolicy, Thresholds, Transition,
};
pub use negotiate::{
    ExecutionResult, GET_SCHEMA_TEMPLATE, SchemaRequest, SchemaRequestParams,
    SchemaUpdateSuggestion,
};
pub use patch::{PatchError, PatchScope, SchemaPatch};
pub use payload::StructuredPayload;
pub use security::{DenySensitive, PatchAuthorizer, SENSITIVE_MEMBER, Sensitivity};
pub use store::{Evaluation, SchemaStore, Submission};
pub use template::{SchemaTemplate, TemplateCheck};
pub use validate::{Report, validate_payload};

/// The user guide's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide.md")]
struct GuideDoctests;

/// The patches guide's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/patches.md")]
struct PatchesDoctests;

/// The evolution guide's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/evolution.md")]
struct EvolutionDoctests;
