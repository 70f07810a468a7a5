//! What the store keeps per client, and when it goes: the clients personal
//! patches and keys name, and what each client was told (a tag per key
//! definition), dropped with the keys that are gone.

use crate::key::{KeyDefinition, KeyName};
use crate::patch::lifecycle::evaluation::Transition;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::schema_patch::PatchScope;

use super::schema_store::SchemaStore;

/// A tag as stored (a snapshot's `delivered`, a delivered-key row): 16 hex
/// digits.
pub(super) fn tag_hex(tag: u64) -> String {
    format!("{tag:016x}")
}

/// A definition's tag, for telling whether a client was told this exact
/// definition: the first 8 bytes of the SHA-256 of its canonical form.
pub(crate) fn definition_tag(key: &KeyDefinition) -> u64 {
    let bytes = crate::digest::canonical_bytes(key)
        .unwrap_or_else(|_| serde_json::to_vec(key).unwrap_or_default());
    crate::digest::short_tag(&bytes)
}

impl SchemaStore {
    /// Rebuilds `personal_names` from the personal patches still held and
    /// the personal keys not gone (a stable personal key outlives its
    /// patch, and a global patch must still suit that client's view).
    pub(super) fn index_personal_names(&mut self) {
        self.personal_names.clear();
        for (client, patches) in &self.personal {
            for key in patches
                .iter()
                .flat_map(|p| p.new_keys.iter().chain(&p.modified_keys))
            {
                self.personal_names
                    .entry(key.key_name.clone())
                    .or_default()
                    .insert(client.clone());
            }
        }
        for (client, name) in self.lifecycle.personal_live_names() {
            if let Ok(name) = KeyName::new(name) {
                self.personal_names
                    .entry(name)
                    .or_default()
                    .insert(client.to_owned());
            }
        }
    }

    /// Drops what clients were told about keys that are now gone (they were
    /// withdrawn for the whole backward-compatibility window first, when
    /// suggestions said so), and clients left with nothing.
    pub(super) fn forget_gone(&mut self, transitions: &[Transition]) {
        for gone in transitions.iter().filter(|t| t.to == KeyState::Gone) {
            let name = &gone.key_name;
            match &gone.scope {
                PatchScope::Global => {
                    for told in self.delivered.values_mut() {
                        told.remove(name);
                    }
                }
                PatchScope::Client(client) => {
                    if let Some(told) = self.delivered.get_mut(client) {
                        told.remove(name);
                    }
                }
            }
        }
        self.delivered.retain(|_, told| !told.is_empty());
    }
}
