//! The Universal Schema envelope (v0.1): the eight mandatory fields every
//! agent message carries around its payload, their checks, and the
//! validation of an envelope whose payload is a structured payload.
//!
//! [`Envelope`] holds the eight fields, each with its own type
//! ([`MessageId`], [`ProtocolVersion`], [`Timestamp`], the
//! [`ProtocolMessage`] types); reading one from JSON reports every problem
//! at once ([`EnvelopeReport`], [`EnvelopeError`]) under [`EnvelopeLimits`],
//! and `CompiledSchema::validate_envelope` checks an envelope and the
//! structured payload inside it together.
//!
//! Feature `envelope` (on by default).

mod id;
mod limits;
mod message;
mod message_type;
mod parse;
#[cfg(test)]
mod tests;
mod timestamp;
mod version;

pub use id::{InvalidMessageId, MessageId};
pub use limits::EnvelopeLimits;
pub use message::{BROADCAST, Envelope, MAX_PAYLOAD_OBJECT_NESTING, ReplyToBroadcast};
pub use message_type::ProtocolMessage;
pub use parse::{EnvelopeError, EnvelopeReport};
pub use timestamp::{InvalidTimestamp, Timestamp};
pub use version::{ProtocolVersion, VersionError};
