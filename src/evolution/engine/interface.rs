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
    fn observe(
        &mut self,
        store: &mut SchemaStore,
        message: &Value,
        client: &str,
        now: OffsetDateTime,
    ) -> Vec<EvolutionEvent>;
}
