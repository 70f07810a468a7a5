//! Taking in one fragment ([`Pool::ingest`]): the scan for the nearest
//! cluster, joining it or founding one (within the client's quota, evicting
//! when full), then the drift merge, the need's upkeep, the request's heat
//! and the gate.

use time::OffsetDateTime;

use crate::evolution::embed::vectors::{dot, normalized, sum_has_direction};
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::error::PoolError;
use crate::evolution::pool::fine::cluster::ClusterState;
use crate::evolution::pool::gate::dual::Gate;
use crate::evolution::pool::heat::seconds;
use crate::evolution::pool::ids::{cluster_id, unused_id};

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
    /// [`PoolConfig::support_threshold`](crate::evolution::pool::config::PoolConfig::support_threshold)).
    pub supported: bool,
}

/// How many of the scan's best clusters an ingest keeps: the one joined and
/// four runners-up checked for drift merges.
const MERGE_CANDIDATES: usize = 5;

/// A cluster's index and its similarity to the fragment.
type Scored = (usize, f32);

impl Pool {
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
}
