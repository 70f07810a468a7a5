//! The `message_type` names of the protocol's own messages.

use std::fmt;

/// The `message_type` names this crate uses for the protocol's own messages
/// (draft §3.2) when they travel in an envelope.
///
/// | message | `message_type` | payload |
/// |---|---|---|
/// | schema request (step 3) | `schema_request` | a [`SchemaRequest`](crate::negotiate::SchemaRequest) |
/// | schema template (step 3, answer) | `schema_template` | a [`crate::SchemaTemplate`] |
/// | structured payload (step 4) | `structured_payload` | a [`StructuredPayload`](crate::StructuredPayload) `{"schema_id", "payload"}` |
/// | execution result (step 5) | `execution_result` | a [`ExecutionResult`](crate::negotiate::ExecutionResult) |
/// | schema update (step 6) | `schema_update` | a [`SchemaUpdateSuggestion`](crate::negotiate::SchemaUpdateSuggestion) |
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
    pub const ALL: &'static [ProtocolMessage] = &[
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
        Self::ALL
            .iter()
            .copied()
            .find(|m| m.as_str() == message_type)
    }
}

impl fmt::Display for ProtocolMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
