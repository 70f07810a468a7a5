//! What the evolve command's two runners (one process, or a PostgreSQL
//! replica) share: the engine type, a log line, restoring a saved state.

use sdsi::SchemaStore;
use sdsi::evolution::{Embedder, Evolution, IntentInducer};
use serde::Deserialize;
use serde_json::Value;
use time::OffsetDateTime;

/// The engine, with the embedder (`--model`) and the inducer (`--inducer`)
/// chosen at run time.
pub(super) type Engine = Evolution<Box<dyn Embedder>, Box<dyn IntentInducer>>;

/// One line of the log.
#[derive(Deserialize)]
pub(super) struct Event {
    #[serde(with = "time::serde::rfc3339")]
    pub(super) at: OffsetDateTime,
    pub(super) client: String,
    pub(super) message: Value,
}

/// Puts a saved store and engine state in place of `store` and `engine`,
/// unless it was saved for another template (`place` says where it was).
pub(super) fn put_in_place(
    saved_store: SchemaStore,
    saved_engine: sdsi::evolution::EvolutionState,
    store: &mut SchemaStore,
    engine: &mut Engine,
    place: &str,
) -> Result<(), String> {
    let (saved_digest, digest) = (saved_store.base().digest(), store.base().digest());
    if saved_digest.is_err() || saved_digest != digest {
        return Err(format!(
            "{place} holds the state of another template for scenario {:?}",
            store.base().scenario
        ));
    }
    engine.restore(saved_engine).map_err(|e| e.to_string())?;
    *store = saved_store;
    Ok(())
}

/// The scenario pools: personal pools are left out of reports, their
/// clients being people.
pub(super) fn shared_pools(engine: &Engine) -> impl Iterator<Item = &sdsi::evolution::Pool> {
    engine
        .pools()
        .filter(|(key, _)| key.client.is_none())
        .map(|(_, pool)| pool)
}
