//! Where a patch key is in its life, and the names its states go by in a
//! table column.

use serde::{Deserialize, Serialize};

/// Where a patch key is in its life. States only move forward (the order of
/// the variants): experimental → stable, or experimental (or stable) →
/// deprecated → withdrawn → gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyState {
    /// On trial, advertised with `"experimental": true`.
    Experimental,
    /// Part of the long-term schema.
    Stable,
    /// Still in the schema with `"deprecated": true` during the grace period.
    Deprecated,
    /// Removed from the schema; still accepted (with warning `withdrawn_key`)
    /// during the backward-compatibility window.
    Withdrawn,
    /// Past every window: an `unknown_key`. Its name stays reserved for its type.
    Gone,
}

impl KeyState {
    /// The state's name as a column holds it (`experimental`, `stable`,
    /// `deprecated`, `withdrawn`, `gone`).
    pub fn as_str(self) -> &'static str {
        match self {
            KeyState::Experimental => "experimental",
            KeyState::Stable => "stable",
            KeyState::Deprecated => "deprecated",
            KeyState::Withdrawn => "withdrawn",
            KeyState::Gone => "gone",
        }
    }

    /// The state a column's text names, if any.
    pub fn parse(text: &str) -> Option<Self> {
        [
            KeyState::Experimental,
            KeyState::Stable,
            KeyState::Deprecated,
            KeyState::Withdrawn,
            KeyState::Gone,
        ]
        .into_iter()
        .find(|state| state.as_str() == text)
    }
}
