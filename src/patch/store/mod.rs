//! The schema store: a server's evolving schema for one scenario (accepted
//! patches, the convergence guard's queue, the key lifecycle, what each
//! client has been told, the proposals held for an operator) and its saved
//! forms, whole as a versioned snapshot or as table rows.
//!
//! Only declarations here: files refer to one another by the file that
//! defines an item, so that the module graph shows their real layers.

mod cache;
mod client_views;
pub(super) mod evaluation;
mod recording;
mod retention;
pub(super) mod review;
pub(super) mod row_writes;
pub(super) mod rows;
pub(super) mod schema_store;
pub(super) mod snapshot;
pub(super) mod submission;
mod suggestion;
