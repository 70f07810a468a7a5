//! The `schema_update_suggestion` for a client's next execution result:
//! what it has not been told, what changed and what left since.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::retention::definition_tag;
use super::schema_store::SchemaStore;
use crate::key::{KeyDefinition, KeyName};
use crate::negotiate::{PatchReference, SchemaUpdateSuggestion};
use crate::patch::compile_error::CompileError;
use crate::patch::schema_patch::SchemaPatch;

impl SchemaStore {
    /// The `schema_update_suggestion` to attach to `client`'s next execution
    /// result: keys it has not been told about (`new_keys`), keys whose
    /// description or flags changed since (`modified_keys`), keys it was told
    /// about that left its schema (`removed_keys`), and the patches they come
    /// from (`patches`). `None` when there is nothing new. Remembers what it
    /// returned, and counts the delivery for the adoption rate.
    pub fn suggestion_for(
        &mut self,
        client: &str,
        now: OffsetDateTime,
    ) -> Result<Option<SchemaUpdateSuggestion>, CompileError> {
        let template = self.template_for(Some(client), now)?;
        let seen = self.delivered.entry(client.to_owned()).or_default();
        let mut new_keys = Vec::new();
        let mut modified_keys = Vec::new();
        for key in &template.keys {
            let known = seen
                .get(&key.key_name)
                .copied()
                .or_else(|| self.base.key(key.key_name.as_str()).map(definition_tag));
            match known {
                None => new_keys.push(key.clone()),
                Some(previous) if previous != definition_tag(key) => {
                    modified_keys.push(key.clone());
                }
                Some(_) => {}
            }
        }
        let mut removed_keys: Vec<KeyName> = seen
            .keys()
            .filter(|name| template.key(name.as_str()).is_none())
            .cloned()
            .collect();
        removed_keys.sort();
        if new_keys.is_empty() && modified_keys.is_empty() && removed_keys.is_empty() {
            return Ok(None);
        }
        for name in &removed_keys {
            seen.remove(name);
        }
        for key in new_keys.iter().chain(&modified_keys) {
            seen.insert(key.key_name.clone(), definition_tag(key));
        }
        for key in &new_keys {
            let scope = self.scope_of(client, &key.key_name);
            self.lifecycle
                .record_delivery(&scope, key.key_name.as_str(), client, now);
        }
        let patches = self.sources(client, new_keys.iter().chain(&modified_keys), now);
        Ok(Some(SchemaUpdateSuggestion {
            new_keys: (!new_keys.is_empty()).then_some(new_keys),
            modified_keys: (!modified_keys.is_empty()).then_some(modified_keys),
            removed_keys: (!removed_keys.is_empty()).then_some(removed_keys),
            patches: (!patches.is_empty()).then_some(patches),
            ..SchemaUpdateSuggestion::default()
        }))
    }

    /// The patch each key last came from for `client` at `now`: the latest
    /// active patch that names it, else the patch that introduced it.
    fn sources<'k>(
        &self,
        client: &str,
        keys: impl Iterator<Item = &'k KeyDefinition>,
        now: OffsetDateTime,
    ) -> Vec<PatchReference> {
        let mut references: Vec<PatchReference> = Vec::new();
        for key in keys {
            let name = key.key_name.as_str();
            let names = |p: &&SchemaPatch| {
                p.scope.applies_to(Some(client))
                    && p.is_active_at(now)
                    && p.new_keys
                        .iter()
                        .chain(&p.modified_keys)
                        .any(|k| k.key_name.as_str() == name)
            };
            let latest = self
                .patches_for(Some(client))
                .filter(names)
                .max_by(|a, b| a.order_key().cmp(&b.order_key()));
            let source = match latest {
                Some(p) => Some((p.patch_id.clone(), p.expires_at)),
                None => {
                    let scope = self.scope_of(client, &key.key_name);
                    self.lifecycle
                        .record(&scope, name)
                        .map(|r| (r.patch_id.clone(), r.offer_ends_at))
                }
            };
            let Some((patch_id, expires_at)) = source else {
                continue;
            };
            match references.iter_mut().find(|r| r.patch_id == patch_id) {
                Some(reference) => reference.keys.push(key.key_name.clone()),
                None => references.push(PatchReference::new(
                    patch_id,
                    vec![key.key_name.clone()],
                    expires_at.format(&Rfc3339).unwrap_or_default(),
                )),
            }
        }
        references
    }
}
