//! The loop that runs per message: the [`EvolutionEngine`](crate::evolution::EvolutionEngine) trait and its
//! default ([`Evolution`](crate::evolution::Evolution)), which takes a message's `other` through intake
//! and the embedder into its pools ([`Observation`](crate::evolution::Observation)), and turns a need whose
//! gate opened into a key, a conflict check, a packaged patch and a
//! decision, reported as [`EvolutionEvent`](crate::evolution::EvolutionEvent)s.
//!
//! May use: every other folder, and the patch store. The pool's state is
//! changed only through the pool's own methods.

pub(in crate::evolution) mod config;
pub(in crate::evolution) mod event;
pub(in crate::evolution) mod induction;
pub(in crate::evolution) mod interface;
pub(in crate::evolution) mod observation;
mod observe;
pub(in crate::evolution) mod pipeline;
pub(in crate::evolution) mod pool_key;
mod proposal;
