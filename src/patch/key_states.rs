//! Where a merge learns which patch keys exist and in what state: the
//! [`KeyStates`] trait and its two sources, the lifecycle's records and the
//! active patches themselves.

use time::OffsetDateTime;

use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::patch::lifecycle::records::Lifecycle;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::schema_patch::PatchScope;

/// Where the merge learns which patch keys exist and in what state.
///
/// [`Lifecycle`] implements it: the keys come from its records (one per
/// scope and name), in their state at `now`, and withdrawn or gone names stay
/// reserved. [`AllExperimental`] lets the patches decide: each active patch
/// offers its new keys as experimental, and nothing is reserved.
pub trait KeyStates: Send + Sync {
    /// The patch keys `client` sees at `now`, each with its state; `None`
    /// when the patches themselves decide.
    fn keys_at(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Option<Vec<(KeyDefinition, KeyState)>>;
    /// Whether a new key `name` of `key_type` in `scope` would take a
    /// reserved name at `now`; the message says whose.
    fn reserved(
        &self,
        scope: &PatchScope,
        name: &KeyName,
        key_type: KeyType,
        now: OffsetDateTime,
    ) -> Option<String>;
}

/// Every active patch's new keys experimental, nothing reserved.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllExperimental;

impl KeyStates for AllExperimental {
    fn keys_at(
        &self,
        _: Option<&str>,
        _: OffsetDateTime,
    ) -> Option<Vec<(KeyDefinition, KeyState)>> {
        None
    }
    fn reserved(
        &self,
        _: &PatchScope,
        _: &KeyName,
        _: KeyType,
        _: OffsetDateTime,
    ) -> Option<String> {
        None
    }
}

impl KeyStates for Lifecycle {
    fn keys_at(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Option<Vec<(KeyDefinition, KeyState)>> {
        Some(
            Lifecycle::keys_at(self, client, now)
                .into_iter()
                .map(|(definition, state)| (definition.clone(), state))
                .collect(),
        )
    }
    fn reserved(
        &self,
        scope: &PatchScope,
        name: &KeyName,
        key_type: KeyType,
        now: OffsetDateTime,
    ) -> Option<String> {
        let record = self.reservation(scope, name, key_type, now)?;
        Some(match self.state_at(&record.scope, name.as_str(), now) {
            Some(KeyState::Withdrawn) => format!(
                "{name:?} belongs to a withdrawn key still accepted from clients; its name is reserved until it is gone"
            ),
            _ => format!(
                "{name:?} belonged to a withdrawn {} key; its name stays reserved for that type",
                record.key_type
            ),
        })
    }
}
