//! The whole evolution pipeline as one trait ([`EvolutionEngine`]), so a
//! server can swap the engine.

use serde_json::Value;
use time::OffsetDateTime;

use crate::evolution::engine::event::EvolutionEvent;
use crate::patch::SchemaStore;

/// The whole evolution pipeline, so a server can swap the engine.
///
/// ```
/// use sdsi::SchemaStore;
/// use sdsi::evolution::{EvolutionEngine, EvolutionEvent};
/// use serde_json::Value;
/// /// An engine that never evolves anything.
/// struct Frozen;
/// impl EvolutionEngine for Frozen {
///     fn observe(&mut self, _: &mut SchemaStore, _: &Value, _: &str, _: time::OffsetDateTime) -> Vec<EvolutionEvent> {
///         Vec::new()
///     }
/// }
/// ```
pub trait EvolutionEngine: Send + Sync {
    /// Takes one received message `{"schema_id", "payload"}` from `client` at
    /// `now`, and proposes patches to `store` when a need matures.
    ///
    /// `now` should come from a clock the server trusts (its own, not the
    /// message's). A `now` the store's clock guard refuses (more than
    /// `LifecyclePolicy::max_clock_jump` past its last evaluation) feeds no
    /// pool: the engine reports its fragments as skipped. A fresh store has
    /// no evaluation yet to bound the first time by, so a replayer of logs
    /// bounds their times itself (`sdsi evolve --not-after` does).
    fn observe(
        &mut self,
        store: &mut SchemaStore,
        message: &Value,
        client: &str,
        now: OffsetDateTime,
    ) -> Vec<EvolutionEvent>;
}
