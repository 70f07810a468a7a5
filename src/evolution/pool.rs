//! The Differential Semantic Pool (§6.2.1): online clustering of `other`
//! fragments into fine clusters, fine clusters into needs, decaying heat,
//! and the dual-gate trigger (on needs).

use std::fmt;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::background::Background;
use super::cluster::ClusterState;
use super::exemplar::Exemplar;
use super::gate::Gate;
use super::heat::seconds;
use super::ids::{ID_STEP, cluster_id, unused_id};
use super::needs::{NeedState, Needs};
use super::pool_config::PoolConfig;
use super::pool_error::PoolError;
use super::quota::CreationQuota;
use super::vectors::{dot, normalized, sum_has_direction};

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
    /// Whether the heat's log-domain sums (its heat, and what it booked as
    /// lent) are finite (a non-finite one would serialize as `null` and the
    /// snapshot would not restore). Only in fuzz builds, where checking this
    /// after every operation by serializing the whole pool cost a sixth of
    /// the run.
    #[cfg(fuzzing)]
    #[doc(hidden)]
    pub fn heat_is_finite(&self) -> bool {
        self.state.heat.is_finite() && self.state.lent_heat.is_finite()
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
/// their count; the vector a fragment is scored against (see [`Linkage`](super::Linkage))
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
    pub(super) background: Background,
}

/// The serialized form of a pool: its configuration, each cluster with its
/// sum, each need with its own state and sum.
#[derive(Serialize, Deserialize)]
pub(super) struct PoolSnapshot {
    config: PoolConfig,
    /// Each cluster's state with its running sum moved into `sum`.
    pub(super) clusters: Vec<ClusterState>,
    /// Absent in snapshots written before needs: each cluster then becomes
    /// a need of its own.
    #[serde(default)]
    pub(super) needs: Vec<NeedState>,
    #[serde(default)]
    quota: CreationQuota,
    /// Absent in snapshots written before the adaptive need threshold: it
    /// is measured at the next fragment.
    #[serde(default)]
    background: Background,
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
            background: pool.background,
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
        pool.background = snapshot.background;
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
    /// [`NEED_FLOOR_RATIO`](super::NEED_FLOOR_RATIO) × the fine threshold
    /// and the fine threshold.
    pub fn need_threshold(&self) -> f32 {
        self.background.need_threshold(&self.config)
    }

    /// The background the need threshold adapts to, once measured.
    pub fn background(&self) -> Option<f32> {
        self.background.value
    }

    /// The support threshold in force: [`PoolConfig::support_threshold`],
    /// scaled as the need threshold is.
    pub(super) fn support_threshold(&self) -> f32 {
        self.background
            .scaled(&self.config, self.config.support_threshold)
    }

    /// The claim threshold in force: [`PoolConfig::claim_threshold`],
    /// scaled as the need threshold is.
    pub(super) fn claim_threshold(&self) -> f32 {
        self.background
            .scaled(&self.config, self.config.claim_threshold)
    }

    /// Counts one fragment taken in; measures the background when due
    /// (adaptive pools only).
    pub(super) fn tick_background(&mut self) {
        self.background.tick(&self.config, &self.needs);
    }

    /// Measures the background again now (after a replica merge).
    pub(super) fn measure_background(&mut self) {
        self.background = Background::measure(&self.config, &self.needs);
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
    pub(super) fn combines(&self, i: usize, other: &Pool, j: usize) -> bool {
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
    pub(super) fn settle_ids(&mut self) {
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
                cluster.id = cluster.id.wrapping_add(ID_STEP);
            }
        }
        self.reindex();
    }

    /// Rebuilds the id → position map (after ids changed).
    pub(super) fn reindex(&mut self) {
        self.positions = self
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id, i))
            .collect();
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
        self.tick_background();
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
                let id = unused_id(cluster_id(text, at), |id| self.positions.contains_key(&id));
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
        outcome.triggered = gate != Gate::Closed;
        outcome.supported = gate == Gate::Supported;
        if let Some(state) = self.needs.states.get_mut(need) {
            state.supported = outcome.supported;
            state.supported_at = outcome.supported.then_some(at);
        }
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
    /// Evicts the coldest clusters, as of the pool's latest increment,
    /// until no more than `max_clusters` are left (after a replica merge or
    /// a retune to a smaller size).
    pub(super) fn evict_over_capacity(&mut self) {
        let at = self
            .clusters
            .iter()
            .map(|c| c.heat.latest())
            .fold(f64::NEG_INFINITY, f64::max);
        while self.clusters.len() > self.config.max_clusters {
            if self.evict_coldest(at).is_none() {
                break;
            }
        }
    }

    pub(super) fn evict_coldest(&mut self, at: f64) -> Option<u64> {
        let coldest = self.coldest_cluster(at)?;
        self.remove(coldest).map(|(state, _)| state.id)
    }
}
