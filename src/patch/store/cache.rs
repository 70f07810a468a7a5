//! The compiled schema of each client, kept while what its merge reads is
//! unchanged, so that a server may ask for it on every request.

use std::collections::HashMap;

use crate::patch::lifecycle::state::KeyState;
use crate::validate::CompiledSchema;

/// What a client's merge reads: the store's patch generation, which of its
/// patches have started and are active, and its lifecycle records' states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MergeInputs {
    pub(super) generation: u64,
    pub(super) patches: Vec<(bool, bool)>,
    pub(super) records: Vec<(usize, KeyState)>,
}

/// Compiled schemas by client, each with the merge inputs it was built from.
/// Cloning a store starts it with an empty cache.
#[derive(Debug, Default)]
pub(super) struct CompiledCache(
    std::sync::Mutex<HashMap<Option<String>, (MergeInputs, CompiledSchema)>>,
);

/// Clients whose compiled schema is kept at once; past it the cache starts over.
const CACHED_CLIENTS: usize = 4096;

impl Clone for CompiledCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl CompiledCache {
    pub(super) fn get(&self, client: Option<&str>, inputs: &MergeInputs) -> Option<CompiledSchema> {
        let map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (cached, schema) = map.get(&client.map(str::to_owned))?;
        (cached == inputs).then(|| schema.clone())
    }

    pub(super) fn put(&self, client: Option<&str>, inputs: MergeInputs, schema: CompiledSchema) {
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= CACHED_CLIENTS {
            map.clear();
        }
        map.insert(client.map(str::to_owned), (inputs, schema));
    }
}
