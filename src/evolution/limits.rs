//! The pool's settings as a cluster reads them ([`ClusterLimits`]): a
//! plain copy of the numbers, so a cluster and its per-client cap need not
//! know the pool's configuration.

use serde::{Deserialize, Serialize};

/// The pool's numbers a cluster needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClusterLimits {
    pub(crate) increment: f64,
    pub(crate) half_life: f64,
    pub(crate) client_cap: f64,
    pub(crate) window: f64,
    pub(crate) min_clients: usize,
    pub(crate) min_occurrences: usize,
    pub(crate) max_exemplars: usize,
    pub(crate) max_tracked_clients: usize,
}
