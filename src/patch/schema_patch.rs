//! The schema patch itself (§6.2.2 Patch Packaging): who it applies to,
//! what it adds and refines, when it applies, and why one is refused.

use std::fmt;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::issue::{Issue, IssueCode, write_problems};
use crate::key::KeyDefinition;

/// Who a patch applies to.
///
/// On the wire: `"global"`, or `{"client": "<client agent id>"}` for a key
/// personalised to one client (§6.2.2 Personalized Adaptation).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchScope {
    /// Every client of the scenario.
    #[default]
    Global,
    /// One client agent's personal patch stack.
    Client(String),
}

impl PatchScope {
    /// Whether the scope is [`PatchScope::Global`].
    pub fn is_global(&self) -> bool {
        matches!(self, PatchScope::Global)
    }

    /// Whether a patch of this scope applies to `client` (`None`: an anonymous client,
    /// which sees global patches only).
    pub fn applies_to(&self, client: Option<&str>) -> bool {
        match self {
            PatchScope::Global => true,
            PatchScope::Client(id) => client == Some(id.as_str()),
        }
    }
}

/// A schema patch: new keys and refined descriptions for one parent schema,
/// valid from `timestamp` until `expires_at` (§6.2.2 Patch Packaging).
///
/// Patch keys carry their lifecycle flags (`"experimental": true`,
/// `"deprecated": true`) when the effective schema is rendered, not here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SchemaPatch {
    /// Unique identifier of the patch.
    pub patch_id: String,
    /// The `schema_id` of the base schema the patch applies to.
    pub parent_schema_id: String,
    /// When the patch was issued; it applies from then on (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    pub timestamp: OffsetDateTime,
    /// When the patch stops applying (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
    /// Keys the patch adds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_keys: Vec<KeyDefinition>,
    /// Existing keys whose semantic description the patch refines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modified_keys: Vec<KeyDefinition>,
    /// Who the patch applies to; global when absent.
    #[serde(default, skip_serializing_if = "PatchScope::is_global")]
    pub scope: PatchScope,
    /// The base schema's content digest (see `SchemaTemplate::digest`); when
    /// present, a base with another digest refuses the patch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_digest: Option<String>,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl SchemaPatch {
    /// A global patch with no keys yet.
    pub fn new(
        patch_id: impl Into<String>,
        parent_schema_id: impl Into<String>,
        timestamp: OffsetDateTime,
        expires_at: OffsetDateTime,
    ) -> Self {
        Self {
            patch_id: patch_id.into(),
            parent_schema_id: parent_schema_id.into(),
            timestamp,
            expires_at,
            new_keys: Vec::new(),
            modified_keys: Vec::new(),
            scope: PatchScope::Global,
            parent_digest: None,
            extra: IndexMap::new(),
        }
    }

    /// Reads a patch from JSON bytes; refuses malformed documents and
    /// patches that expire before they start.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, PatchError> {
        let patch: SchemaPatch = serde_json::from_slice(bytes).map_err(|e| {
            PatchError::new(
                None,
                vec![Issue::new(IssueCode::InvalidPatch, "", e.to_string())],
            )
        })?;
        if patch.expires_at <= patch.timestamp {
            return Err(PatchError::new(
                Some(patch.patch_id.clone()),
                vec![Issue::new(
                    IssueCode::InvalidPatchWindow,
                    "/expires_at",
                    "the patch expires at or before its own timestamp",
                )],
            ));
        }
        Ok(patch)
    }

    /// Whether the patch applies at `now`: `timestamp <= now < expires_at`.
    pub fn is_active_at(&self, now: OffsetDateTime) -> bool {
        self.timestamp <= now && now < self.expires_at
    }

    /// The order patches apply in: by timestamp, then by id.
    pub(crate) fn order_key(&self) -> (OffsetDateTime, &str) {
        (self.timestamp, &self.patch_id)
    }
}

/// A refused patch: which one, and every reason, each with a code and a
/// JSON Pointer into the patch.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchError {
    patch_id: Option<String>,
    errors: Vec<Issue>,
}

impl PatchError {
    pub(crate) fn new(patch_id: Option<String>, errors: Vec<Issue>) -> Self {
        Self { patch_id, errors }
    }

    /// The refused patch's id, when it could be read.
    pub fn patch_id(&self) -> Option<&str> {
        self.patch_id.as_deref()
    }

    /// Every reason the patch was refused.
    pub fn errors(&self) -> &[Issue] {
        &self.errors
    }
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.patch_id {
            Some(id) => write_problems(f, &format!("patch {id:?} refused"), &self.errors),
            None => write_problems(f, "patch refused", &self.errors),
        }
    }
}

impl std::error::Error for PatchError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_form_round_trips() {
        let wire = json!({
            "patch_id": "p1", "parent_schema_id": "flight_booking_v1",
            "timestamp": "2026-05-01T00:00:00Z", "expires_at": "2026-06-01T00:00:00Z",
            "new_keys": [{"key_name": "seat_preference", "key_type": "string", "required": false,
                          "semantic_description": "window, aisle or none"}],
            "scope": {"client": "agent-7"}
        });
        let patch: SchemaPatch = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(patch.scope, PatchScope::Client("agent-7".into()));
        assert_eq!(serde_json::to_value(&patch).unwrap(), wire);
    }

    #[test]
    fn malformed_and_backwards_patches_are_refused() {
        let err = SchemaPatch::from_slice(b"{\"patch_id\": 1}").unwrap_err();
        assert_eq!(err.errors()[0].code(), IssueCode::InvalidPatch);
        let backwards = br#"{"patch_id": "p", "parent_schema_id": "s",
            "timestamp": "2026-05-02T00:00:00Z", "expires_at": "2026-05-01T00:00:00Z"}"#;
        let err = SchemaPatch::from_slice(backwards).unwrap_err();
        assert_eq!(err.errors()[0].code(), IssueCode::InvalidPatchWindow);
        assert_eq!(err.patch_id(), Some("p"));
    }
}
