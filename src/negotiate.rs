//! Negotiation and result messages: the schema request (§3.2 step 3, Appendix A.1),
//! the execution result and its optional schema update suggestion (Appendix A.2).
//!
//! The template response is a [`crate::SchemaTemplate`] itself.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::issue::{Issue, IssueCode};
use crate::key::{KeyDefinition, KeyName};

/// The method name of a schema request.
pub const GET_SCHEMA_TEMPLATE: &str = "get_schema_template";

/// `{"method": "get_schema_template", "params": {"scenario", "preferred_language"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SchemaRequest {
    /// Always [`GET_SCHEMA_TEMPLATE`] for this protocol; kept as sent.
    pub method: String,
    /// What the client asks for.
    pub params: SchemaRequestParams,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// The parameters of a [`SchemaRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SchemaRequestParams {
    /// The interaction scenario, e.g. `flight_booking`.
    pub scenario: String,
    /// A BCP 47 language tag for the semantic descriptions, e.g. `en-US`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_language: Option<String>,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl SchemaRequest {
    /// A `get_schema_template` request for `scenario`.
    pub fn new(scenario: impl Into<String>, preferred_language: Option<String>) -> Self {
        Self {
            method: GET_SCHEMA_TEMPLATE.to_owned(),
            params: SchemaRequestParams {
                scenario: scenario.into(),
                preferred_language,
                extra: IndexMap::new(),
            },
            extra: IndexMap::new(),
        }
    }

    /// Whether the method is `get_schema_template`.
    pub fn is_get_schema_template(&self) -> bool {
        self.method == GET_SCHEMA_TEMPLATE
    }
}

/// A server agent's execution result: the scenario's own result members plus
/// an optional `schema_update_suggestion`.
///
/// The suggestion is read on its own: one that does not read as a
/// [`SchemaUpdateSuggestion`] (a badly named key, say) does not cost the
/// client the result. It lands in [`ExecutionResult::rejected_suggestion`],
/// as sent and with the problem, and is written back unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ExecutionResult {
    /// New or refined keys the server suggests (§3.2 step 6).
    pub schema_update_suggestion: Option<SchemaUpdateSuggestion>,
    /// A `schema_update_suggestion` member that did not read as one.
    pub rejected_suggestion: Option<RejectedSuggestion>,
    /// The result members (booking id, status, ...), as sent.
    pub result: IndexMap<String, Value>,
}

/// A `schema_update_suggestion` that did not read as one: the member as sent
/// and why (`invalid_member` at `/schema_update_suggestion`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RejectedSuggestion {
    /// The member, as sent.
    pub value: Value,
    /// The problem.
    pub issue: Issue,
}

/// The member an execution result carries its suggestion in.
const SUGGESTION: &str = "schema_update_suggestion";

impl Serialize for ExecutionResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        if let Some(suggestion) = &self.schema_update_suggestion {
            map.serialize_entry(SUGGESTION, suggestion)?;
        } else if let Some(rejected) = &self.rejected_suggestion {
            map.serialize_entry(SUGGESTION, &rejected.value)?;
        }
        for (name, value) in &self.result {
            // A result member named like the suggestion is the suggestion.
            if name != SUGGESTION {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ExecutionResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut result = IndexMap::<String, Value>::deserialize(deserializer)?;
        let (schema_update_suggestion, rejected_suggestion) = match result.shift_remove(SUGGESTION)
        {
            None => (None, None),
            Some(value) => match SchemaUpdateSuggestion::read(&value) {
                Ok(suggestion) => (suggestion, None),
                Err(issue) => (None, Some(RejectedSuggestion { value, issue })),
            },
        };
        Ok(Self {
            schema_update_suggestion,
            rejected_suggestion,
            result,
        })
    }
}

/// `{"new_keys": [...], "modified_keys": [...]}` as the draft's Appendix
/// A.2 writes it; either list may be absent. This crate adds two optional
/// members a client may ignore: `removed_keys` (keys it was told about that
/// left its schema) and `patches` (which patch each suggested key comes from,
/// and until when it is offered).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SchemaUpdateSuggestion {
    /// Keys the schema does not have yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_keys: Option<Vec<KeyDefinition>>,
    /// Existing keys with a refined semantic description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_keys: Option<Vec<KeyDefinition>>,
    /// Keys the client was told about that are no longer in its schema
    /// (withdrawn: still accepted for a while, with a warning; or gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_keys: Option<Vec<KeyName>>,
    /// The patches the suggested keys come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patches: Option<Vec<PatchReference>>,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl SchemaUpdateSuggestion {
    /// The suggestion an execution result's `schema_update_suggestion`
    /// member holds (`null`: none), or the `invalid_member` issue that says
    /// why it is not one. One reading for the typed result and for
    /// `CompiledSchema::validate_execution_result`.
    pub(crate) fn read(value: &Value) -> Result<Option<Self>, Issue> {
        if value.is_null() {
            return Ok(None);
        }
        Self::deserialize(value).map(Some).map_err(|error| {
            Issue::new(
                IssueCode::InvalidMember,
                format!("/{SUGGESTION}"),
                format!("not a schema update suggestion: {error}"),
            )
        })
    }

    /// The new keys, empty when the member is absent.
    pub fn new_keys(&self) -> &[KeyDefinition] {
        self.new_keys.as_deref().unwrap_or_default()
    }

    /// The modified keys, empty when the member is absent.
    pub fn modified_keys(&self) -> &[KeyDefinition] {
        self.modified_keys.as_deref().unwrap_or_default()
    }

    /// The removed keys, empty when the member is absent.
    pub fn removed_keys(&self) -> &[KeyName] {
        self.removed_keys.as_deref().unwrap_or_default()
    }
}

/// Where a suggested key comes from: `{"patch_id", "keys", "expires_at"}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PatchReference {
    /// The patch's id.
    pub patch_id: String,
    /// The suggested keys it brings.
    pub keys: Vec<KeyName>,
    /// When the patch's offer ends (RFC 3339); a key promoted before then
    /// stays after it.
    pub expires_at: String,
}

impl PatchReference {
    /// A reference to `patch_id` for `keys`, offered until `expires_at` (RFC 3339).
    pub fn new(
        patch_id: impl Into<String>,
        keys: Vec<KeyName>,
        expires_at: impl Into<String>,
    ) -> Self {
        Self {
            patch_id: patch_id.into(),
            keys,
            expires_at: expires_at.into(),
        }
    }
}
