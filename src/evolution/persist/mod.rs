//! Keeping the engine between runs: its versioned saved state
//! ([`EvolutionState`](crate::evolution::EvolutionState)), the same state as rows a database rewrites in
//! part ([`EngineRows`](crate::evolution::EngineRows)), and the trait a storage back end implements
//! ([`StateStorage`](crate::evolution::StateStorage)). No I/O here.
//!
//! May use: a pool's serialized form (`pool::snapshot`), the engine's pool
//! keys, and the patch store's sealing.

pub(in crate::evolution) mod rows;
pub(in crate::evolution) mod state;
pub(in crate::evolution) mod storage;
