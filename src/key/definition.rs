//! `KeyDefinition`: one key of a template, with its wire flags.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use super::key_type::KeyType;
use super::name::KeyName;
use crate::extra_members::unshadowed;

/// The wire flag of a patch key on trial: `"experimental": true`.
pub const EXPERIMENTAL_MEMBER: &str = "experimental";

/// The wire flag of a deprecated key: `"deprecated": true`.
pub const DEPRECATED_MEMBER: &str = "deprecated";

/// One key of a schema template (§4.1).
///
/// `default_value` keeps the wire's distinction between an absent member and an
/// explicit `null`: `Some(Value::Null)` is an explicit `"default_value": null`,
/// which means "no default", as in the draft's Figure 2.
///
/// Deserializing checks every member as a template's keys are checked, and
/// reports every problem (the `Deserialize` impl lives in `template.rs`,
/// beside those checks). [`KeyDefinition::sensitivity`] reads the §7 marker.
#[derive(Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct KeyDefinition {
    /// The key's snake_case name.
    pub key_name: KeyName,
    /// The key's value type.
    pub key_type: KeyType,
    /// Whether the key must be present in every payload.
    pub required: bool,
    /// The value applied when an optional key is omitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_value: Option<Value>,
    /// The business meaning of the key, its accepted values and mapping examples.
    pub semantic_description: String,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten, serialize_with = "key_extra")]
    pub extra: IndexMap<String, Value>,
}

// By hand: most keys have no extra members, and cloning an empty `IndexMap`
// still costs a hash table's worth of work, for every key of every copy.
impl Clone for KeyDefinition {
    fn clone(&self) -> Self {
        Self {
            key_name: self.key_name.clone(),
            key_type: self.key_type,
            required: self.required,
            default_value: self.default_value.clone(),
            semantic_description: self.semantic_description.clone(),
            extra: if self.extra.is_empty() {
                IndexMap::with_hasher(self.extra.hasher().clone())
            } else {
                self.extra.clone()
            },
        }
    }
}

/// The members of a key definition the crate knows; any other is `extra`.
pub(crate) const KEY_MEMBERS: [&str; 5] = [
    "key_name",
    "key_type",
    "required",
    "default_value",
    "semantic_description",
];

/// A key's extra members, less any named like a real one (refused by the
/// template check as `shadowed_member`).
fn key_extra<S: serde::Serializer>(
    extra: &IndexMap<String, Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    unshadowed(extra, &KEY_MEMBERS, serializer)
}

impl KeyDefinition {
    /// A key definition with no default and no extra members.
    pub fn new(
        key_name: KeyName,
        key_type: KeyType,
        required: bool,
        semantic_description: impl Into<String>,
    ) -> Self {
        Self {
            key_name,
            key_type,
            required,
            default_value: None,
            semantic_description: semantic_description.into(),
            extra: IndexMap::new(),
        }
    }

    /// Sets the default value.
    pub fn with_default(mut self, value: Value) -> Self {
        self.default_value = Some(value);
        self
    }

    /// Whether the key carries `"experimental": true` (a patch key on trial, §6.2.3).
    pub fn is_experimental(&self) -> bool {
        self.extra.get(EXPERIMENTAL_MEMBER) == Some(&Value::Bool(true))
    }

    /// Whether the key carries `"deprecated": true` (accepted with a warning).
    pub fn is_deprecated(&self) -> bool {
        self.extra.get(DEPRECATED_MEMBER) == Some(&Value::Bool(true))
    }

    /// The default that applies: `None` when absent or an explicit `null`.
    pub fn effective_default(&self) -> Option<&Value> {
        self.default_value.as_ref().filter(|v| !v.is_null())
    }
}
