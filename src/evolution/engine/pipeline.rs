//! The default evolution engine ([`Evolution`]): `other` fragments → pool →
//! trigger → inducer → conflict detection → packaged patch → the store's
//! guard and lifecycle. Here the engine itself: its models, settings and
//! pools, saving and restoring them, the bound on personal pools, and the
//! operator's denials read back from the store.

use std::collections::{BTreeMap, BTreeSet};

use time::OffsetDateTime;

use crate::evolution::embed::embedder::Embedder;
use crate::evolution::embed::hashing::HashingEmbedder;
use crate::evolution::engine::config::EvolutionConfig;
use crate::evolution::engine::pool_key::PoolKey;
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::induce::rules::RuleInducer;
use crate::evolution::persist::state::{EvolutionState, EvolutionStateError};
use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::error::PoolError;
use crate::patch::{PatchScope, SchemaStore};

/// The default engine: a [`HashingEmbedder`] and a [`RuleInducer`] unless told otherwise.
///
/// Feed it every received message (valid or not); it records the lifecycle's
/// metrics in the store, clusters the message's `other` fragments, and when a
/// cluster's dual gate opens, induces a key, checks it against the schema the
/// pool's clients see (a name collision becomes a description refinement),
/// packages a patch and submits it to the store. Patches that touch sensitive
/// keys are never proposed automatically.
pub struct Evolution<E = HashingEmbedder, I = RuleInducer> {
    pub(in crate::evolution::engine) embedder: E,
    pub(in crate::evolution::engine) inducer: I,
    pub(in crate::evolution::engine) config: EvolutionConfig,
    pub(in crate::evolution::engine) pools: BTreeMap<PoolKey, Pool>,
    /// When each personal pool last took a fragment, for eviction.
    pub(in crate::evolution::engine) last_active: BTreeMap<PoolKey, OffsetDateTime>,
    /// The sequence number of the last operator denial in the store that
    /// the engine acted on (see `reopen_denied`).
    reviewed: u64,
    /// Needs waiting for their key off the message path, not yet handed
    /// out, and handed out (`Evolution::inductions`) awaiting `complete`.
    pub(in crate::evolution::engine) waiting: BTreeSet<(PoolKey, u64)>,
    pub(in crate::evolution::engine) inducing: BTreeSet<(PoolKey, u64)>,
}

impl Default for Evolution {
    fn default() -> Self {
        Self::new(
            HashingEmbedder::default(),
            RuleInducer,
            EvolutionConfig::default(),
        )
    }
}

impl<E: Embedder, I: IntentInducer> Evolution<E, I> {
    /// An engine with the given models and settings.
    pub fn new(embedder: E, inducer: I, config: EvolutionConfig) -> Self {
        Self {
            embedder,
            inducer,
            config,
            pools: BTreeMap::new(),
            last_active: BTreeMap::new(),
            reviewed: 0,
            waiting: BTreeSet::new(),
            inducing: BTreeSet::new(),
        }
    }

    /// The inducer (to run a [`PendingInduction`](crate::evolution::PendingInduction) with).
    pub fn inducer(&self) -> &I {
        &self.inducer
    }

    /// The pools, by key.
    pub fn pools(&self) -> impl Iterator<Item = (&PoolKey, &Pool)> {
        self.pools.iter()
    }

    /// One pool.
    pub fn pool(&self, key: &PoolKey) -> Option<&Pool> {
        self.pools.get(key)
    }

    /// Puts a pool in place (restoring a snapshot, or after merging replicas).
    /// A restored personal pool counts towards `max_client_pools` as the
    /// least recently active until its client sends again.
    pub fn insert_pool(&mut self, key: PoolKey, pool: Pool) -> Option<Pool> {
        if key.client.is_some() && !self.last_active.contains_key(&key) {
            self.make_room_for_a_client_pool();
            self.last_active
                .insert(key.clone(), OffsetDateTime::UNIX_EPOCH);
        }
        self.pools.insert(key, pool)
    }

    /// The engine's state, to save before a restart: every pool (with its
    /// clusters, heat and gate counts) and when each personal pool was last
    /// active. The models and the configuration are code and are not part
    /// of it.
    pub fn state(&self) -> EvolutionState {
        EvolutionState::new(&self.pools, &self.last_active, self.reviewed)
    }

    /// Puts back a state saved by [`Evolution::state`], replacing every
    /// pool, each retuned to this engine's settings ([`Pool::retune`]): a
    /// state resumes under another heat threshold, gate minimum, window,
    /// cap or size. Refused (and nothing changed) if a pool was made with
    /// another setting its learned state depends on: another embedder
    /// dimension, similarity threshold, linkage or half-life would read it
    /// wrongly; the error names the setting.
    pub fn restore(&mut self, state: EvolutionState) -> Result<(), EvolutionStateError> {
        for (key, pool) in state.pools() {
            let expected = self.pool_config(key.client.is_some());
            if let Some(setting) = pool.config().learned_difference(&expected) {
                return Err(EvolutionStateError::ConfigMismatch {
                    pool: key.clone(),
                    setting,
                });
            }
        }
        let (mut pools, mut last_active, reviewed) = state.into_parts();
        for (key, pool) in &mut pools {
            if let Err(error) = pool.retune(self.pool_config(key.client.is_some())) {
                let setting = match error {
                    PoolError::Learned { setting } => setting,
                    _ => "configuration",
                };
                return Err(EvolutionStateError::ConfigMismatch {
                    pool: key.clone(),
                    setting,
                });
            }
        }
        // A personal pool saved without a time counts as the least recently
        // active, as with `insert_pool`; a state with more personal pools
        // than this engine keeps loses the least recently active ones.
        for key in pools.keys().filter(|k| k.client.is_some()) {
            last_active
                .entry(key.clone())
                .or_insert(OffsetDateTime::UNIX_EPOCH);
        }
        last_active.retain(|key, _| pools.contains_key(key));
        self.pools = pools;
        self.last_active = last_active;
        self.reviewed = reviewed;
        while self.last_active.len() > self.config.max_client_pools.max(1)
            && self.drop_least_recent_client_pool()
        {}
        Ok(())
    }

    /// The configuration pools are created with.
    pub fn pool_config(&self, personal: bool) -> PoolConfig {
        let mut config = self.config.pool;
        config.dimension = self.embedder.dimension();
        config.threshold = self
            .config
            .threshold
            .unwrap_or_else(|| self.embedder.recommended_threshold());
        config = config.with_embedder_needs(
            &self.embedder,
            self.config.need_threshold,
            self.config.need_contrast,
            self.config.lending,
        );
        if personal {
            // One client cannot "force" its own pool: the cap and the quota
            // guard the global one.
            config.client_heat_cap = f64::MAX;
            config.max_new_clusters_per_client = usize::MAX;
            // Its keys go to its own branch alone: its own words may name
            // and describe them.
            config.min_quote_clients = 1;
        }
        config
    }

    /// Drops the least recently active personal pools until one more fits
    /// under `max_client_pools` (memory stays bounded however many clients
    /// come and go; a dropped client starts afresh if it comes back).
    pub(in crate::evolution) fn make_room_for_a_client_pool(&mut self) {
        while self.last_active.len() >= self.config.max_client_pools.max(1)
            && self.drop_least_recent_client_pool()
        {}
    }

    /// Drops the least recently active personal pool (ties by key); `false`
    /// when there is none.
    fn drop_least_recent_client_pool(&mut self) -> bool {
        let Some(oldest) = self
            .last_active
            .iter()
            .min_by(|a, b| a.1.cmp(b.1).then_with(|| a.0.cmp(b.0)))
            .map(|(k, _)| k.clone())
        else {
            return false;
        };
        self.last_active.remove(&oldest);
        self.pools.remove(&oldest);
        true
    }

    /// Acts on the operator denials the store recorded since the last call:
    /// the needs marked with a denied key may trigger again, and are then
    /// deferred while their evidence stays the same as the denied
    /// proposal's (see [`crate::patch::Denial::covers`]). A store whose
    /// denials restarted (a new store) is read from its first.
    pub(in crate::evolution) fn reopen_denied(&mut self, store: &SchemaStore) {
        let latest = store.denials().last().map_or(0, |d| d.sequence);
        if latest < self.reviewed {
            self.reviewed = 0;
        }
        if latest == self.reviewed {
            return;
        }
        let scenario = &store.base().scenario;
        for denial in store.denials().filter(|d| d.sequence > self.reviewed) {
            let key = PoolKey {
                scenario: scenario.clone(),
                client: match &denial.patch.scope {
                    PatchScope::Global => None,
                    PatchScope::Client(client) => Some(client.clone()),
                },
            };
            if let Some(pool) = self.pools.get_mut(&key) {
                for denied in denial
                    .patch
                    .new_keys
                    .iter()
                    .chain(&denial.patch.modified_keys)
                {
                    pool.reopen(denied.key_name.as_str());
                }
            }
        }
        self.reviewed = latest;
    }
}
