//! Making room in a full pool: the coldest cluster of the coldest need
//! goes first, on ingest, after a replica merge or a retune to a smaller
//! size.

use crate::evolution::pool::data::Pool;

impl Pool {
    /// Evicts the coldest clusters, as of the pool's latest increment,
    /// until no more than `max_clusters` are left (after a replica merge or
    /// a retune to a smaller size).
    pub(in crate::evolution) fn evict_over_capacity(&mut self) {
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

    /// Evicts the coldest cluster of the coldest need: a need that builds
    /// slowly is warm as a whole even when each of its clusters is cold, so
    /// a flood of one-off fragments evicts its own kind first. Returns the
    /// evicted cluster's id.
    pub(in crate::evolution) fn evict_coldest(&mut self, at: f64) -> Option<u64> {
        let coldest = self.coldest_cluster(at)?;
        self.remove(coldest).map(|(state, _)| state.id)
    }

    /// The coldest cluster of the coldest need (ties: the smaller id).
    fn coldest_cluster(&self, at: f64) -> Option<usize> {
        let coldest_need = (0..self.needs.len())
            .map(|n| (n, self.need_heat(n, at)))
            .min_by(|a, b| {
                a.1.total_cmp(&b.1).then_with(|| {
                    let id = |n: usize| self.needs.states.get(n).map_or(u64::MAX, |s| s.id);
                    id(a.0).cmp(&id(b.0))
                })
            })
            .map(|(n, _)| n);
        let half_life = self.config.half_life_secs;
        let candidates: Vec<usize> = match coldest_need.and_then(|n| self.needs.states.get(n)) {
            Some(state) => state
                .clusters
                .iter()
                .filter_map(|id| self.position(*id))
                .collect(),
            None => (0..self.clusters.len()).collect(),
        };
        candidates
            .into_iter()
            .filter_map(|i| Some((i, self.clusters.get(i)?)))
            .min_by(|(_, a), (_, b)| {
                a.heat
                    .value(at, half_life)
                    .total_cmp(&b.heat.value(at, half_life))
                    .then(a.id.cmp(&b.id))
            })
            .map(|(i, _)| i)
            .or_else(|| (!self.clusters.is_empty()).then_some(0))
    }
}
