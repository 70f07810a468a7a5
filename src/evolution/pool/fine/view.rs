//! A read-only view of one fine cluster ([`ClusterView`]): what a caller,
//! a need view or a report reads of it, with its centroid from the pool's
//! contiguous storage.

use time::OffsetDateTime;

use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::fine::cluster::ClusterState;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::evolution::pool::heat::seconds;

/// A read-only view of one cluster.
#[derive(Debug, Clone, Copy)]
pub struct ClusterView<'p> {
    state: &'p ClusterState,
    centroid: &'p [f32],
    config: &'p PoolConfig,
}

impl<'p> ClusterView<'p> {
    /// The cluster's stable id.
    pub fn id(&self) -> u64 {
        self.state.id
    }
    /// The need the cluster belongs to.
    pub fn need(&self) -> u64 {
        self.state.need
    }
    /// Fragments summed into the cluster (every fragment, not only the
    /// first of a request).
    pub fn members(&self) -> u64 {
        self.state.members
    }
    /// Requests it has received: a request is one client at one instant, so
    /// the fragments of one message count once.
    pub fn occurrences(&self) -> u64 {
        self.state.occurrences
    }
    /// Its heat at `now`.
    pub fn heat(&self, now: OffsetDateTime) -> f64 {
        self.state
            .heat
            .value(seconds(now), self.config.half_life_secs)
    }
    /// Whether the heat's log-domain sums (its heat, and what it booked as
    /// lent) are finite (a non-finite one would serialize as `null` and the
    /// snapshot would not restore). Only in fuzz builds, where checking this
    /// after every operation by serializing the whole pool would slow every
    /// run.
    #[cfg(fuzzing)]
    #[doc(hidden)]
    pub fn heat_is_finite(&self) -> bool {
        self.state.heat.is_finite() && self.state.lent_heat.is_finite()
    }
    /// The time of the heat's latest increment, in seconds since the Unix
    /// epoch (−∞ before any): [`ClusterView::heat`] reads at it for any
    /// earlier time. Only in fuzz builds, for `pool_ops` to check exactly
    /// that after increments dated out of order or far ahead.
    #[cfg(fuzzing)]
    #[doc(hidden)]
    pub fn heat_latest(&self) -> f64 {
        self.state.heat.latest()
    }
    /// Distinct clients within the gate window ending at `now`, counted up to
    /// the gate's minimum (more need not be remembered).
    pub fn recent_clients(&self, now: OffsetDateTime) -> usize {
        self.state
            .recent_client_count(seconds(now), self.config.window_secs)
    }
    /// The most recently seen clients, most recent first.
    pub fn clients(&self) -> impl Iterator<Item = &'p str> {
        self.state.recent_clients()
    }
    /// Representative fragments, with counts.
    pub fn exemplars(&self) -> &'p [Exemplar] {
        &self.state.exemplars
    }
    /// The vector fragments are scored against: under average linkage the
    /// mean of the members' unit vectors (its squared length is their mean
    /// pairwise cosine, self-pairs included), under centroid linkage that
    /// mean's direction, of unit length.
    pub fn centroid(&self) -> &'p [f32] {
        self.centroid
    }
    /// The key proposed from this cluster's need, if any (`other` when the
    /// inducer left the need there).
    pub fn proposed(&self) -> Option<&'p str> {
        self.state.proposed.as_deref()
    }
}

impl Pool {
    /// The view of the cluster stored at `index`.
    fn view(&self, index: usize) -> Option<ClusterView<'_>> {
        let dim = self.config.dimension;
        Some(ClusterView {
            state: self.clusters.get(index)?,
            centroid: self.centroids.get(index * dim..(index + 1) * dim)?,
            config: &self.config,
        })
    }

    /// The cluster with id `id`.
    pub fn cluster(&self, id: u64) -> Option<ClusterView<'_>> {
        self.view(self.position(id)?)
    }

    /// Every cluster, in storage order.
    pub fn clusters(&self) -> impl Iterator<Item = ClusterView<'_>> {
        (0..self.clusters.len()).filter_map(|i| self.view(i))
    }
}
