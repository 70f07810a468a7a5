//! The Differential Semantic Pool (§6.2.1) as data: the fine clusters'
//! running sums and scoring vectors in contiguous buffers, their states,
//! the needs, the creation quota and the background; and the storage
//! operations every other part of the pool is built from (add, grow and
//! remove a cluster, find it by id) with the pool's accessors.

use std::fmt;

use rustc_hash::FxHashMap;

use crate::evolution::embed::vectors::normalized;
use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::error::PoolError;
use crate::evolution::pool::fine::cluster::ClusterState;
use crate::evolution::pool::fine::linkage::mean_direction;
use crate::evolution::pool::fine::quota::CreationQuota;
use crate::evolution::pool::needs::background::Background;
use crate::evolution::pool::needs::level::Needs;

/// The pool: fine clusters of fragment vectors grouped into needs, their
/// heat, and the trigger.
///
/// Each fine cluster keeps the running sum of its members' unit vectors and
/// their count; the vector a fragment is scored against (the members' mean: `fine/linkage.rs`)
/// sits in one contiguous buffer, so finding the nearest cluster is one
/// linear scan. Fine clusters are grouped into needs (see
/// [`PoolConfig::need_threshold`]), and the dual gate opens on needs. All
/// state is plain data: `serde` snapshots restore it exactly.
///
/// ```
/// use sdsi::evolution::{Pool, PoolConfig};
/// use time::macros::datetime;
///
/// let mut pool = Pool::new(PoolConfig::new(2, 0.9))?;
/// let now = datetime!(2026-05-01 0:00 UTC);
/// let a = pool.ingest(&[1.0, 0.0], "window seat", false, "agent-1", now)?;
/// let b = pool.ingest(&[0.99, 0.05], "a seat by the window", false, "agent-2", now)?;
/// let c = pool.ingest(&[0.0, 1.0], "vegetarian meal", false, "agent-1", now)?;
/// assert_eq!(a.cluster, b.cluster);
/// assert_ne!(a.need, c.need);
/// # Ok::<(), sdsi::evolution::PoolError>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Pool {
    pub(in crate::evolution::pool) config: PoolConfig,
    /// Running sums, `dimension` floats per cluster.
    pub(in crate::evolution::pool) sums: Vec<f32>,
    /// What fragments are scored against (means or unit centroids, as the
    /// linkage says), `dimension` floats per cluster, same order.
    pub(in crate::evolution::pool) centroids: Vec<f32>,
    pub(in crate::evolution::pool) clusters: Vec<ClusterState>,
    /// Cluster id → position.
    pub(in crate::evolution::pool) positions: FxHashMap<u64, usize>,
    pub(in crate::evolution::pool) needs: Needs,
    pub(in crate::evolution::pool) quota: CreationQuota,
    pub(in crate::evolution::pool) background: Background,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("config", &self.config)
            .field("clusters", &self.clusters.len())
            .field("needs", &self.needs.len())
            .finish()
    }
}

impl Pool {
    /// An empty pool.
    pub fn new(config: PoolConfig) -> Result<Self, PoolError> {
        config.check()?;
        Ok(Self {
            config,
            sums: Vec::new(),
            centroids: Vec::new(),
            clusters: Vec::new(),
            positions: FxHashMap::default(),
            needs: Needs::new(config.dimension),
            quota: CreationQuota::default(),
            background: Background::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// How many clusters the pool holds.
    pub fn len(&self) -> usize {
        self.clusters.len()
    }

    /// Whether the pool holds no cluster.
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }

    /// The need threshold in force: [`PoolConfig::need_threshold`] for a
    /// fixed pool, or before an adaptive pool's background is known; else
    /// the contrast times the background, kept between
    /// [`NEED_FLOOR_RATIO`](crate::evolution::pool::needs::background::NEED_FLOOR_RATIO) × the fine threshold
    /// and the fine threshold. On the plain scale: once the background is
    /// known, the need level compares links centred on the pool's mean
    /// against this threshold carried to that scale (docs/evolution.md,
    /// "The centred need linkage").
    pub fn need_threshold(&self) -> f32 {
        self.background.need_threshold(&self.config)
    }

    /// The background the need threshold adapts to, once measured.
    pub fn background(&self) -> Option<f32> {
        self.background.value
    }

    /// The support threshold in force: [`PoolConfig::support_threshold`],
    /// scaled as the need threshold is.
    pub(in crate::evolution) fn support_threshold(&self) -> f32 {
        self.background
            .scaled(&self.config, self.config.support_threshold)
    }

    /// The claim threshold in force: [`PoolConfig::claim_threshold`],
    /// scaled as the need threshold is.
    pub(in crate::evolution) fn claim_threshold(&self) -> f32 {
        self.background
            .scaled(&self.config, self.config.claim_threshold)
    }

    /// The mean similarity of two groups of fragments (running sums and
    /// counts) as the need level measures it: centred on the pool's mean
    /// once it is measured (`centre.rs`).
    pub(in crate::evolution) fn centred_link(&self, a: &[f32], na: u64, b: &[f32], nb: u64) -> f32 {
        self.background.centre.link(a, na, b, nb)
    }

    /// The need threshold in force on the scale of [`Pool::centred_link`].
    pub(in crate::evolution) fn grouping_threshold(&self) -> f32 {
        self.background.centre.threshold(self.need_threshold())
    }

    /// [`Pool::centred_link`] between needs `a` and `b` (positions).
    pub(in crate::evolution) fn centred_need_link(&self, a: usize, b: usize) -> f32 {
        self.needs
            .pair(a, b)
            .map_or(f32::NEG_INFINITY, |(x, p, y, q)| {
                self.centred_link(x, p, y, q)
            })
    }

    /// Counts one fragment taken in; measures the background (and the
    /// centre) when due (adaptive pools only).
    pub(in crate::evolution) fn tick_background(&mut self) {
        self.background.tick(&self.config, &self.needs);
    }

    /// Measures the background again now (after a replica merge).
    pub(in crate::evolution) fn measure_background(&mut self) {
        self.background = Background::measure(&self.config, &self.needs);
    }

    /// Where cluster `id` is stored.
    pub(in crate::evolution) fn position(&self, id: u64) -> Option<usize> {
        self.positions.get(&id).copied()
    }

    /// Rebuilds the id → position map (after ids changed).
    pub(in crate::evolution) fn reindex(&mut self) {
        self.positions = self
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id, i))
            .collect();
    }

    /// Adds a cluster with running sum `sum` (used by restore and merge);
    /// the caller puts it in a need.
    pub(in crate::evolution) fn push(
        &mut self,
        state: ClusterState,
        sum: &[f32],
    ) -> Result<(), PoolError> {
        if sum.len() != self.config.dimension {
            return Err(PoolError::Dimension {
                expected: self.config.dimension,
                found: sum.len(),
            });
        }
        let mut centroid = normalized(sum)?;
        mean_direction(sum, state.members, &mut centroid);
        self.sums.extend_from_slice(sum);
        self.centroids.extend_from_slice(&centroid);
        self.positions.insert(state.id, self.clusters.len());
        self.clusters.push(state);
        Ok(())
    }

    /// Removes cluster `index` from the pool and from its need.
    pub(in crate::evolution) fn remove(
        &mut self,
        index: usize,
    ) -> Option<(ClusterState, Vec<f32>)> {
        self.remove_merged(index, false)
    }

    /// Removes cluster `index` from the pool; its need keeps the cluster's
    /// vectors when `keeps_vectors` (they were merged into another of its
    /// clusters), else gives them up.
    pub(in crate::evolution) fn remove_merged(
        &mut self,
        index: usize,
        keeps_vectors: bool,
    ) -> Option<(ClusterState, Vec<f32>)> {
        let dim = self.config.dimension;
        if index >= self.clusters.len() {
            return None;
        }
        self.leave_need(index, keeps_vectors);
        let state = self.clusters.swap_remove(index);
        self.positions.remove(&state.id);
        if let Some(moved) = self.clusters.get(index) {
            self.positions.insert(moved.id, index);
        }
        let last = self.clusters.len();
        let sum = self.sums.get(index * dim..(index + 1) * dim)?.to_vec();
        if index != last {
            self.sums
                .copy_within(last * dim..(last + 1) * dim, index * dim);
            self.centroids
                .copy_within(last * dim..(last + 1) * dim, index * dim);
        }
        self.sums.truncate(last * dim);
        self.centroids.truncate(last * dim);
        Some((state, sum))
    }

    /// Adds `v` into cluster `index`'s running sum and updates what it is
    /// scored against in place (its member count must already include `v`).
    pub(in crate::evolution) fn add_to(&mut self, index: usize, v: &[f32]) {
        let dim = self.config.dimension;
        let range = index * dim..(index + 1) * dim;
        let members = self.clusters.get(index).map_or(0, |c| c.members);
        if let (Some(sum), Some(centroid)) = (
            self.sums.get_mut(range.clone()),
            self.centroids.get_mut(range),
        ) {
            for (s, x) in sum.iter_mut().zip(v) {
                *s += x;
            }
            // A sum that cancelled (possible only at a threshold <= 0, and
            // refused before joining) keeps its previous centroid.
            mean_direction(sum, members, centroid);
        }
    }
}
