//! `StructuredPayload`: `{"schema_id", "payload"}`, the typed message.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `{"schema_id": ..., "payload": {...}}`: the keys a client filled in for a schema.
///
/// This is the typed form for building and inspecting messages; validation
/// takes the raw JSON (a [`Value`] or bytes) so that it can report on
/// messages that would not even deserialize into this type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StructuredPayload {
    /// The schema the payload was filled in against.
    pub schema_id: String,
    /// The key-value pairs.
    pub payload: Map<String, Value>,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl StructuredPayload {
    /// A message for `schema_id` with an empty payload.
    pub fn new(schema_id: impl Into<String>) -> Self {
        Self {
            schema_id: schema_id.into(),
            payload: Map::new(),
            extra: IndexMap::new(),
        }
    }

    /// Sets a key's value, returning the message for chaining.
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.payload.insert(key.into(), value.into());
        self
    }

    /// The message as a JSON value, ready for [`CompiledSchema::validate`](crate::validate::CompiledSchema::validate).
    pub fn to_value(&self) -> Value {
        // Serializing a map of JSON values into a Value cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
