//! The schema store: a server's evolving schema for one scenario (accepted
//! patches, the convergence guard's queue, the key lifecycle, what each
//! client has been told, the proposals held for an operator) and its saved
//! forms, whole as a versioned snapshot or as table rows.

// Only declarations here: the files below name the file that defines what
// they use, never this facade, so that the module graph
// (scripts/check-module-cycles.py) shows the layers they form.

mod cache;
mod client_views;
pub(super) mod evaluation;
mod recording;
mod retention;
pub(super) mod review;
pub(super) mod row_writes;
pub(super) mod rows;
pub(super) mod schema_store;
pub(super) mod seal;
pub(super) mod snapshot;
pub(super) mod submission;
mod suggestion;
