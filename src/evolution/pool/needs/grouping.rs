//! Keeping the need level current as fine clusters are founded, grow,
//! merge, drift and go (see `needs.rs` for what a need is).

use std::collections::BTreeMap;

use crate::evolution::embed::vectors::dot;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::needs::level::NeedState;

impl Pool {
    /// Cluster `index`'s need position.
    pub(in crate::evolution) fn need_of(&self, index: usize) -> Option<usize> {
        self.needs.position(self.clusters.get(index)?.need)
    }

    /// Cluster `index`'s running sum and member count.
    fn cluster_sum(&self, index: usize) -> Option<(&[f32], u64)> {
        let dim = self.config.dimension;
        let sum = self.sums.get(index * dim..(index + 1) * dim)?;
        Some((sum, self.clusters.get(index)?.members))
    }

    /// Adds one fragment's vector, just added to cluster `index`, to its need.
    pub(in crate::evolution) fn grow_need(&mut self, index: usize, v: &[f32]) {
        self.grow_need_by(index, v, 1);
    }

    /// Adds `count` vectors summing to `sum` to cluster `index`'s need.
    pub(in crate::evolution) fn grow_need_by(&mut self, index: usize, sum: &[f32], count: u64) {
        if let Some(need) = self.need_of(index) {
            self.needs.add(need, sum, count);
        }
    }

    /// The state of cluster `index`'s need when the cluster is its only one
    /// (the need goes with it when the cluster is merged away).
    pub(in crate::evolution) fn sole_need(&self, index: usize) -> Option<NeedState> {
        let state = self.needs.states.get(self.need_of(index)?)?;
        (state.clusters.len() == 1).then(|| state.clone())
    }

    /// After another need's cluster was merged into cluster `index`: the
    /// need that went with it (`gone`, if it did) passes its history
    /// (proposal, backoff, lending) to `index`'s need, and every cluster of
    /// that need takes the need's proposal mark (the merged cluster brought
    /// its old need's mark, which a need that still exists keeps for itself).
    pub(in crate::evolution) fn inherit_need(&mut self, index: usize, gone: Option<NeedState>) {
        let Some(need) = self.need_of(index) else {
            return;
        };
        let Some(state) = self.needs.states.get_mut(need) else {
            return;
        };
        if let Some(gone) = gone {
            state.absorb(&gone);
        }
        let (id, proposed) = (state.id, state.proposed.clone());
        self.mark_clusters(id, proposed.as_deref());
    }

    /// Takes cluster `index` out of its need (which goes when it was the
    /// last). The need keeps the cluster's vectors when `keeps_vectors`.
    pub(in crate::evolution) fn leave_need(&mut self, index: usize, keeps_vectors: bool) {
        let Some(need) = self.need_of(index) else {
            return;
        };
        let Some(id) = self.clusters.get(index).map(|c| c.id) else {
            return;
        };
        let remaining = match self.needs.states.get_mut(need) {
            Some(state) => {
                state.clusters.retain(|c| *c != id);
                state.clusters.clone()
            }
            None => return,
        };
        if remaining.is_empty() {
            self.needs.remove(need);
            return;
        }
        if keeps_vectors {
            return;
        }
        if let [last] = remaining.as_slice() {
            // One cluster left: its own sum, free of the subtractions' rounding.
            if let Some((sum, count)) = self.position(*last).and_then(|i| self.cluster_sum(i)) {
                let sum = sum.to_vec();
                self.needs.set_sum(need, &sum, count);
            }
        } else if let Some((sum, count)) = self.cluster_sum(index) {
            let sum = sum.to_vec();
            self.needs.subtract(need, &sum, count);
        }
    }

    /// Puts cluster `index` (in no need) into need `need`; it takes the
    /// need's proposal status.
    fn join_need(&mut self, index: usize, need: usize) {
        let Some((sum, count)) = self.cluster_sum(index) else {
            return;
        };
        let sum = sum.to_vec();
        self.needs.add(need, &sum, count);
        let Some(state) = self.needs.states.get_mut(need) else {
            return;
        };
        let (id, proposed) = (state.id, state.proposed.clone());
        if let Some(cluster) = self.clusters.get_mut(index) {
            if let Err(at) = state.clusters.binary_search(&cluster.id) {
                state.clusters.insert(at, cluster.id);
            }
            cluster.need = id;
            cluster.proposed = proposed;
        }
    }

    /// Makes cluster `index` (in no need) a need of its own, starting from
    /// `from` (a need it split off) if given.
    fn found_need(&mut self, index: usize, from: Option<&NeedState>) -> Option<usize> {
        let cluster = self.clusters.get(index)?;
        let id = self.needs.unused_id(cluster.id);
        let mut state = match from {
            Some(parent) => parent.split_off(id),
            None => NeedState::new(id),
        };
        state.vectors = cluster.members;
        state.clusters = vec![cluster.id];
        let (sum, _) = self.cluster_sum(index)?;
        let sum = sum.to_vec();
        let proposed = state.proposed.clone();
        let need = self.needs.push(state, &sum);
        if let Some(cluster) = self.clusters.get_mut(index) {
            cluster.need = id;
            cluster.proposed = proposed;
        }
        Some(need)
    }

    /// The needs of the `nearby` clusters (other than cluster `own`), each
    /// once, nearest cluster first.
    fn nearby_needs(&self, own: u64, nearby: &[u64]) -> Vec<u64> {
        let mut needs: Vec<u64> = Vec::new();
        for &id in nearby.iter().filter(|&&id| id != own) {
            if let Some(need) = self.position(id).and_then(|i| self.clusters.get(i)) {
                if !needs.contains(&need.need) {
                    needs.push(need.need);
                }
            }
        }
        needs
    }

    /// The need among `candidates` whose fragments are most similar, on
    /// average, to `count` vectors summing to `sum`, if at least the need
    /// threshold.
    fn best_need(&self, candidates: &[u64], sum: &[f32], count: u64) -> Option<usize> {
        let threshold = self.grouping_threshold();
        candidates
            .iter()
            .filter_map(|&id| self.needs.position(id))
            .filter_map(|need| {
                let state = self.needs.states.get(need)?;
                let theirs = self.needs.sum(need)?;
                Some((need, self.centred_link(theirs, state.vectors, sum, count)))
            })
            .filter(|&(_, l)| l >= threshold)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(need, _)| need)
    }

    /// Puts the new cluster `index` (founded by vector `v`) into the best
    /// need among those of the nearby clusters, or a need of its own.
    pub(in crate::evolution) fn place_new(&mut self, index: usize, v: &[f32], nearby: &[u64]) {
        let Some(own) = self.clusters.get(index).map(|c| c.id) else {
            return;
        };
        let candidates = self.nearby_needs(own, nearby);
        match self.best_need(&candidates, v, 1) {
            Some(need) => self.join_need(index, need),
            None => {
                self.found_need(index, None);
            }
        }
    }

    /// After cluster `index` grew: it leaves its need for a better one (or
    /// one of its own) if it no longer fits it, and its need takes in the
    /// needs of nearby clusters that are now within the need threshold.
    pub(in crate::evolution) fn settle_need(&mut self, index: usize, nearby: &[u64]) {
        let Some(own) = self.clusters.get(index).map(|c| c.id) else {
            return;
        };
        self.refit(index, own, nearby);
        let Some(mut need) = self.need_of(index) else {
            return;
        };
        for other in self.nearby_needs(own, nearby) {
            let Some(theirs) = self.needs.position(other) else {
                continue;
            };
            if theirs != need && self.centred_need_link(need, theirs) >= self.grouping_threshold() {
                self.merge_needs(need, theirs);
                match self.need_of(index) {
                    Some(n) => need = n,
                    None => return,
                }
            }
        }
    }

    /// Moves cluster `index` out of its need when its fragments are, on
    /// average, less similar to the rest of the need than the threshold.
    fn refit(&mut self, index: usize, own: u64, nearby: &[u64]) {
        let Some(need) = self.need_of(index) else {
            return;
        };
        let (Some((sum, count)), Some(state), Some(need_sum)) = (
            self.cluster_sum(index),
            self.needs.states.get(need),
            self.needs.sum(need),
        ) else {
            return;
        };
        if state.clusters.len() < 2 {
            return;
        }
        // Mean similarity to the rest of the need, whose sum is S_N − S_c:
        // from dot products, without building that sum on every ingest.
        let rest = state.vectors.saturating_sub(count);
        if rest == 0 {
            return;
        }
        let centre = &self.background.centre;
        let cross = f64::from(dot(sum, need_sum)) - f64::from(dot(sum, sum));
        let along = centre.along(sum);
        let to_rest = centre.link_from(cross, along, centre.along(need_sum) - along, count, rest);
        if to_rest >= self.grouping_threshold() {
            return;
        }
        let sum = sum.to_vec();
        let candidates: Vec<u64> = self
            .nearby_needs(own, nearby)
            .into_iter()
            .filter(|&id| id != state.id)
            .collect();
        let parent = state.clone();
        let better = self
            .best_need(&candidates, &sum, count)
            .map(|n| self.needs.states.get(n).map(|s| s.id));
        self.leave_need(index, false);
        match better.flatten().and_then(|id| self.needs.position(id)) {
            Some(target) => self.join_need(index, target),
            None => {
                self.found_need(index, Some(&parent));
            }
        }
    }

    /// Folds need `gone` into need `keep` (which keeps its id).
    fn merge_needs(&mut self, keep: usize, gone: usize) {
        let (Some(gone_state), Some(gone_sum)) = (
            self.needs.states.get(gone).cloned(),
            self.needs.sum(gone).map(<[f32]>::to_vec),
        ) else {
            return;
        };
        let Some(keep_id) = self.needs.states.get(keep).map(|s| s.id) else {
            return;
        };
        self.needs.add(keep, &gone_sum, gone_state.vectors);
        // Either side's clusters may carry a mark the merged need no longer
        // has (the absorbed need was unproposed, or proposed under another
        // name), so every cluster takes the merged need's mark.
        let proposed = match self.needs.states.get_mut(keep) {
            Some(state) => {
                let vectors = state.vectors;
                state.absorb(&gone_state);
                state.vectors = vectors;
                state.clusters.extend(gone_state.clusters.iter().copied());
                state.clusters.sort_unstable();
                state.proposed.clone()
            }
            None => return,
        };
        self.needs.remove(gone);
        for id in &gone_state.clusters {
            if let Some(cluster) = self.position(*id).and_then(|i| self.clusters.get_mut(i)) {
                cluster.need = keep_id;
            }
        }
        self.mark_clusters(keep_id, proposed.as_deref());
    }

    /// Sets the proposal mark of every cluster of need `id`.
    pub(in crate::evolution) fn mark_clusters(&mut self, id: u64, proposed: Option<&str>) {
        let Some(members) = self
            .needs
            .position(id)
            .and_then(|n| self.needs.states.get(n))
            .map(|s| s.clusters.clone())
        else {
            return;
        };
        for member in members {
            if let Some(cluster) = self.position(member).and_then(|i| self.clusters.get_mut(i)) {
                cluster.proposed = proposed.map(str::to_owned);
            }
        }
    }

    /// Rebuilds the need level after a replica merge: needs named by the
    /// clusters (`need`), plus the pairs in `joined` (the needs of two
    /// clusters that became one), are one need when connected; each takes
    /// the smallest id of its group and the combined state of the needs in
    /// it (`states`, from both replicas). Depends on the set of clusters and
    /// states alone, so both merge directions give the same needs.
    pub(in crate::evolution) fn regroup(
        &mut self,
        mut states: Vec<NeedState>,
        joined: &[(u64, u64)],
    ) {
        let mut parent: BTreeMap<u64, u64> = BTreeMap::new();
        fn root(parent: &BTreeMap<u64, u64>, mut id: u64) -> u64 {
            while let Some(&up) = parent.get(&id) {
                if up == id {
                    break;
                }
                id = up;
            }
            id
        }
        let union = |parent: &mut BTreeMap<u64, u64>, a: u64, b: u64| {
            let (ra, rb) = (root(parent, a), root(parent, b));
            let (low, high) = if ra <= rb { (ra, rb) } else { (rb, ra) };
            parent.insert(high, low);
            parent.entry(low).or_insert(low);
        };
        for cluster in &self.clusters {
            parent.entry(cluster.need).or_insert(cluster.need);
        }
        for &(a, b) in joined {
            union(&mut parent, a, b);
        }
        // States in a fixed order (id, then content for equal ids), so that
        // folding them does not depend on which replica listed them first.
        states.sort_by_cached_key(|s| (s.id, serde_json::to_string(s).unwrap_or_default()));
        let mut groups: BTreeMap<u64, NeedState> = BTreeMap::new();
        let mut members: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for cluster in &self.clusters {
            members
                .entry(root(&parent, cluster.need))
                .or_default()
                .push(cluster.id);
        }
        for state in &states {
            let group = root(&parent, state.id);
            if members.contains_key(&group) {
                groups
                    .entry(group)
                    .or_insert_with(|| NeedState::new(group))
                    .absorb(state);
            }
        }
        self.needs = crate::evolution::pool::needs::level::Needs::new(self.config.dimension);
        for (group, mut ids) in members {
            ids.sort_unstable();
            let mut state = groups
                .remove(&group)
                .unwrap_or_else(|| NeedState::new(group));
            state.clusters.clone_from(&ids);
            self.push_need_from_members(state);
        }
    }

    /// Adds need `state` (whose `clusters` are set) with the sum and count
    /// of its clusters, added in id order; its clusters take its id and
    /// proposal status.
    fn push_need_from_members(&mut self, mut state: NeedState) {
        let dim = self.config.dimension;
        let mut sum = vec![0.0f32; dim];
        let mut vectors = 0u64;
        for id in &state.clusters {
            if let Some((s, count)) = self.position(*id).and_then(|i| self.cluster_sum(i)) {
                sum.iter_mut().zip(s).for_each(|(a, b)| *a += b);
                vectors = vectors.saturating_add(count);
            }
        }
        state.vectors = vectors;
        let (id, proposed, ids) = (state.id, state.proposed.clone(), state.clusters.clone());
        self.needs.push(state, &sum);
        for member in ids {
            if let Some(cluster) = self.position(member).and_then(|i| self.clusters.get_mut(i)) {
                cluster.need = id;
                cluster.proposed.clone_from(&proposed);
            }
        }
    }
}
