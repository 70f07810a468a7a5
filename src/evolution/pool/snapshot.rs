//! A pool's serialized form ([`PoolSnapshot`]) and restoring a pool from
//! it: the running sums move from the pool's contiguous buffers into each
//! cluster's and need's state, and back, through every check a new pool
//! makes. `Pool`'s serde implementations go through it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::error::PoolError;
use crate::evolution::pool::fine::cluster::ClusterState;
use crate::evolution::pool::fine::quota::CreationQuota;
use crate::evolution::pool::needs::background::Background;
use crate::evolution::pool::needs::level::NeedState;

/// The serialized form of a pool: its configuration, each cluster with its
/// sum, each need with its own state and sum.
#[derive(Serialize, Deserialize)]
pub(in crate::evolution) struct PoolSnapshot {
    config: PoolConfig,
    /// Each cluster's state with its running sum moved into `sum`.
    pub(in crate::evolution::pool) clusters: Vec<ClusterState>,
    /// Each need's state with its running sum moved into `sum`.
    pub(in crate::evolution::pool) needs: Vec<NeedState>,
    quota: CreationQuota,
    background: Background,
}

impl PoolSnapshot {
    /// Moves the cluster and need records out (to be stored as rows).
    pub(in crate::evolution) fn take_records(&mut self) -> (Vec<ClusterState>, Vec<NeedState>) {
        (
            std::mem::take(&mut self.clusters),
            std::mem::take(&mut self.needs),
        )
    }

    /// Puts the cluster and need records back (read from rows).
    pub(in crate::evolution) fn put_records(
        &mut self,
        clusters: Vec<ClusterState>,
        needs: Vec<NeedState>,
    ) {
        self.clusters = clusters;
        self.needs = needs;
    }

    /// How many cluster and need records the snapshot holds.
    pub(in crate::evolution) fn record_counts(&self) -> (usize, usize) {
        (self.clusters.len(), self.needs.len())
    }

    /// Whether the needs are exactly the ones the clusters belong to (a
    /// live pool keeps both in step).
    pub(in crate::evolution) fn needs_match_clusters(&self) -> bool {
        let named: BTreeSet<u64> = self.clusters.iter().map(|c| c.need).collect();
        let kept: BTreeSet<u64> = self.needs.iter().map(|n| n.id).collect();
        named == kept
    }
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
            background: pool.background.clone(),
        }
    }
}

impl TryFrom<PoolSnapshot> for Pool {
    type Error = PoolError;
    fn try_from(snapshot: PoolSnapshot) -> Result<Self, PoolError> {
        let mut pool = Pool::new(snapshot.config)?;
        for mut state in snapshot.clusters {
            // The row loader refuses a repeated id; so does a whole state.
            if pool.position(state.id).is_some() {
                return Err(PoolError::Snapshot("a cluster id appears twice"));
            }
            let sum = std::mem::take(&mut state.sum);
            pool.push(state, &sum)?;
        }
        pool.restore_needs(snapshot.needs)?;
        pool.quota = snapshot.quota;
        pool.background = snapshot.background.restored(&pool.config);
        Ok(pool)
    }
}

/// A pool serializes as its snapshot (a copy: the pool keeps its buffers).
impl Serialize for Pool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        PoolSnapshot::from(self.clone()).serialize(serializer)
    }
}

/// A pool deserializes from its snapshot, refused (with the [`PoolError`]'s
/// message) when the snapshot does not restore.
impl<'de> Deserialize<'de> for Pool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let snapshot = PoolSnapshot::deserialize(deserializer)?;
        Pool::try_from(snapshot).map_err(serde::de::Error::custom)
    }
}

impl Pool {
    /// Puts back the needs of a snapshot (clusters already restored). Every
    /// cluster must name a need the snapshot holds and every need must hold
    /// a cluster, as a live pool keeps them; anything else is refused.
    pub(in crate::evolution) fn restore_needs(
        &mut self,
        snapshot: Vec<NeedState>,
    ) -> Result<(), PoolError> {
        let dim = self.config.dimension;
        let mut members: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for cluster in &self.clusters {
            members.entry(cluster.need).or_default().push(cluster.id);
        }
        for mut state in snapshot {
            let Some(mut ids) = members.remove(&state.id) else {
                return Err(PoolError::Snapshot(
                    "a need holds no cluster, or its id appears twice",
                ));
            };
            if state.sum.len() != dim {
                return Err(PoolError::Dimension {
                    expected: dim,
                    found: state.sum.len(),
                });
            }
            ids.sort_unstable();
            state.clusters = ids;
            let sum = std::mem::take(&mut state.sum);
            self.needs.push(state, &sum);
        }
        if !members.is_empty() {
            return Err(PoolError::Snapshot(
                "a cluster names a need the snapshot does not hold",
            ));
        }
        Ok(())
    }
}
