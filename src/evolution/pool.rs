//! The Differential Semantic Pool (§6.2.1): online clustering of `other`
//! fragments into fine clusters, fine clusters into needs, decaying heat,
//! and the dual-gate trigger (on needs).

use std::fmt;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::cluster::{ClusterLimits, ClusterState, Exemplar};
use super::gate::Gate;
use super::heat::seconds;
use super::linkage::Linkage;
use super::needs::{NeedState, Needs};
use super::quota::CreationQuota;

/// How a pool clusters, heats and triggers. The defaults are the draft's
/// examples, except the similarity threshold, which belongs to the embedder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[must_use]
pub struct PoolConfig {
    /// Vector dimension; every vector must have it.
    pub dimension: usize,
    /// Similarity, scored as [`PoolConfig::linkage`] says, at or above which
    /// a fragment joins a cluster and two clusters merge; take it from
    /// [`super::Embedder::recommended_threshold`] (calibrated for the
    /// default, average linkage).
    pub threshold: f32,
    /// How a fragment is scored against a cluster. Default
    /// [`Linkage::Average`]; snapshots that name none restore with
    /// [`Linkage::Centroid`], the only linkage when they were written.
    #[serde(default = "Linkage::legacy")]
    pub linkage: Linkage,
    /// Mean similarity between two groups of fine clusters at or above which
    /// they are one need (average linkage over the clusters' members); looser
    /// than `threshold`, since one need is phrased many ways. Take it from
    /// [`super::Embedder::recommended_need_threshold`]. Snapshots written
    /// before needs restore with [`NEED_RATIO`] × `threshold`.
    #[serde(default = "unset")]
    pub need_threshold: f32,
    /// Mean similarity at or above which a neighbouring need (not yet
    /// proposed) lends its heat to the gate of a hotter need: the paraphrases
    /// of one need that the grouping left apart. Default [`SUPPORT_RATIO`] ×
    /// `need_threshold`.
    #[serde(default = "unset")]
    pub support_threshold: f32,
    /// Mean similarity at or above which a need that lent its heat to a
    /// proposed neighbour counts as part of it: it lends no more and
    /// triggers on its own heat alone. Default [`CLAIM_RATIO`] ×
    /// `need_threshold`.
    #[serde(default = "unset")]
    pub claim_threshold: f32,
    /// Share of `heat_threshold` a need must hold itself before neighbours
    /// may lend it theirs. Default 0.3.
    #[serde(default = "default_support_share")]
    pub support_share: f64,
    /// Heat a fragment adds. Default 1.
    pub increment: f64,
    /// Half-life of heat, in seconds. Default 24 h.
    pub half_life_secs: f64,
    /// Heat at or above which the first gate opens. Default 50.
    pub heat_threshold: f64,
    /// Distinct clients within the window that open the second gate. Default 5.
    pub min_clients: usize,
    /// Requests within the window that open the second gate (one message is
    /// one request, however many fragments it carries). Default 10.
    pub min_occurrences: usize,
    /// The gate's window, in seconds. Default 7 days.
    pub window_secs: f64,
    /// Most heat one client may add to one cluster within any window (a
    /// sliding one), so that a single agent cannot force an evolution. Default 15.
    pub client_heat_cap: f64,
    /// Most clusters kept; the coldest goes first. Default 10,000.
    pub max_clusters: usize,
    /// Fragments kept per cluster as examples. Default 8.
    pub max_exemplars: usize,
    /// Clients whose recent heat is tracked per need. Default 64.
    pub max_tracked_clients: usize,
    /// Most clusters one client may found within any window (a calendar
    /// window per client, starting at its first founding), so that a flood
    /// of distinct fragments from one client cannot evict the needs others
    /// are building. Default 1,000.
    #[serde(default = "default_client_quota")]
    pub max_new_clusters_per_client: usize,
}

/// The need threshold's default share of the fine threshold.
pub const NEED_RATIO: f32 = 0.82;

/// The support threshold's default share of the need threshold.
pub const SUPPORT_RATIO: f32 = 0.45;

/// The claim threshold's default share of the need threshold.
pub const CLAIM_RATIO: f32 = 0.7;

/// Marks a threshold a snapshot did not carry (it is derived on restore).
fn unset() -> f32 {
    f32::NAN
}

fn default_support_share() -> f64 {
    0.3
}

fn default_client_quota() -> usize {
    1_000
}

impl PoolConfig {
    /// The defaults for vectors of `dimension` joined at `threshold`.
    pub fn new(dimension: usize, threshold: f32) -> Self {
        Self {
            dimension,
            threshold,
            linkage: Linkage::Average,
            need_threshold: threshold * NEED_RATIO,
            support_threshold: threshold * NEED_RATIO * SUPPORT_RATIO,
            claim_threshold: threshold * NEED_RATIO * CLAIM_RATIO,
            support_share: default_support_share(),
            increment: 1.0,
            half_life_secs: 86_400.0,
            heat_threshold: 50.0,
            min_clients: 5,
            min_occurrences: 10,
            window_secs: 7.0 * 86_400.0,
            client_heat_cap: 15.0,
            max_clusters: 10_000,
            max_exemplars: 8,
            max_tracked_clients: 64,
            max_new_clusters_per_client: default_client_quota(),
        }
    }

    /// The same settings with another need threshold, and the support and
    /// claim thresholds that go with it ([`SUPPORT_RATIO`] and
    /// [`CLAIM_RATIO`] of it).
    pub fn with_need_threshold(mut self, need_threshold: f32) -> Self {
        self.need_threshold = need_threshold;
        self.support_threshold = need_threshold * SUPPORT_RATIO;
        self.claim_threshold = need_threshold * CLAIM_RATIO;
        self
    }

    /// Fills in the thresholds a snapshot written before needs lacks.
    fn complete(mut self) -> Self {
        if self.need_threshold.is_nan() {
            self.need_threshold = self.threshold * NEED_RATIO;
        }
        if self.support_threshold.is_nan() {
            self.support_threshold = self.need_threshold * SUPPORT_RATIO;
        }
        if self.claim_threshold.is_nan() {
            self.claim_threshold = self.need_threshold * CLAIM_RATIO;
        }
        self
    }

    fn check(&self) -> Result<(), PoolError> {
        let positive = |v: f64| v > 0.0 && v.is_finite();
        let problem = if self.dimension == 0 {
            Some("dimension must be at least 1")
        } else if [
            self.threshold,
            self.need_threshold,
            self.support_threshold,
            self.claim_threshold,
        ]
        .iter()
        .any(|t| !(t.is_finite() && (-1.0..=1.0).contains(t)))
        {
            Some("thresholds must be cosine similarities in -1..=1")
        } else if !(self.support_share.is_finite() && self.support_share >= 0.0) {
            Some("support share must be a finite number, not negative")
        } else if !positive(self.half_life_secs) || self.half_life_secs < MIN_HALF_LIFE_SECS {
            // Heat is kept against the Unix epoch as t / half-life: a shorter
            // half-life would overflow it for ordinary timestamps.
            Some("half-life must be a finite number of seconds, at least 0.001")
        } else if !positive(self.window_secs) {
            Some("window must be a positive, finite number of seconds")
        } else if !positive(self.increment)
            || self.client_heat_cap.is_nan()
            || self.client_heat_cap < 0.0
            || !self.heat_threshold.is_finite()
        {
            Some(
                "increment must be positive, the client cap not negative, the heat threshold finite",
            )
        } else if self.max_clusters == 0
            || self.max_exemplars == 0
            || self.min_clients == 0
            || self.min_occurrences == 0
            || self.max_new_clusters_per_client == 0
        {
            Some("counts (max clusters, exemplars, gate minimums) must be at least 1")
        } else {
            None
        };
        problem.map_or(Ok(()), |p| Err(PoolError::Config(p)))
    }

    pub(crate) fn limits(&self) -> ClusterLimits {
        ClusterLimits {
            increment: self.increment,
            half_life: self.half_life_secs,
            client_cap: self.client_heat_cap,
            window: self.window_secs,
            min_clients: self.min_clients,
            min_occurrences: self.min_occurrences,
            max_exemplars: self.max_exemplars,
            max_tracked_clients: self.max_tracked_clients,
        }
    }
}

/// Why a pool refused an input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    /// The configuration is unusable.
    #[error("invalid pool configuration: {0}")]
    Config(&'static str),
    /// A vector of the wrong length.
    #[error("vector has dimension {found}, the pool expects {expected}")]
    Dimension {
        /// The pool's dimension.
        expected: usize,
        /// The vector's.
        found: usize,
    },
    /// A vector with a NaN or infinite component.
    #[error("vector has a NaN or infinite component")]
    NonFinite,
    /// A vector of length zero cannot point anywhere.
    #[error("vector is zero")]
    ZeroVector,
    /// Two pools with different configurations cannot merge.
    #[error("pools with different configurations cannot merge")]
    ConfigMismatch,
    /// The client founded as many clusters as it may within the window
    /// ([`PoolConfig::max_new_clusters_per_client`]); the fragment was not
    /// taken.
    #[error("this client founded {limit} clusters within the window, the most it may")]
    ClientQuota {
        /// The quota.
        limit: usize,
    },
}

/// What one ingest did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ingested {
    /// The cluster the fragment is in now.
    pub cluster: u64,
    /// The need that cluster belongs to now.
    pub need: u64,
    /// Whether the fragment founded it.
    pub created: bool,
    /// A cluster that drifted within the threshold and was merged into it.
    pub merged: Option<u64>,
    /// A cluster evicted (the coldest) to make room.
    pub evicted: Option<u64>,
    /// Whether the dual gate of the cluster's need is open and no key was
    /// proposed from it yet.
    pub triggered: bool,
    /// Whether it opened only with the heat of neighbouring needs (see
    /// [`PoolConfig::support_threshold`]).
    pub supported: bool,
}

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
    /// Whether the heat's log-domain sum is finite (a non-finite one would
    /// serialize as `null` and the snapshot would not restore). Only in fuzz
    /// builds, where checking this after every operation by serializing the
    /// whole pool cost a sixth of the run.
    #[cfg(fuzzing)]
    #[doc(hidden)]
    pub fn heat_is_finite(&self) -> bool {
        self.state.heat.is_finite()
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
    /// The key proposed from this cluster's need, if any (`""` when the
    /// need was withheld).
    pub fn proposed(&self) -> Option<&'p str> {
        self.state.proposed.as_deref()
    }
}

/// The pool: fine clusters of fragment vectors grouped into needs, their
/// heat, and the trigger.
///
/// Each fine cluster keeps the running sum of its members' unit vectors and
/// their count; the vector a fragment is scored against (see [`Linkage`])
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
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PoolSnapshot", into = "PoolSnapshot")]
pub struct Pool {
    pub(super) config: PoolConfig,
    /// Running sums, `dimension` floats per cluster.
    pub(super) sums: Vec<f32>,
    /// What fragments are scored against (means or unit centroids, as the
    /// linkage says), `dimension` floats per cluster, same order.
    pub(super) centroids: Vec<f32>,
    pub(super) clusters: Vec<ClusterState>,
    /// Cluster id → position.
    pub(super) positions: FxHashMap<u64, usize>,
    pub(super) needs: Needs,
    pub(super) quota: CreationQuota,
}

/// The serialized form of a pool: its configuration, each cluster with its
/// sum, each need with its own state and sum.
#[derive(Serialize, Deserialize)]
struct PoolSnapshot {
    config: PoolConfig,
    /// Each cluster's state with its running sum moved into `sum`.
    clusters: Vec<ClusterState>,
    /// Absent in snapshots written before needs: each cluster then becomes
    /// a need of its own.
    #[serde(default)]
    needs: Vec<NeedState>,
    #[serde(default)]
    quota: CreationQuota,
}

impl From<Pool> for PoolSnapshot {
    fn from(pool: Pool) -> Self {
        let dim = pool.config.dimension;
        let clusters = pool
            .clusters
            .into_iter()
            .zip(pool.sums.chunks_exact(dim))
            .map(|(mut state, sum)| {
                state.sum = sum.to_vec();
                state
            })
            .collect();
        let needs = pool
            .needs
            .states
            .into_iter()
            .zip(pool.needs.sums.chunks_exact(dim))
            .map(|(mut state, sum)| {
                state.sum = sum.to_vec();
                state
            })
            .collect();
        PoolSnapshot {
            config: pool.config,
            clusters,
            needs,
            quota: pool.quota,
        }
    }
}

impl TryFrom<PoolSnapshot> for Pool {
    type Error = PoolError;
    fn try_from(snapshot: PoolSnapshot) -> Result<Self, PoolError> {
        let mut pool = Pool::new(snapshot.config.complete())?;
        for mut state in snapshot.clusters {
            let sum = std::mem::take(&mut state.sum);
            pool.push(state, &sum)?;
        }
        pool.restore_needs(snapshot.needs)?;
        pool.quota = snapshot.quota;
        Ok(pool)
    }
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

/// `a · b` with eight independent accumulators, so the compiler can vectorise it.
#[inline]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (a8, a_rest) = a.split_at(a.len() - a.len() % 8);
    let (b8, b_rest) = b.split_at(b.len().min(a8.len()));
    for (x, y) in a8.chunks_exact(8).zip(b8.chunks_exact(8)) {
        for i in 0..8 {
            // chunks_exact(8) guarantees both have 8 elements.
            if let (Some(p), Some(q), Some(s)) = (x.get(i), y.get(i), acc.get_mut(i)) {
                *s += p * q;
            }
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Writes `v / |v|` into `out`, or fails for zero, NaN or infinite input.
/// Scales by the largest component only when the squared norm would over-
/// or underflow (`[1e20]`, `[1e-30]`), so the usual case is one pass.
fn unit_into(v: &[f32], out: &mut [f32]) -> Result<(), PoolError> {
    if v.iter().any(|x| !x.is_finite()) {
        return Err(PoolError::NonFinite);
    }
    let squared = dot(v, v);
    if squared.is_normal() {
        let norm = squared.sqrt();
        out.iter_mut().zip(v).for_each(|(o, x)| *o = x / norm);
        return Ok(());
    }
    let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if largest <= 0.0 {
        return Err(PoolError::ZeroVector);
    }
    let norm = v
        .iter()
        .map(|x| (x / largest) * (x / largest))
        .sum::<f32>()
        .sqrt();
    if !(norm.is_finite() && norm > 0.0) {
        return Err(PoolError::ZeroVector);
    }
    out.iter_mut()
        .zip(v)
        .for_each(|(o, x)| *o = x / largest / norm);
    Ok(())
}

/// `v / |v|` as a new vector.
fn normalized(v: &[f32]) -> Result<Vec<f32>, PoolError> {
    let mut out = vec![0.0; v.len()];
    unit_into(v, &mut out)?;
    Ok(out)
}

/// Whether `a + b` still points somewhere, from dot products alone.
fn sum_has_direction(a: &[f32], b: &[f32]) -> bool {
    let squared = dot(a, a) + 2.0 * dot(a, b) + dot(b, b);
    squared.is_finite() && squared > f32::EPSILON * (dot(a, a) + dot(b, b))
}

/// A stable id for a cluster founded by `text` at `at`.
fn cluster_id(text: &str, at: f64) -> u64 {
    let digest = Sha256::new()
        .chain_update(text.as_bytes())
        .chain_update(at.to_le_bytes())
        .finalize();
    let mut bytes = [0u8; 8];
    for (b, d) in bytes.iter_mut().zip(digest.iter()) {
        *b = *d;
    }
    u64::from_le_bytes(bytes)
}

/// The shortest half-life a pool accepts, in seconds.
pub const MIN_HALF_LIFE_SECS: f64 = 1e-3;

/// How many of the scan's best clusters an ingest keeps: the one joined and
/// four runners-up checked for drift merges.
const MERGE_CANDIDATES: usize = 5;

/// A cluster's index and its similarity to the fragment.
type Scored = (usize, f32);

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

    pub(super) fn view(&self, index: usize) -> Option<ClusterView<'_>> {
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

    /// Where cluster `id` is stored.
    pub(super) fn position(&self, id: u64) -> Option<usize> {
        self.positions.get(&id).copied()
    }

    /// Every cluster, in storage order.
    pub fn clusters(&self) -> impl Iterator<Item = ClusterView<'_>> {
        (0..self.clusters.len()).filter_map(|i| self.view(i))
    }

    /// Whether cluster `i`'s sum plus `other`'s cluster `j`'s sum still points
    /// somewhere (with a threshold at or below 0, opposite clusters could cancel).
    fn combines(&self, i: usize, other: &Pool, j: usize) -> bool {
        if self.config.threshold > 0.0 {
            return true; // centroids within a positive threshold cannot cancel
        }
        let dim = self.config.dimension;
        match (
            self.sums.get(i * dim..(i + 1) * dim),
            other.sums.get(j * dim..(j + 1) * dim),
        ) {
            (Some(a), Some(b)) => sum_has_direction(a, b),
            _ => false,
        }
    }

    /// Makes ids unique again after a merge. Clusters are visited in an order
    /// fixed by their content alone (running sum, then state without the
    /// id), and each keeps its id unless an earlier one has it, in which case
    /// it moves to the next free one. Both merge directions hold the same
    /// clusters, so they end with the same ids; a pool without clashes keeps
    /// every id.
    fn settle_ids(&mut self) {
        let dim = self.config.dimension;
        let mut seen = std::collections::HashSet::new();
        if self.clusters.iter().all(|c| seen.insert(c.id)) {
            // The usual case: nothing to settle, but paired clusters may
            // have taken their partner's (smaller) id.
            self.reindex();
            return;
        }
        let sum_bits = |i: usize| {
            self.sums
                .get(i * dim..(i + 1) * dim)
                .unwrap_or(&[])
                .iter()
                .map(|x| x.to_bits())
        };
        // The state without its id, serialized: needed only to order
        // clusters whose sums are equal bit for bit (rare), so built lazily.
        let state_text = |i: usize| {
            let mut state = self.clusters.get(i).cloned();
            if let Some(state) = state.as_mut() {
                state.id = 0;
            }
            serde_json::to_string(&state).unwrap_or_default()
        };
        let mut order: Vec<usize> = (0..self.clusters.len()).collect();
        order.sort_by(|&a, &b| sum_bits(a).cmp(sum_bits(b)).then(a.cmp(&b)));
        // Runs of equal sums are ordered by their states, each serialized once.
        let mut start = 0;
        while start < order.len() {
            let first = order.get(start).copied().unwrap_or(0);
            let end = order
                .iter()
                .skip(start)
                .position(|&i| sum_bits(i).ne(sum_bits(first)))
                .map_or(order.len(), |n| start + n);
            if let Some(run) = order.get_mut(start..end) {
                if run.len() > 1 {
                    run.sort_by_cached_key(|&i| (state_text(i), i));
                }
            }
            start = end.max(start + 1);
        }
        let mut taken = std::collections::HashSet::new();
        for i in order {
            let Some(cluster) = self.clusters.get_mut(i) else {
                continue;
            };
            while !taken.insert(cluster.id) {
                cluster.id = cluster.id.wrapping_add(0x9e37_79b9_7f4a_7c15);
            }
        }
        self.reindex();
    }

    /// Rebuilds the id → position map (after ids changed).
    fn reindex(&mut self) {
        self.positions = self
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id, i))
            .collect();
    }

    /// `id`, or the next id after it that no cluster of the pool has: two
    /// clusters founded by the same text at the same instant stay apart.
    fn unused_id(&self, mut id: u64) -> u64 {
        while self.positions.contains_key(&id) {
            id = id.wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
        id
    }

    /// Adds a cluster with running sum `sum` (used by restore and merge);
    /// the caller puts it in a need.
    pub(super) fn push(&mut self, state: ClusterState, sum: &[f32]) -> Result<(), PoolError> {
        if sum.len() != self.config.dimension {
            return Err(PoolError::Dimension {
                expected: self.config.dimension,
                found: sum.len(),
            });
        }
        let mut centroid = normalized(sum)?;
        self.config
            .linkage
            .direction(sum, state.members, &mut centroid);
        self.sums.extend_from_slice(sum);
        self.centroids.extend_from_slice(&centroid);
        self.positions.insert(state.id, self.clusters.len());
        self.clusters.push(state);
        Ok(())
    }

    /// Removes cluster `index` from the pool and from its need.
    fn remove(&mut self, index: usize) -> Option<(ClusterState, Vec<f32>)> {
        self.remove_merged(index, false)
    }

    /// Removes cluster `index` from the pool; its need keeps the cluster's
    /// vectors when `keeps_vectors` (they were merged into another of its
    /// clusters), else gives them up.
    fn remove_merged(
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
    pub(super) fn add_to(&mut self, index: usize, v: &[f32]) {
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
            self.config.linkage.direction(sum, members, centroid);
        }
    }

    /// The best cluster for `v` and the runners-up, by cosine similarity.
    fn scan(&self, v: &[f32]) -> (Option<Scored>, [Scored; MERGE_CANDIDATES]) {
        const BLOCK: usize = 64;
        let mut best: Option<Scored> = None;
        let mut runners = [(usize::MAX, f32::NEG_INFINITY); MERGE_CANDIDATES];
        let mut weakest = f32::NEG_INFINITY;
        let mut scores = [0.0f32; BLOCK];
        let dim = self.config.dimension;
        // Dot products a block at a time (the same tight loop as a plain
        // scan), then the ranking over the block's scores.
        for (block, centroids) in self.centroids.chunks(dim * BLOCK).enumerate() {
            let mut filled = 0;
            for (score, centroid) in scores.iter_mut().zip(centroids.chunks_exact(dim)) {
                *score = dot(centroid, v);
                filled += 1;
            }
            for (offset, &s) in scores.iter().take(filled).enumerate() {
                let i = block * BLOCK + offset;
                // One comparison per centroid; the kept set changes rarely.
                if s > weakest {
                    if let Some(slot) = runners.iter_mut().min_by(|a, b| a.1.total_cmp(&b.1)) {
                        *slot = (i, s);
                    }
                    weakest = runners.iter().map(|r| r.1).fold(f32::INFINITY, f32::min);
                }
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((i, s));
                }
            }
        }
        (best, runners)
    }

    /// Adds one fragment's vector: it joins the most similar cluster at or
    /// above the threshold, or founds a new one. `flagged` marks a fragment the
    /// sanitizer suspects of prompt injection. O(clusters × dimension).
    pub fn ingest(
        &mut self,
        vector: &[f32],
        text: &str,
        flagged: bool,
        client: &str,
        now: OffsetDateTime,
    ) -> Result<Ingested, PoolError> {
        let dim = self.config.dimension;
        if vector.len() != dim {
            return Err(PoolError::Dimension {
                expected: dim,
                found: vector.len(),
            });
        }
        let v = normalized(vector)?;
        let at = seconds(now);
        let limits = self.config.limits();
        let (best, runners) = self.scan(&v);
        // Ids, not positions: removals below move clusters around.
        let nearby: Vec<u64> = runners
            .iter()
            .filter_map(|(i, _)| self.clusters.get(*i).map(|c| c.id))
            .collect();
        let mut outcome = Ingested {
            cluster: 0,
            need: 0,
            created: false,
            merged: None,
            evicted: None,
            triggered: false,
            supported: false,
        };
        // Above a threshold of 0 a joining vector points along the sum, so the
        // sum cannot cancel; only lower thresholds need the check.
        let joinable = |&(i, s): &Scored| {
            s >= self.config.threshold
                && (self.config.threshold > 0.0
                    || self
                        .sums
                        .get(i * dim..(i + 1) * dim)
                        .is_some_and(|sum| sum_has_direction(sum, &v)))
        };
        let mut index = match best.filter(joinable) {
            Some((index, _)) => {
                if let Some(cluster) = self.clusters.get_mut(index) {
                    cluster.members = cluster.members.saturating_add(1);
                }
                self.add_to(index, &v);
                self.grow_need(index, &v);
                index
            }
            None => {
                let quota = self.config.max_new_clusters_per_client;
                if !self
                    .quota
                    .allows(client, at, self.config.window_secs, quota)
                {
                    return Err(PoolError::ClientQuota { limit: quota });
                }
                if self.clusters.len() >= self.config.max_clusters {
                    outcome.evicted = self.evict_coldest(at);
                }
                let id = self.unused_id(cluster_id(text, at));
                let mut state = ClusterState::new(id, 0, at);
                state.members = 1;
                self.push(state, &v)?;
                self.quota.record(
                    client,
                    at,
                    self.config.window_secs,
                    self.config.max_clusters,
                );
                outcome.created = true;
                let index = self.clusters.len() - 1;
                self.place_new(index, &v, &nearby);
                index
            }
        };
        if !outcome.created {
            if let Some((merged, kept)) = self.merge_drifted(index, &nearby) {
                outcome.merged = Some(merged);
                index = kept;
            }
            self.settle_need(index, &nearby);
        }
        let Some(need) = self
            .clusters
            .get(index)
            .and_then(|c| self.needs.position(c.need))
        else {
            return Ok(outcome);
        };
        let request = self.begin_request(need, client, at);
        let Some(cluster) = self.clusters.get_mut(index) else {
            return Ok(outcome);
        };
        cluster.observe(text, flagged, client, at, request, &limits);
        outcome.cluster = cluster.id;
        outcome.need = cluster.need;
        let gate = self.gate_opens(need, at);
        if let Some(state) = self.needs.states.get_mut(need) {
            state.supported = gate == Gate::Supported;
        }
        outcome.triggered = gate != Gate::Closed;
        outcome.supported = gate == Gate::Supported;
        Ok(outcome)
    }

    /// Merges into cluster `index` the first nearby cluster whose centroid is
    /// now within the threshold of it; returns (the merged id, `index` after
    /// removal). The merged cluster's vectors move to `index`'s need.
    fn merge_drifted(&mut self, index: usize, nearby: &[u64]) -> Option<(u64, usize)> {
        let dim = self.config.dimension;
        let centroid = self.centroids.get(index * dim..(index + 1) * dim)?;
        let own = self.clusters.get(index)?.id;
        let other = nearby
            .iter()
            .filter(|&&id| id != own)
            .filter_map(|&id| self.position(id))
            .find(|&i| {
                self.centroids
                    .get(i * dim..(i + 1) * dim)
                    .is_some_and(|c| dot(c, centroid) >= self.config.threshold)
                    && self.combines(index, self, i)
            })?;
        let limits = self.config.limits();
        let same_need =
            self.clusters.get(other).map(|c| c.need) == Some(self.clusters.get(index)?.need);
        let gone_need = if same_need {
            None
        } else {
            self.sole_need(other)
        };
        let (state, sum) = self.remove_merged(other, same_need)?;
        let merged_id = state.id;
        let members = state.members;
        let index = self.position(own)?;
        let survivor = self.clusters.get_mut(index)?;
        // The cluster the fragment joined keeps its id (and need), so ids
        // stay stable for callers.
        let need = survivor.need;
        survivor.absorb(state, &limits);
        survivor.id = own;
        survivor.need = need;
        self.add_to(index, &sum);
        if !same_need {
            self.grow_need_by(index, &sum, members);
            self.inherit_need(index, gone_need);
        }
        Some((merged_id, index))
    }

    /// Evicts the coldest cluster of the coldest need: a need that builds
    /// slowly is warm as a whole even when each of its clusters is cold, so
    /// a flood of one-off fragments evicts its own kind first.
    fn evict_coldest(&mut self, at: f64) -> Option<u64> {
        let coldest = self.coldest_cluster(at)?;
        self.remove(coldest).map(|(state, _)| state.id)
    }

    /// Combines another replica's pool into this one. Clusters that are each
    /// other's nearest neighbour across the two pools and lie within the
    /// threshold become one (sums, heat, counts and clients combine exactly);
    /// the others are kept as they are. Commutative, up to storage order
    /// (compare [`Pool::canonical`] forms); merging an empty pool changes nothing.
    pub fn merge(&mut self, other: &Pool) -> Result<(), PoolError> {
        if self.config != other.config {
            return Err(PoolError::ConfigMismatch);
        }
        if other.clusters.is_empty() || self.clusters.is_empty() {
            // Nothing pairs: the non-empty side's clusters and needs as they are.
            if self.clusters.is_empty() {
                let quota = std::mem::take(&mut self.quota);
                *self = other.clone();
                self.quota.absorb(&quota, self.config.max_clusters);
            } else {
                self.quota.absorb(&other.quota, self.config.max_clusters);
            }
            return Ok(());
        }
        let dim = self.config.dimension;
        let best_in = |from: &Pool, to: &Pool, i: usize| -> Option<usize> {
            let c = from.centroids.get(i * dim..(i + 1) * dim)?;
            let mut best: Option<(usize, f32, u64)> = None;
            for (j, d) in to.centroids.chunks_exact(dim).enumerate() {
                let s = dot(c, d);
                let id = to.clusters.get(j).map_or(u64::MAX, |s| s.id);
                // Ties go to the smaller id, so both directions agree.
                if s >= self.config.threshold
                    && best.is_none_or(|(_, b, bid)| s > b || (s == b && id < bid))
                {
                    best = Some((j, s, id));
                }
            }
            best.map(|(j, _, _)| j)
        };
        let limits = self.config.limits();
        let mut pairs = Vec::new();
        for j in 0..other.clusters.len() {
            if let Some(i) = best_in(other, self, j) {
                if best_in(self, other, i) == Some(j) && self.combines(i, other, j) {
                    pairs.push((i, j));
                }
            }
        }
        // Needs joined through a pair of clusters become one need.
        let joined: Vec<(u64, u64)> = pairs
            .iter()
            .filter_map(|&(i, j)| Some((self.clusters.get(i)?.need, other.clusters.get(j)?.need)))
            .collect();
        let mut matched = vec![false; other.clusters.len()];
        for &(i, j) in &pairs {
            let (Some(state), Some(sum)) = (
                other.clusters.get(j),
                other.sums.get(j * dim..(j + 1) * dim),
            ) else {
                continue;
            };
            if let Some(mine) = self.clusters.get_mut(i) {
                mine.absorb(state.clone(), &limits);
            }
            self.add_to(i, sum);
            if let Some(m) = matched.get_mut(j) {
                *m = true;
            }
        }
        for (j, state) in other.clusters.iter().enumerate() {
            if matched.get(j) == Some(&false) {
                if let Some(sum) = other.sums.get(j * dim..(j + 1) * dim) {
                    self.push(state.clone(), sum)?;
                }
            }
        }
        let at = self
            .clusters
            .iter()
            .map(|c| c.heat.latest())
            .fold(f64::NEG_INFINITY, f64::max);
        self.settle_ids();
        let mut states = std::mem::replace(&mut self.needs, Needs::new(dim)).states;
        states.extend(other.needs.states.iter().cloned());
        self.regroup(states, &joined);
        self.quota.absorb(&other.quota, self.config.max_clusters);
        while self.clusters.len() > self.config.max_clusters {
            self.evict_coldest(at);
        }
        Ok(())
    }

    /// Whether two pools hold the same clusters (configuration, states, sums
    /// and what fragments are scored against, bit for bit) in any storage
    /// order: `a.canonical() == b.canonical()` without copying either pool.
    pub fn same_clusters(&self, other: &Pool) -> bool {
        if self.config != other.config
            || self.clusters.len() != other.clusters.len()
            || self.quota != other.quota
            || !self.needs.same(&other.needs)
        {
            return false;
        }
        let dim = self.config.dimension;
        let by_id = |pool: &Pool| {
            let mut order: Vec<usize> = (0..pool.clusters.len()).collect();
            order.sort_by_key(|&i| pool.clusters.get(i).map_or(u64::MAX, |c| c.id));
            order
        };
        by_id(self).into_iter().zip(by_id(other)).all(|(i, j)| {
            let (a, b) = (i * dim..(i + 1) * dim, j * dim..(j + 1) * dim);
            self.clusters.get(i) == other.clusters.get(j)
                && self.sums.get(a.clone()) == other.sums.get(b.clone())
                && self.centroids.get(a) == other.centroids.get(b)
        })
    }

    /// The pool with its clusters in id order: the form to compare two pools by.
    pub fn canonical(&self) -> Pool {
        let dim = self.config.dimension;
        let mut order: Vec<usize> = (0..self.clusters.len()).collect();
        order.sort_by_key(|&i| self.clusters.get(i).map_or(u64::MAX, |c| c.id));
        let mut out = Pool {
            config: self.config,
            sums: Vec::new(),
            centroids: Vec::new(),
            clusters: Vec::new(),
            positions: FxHashMap::default(),
            needs: self.needs.canonical(),
            quota: self.quota.clone(),
        };
        for i in order {
            if let (Some(state), Some(sum), Some(c)) = (
                self.clusters.get(i),
                self.sums.get(i * dim..(i + 1) * dim),
                self.centroids.get(i * dim..(i + 1) * dim),
            ) {
                out.clusters.push(state.clone());
                out.sums.extend_from_slice(sum);
                out.centroids.extend_from_slice(c);
            }
        }
        out.reindex();
        out
    }
}
