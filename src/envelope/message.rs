//! `Envelope`: the eight fields, building one and replying to one.

use indexmap::IndexMap;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::id::MessageId;
use super::message_type::ProtocolMessage;
use super::timestamp::Timestamp;
use super::version::ProtocolVersion;
use crate::payload::message::StructuredPayload;

/// The `target_agent` that addresses a broadcast router instead of one agent.
pub const BROADCAST: &str = "broadcast";

/// The eight mandatory fields, in the order the envelope document lists them.
pub(crate) const FIELDS: [&str; 8] = [
    "id",
    "protocol_version",
    "timestamp",
    "agent_id",
    "target_agent",
    "message_type",
    "capabilities",
    "payload",
];

/// Objects may nest this many levels inside `payload` before
/// [`PayloadTooDeep`](crate::IssueCode::PayloadTooDeep) is reported (the envelope document's
/// recommendation: "avoid nested objects more than 2 levels deep").
pub const MAX_PAYLOAD_OBJECT_NESTING: usize = 2;

/// A Universal Schema message (v0.1): the eight mandatory fields around a
/// payload object.
///
/// Every field's type checks its own rules (a version 4 id, a supported
/// version, an RFC 3339 timestamp), so a value of this type is always a valid
/// envelope; it may still carry the document's *recommendations* as
/// [`Envelope::warnings`]. Read one from the wire with [`Envelope::parse`]
/// (every problem, with JSON Pointers) or plain serde.
///
/// ```
/// use sdsi::Envelope;
/// use sdsi::envelope::{MessageId, Timestamp};
/// use serde_json::json;
///
/// let now: Timestamp = "2025-11-21T20:45:00Z".parse()?;
/// let query = Envelope::new(
///     "550e8400-e29b-41d4-a716-446655440000".parse()?,
///     now, "diana", "hairvault", "inventory_query",
///     json!({"product": "olaplex"}).as_object().cloned().unwrap_or_default(),
/// ).with_capabilities(["inventory.read"]);
///
/// let answer = query.reply(
///     MessageId::from_random_bytes([42; 16]),
///     "2025-11-21T20:45:01Z".parse()?,
///     "inventory_response",
///     json!({"product": "olaplex", "stock": 14}).as_object().cloned().unwrap_or_default(),
/// )?;
/// assert_eq!((answer.agent_id.as_str(), answer.target_agent.as_str()), ("hairvault", "diana"));
///
/// let report = Envelope::parse(&serde_json::to_value(&answer)?);
/// assert!(report.is_valid() && report.warnings().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Envelope {
    /// Unique message id, a version 4 UUID (for logging, retries, tracing).
    pub id: MessageId,
    /// The Universal Schema version the message follows.
    pub protocol_version: ProtocolVersion,
    /// When the message was generated.
    pub timestamp: Timestamp,
    /// The sending agent: a name, slug or internal id.
    pub agent_id: String,
    /// The receiving agent, or [`BROADCAST`] for a broadcast router.
    pub target_agent: String,
    /// The message's category, e.g. `inventory_query`; see [`ProtocolMessage`]
    /// for the names this crate uses.
    pub message_type: String,
    /// Capabilities the sender expects the receiver to have; may be empty.
    pub capabilities: Vec<String>,
    /// The payload object; its content depends on `message_type`.
    pub payload: Map<String, Value>,
    /// Members beside the eight fields, kept so that a round trip loses
    /// nothing. Members named like one of the eight fields are not written.
    pub extra: IndexMap<String, Value>,
}

/// The error of [`Envelope::reply`] on a broadcast message, which has no
/// single receiver to become the reply's sender: use [`Envelope::reply_as`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a broadcast message has no single receiver to reply as; use reply_as")]
pub struct ReplyToBroadcast;

impl Envelope {
    /// A message from `agent_id` to `target_agent`, written now, with the
    /// crate's protocol version ([`ProtocolVersion::CURRENT`]) and no
    /// capabilities. `now` is converted to UTC.
    pub fn new(
        id: MessageId,
        now: Timestamp,
        agent_id: impl Into<String>,
        target_agent: impl Into<String>,
        message_type: impl Into<String>,
        payload: Map<String, Value>,
    ) -> Self {
        Self {
            id,
            protocol_version: ProtocolVersion::CURRENT,
            timestamp: now.to_utc(),
            agent_id: agent_id.into(),
            target_agent: target_agent.into(),
            message_type: message_type.into(),
            capabilities: Vec::new(),
            payload,
            extra: IndexMap::new(),
        }
    }

    /// A `structured_payload` message carrying `message` (`{"schema_id", "payload"}`).
    pub fn structured(
        id: MessageId,
        now: Timestamp,
        agent_id: impl Into<String>,
        target_agent: impl Into<String>,
        message: &StructuredPayload,
    ) -> Self {
        let payload = match message.to_value() {
            Value::Object(object) => object,
            _ => Map::new(),
        };
        Self::new(
            id,
            now,
            agent_id,
            target_agent,
            ProtocolMessage::StructuredPayload.as_str(),
            payload,
        )
    }

    /// Sets the capabilities, returning the envelope for chaining.
    pub fn with_capabilities<I, S>(mut self, capabilities: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.capabilities = capabilities.into_iter().map(Into::into).collect();
        self
    }

    /// The answer to this message: sender and target swapped, the same
    /// capabilities, the crate's protocol version, `now` in UTC.
    ///
    /// Fails on a broadcast message, whose target is no agent; answer it
    /// with [`Envelope::reply_as`].
    pub fn reply(
        &self,
        id: MessageId,
        now: Timestamp,
        message_type: impl Into<String>,
        payload: Map<String, Value>,
    ) -> Result<Self, ReplyToBroadcast> {
        if self.is_broadcast() {
            return Err(ReplyToBroadcast);
        }
        Ok(self.reply_as(self.target_agent.clone(), id, now, message_type, payload))
    }

    /// The answer to this message sent by `responder` (for a broadcast, the
    /// agent that picked it up), addressed to this message's sender.
    pub fn reply_as(
        &self,
        responder: impl Into<String>,
        id: MessageId,
        now: Timestamp,
        message_type: impl Into<String>,
        payload: Map<String, Value>,
    ) -> Self {
        Self::new(
            id,
            now,
            responder,
            self.agent_id.clone(),
            message_type,
            payload,
        )
        .with_capabilities(self.capabilities.iter().cloned())
    }

    /// Whether the message goes to a broadcast router (`target_agent` is `"broadcast"`).
    pub fn is_broadcast(&self) -> bool {
        self.target_agent == BROADCAST
    }

    /// The protocol message `message_type` names, if it is one of the crate's.
    pub fn protocol_message(&self) -> Option<ProtocolMessage> {
        ProtocolMessage::from_message_type(&self.message_type)
    }

    /// The envelope as a JSON value.
    pub fn to_value(&self) -> Value {
        // Serializing strings, numbers and maps of JSON values cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for Envelope {
    /// The eight fields in the document's order, then the extra members
    /// (those named like a field are skipped, so the output has no repeats).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("protocol_version", &self.protocol_version)?;
        map.serialize_entry("timestamp", &self.timestamp)?;
        map.serialize_entry("agent_id", &self.agent_id)?;
        map.serialize_entry("target_agent", &self.target_agent)?;
        map.serialize_entry("message_type", &self.message_type)?;
        map.serialize_entry("capabilities", &self.capabilities)?;
        map.serialize_entry("payload", &self.payload)?;
        for (name, value) in &self.extra {
            if !FIELDS.contains(&name.as_str()) {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Envelope {
    /// Deserializes through [`Envelope::from_value`]; the error lists every problem.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(&value).map_err(serde::de::Error::custom)
    }
}
