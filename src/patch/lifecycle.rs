//! The key lifecycle (§6.2.3): every patch key's record and its metrics
//! over the observation window, and the forward-only evaluation, driven
//! only by the `now` it is given, that moves a key from experimental to
//! stable, or on through deprecated and withdrawn to gone, under a policy
//! of thresholds and windows. Its counters also travel as table rows
//! beside the store's snapshot.

// Only declarations here: the files below name the file that defines what
// they use, never this facade, so that the module graph
// (scripts/check-module-cycles.py) shows the layers they form.

pub(super) mod clock;
pub(super) mod count_rows;
pub(super) mod counted;
mod day_window;
pub(super) mod evaluation;
pub(super) mod key_metrics;
#[cfg(feature = "evolution")]
pub(crate) mod lifecycle_header;
pub(super) mod policy;
mod recording;
pub(super) mod records;
mod serialized;
mod split_header;
pub(super) mod state;
mod views;
