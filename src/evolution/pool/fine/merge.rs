//! Merging two fine clusters of one pool: a neighbour that drifted within
//! the threshold of the cluster a fragment joined is folded into it (its
//! vectors, heat, counts and exemplars, and its need's history), and the
//! check that two running sums may be added at all.

use crate::evolution::embed::vectors::{dot, sum_has_direction};
use crate::evolution::pool::data::Pool;

impl Pool {
    /// Whether cluster `i`'s sum plus `other`'s cluster `j`'s sum still points
    /// somewhere (with a threshold at or below 0, opposite clusters could cancel).
    pub(in crate::evolution) fn combines(&self, i: usize, other: &Pool, j: usize) -> bool {
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

    /// Merges into cluster `index` the first nearby cluster whose centroid is
    /// now within the threshold of it; returns (the merged id, `index` after
    /// removal). The merged cluster's vectors move to `index`'s need.
    pub(in crate::evolution) fn merge_drifted(
        &mut self,
        index: usize,
        nearby: &[u64],
    ) -> Option<(u64, usize)> {
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
}
