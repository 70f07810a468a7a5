//! Retuning a pool: the same learned clusters and needs under other gate,
//! heat, window, cap and size settings, so that tuning the gate does not
//! throw away what the pool has learned.

use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::error::PoolError;

impl Pool {
    /// Puts `config` in force, keeping the clusters, needs, heat and gate
    /// counts. Only the settings the learned state depends on must be the
    /// same ([`PoolConfig::learned_difference`]: the vectors, how they
    /// group, how heat is stored); a new heat threshold, minimum of clients
    /// or requests, window, increment, per-client cap, support share,
    /// lending or size takes effect at once. A smaller `max_clusters` evicts the
    /// coldest clusters now, and a smaller `max_exemplars` keeps the most
    /// frequent examples; lists that follow the gate's minimums (recent
    /// clients and request times) and the tracked clients adjust as traffic
    /// comes in. Refused, with the pool unchanged, for an invalid
    /// configuration or one that differs in a learned setting.
    pub fn retune(&mut self, config: PoolConfig) -> Result<(), PoolError> {
        config.check()?;
        if let Some(setting) = self.config.learned_difference(&config) {
            return Err(PoolError::Learned { setting });
        }
        self.config = config;
        self.evict_over_capacity();
        let max = self.config.max_exemplars;
        for cluster in &mut self.clusters {
            if cluster.exemplars.len() > max {
                cluster
                    .exemplars
                    .sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
                cluster.exemplars.truncate(max);
            }
        }
        Ok(())
    }
}
