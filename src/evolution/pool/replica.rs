//! Replicas: combining another replica's pool into this one (commutative,
//! up to storage order), and comparing pools whatever their storage order.

use rustc_hash::FxHashMap;

use crate::evolution::embed::vectors::dot;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::error::PoolError;
use crate::evolution::pool::ids::ID_STEP;
use crate::evolution::pool::needs::level::Needs;

impl Pool {
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
        self.settle_ids();
        let mut states = std::mem::replace(&mut self.needs, Needs::new(dim)).states;
        states.extend(other.needs.states.iter().cloned());
        self.regroup(states, &joined);
        self.quota.absorb(&other.quota, self.config.max_clusters);
        self.evict_over_capacity();
        self.measure_background();
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
            || self.background != other.background
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
            background: self.background.clone(),
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

    /// Makes ids unique again after a merge. Clusters are visited in an order
    /// fixed by their content alone (running sum, then state without the
    /// id), and each keeps its id unless an earlier one has it, in which case
    /// it moves to the next free one. Both merge directions hold the same
    /// clusters, so they end with the same ids; a pool without clashes keeps
    /// every id.
    pub(in crate::evolution) fn settle_ids(&mut self) {
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
}
