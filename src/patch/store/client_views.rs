//! What the store shows each client at `now`: the schema it sees, compiled
//! (and cached), its template with lifecycle flags, and the digest a
//! polling endpoint serves.

use time::OffsetDateTime;

use super::cache::MergeInputs;
use super::schema_store::{SchemaStore, already_authorized};
use crate::patch::compile_error::CompileError;
use crate::patch::effective::EffectiveSchema;
use crate::template::SchemaTemplate;
use crate::validate::CompiledSchema;

impl SchemaStore {
    pub(super) fn effective<'a>(&'a self, client: Option<&'a str>) -> EffectiveSchema<'a> {
        let merge = EffectiveSchema::new(&self.base)
            .patches(self.patches_for(client))
            .states(&self.lifecycle)
            .authorizer(&already_authorized)
            .options(self.options)
            .lenient();
        match client {
            Some(client) => merge.client(client),
            None => merge,
        }
    }

    /// The schema `client` sees at `now` (global patches plus its own),
    /// compiled. Cached per client while what the merge reads (the accepted
    /// patches, which of them are active at `now`, the visible keys' states)
    /// is unchanged, so a server may call it per request.
    pub fn compile_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<CompiledSchema, CompileError> {
        let inputs = MergeInputs {
            generation: self.generation,
            patches: self
                .patches_for(client)
                .map(|p| (p.timestamp <= now, p.is_active_at(now)))
                .collect(),
            records: self.lifecycle.visible_at(client, now),
        };
        if let Some(schema) = self.compiled.get(client, &inputs) {
            return Ok(schema);
        }
        let schema = self.effective(client).compile(now)?;
        self.compiled.put(client, inputs, schema.clone());
        Ok(schema)
    }

    /// The template `client` sees at `now`, with lifecycle flags.
    pub fn template_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<SchemaTemplate, CompileError> {
        self.effective(client).template(now)
    }

    /// The digest of the schema `client` sees at `now`: a version a polling
    /// endpoint can serve (an ETag); it changes exactly when what the client
    /// may send does (see [`EffectiveSchema::digest`]).
    pub fn digest_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<String, CompileError> {
        self.effective(client).digest(now)
    }
}
