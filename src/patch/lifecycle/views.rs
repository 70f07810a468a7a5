//! What the lifecycle answers at `now` without changing anything: a key's
//! state, the keys a client sees, the names withdrawn and gone keys
//! reserve, and how many keys the convergence guard counts as experimental.

use time::OffsetDateTime;

use super::policy::GuardScope;
use super::records::{KeyRecord, Lifecycle};
use super::state::KeyState;
use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::patch::schema_patch::PatchScope;

impl Lifecycle {
    /// The state of the key `name` in `scope` at `now`: what
    /// [`Lifecycle::evaluate`] at `now` would make it, without changing
    /// anything, so that readers get the same answer whether or not
    /// `evaluate` ran. `None` when the key is not tracked or its trial
    /// starts after `now`.
    pub fn state_at(
        &self,
        scope: &PatchScope,
        name: &str,
        now: OffsetDateTime,
    ) -> Option<KeyState> {
        let record = self.record(scope, name)?;
        self.project(record, now).map(|(state, _)| state)
    }

    /// Every patch key `client` sees at `now` (the global ones and its own),
    /// with its state at `now`, in the order they were introduced.
    pub fn keys_at(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Vec<(&KeyDefinition, KeyState)> {
        self.visible_at(client, now)
            .into_iter()
            .filter_map(|(i, state)| Some((&self.records.get(i)?.definition, state)))
            .collect()
    }

    /// The records `client` sees at `now` (not gone), by index, with their
    /// state: what a merge reads from the lifecycle, so equal lists mean
    /// equal merges.
    pub(crate) fn visible_at(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Vec<(usize, KeyState)> {
        // Through the indexes, so the cost follows what this client sees,
        // not every client's history; gone stays gone, so skip it first.
        let personal = client.and_then(|c| self.personal.get(c));
        let mut indices: Vec<usize> = self
            .live_global
            .iter()
            .chain(personal.into_iter().flat_map(|m| m.values()))
            .copied()
            .filter(|&i| {
                self.records
                    .get(i)
                    .is_some_and(|r| r.state != KeyState::Gone)
            })
            .collect();
        indices.sort_unstable();
        indices.dedup();
        indices
            .into_iter()
            .filter_map(|i| Some((i, self.project(self.records.get(i)?, now)?.0)))
            .filter(|(_, state)| *state != KeyState::Gone)
            .collect()
    }

    /// Whether a new key `name` of type `key_type` in `scope` would take a
    /// reserved name: one whose key is withdrawn (any type: it is still
    /// accepted from clients) or gone with another type, in any scope that
    /// shares clients with `scope` at `now`. Returns the reserving record.
    pub fn reservation(
        &self,
        scope: &PatchScope,
        name: &KeyName,
        key_type: KeyType,
        now: OffsetDateTime,
    ) -> Option<&KeyRecord> {
        let reserves = |r: &&KeyRecord| {
            r.key_name == *name
                && match self.project(r, now).map(|(state, _)| state) {
                    Some(KeyState::Withdrawn) => true,
                    Some(KeyState::Gone) => r.key_type != key_type,
                    _ => false,
                }
        };
        match scope {
            // A client's view holds the global keys and its own: two lookups.
            PatchScope::Client(_) => [PatchScope::Global, scope.clone()]
                .iter()
                .filter_map(|s| self.record(s, name.as_str()))
                .find(reserves),
            // A global key reaches every client: every record of the name.
            PatchScope::Global => self
                .by_name
                .get(name.as_str())?
                .iter()
                .filter_map(|&i| self.records.get(i))
                .find(reserves),
        }
    }

    /// The type a withdrawn or gone key `name` keeps its name reserved for
    /// in `scope` (as last evaluated).
    pub fn reserved_type(&self, scope: &PatchScope, name: &KeyName) -> Option<KeyType> {
        self.record(scope, name.as_str())
            .filter(|r| r.state >= KeyState::Withdrawn)
            .map(|r| r.key_type)
    }

    /// How many keys are experimental at `now`: in `scope` alone, or in the
    /// whole scenario, as the policy's [`GuardScope`] says.
    pub fn experimental_count(&self, scope: &PatchScope, now: OffsetDateTime) -> usize {
        let lists: Vec<&Vec<usize>> = match self.policy.guard {
            GuardScope::Scenario => self.experimental.values().collect(),
            GuardScope::PerScope => self.experimental.get(scope).into_iter().collect(),
        };
        lists
            .into_iter()
            .flatten()
            .filter_map(|&i| self.records.get(i))
            .filter(|r| {
                self.project(r, now)
                    .is_some_and(|(s, _)| s == KeyState::Experimental)
            })
            .count()
    }
}
