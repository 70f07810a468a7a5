//! PostgreSQL storage for sdsi servers: several replicas of an agent
//! service share one state per scenario (the schema store and the evolution
//! engine, as [`sdsi::evolution::SavedServer`] bytes) and one observation
//! log.
//!
//! Replicas do not write the state per message. Each turns its messages
//! into [`sdsi::evolution::Observation`]s (cleaned, redacted, embedded) and
//! [`PgState::append`]s them to the log, one row per message id (a retry
//! counts once). One evaluator at a time ([`PgState::lead`], a session
//! advisory lock that passes on when its holder's connection dies) folds
//! the [`PgState::unfolded`] rows into the pools and the store and saves
//! both with the rows marked folded in one transaction
//! ([`PgState::save_folded`]; a [`Horizon`] from the evaluator's clock
//! says which rows are dated too far ahead to fold and what the log may
//! forget, so one message's time cannot empty it), which notifies the replicas
//! ([`PgState::listen`], [`PgState::wait_for_change`]) so they reload the
//! store. The same save keeps the store's patches, key records, pending
//! proposals and delivered keys as rows, rewriting only those that changed, which
//! [`PgState::store_rows`] reads without the pools. docs/replicas.md
//! describes the protocol; `sdsi evolve --state postgresql://… --replica
//! NAME` runs it.
//!
//! The whole-state [`sdsi::evolution::StateStorage`] implementation (load,
//! then save under a version check, [`Error::Conflict`] when another writer
//! saved first) remains for a single writer. The schema is kept as numbered
//! migrations applied on connect ([`SCHEMA_VERSION`]). The core does no I/O;
//! this crate uses the maintained synchronous `postgres` driver.

mod error;
mod horizon;
mod lead;
mod load;
mod log;
mod migrate;
mod pool_rows;
mod rows;
mod state;
mod tls;

pub use error::Error;
pub use horizon::{AheadOfClock, Horizon};
pub use load::Saved;
pub use log::{Logged, Unfolded, Watch};
pub use migrate::SCHEMA_VERSION;
pub use state::PgState;
