//! The pool's settings as a cluster reads them ([`ClusterLimits`]): a
//! plain copy of the numbers, so a cluster and its per-client cap need not
//! know the pool's configuration.

use serde::{Deserialize, Serialize};

/// The pool's numbers a cluster needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClusterLimits {
    pub(in crate::evolution::pool) increment: f64,
    pub(in crate::evolution::pool) half_life: f64,
    pub(in crate::evolution::pool) client_cap: f64,
    pub(in crate::evolution::pool) window: f64,
    pub(in crate::evolution::pool) min_clients: usize,
    pub(in crate::evolution::pool) min_occurrences: usize,
    pub(in crate::evolution::pool) max_exemplars: usize,
    pub(in crate::evolution::pool) max_tracked_clients: usize,
}
