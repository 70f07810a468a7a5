//! The Universal Schema envelope (v0.1): the eight mandatory fields every
//! agent message carries around its payload, their checks, and the
//! validation of an envelope whose payload is a structured payload.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use indexmap::IndexMap;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};
use uuid::Uuid;

use crate::validate::CompiledSchema;
use crate::issue::{Issue, IssueCode, pointer};
use crate::key::is_snake_case;
use crate::payload::StructuredPayload;

/// The `target_agent` that addresses a broadcast router instead of one agent.
pub const BROADCAST: &str = "broadcast";

/// The eight mandatory fields, in the order the envelope document lists them.
const FIELDS: [&str; 8] = [
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
/// [`IssueCode::PayloadTooDeep`] is reported (the envelope document's
/// recommendation: "avoid nested objects more than 2 levels deep").
pub const MAX_PAYLOAD_OBJECT_NESTING: usize = 2;

// ---------------------------------------------------------------------------
// Message id
// ---------------------------------------------------------------------------

/// An envelope's `id`: a UUID of version 4 and of the RFC 4122 (RFC 9562)
/// variant, written in the hyphenated form `8-4-4-4-12` (either case).
///
/// The crate generates no randomness: take the id from your own generator,
/// either as 16 random bytes ([`MessageId::from_random_bytes`] sets the
/// version and variant bits) or as a [`Uuid`] (e.g. `Uuid::new_v4()` with
/// uuid's `v4` feature).
///
/// ```
/// use sdsi::MessageId;
/// let id: MessageId = "550e8400-e29b-41d4-a716-446655440000".parse()?;
/// assert_eq!(id.to_string(), "550e8400-e29b-41d4-a716-446655440000");
/// assert!("550e8400-e29b-11d4-a716-446655440000".parse::<MessageId>().is_err()); // version 1
/// let fresh = MessageId::from_random_bytes([7; 16]);
/// assert_eq!(fresh.as_uuid().get_version_num(), 4);
/// # Ok::<(), sdsi::InvalidMessageId>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MessageId(Uuid);

/// Why a string or a [`Uuid`] is not a valid envelope `id`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidMessageId {
    /// The text is not a hyphenated UUID.
    #[error("{text:?} is not a uuid in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")]
    NotAUuid {
        /// The rejected text.
        text: String,
    },
    /// The UUID is not of version 4.
    #[error("uuid {uuid} is of version {version}, not version 4")]
    NotVersion4 {
        /// The UUID.
        uuid: Uuid,
        /// Its version number.
        version: usize,
    },
    /// The UUID's variant is not the RFC 4122 one.
    #[error("uuid {uuid} is not of the rfc 4122 variant")]
    NotRfc4122Variant {
        /// The UUID.
        uuid: Uuid,
    },
}

impl MessageId {
    /// Checks that `uuid` is of version 4 and the RFC 4122 variant.
    pub fn new(uuid: Uuid) -> Result<Self, InvalidMessageId> {
        if uuid.get_version_num() != 4 {
            return Err(InvalidMessageId::NotVersion4 {
                uuid,
                version: uuid.get_version_num(),
            });
        }
        if uuid.get_variant() != uuid::Variant::RFC4122 {
            return Err(InvalidMessageId::NotRfc4122Variant { uuid });
        }
        Ok(Self(uuid))
    }

    /// A version 4 id from 16 random bytes of the caller's; the version and
    /// variant bits are set, so any bytes give a valid id.
    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        Self(uuid::Builder::from_random_bytes(bytes).into_uuid())
    }

    /// The id as a [`Uuid`].
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl FromStr for MessageId {
    type Err = InvalidMessageId;

    /// Accepts only the hyphenated form (36 characters), in either case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let not_a_uuid = || InvalidMessageId::NotAUuid {
            text: text.to_owned(),
        };
        // Only the hyphenated form is 36 characters long; uuid also parses
        // the simple, braced and urn forms, which the envelope does not allow.
        if text.len() != 36 {
            return Err(not_a_uuid());
        }
        let uuid = Uuid::try_parse(text).map_err(|_| not_a_uuid())?;
        Self::new(uuid)
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl fmt::Debug for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MessageId({self})")
    }
}

impl Serialize for MessageId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MessageId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------
// Protocol version
// ---------------------------------------------------------------------------

/// An envelope's `protocol_version`: `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`
/// (decimal numbers without leading zeros), of a major version this crate
/// speaks.
///
/// The crate speaks major version 0 (the document is v0.1). Following the
/// envelope's versioning rules (breaking changes bump the major, additions
/// the minor), any minor of a known major is accepted: `0.2` is, `1.0` is not.
///
/// ```
/// use sdsi::ProtocolVersion;
/// let v: ProtocolVersion = "0.3".parse()?;
/// assert_eq!((v.major(), v.minor()), (0, 3));
/// assert_eq!(ProtocolVersion::CURRENT.to_string(), "0.1");
/// assert!("1.0".parse::<ProtocolVersion>().is_err());
/// # Ok::<(), sdsi::VersionError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProtocolVersion {
    major: u64,
    minor: u64,
    patch: Option<u64>,
}

/// Why a `protocol_version` is not one this crate speaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VersionError {
    /// The text is not `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`.
    #[error("protocol version {text:?} is not of the form MAJOR.MINOR")]
    Malformed {
        /// The rejected text.
        text: String,
    },
    /// The major version is not one this crate speaks.
    #[error(
        "protocol version {text:?} has major version {major}; this crate speaks major version 0"
    )]
    UnsupportedMajor {
        /// The rejected text.
        text: String,
        /// Its major version.
        major: u64,
    },
}

impl ProtocolVersion {
    /// The version this crate writes: `0.1`.
    pub const CURRENT: ProtocolVersion = ProtocolVersion {
        major: 0,
        minor: 1,
        patch: None,
    };

    /// The major versions this crate speaks.
    pub const SUPPORTED_MAJORS: [u64; 1] = [0];

    /// `MAJOR.MINOR`, if the major version is supported.
    pub fn new(major: u64, minor: u64) -> Result<Self, VersionError> {
        let version = Self {
            major,
            minor,
            patch: None,
        };
        version.check(|| version.to_string())
    }

    fn check(self, text: impl FnOnce() -> String) -> Result<Self, VersionError> {
        if Self::SUPPORTED_MAJORS.contains(&self.major) {
            Ok(self)
        } else {
            Err(VersionError::UnsupportedMajor {
                text: text(),
                major: self.major,
            })
        }
    }

    /// The major version.
    pub fn major(&self) -> u64 {
        self.major
    }

    /// The minor version.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// The patch version, when the text had one.
    pub fn patch(&self) -> Option<u64> {
        self.patch
    }
}

/// A decimal number without leading zeros.
fn version_number(text: &str) -> Option<u64> {
    let well_formed = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if well_formed { text.parse().ok() } else { None }
}

impl FromStr for ProtocolVersion {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || VersionError::Malformed {
            text: text.to_owned(),
        };
        let mut parts = text.split('.');
        let major = parts
            .next()
            .and_then(version_number)
            .ok_or_else(malformed)?;
        let minor = parts
            .next()
            .and_then(version_number)
            .ok_or_else(malformed)?;
        let patch = match parts.next() {
            None => None,
            Some(p) => Some(version_number(p).ok_or_else(malformed)?),
        };
        if parts.next().is_some() {
            return Err(malformed());
        }
        Self {
            major,
            minor,
            patch,
        }
        .check(|| text.to_owned())
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        if let Some(patch) = self.patch {
            write!(f, ".{patch}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProtocolVersion({self})")
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------
// Timestamp
// ---------------------------------------------------------------------------

/// An envelope's `timestamp`: an RFC 3339 date-time (the ISO 8601 profile
/// with a UTC offset), representable in RFC 3339 both as written and in UTC
/// (years 0000 to 9999, an offset of whole minutes).
///
/// The document asks for UTC; another offset is accepted with the warning
/// [`IssueCode::NonUtcTimestamp`]. The crate reads no clock: pass `now` in.
/// Two timestamps are equal when they name the same instant, whatever their
/// offsets; the offset is kept and written back.
///
/// ```
/// use sdsi::Timestamp;
/// let t: Timestamp = "2025-11-21T20:45:00Z".parse()?;
/// assert!(t.is_utc());
/// let local: Timestamp = "2025-11-22T04:45:00+08:00".parse()?;
/// assert!(!local.is_utc());
/// assert_eq!(local.to_utc(), t);
/// let now = Timestamp::try_from(std::time::SystemTime::now())?;
/// assert!(now.is_utc());
/// # Ok::<(), sdsi::InvalidTimestamp>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timestamp(OffsetDateTime);

/// Why a string or a date-time is not a valid envelope `timestamp`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidTimestamp {
    /// The text is not an RFC 3339 date-time with an offset.
    #[error(
        "{text:?} is not an rfc 3339 date-time with a utc offset, e.g. 2025-11-21T20:45:00Z ({reason})"
    )]
    Unparseable {
        /// The rejected text.
        text: String,
        /// What the parser found wrong.
        reason: String,
    },
    /// The date-time falls outside the years 0000-9999 (as written or in UTC).
    #[error("date-time is outside the years 0000-9999 that rfc 3339 can write")]
    OutOfRange,
    /// The offset has a seconds component, which RFC 3339 cannot write.
    #[error("utc offset {offset} has seconds, which rfc 3339 cannot write")]
    OffsetSeconds {
        /// The offset.
        offset: String,
    },
}

impl Timestamp {
    /// Wraps `date_time`, keeping its offset.
    pub fn new(date_time: OffsetDateTime) -> Result<Self, InvalidTimestamp> {
        let offset = date_time.offset();
        if offset.seconds_past_minute() != 0 {
            return Err(InvalidTimestamp::OffsetSeconds {
                offset: format!("{offset:?}"),
            });
        }
        let in_range = |t: &OffsetDateTime| (0..=9999).contains(&t.year());
        let utc = date_time
            .checked_to_offset(UtcOffset::UTC)
            .ok_or(InvalidTimestamp::OutOfRange)?;
        if in_range(&date_time) && in_range(&utc) {
            Ok(Self(date_time))
        } else {
            Err(InvalidTimestamp::OutOfRange)
        }
    }

    /// `date_time` converted to UTC: what [`Envelope::new`] and
    /// [`Envelope::reply`] want for `now`.
    pub fn utc(date_time: OffsetDateTime) -> Result<Self, InvalidTimestamp> {
        Self::new(date_time).map(|t| t.to_utc())
    }

    /// Parses RFC 3339 text (`T` or a space between date and time, `Z` or
    /// `±hh:mm`; a leap second `:60` is read as the last nanosecond of the minute).
    pub fn parse(text: &str) -> Result<Self, InvalidTimestamp> {
        let date_time =
            OffsetDateTime::parse(text, &Rfc3339).map_err(|e| InvalidTimestamp::Unparseable {
                text: text.to_owned(),
                reason: e.to_string(),
            })?;
        Self::new(date_time)
    }

    /// Whether the offset is zero (`Z`, `+00:00` or `-00:00`).
    pub fn is_utc(&self) -> bool {
        self.0.offset().is_utc()
    }

    /// The same instant in UTC.
    pub fn to_utc(&self) -> Self {
        // `new` checked that the UTC form exists and is in range.
        Self(self.0.checked_to_offset(UtcOffset::UTC).unwrap_or(self.0))
    }

    /// The date-time, with its offset.
    pub fn as_offset_date_time(&self) -> OffsetDateTime {
        self.0
    }
}

impl TryFrom<OffsetDateTime> for Timestamp {
    type Error = InvalidTimestamp;

    /// Same as [`Timestamp::new`]: the offset is kept.
    fn try_from(date_time: OffsetDateTime) -> Result<Self, Self::Error> {
        Self::new(date_time)
    }
}

impl TryFrom<SystemTime> for Timestamp {
    type Error = InvalidTimestamp;

    /// The instant in UTC; fails only outside the years 0000-9999.
    fn try_from(time: SystemTime) -> Result<Self, Self::Error> {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i128::try_from(after.as_nanos()).ok(),
            Err(before) => i128::try_from(before.duration().as_nanos())
                .ok()
                .map(|n| -n),
        };
        let date_time = nanos
            .and_then(|n| OffsetDateTime::from_unix_timestamp_nanos(n).ok())
            .ok_or(InvalidTimestamp::OutOfRange)?;
        Self::new(date_time)
    }
}

impl FromStr for Timestamp {
    type Err = InvalidTimestamp;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Cannot fail: `new` keeps years and offsets RFC 3339 can write.
        match self.0.format(&Rfc3339) {
            Ok(text) => f.write_str(&text),
            Err(_) => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------
// The protocol's message types
// ---------------------------------------------------------------------------

/// The `message_type` names this crate uses for the protocol's own messages
/// (draft §3.2) when they travel in an envelope.
///
/// | message | `message_type` | payload |
/// |---|---|---|
/// | schema request (step 3) | `schema_request` | a [`crate::SchemaRequest`] |
/// | schema template (step 3, answer) | `schema_template` | a [`crate::SchemaTemplate`] |
/// | structured payload (step 4) | `structured_payload` | a [`StructuredPayload`] `{"schema_id", "payload"}` |
/// | execution result (step 5) | `execution_result` | a [`crate::ExecutionResult`] |
/// | schema update (step 6) | `schema_update` | a [`crate::SchemaUpdateSuggestion`] |
///
/// Any other `message_type` is allowed in an envelope; these are the names
/// the crate writes and recognizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProtocolMessage {
    /// `schema_request`: the client asks for a scenario's template.
    SchemaRequest,
    /// `schema_template`: the server answers with the template.
    SchemaTemplate,
    /// `structured_payload`: the client sends `{"schema_id", "payload"}`.
    StructuredPayload,
    /// `execution_result`: the server's result.
    ExecutionResult,
    /// `schema_update`: a schema update suggestion on its own.
    SchemaUpdate,
}

impl ProtocolMessage {
    /// Every protocol message, in the order of the message flow.
    pub const ALL: [ProtocolMessage; 5] = [
        ProtocolMessage::SchemaRequest,
        ProtocolMessage::SchemaTemplate,
        ProtocolMessage::StructuredPayload,
        ProtocolMessage::ExecutionResult,
        ProtocolMessage::SchemaUpdate,
    ];

    /// The `message_type` string.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolMessage::SchemaRequest => "schema_request",
            ProtocolMessage::SchemaTemplate => "schema_template",
            ProtocolMessage::StructuredPayload => "structured_payload",
            ProtocolMessage::ExecutionResult => "execution_result",
            ProtocolMessage::SchemaUpdate => "schema_update",
        }
    }

    /// The protocol message a `message_type` names, if any.
    pub fn from_message_type(message_type: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == message_type)
    }
}

impl fmt::Display for ProtocolMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------

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
/// use sdsi::{Envelope, MessageId, Timestamp};
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

    /// The envelope document's recommendations this envelope does not follow:
    /// [`IssueCode::NonUtcTimestamp`], [`IssueCode::PayloadKeyNotSnakeCase`],
    /// [`IssueCode::PayloadTooDeep`], ordered by path.
    pub fn warnings(&self) -> Vec<Issue> {
        let mut warnings = Vec::new();
        if !self.timestamp.is_utc() {
            warnings.push(non_utc(&self.timestamp));
        }
        payload_warnings(&self.payload, &mut warnings);
        sort_by_path(&mut warnings);
        warnings
    }

    /// The envelope as a JSON value.
    pub fn to_value(&self) -> Value {
        // Serializing strings, numbers and maps of JSON values cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Checks a parsed JSON value: every error and warning, with JSON
    /// Pointers from the envelope's root, and the typed envelope when valid.
    pub fn parse(value: &Value) -> EnvelopeReport {
        let (mut errors, mut warnings, envelope) = parse_value(value);
        sort_by_path(&mut errors);
        sort_by_path(&mut warnings);
        EnvelopeReport {
            errors,
            warnings,
            envelope,
            normalized: None,
            structured: false,
        }
    }

    /// Checks JSON text; text that is not JSON gives `invalid_json` at `""`.
    pub fn parse_slice(bytes: &[u8]) -> EnvelopeReport {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => Self::parse(&value),
            Err(error) => EnvelopeReport::single(invalid_json(&error), false),
        }
    }

    /// Checks JSON text, as [`Envelope::parse_slice`].
    pub fn parse_str(text: &str) -> EnvelopeReport {
        Self::parse_slice(text.as_bytes())
    }

    /// The envelope in `value`, or every error (warnings are dropped: use
    /// [`Envelope::parse`] to see them).
    pub fn from_value(value: &Value) -> Result<Self, EnvelopeError> {
        let (mut errors, _, envelope) = parse_value(value);
        match envelope {
            Some(envelope) => Ok(envelope),
            None => {
                sort_by_path(&mut errors);
                Err(EnvelopeError { errors })
            }
        }
    }

    /// The envelope in JSON text, or every error.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, EnvelopeError> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => Self::from_value(&value),
            Err(error) => Err(EnvelopeError {
                errors: vec![invalid_json(&error)],
            }),
        }
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

/// An envelope that cannot be used: every problem found.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeError {
    errors: Vec<Issue>,
}

impl EnvelopeError {
    /// The problems, ordered by path.
    pub fn errors(&self) -> &[Issue] {
        &self.errors
    }
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "invalid envelope ({n} problem{})",
            if n == 1 { "" } else { "s" }
        )?;
        for issue in &self.errors {
            write!(f, "; {issue}")?;
        }
        Ok(())
    }
}

impl std::error::Error for EnvelopeError {}

/// The result of checking an envelope: every error and warning, with JSON
/// Pointers from the envelope's root, and the typed envelope when valid.
///
/// Serializes as `{"valid", "errors", "warnings"}`; a report from
/// [`CompiledSchema::validate_envelope`] adds `"normalized"` (the structured
/// payload's normalized payload, `null` when invalid).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeReport {
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
    envelope: Option<Envelope>,
    normalized: Option<Map<String, Value>>,
    /// Whether a structured payload was validated (adds `normalized`).
    structured: bool,
}

impl EnvelopeReport {
    fn single(issue: Issue, structured: bool) -> Self {
        Self {
            errors: vec![issue],
            warnings: Vec::new(),
            envelope: None,
            normalized: None,
            structured,
        }
    }

    /// Whether there are no errors (warnings do not count).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Every error, ordered by path.
    pub fn errors(&self) -> &[Issue] {
        &self.errors
    }

    /// Every warning, ordered by path.
    pub fn warnings(&self) -> &[Issue] {
        &self.warnings
    }

    /// The typed envelope, when the envelope layer is valid. (With
    /// [`CompiledSchema::validate_envelope`], only when both layers are.)
    pub fn envelope(&self) -> Option<&Envelope> {
        self.envelope.as_ref()
    }

    /// Takes the typed envelope out of the report.
    pub fn into_envelope(self) -> Option<Envelope> {
        self.envelope
    }

    /// The structured payload's normalized payload (defaults applied), when
    /// the report comes from [`CompiledSchema::validate_envelope`] and both
    /// layers are valid.
    pub fn normalized(&self) -> Option<&Map<String, Value>> {
        self.normalized.as_ref()
    }
}

impl Serialize for EnvelopeReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("valid", &self.is_valid())?;
        map.serialize_entry("errors", &self.errors)?;
        map.serialize_entry("warnings", &self.warnings)?;
        if self.structured {
            map.serialize_entry("normalized", &self.normalized)?;
        }
        map.end()
    }
}

impl CompiledSchema {
    /// Validates an envelope whose payload is a structured payload
    /// `{"schema_id", "payload"}` for this schema: both layers are checked
    /// and reported together, with paths from the envelope's root (a
    /// payload problem at `/payload/origin` in the structured payload is
    /// reported at `/payload/payload/origin`).
    ///
    /// The structured payload is validated whenever the envelope's `payload`
    /// is an object, even if the envelope layer has errors. `message_type`
    /// is not required to be `structured_payload`.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
    ///               "semantic_description": "Cup size: small, medium, large."}]
    /// }))?;
    /// let schema = CompiledSchema::new(&template)?;
    /// let report = schema.validate_envelope(&json!({
    ///     "id": "not-a-uuid", "protocol_version": "0.1", "timestamp": "2026-05-04T09:00:00Z",
    ///     "agent_id": "client", "target_agent": "barista", "message_type": "structured_payload",
    ///     "capabilities": [], "payload": {"schema_id": "coffee_v1", "payload": {"size": 3}}
    /// }));
    /// let codes: Vec<_> = report.errors().iter().map(|e| (e.code().as_str(), e.path())).collect();
    /// assert_eq!(codes, [("invalid_uuid", "/id"), ("type_mismatch", "/payload/payload/size")]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate_envelope(&self, message: &Value) -> EnvelopeReport {
        let (mut errors, mut warnings, envelope) = parse_value(message);
        let mut normalized = None;
        if let Some(payload) = message.get("payload").filter(|p| p.is_object()) {
            let report = self.validate(payload);
            errors.extend(report.errors().iter().map(|i| i.prefixed("/payload")));
            warnings.extend(report.warnings().iter().map(|i| i.prefixed("/payload")));
            normalized = report.into_normalized();
        }
        sort_by_path(&mut errors);
        sort_by_path(&mut warnings);
        let valid = errors.is_empty();
        EnvelopeReport {
            errors,
            warnings,
            envelope: envelope.filter(|_| valid),
            normalized: normalized.filter(|_| valid),
            structured: true,
        }
    }

    /// Validates envelope JSON text as [`CompiledSchema::validate_envelope`];
    /// text that is not JSON gives `invalid_json`, text over
    /// [`crate::Limits::max_bytes`] gives `limit_exceeded`, both at `""`.
    pub fn validate_envelope_slice(&self, bytes: &[u8]) -> EnvelopeReport {
        let max = self.options().limits.max_bytes;
        if bytes.len() > max {
            return EnvelopeReport::single(
                Issue::limit("", "input size in bytes", max as u64),
                true,
            );
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => self.validate_envelope(&value),
            Err(error) => EnvelopeReport::single(invalid_json(&error), true),
        }
    }
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

fn invalid_json(error: &serde_json::Error) -> Issue {
    Issue::owned(IssueCode::InvalidJson, "", error.to_string())
}

fn sort_by_path(issues: &mut [Issue]) {
    issues.sort_by(|a, b| a.path().cmp(b.path()));
}

/// The JSON type of `value`, as named in messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn wrong_type(field: &str, expected: &str, found: &Value) -> Issue {
    Issue::owned(
        IssueCode::WrongType,
        pointer("", field),
        format!("expected {expected}, found {}", kind(found)),
    )
}

fn non_utc(timestamp: &Timestamp) -> Issue {
    Issue::owned(
        IssueCode::NonUtcTimestamp,
        "/timestamp",
        format!(
            "timestamp has utc offset {}; the envelope asks for utc (Z)",
            offset_text(timestamp.as_offset_date_time().offset())
        ),
    )
}

fn offset_text(offset: UtcOffset) -> String {
    let (h, m, _) = offset.as_hms();
    let sign = if offset.is_negative() { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", h.unsigned_abs(), m.unsigned_abs())
}

/// A string field: `None` (with an error) when absent or not a string.
fn string_field<'v>(
    object: &'v Map<String, Value>,
    field: &str,
    errors: &mut Vec<Issue>,
) -> Option<&'v str> {
    match object.get(field) {
        None => {
            errors.push(missing(field));
            None
        }
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            errors.push(wrong_type(field, "string", other));
            None
        }
    }
}

fn missing(field: &str) -> Issue {
    Issue::owned(
        IssueCode::MissingField,
        pointer("", field),
        format!("mandatory field {field:?} is missing"),
    )
}

/// Parses every field of `value`, collecting errors and warnings (unsorted).
fn parse_value(value: &Value) -> (Vec<Issue>, Vec<Issue>, Option<Envelope>) {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let Some(object) = value.as_object() else {
        errors.push(Issue::fixed(
            IssueCode::NotAnObject,
            "",
            "an envelope must be a JSON object",
        ));
        return (errors, warnings, None);
    };

    let id = string_field(object, "id", &mut errors).and_then(|text| {
        text.parse::<MessageId>()
            .map_err(|e| errors.push(Issue::owned(IssueCode::InvalidUuid, "/id", e.to_string())))
            .ok()
    });
    let protocol_version = string_field(object, "protocol_version", &mut errors).and_then(|text| {
        text.parse::<ProtocolVersion>()
            .map_err(|e| {
                errors.push(Issue::owned(
                    IssueCode::UnsupportedVersion,
                    "/protocol_version",
                    e.to_string(),
                ))
            })
            .ok()
    });
    let timestamp = string_field(object, "timestamp", &mut errors).and_then(|text| {
        text.parse::<Timestamp>()
            .map_err(|e| {
                errors.push(Issue::owned(
                    IssueCode::InvalidTimestamp,
                    "/timestamp",
                    e.to_string(),
                ))
            })
            .ok()
    });
    if let Some(timestamp) = &timestamp {
        if !timestamp.is_utc() {
            warnings.push(non_utc(timestamp));
        }
    }
    let agent_id = string_field(object, "agent_id", &mut errors);
    let target_agent = string_field(object, "target_agent", &mut errors);
    let message_type = string_field(object, "message_type", &mut errors);

    let capabilities = match object.get("capabilities") {
        None => {
            errors.push(missing("capabilities"));
            None
        }
        Some(Value::Array(items)) => {
            let mut strings = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => strings.push(s.clone()),
                    other => errors.push(Issue::owned(
                        IssueCode::CapabilitiesNotStrings,
                        format!("/capabilities/{index}"),
                        format!("a capability must be a string, found {}", kind(other)),
                    )),
                }
            }
            (strings.len() == items.len()).then_some(strings)
        }
        Some(other) => {
            errors.push(wrong_type("capabilities", "an array of strings", other));
            None
        }
    };

    let payload = match object.get("payload") {
        None => {
            errors.push(missing("payload"));
            None
        }
        Some(Value::Object(payload)) => {
            payload_warnings(payload, &mut warnings);
            Some(payload)
        }
        Some(other) => {
            errors.push(Issue::owned(
                IssueCode::PayloadNotObject,
                "/payload",
                format!("payload must be a JSON object, found {}", kind(other)),
            ));
            None
        }
    };

    let envelope = match (
        id,
        protocol_version,
        timestamp,
        agent_id,
        target_agent,
        message_type,
        capabilities,
        payload,
    ) {
        (
            Some(id),
            Some(protocol_version),
            Some(timestamp),
            Some(agent_id),
            Some(target_agent),
            Some(message_type),
            Some(capabilities),
            Some(payload),
        ) if errors.is_empty() => Some(Envelope {
            id,
            protocol_version,
            timestamp,
            agent_id: agent_id.to_owned(),
            target_agent: target_agent.to_owned(),
            message_type: message_type.to_owned(),
            capabilities,
            payload: payload.clone(),
            extra: object
                .iter()
                .filter(|(name, _)| !FIELDS.contains(&name.as_str()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        }),
        _ => None,
    };
    (errors, warnings, envelope)
}

/// The payload recommendations: snake_case keys at every level, objects
/// nested at most [`MAX_PAYLOAD_OBJECT_NESTING`] levels inside the payload
/// (arrays add no level). Walks without recursion, so a deep value built in
/// code cannot overflow the stack.
fn payload_warnings(payload: &Map<String, Value>, warnings: &mut Vec<Issue>) {
    // (value, its path, how many objects enclose it inside the payload,
    // whether a too-deep ancestor was already reported)
    let mut stack: Vec<(&Value, String, usize, bool)> = Vec::new();
    push_members(payload, "/payload", 0, false, &mut stack, warnings);
    while let Some((value, path, level, reported)) = stack.pop() {
        match value {
            Value::Object(object) => {
                let depth = level + 1;
                let too_deep = depth > MAX_PAYLOAD_OBJECT_NESTING && !reported;
                if too_deep {
                    warnings.push(Issue::owned(
                        IssueCode::PayloadTooDeep,
                        path.clone(),
                        format!(
                            "object nested {depth} levels inside the payload; the envelope recommends at most {MAX_PAYLOAD_OBJECT_NESTING}"
                        ),
                    ));
                }
                push_members(
                    object,
                    &path,
                    depth,
                    reported || too_deep,
                    &mut stack,
                    warnings,
                );
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((item, format!("{path}/{index}"), level, reported));
                }
            }
            _ => {}
        }
    }
}

/// Checks the names of `object`'s members and pushes them on `stack`, last
/// first, so that they are visited in document order.
fn push_members<'v>(
    object: &'v Map<String, Value>,
    path: &str,
    level: usize,
    reported: bool,
    stack: &mut Vec<(&'v Value, String, usize, bool)>,
    warnings: &mut Vec<Issue>,
) {
    let start = stack.len();
    for (name, value) in object {
        let member_path = pointer(path, name);
        if !is_snake_case(name) {
            warnings.push(Issue::owned(
                IssueCode::PayloadKeyNotSnakeCase,
                member_path.clone(),
                format!("payload key {name:?} is not snake_case"),
            ));
        }
        stack.push((value, member_path, level, reported));
    }
    if let Some(pushed) = stack.get_mut(start..) {
        pushed.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn example() -> Value {
        json!({
            "id": "550e8400-e29b-41d4-a716-446655440000",
            "protocol_version": "0.1",
            "timestamp": "2025-11-21T20:45:00Z",
            "agent_id": "diana",
            "target_agent": "hairvault",
            "message_type": "inventory_query",
            "capabilities": ["inventory.read"],
            "payload": {"product": "olaplex"}
        })
    }

    fn codes(issues: &[Issue]) -> Vec<(&'static str, String)> {
        issues
            .iter()
            .map(|i| (i.code().as_str(), i.path().to_owned()))
            .collect()
    }

    #[test]
    fn the_document_example_parses_and_round_trips() {
        let report = Envelope::parse(&example());
        assert!(report.is_valid(), "{:?}", report.errors());
        assert!(report.warnings().is_empty());
        let envelope = report.into_envelope().unwrap();
        assert_eq!(envelope.to_value(), example());
    }

    #[test]
    fn every_error_is_reported_at_once() {
        let value = json!({
            "id": 7, "protocol_version": "2.0", "timestamp": "yesterday",
            "target_agent": null, "message_type": "x",
            "capabilities": ["a", 1, {}], "payload": []
        });
        let report = Envelope::parse(&value);
        assert_eq!(
            codes(report.errors()),
            vec![
                ("missing_field", "/agent_id".to_owned()),
                ("capabilities_not_strings", "/capabilities/1".to_owned()),
                ("capabilities_not_strings", "/capabilities/2".to_owned()),
                ("wrong_type", "/id".to_owned()),
                ("payload_not_object", "/payload".to_owned()),
                ("unsupported_version", "/protocol_version".to_owned()),
                ("wrong_type", "/target_agent".to_owned()),
                ("invalid_timestamp", "/timestamp".to_owned()),
            ]
        );
        assert!(report.envelope().is_none());
    }

    #[test]
    fn messages_are_lowercase_without_period() {
        let value = json!({"id": "550e8400-e29b-11d4-a716-446655440000", "timestamp": "2025-11-21T20:45:00"});
        for issue in Envelope::parse(&value).errors() {
            let message = issue.message();
            assert!(!message.ends_with('.'), "{message}");
            assert!(
                message.chars().next().unwrap().is_lowercase()
                    || message.starts_with('"')
                    || message.starts_with("uuid"),
                "{message}"
            );
        }
        let err = "550e8400-e29b-11d4-a716-446655440000"
            .parse::<MessageId>()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "uuid 550e8400-e29b-11d4-a716-446655440000 is of version 1, not version 4"
        );
        assert_eq!(
            "1.0".parse::<ProtocolVersion>().unwrap_err().to_string(),
            "protocol version \"1.0\" has major version 1; this crate speaks major version 0"
        );
    }

    #[test]
    fn uuid_forms() {
        assert!(
            "550E8400-E29B-41D4-A716-446655440000"
                .parse::<MessageId>()
                .is_ok()
        );
        for bad in [
            "550e8400e29b41d4a716446655440000",
            "{550e8400-e29b-41d4-a716-446655440000}",
            "urn:uuid:550e8400-e29b-41d4-a716-446655440000",
            "00000000-0000-0000-0000-000000000000",
            "550e8400-e29b-41d4-c716-446655440000",
            "",
        ] {
            assert!(bad.parse::<MessageId>().is_err(), "{bad}");
        }
        assert!(matches!(
            "550e8400-e29b-41d4-c716-446655440000".parse::<MessageId>(),
            Err(InvalidMessageId::NotRfc4122Variant { .. })
        ));
    }

    #[test]
    fn versions() {
        for (text, ok) in [
            ("0.1", true),
            ("0.2", true),
            ("0.0", true),
            ("0.10.3", true),
            ("1.0", false),
            ("0", false),
            ("0.1.2.3", false),
            ("00.1", false),
            ("0.01", false),
            ("v0.1", false),
            ("0.1-draft", false),
            ("", false),
            ("0.", false),
        ] {
            assert_eq!(text.parse::<ProtocolVersion>().is_ok(), ok, "{text}");
            if ok {
                assert_eq!(text.parse::<ProtocolVersion>().unwrap().to_string(), text);
            }
        }
        assert!(ProtocolVersion::new(0, 7).is_ok());
        assert!(ProtocolVersion::new(3, 0).is_err());
    }

    #[test]
    fn timestamps() {
        let t: Timestamp = "2025-11-22T04:45:00+08:00".parse().unwrap();
        assert!(!t.is_utc());
        assert_eq!(t.to_string(), "2025-11-22T04:45:00+08:00");
        assert_eq!(t.to_utc().to_string(), "2025-11-21T20:45:00Z");
        assert!(
            "2025-11-21T20:45:00-00:00"
                .parse::<Timestamp>()
                .unwrap()
                .is_utc()
        );
        assert!("2025-11-21T20:45:00".parse::<Timestamp>().is_err());
        assert!("2025-11-21".parse::<Timestamp>().is_err());
        assert_eq!(
            "0000-01-01T00:00:00+01:00".parse::<Timestamp>(),
            Err(InvalidTimestamp::OutOfRange)
        );
        let odd = OffsetDateTime::UNIX_EPOCH.to_offset(UtcOffset::from_hms(1, 0, 30).unwrap());
        assert!(matches!(
            Timestamp::new(odd),
            Err(InvalidTimestamp::OffsetSeconds { .. })
        ));
        let epoch = Timestamp::try_from(UNIX_EPOCH).unwrap();
        assert_eq!(epoch.to_string(), "1970-01-01T00:00:00Z");
        let before = UNIX_EPOCH - std::time::Duration::from_secs(86_400);
        assert_eq!(
            Timestamp::try_from(before).unwrap().to_string(),
            "1969-12-31T00:00:00Z"
        );
    }

    #[test]
    fn warnings_for_recommendations() {
        let mut value = example();
        value["timestamp"] = json!("2025-11-22T04:45:00+08:00");
        value["payload"] = json!({
            "productName": "x",
            "a": {"b": {"c": {"d": {"e": 1}}, "ok": [{"Deep": {"x": {}}}]}}
        });
        let report = Envelope::parse(&value);
        assert!(report.is_valid());
        assert_eq!(
            codes(report.warnings()),
            vec![
                ("payload_too_deep", "/payload/a/b/c".to_owned()),
                // arrays add no level: the object in `ok` is the third
                ("payload_too_deep", "/payload/a/b/ok/0".to_owned()),
                (
                    "payload_key_not_snake_case",
                    "/payload/a/b/ok/0/Deep".to_owned()
                ),
                (
                    "payload_key_not_snake_case",
                    "/payload/productName".to_owned()
                ),
                ("non_utc_timestamp", "/timestamp".to_owned()),
            ]
        );
        let envelope = report.envelope().unwrap();
        assert_eq!(envelope.warnings(), report.warnings());
    }

    #[test]
    fn replies_swap_sender_and_target() {
        let query = Envelope::from_value(&example()).unwrap();
        let now: Timestamp = "2025-11-21T21:45:01+01:00".parse().unwrap();
        let id = MessageId::from_random_bytes([1; 16]);
        let reply = query
            .reply(id, now, "inventory_response", Map::new())
            .unwrap();
        assert_eq!(reply.agent_id, "hairvault");
        assert_eq!(reply.target_agent, "diana");
        assert_eq!(reply.capabilities, ["inventory.read"]);
        assert_eq!(reply.timestamp.to_string(), "2025-11-21T20:45:01Z");
        assert!(Envelope::parse(&reply.to_value()).is_valid());

        let mut broadcast = query.clone();
        broadcast.target_agent = BROADCAST.to_owned();
        assert!(broadcast.is_broadcast());
        assert_eq!(
            broadcast.reply(id, now, "pong", Map::new()),
            Err(ReplyToBroadcast)
        );
        let answer = broadcast.reply_as("router_7", id, now, "pong", Map::new());
        assert_eq!(
            (answer.agent_id.as_str(), answer.target_agent.as_str()),
            ("router_7", "diana")
        );
    }

    #[test]
    fn extra_members_are_kept_but_never_shadow_fields() {
        let mut value = example();
        value["trace"] = json!({"span": 1});
        let mut envelope = Envelope::from_value(&value).unwrap();
        assert_eq!(envelope.to_value(), value);
        envelope.extra.insert("id".into(), json!("shadow"));
        assert_eq!(envelope.to_value(), value);
    }

    #[test]
    fn deeply_nested_payload_does_not_overflow() {
        let mut deep = json!(1);
        for _ in 0..10_000 {
            let mut object = Map::new();
            object.insert("k".to_owned(), deep);
            deep = Value::Object(object);
        }
        let mut payload = Map::new();
        payload.insert("k".into(), deep);
        let mut warnings = Vec::new();
        payload_warnings(&payload, &mut warnings);
        assert_eq!(
            codes(&warnings),
            vec![("payload_too_deep", "/payload/k/k/k".to_owned())]
        );
        // serde_json's Value drops recursively: take it apart by hand.
        let mut value = payload.remove("k");
        while let Some(Value::Object(mut object)) = value {
            value = object.remove("k");
        }
    }
}
