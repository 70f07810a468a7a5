//! The default evolution engine: `other` fragments → pool → trigger → inducer
//! → conflict detection → packaged patch → the store's guard and lifecycle.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use time::{Duration, OffsetDateTime};

use super::embedder::Embedder;
use super::engine::EvolutionEngine;
use super::event::EvolutionEvent;
use super::hashing_embedder::HashingEmbedder;
use super::induce::RuleInducer;
use super::inducer::IntentInducer;
use super::observation::Observation;
use super::pool::Pool;
use super::pool_config::PoolConfig;
use super::pool_error::PoolError;
use super::state::{EvolutionState, EvolutionStateError};
use crate::patch::{PatchScope, SchemaStore};

/// The last instant `time` represents (without its `large-dates` feature).
pub(super) const LAST_INSTANT: OffsetDateTime =
    time::macros::datetime!(9999-12-31 23:59:59.999_999_999 UTC);

/// Which pools a fragment feeds (§6.2.1: per scenario, optionally per client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Branching {
    /// One pool per scenario: global keys only.
    #[default]
    Global,
    /// The scenario's pool and the sending client's own pool, whose mature
    /// clusters become patches scoped to that client (§6.2.2, Personalized
    /// Adaptation). A client's own pool has no per-client heat cap.
    GlobalAndPerClient,
}

/// Names one pool: a scenario, and a client for a personal pool.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct PoolKey {
    /// The scenario.
    pub scenario: String,
    /// The client, for a personal pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

/// The engine's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
#[must_use]
pub struct EvolutionConfig {
    /// The pools' settings; `dimension`, `threshold`, `need_threshold` and
    /// `support_threshold` are replaced by the embedder's (or the overrides
    /// below).
    pub pool: PoolConfig,
    /// A similarity threshold overriding the embedder's recommendation.
    pub threshold: Option<f32>,
    /// A need threshold overriding the embedder's recommendation
    /// ([`super::Embedder::recommended_need_threshold`]); the support
    /// threshold follows it ([`super::SUPPORT_RATIO`]). Setting it alone
    /// also fixes the need threshold (no adaptive contrast).
    pub need_threshold: Option<f32>,
    /// A need contrast overriding the embedder's recommendation
    /// ([`super::Embedder::recommended_need_contrast`]): the need threshold
    /// adapts to each pool's background ([`PoolConfig::need_contrast`]).
    pub need_contrast: Option<f32>,
    /// A [`super::Lending`] overriding the embedder's recommendation
    /// ([`super::Embedder::recommended_lending`]).
    pub lending: Option<super::Lending>,
    /// Most `other` fragments taken from one message (the rest are counted
    /// in a `skipped` event). Default 16.
    pub max_fragments_per_message: usize,
    /// Which pools fragments feed.
    pub branching: Branching,
    /// How long a proposed patch applies. Default 30 days.
    pub patch_lifetime: Duration,
    /// Most personal pools kept at once (with `GlobalAndPerClient`); past it
    /// the least recently active client's pool is dropped. Default 10,000.
    pub max_client_pools: usize,
}

impl Default for EvolutionConfig {
    fn default() -> Self {
        Self {
            pool: PoolConfig::new(1, 0.5),
            threshold: None,
            need_threshold: None,
            need_contrast: None,
            lending: None,
            max_fragments_per_message: 16,
            branching: Branching::Global,
            patch_lifetime: Duration::days(30),
            max_client_pools: 10_000,
        }
    }
}

impl EvolutionConfig {
    /// Sets which pools fragments feed.
    pub fn branching(mut self, branching: Branching) -> Self {
        self.branching = branching;
        self
    }

    /// Overrides the embedder's similarity threshold.
    pub fn threshold(mut self, threshold: f32) -> Self {
        self.threshold = Some(threshold);
        self
    }

    /// Overrides the embedder's need threshold, and keeps it fixed unless a
    /// need contrast is set too.
    pub fn need_threshold(mut self, threshold: f32) -> Self {
        self.need_threshold = Some(threshold);
        self
    }

    /// Overrides the embedder's need contrast: the need threshold adapts to
    /// each pool's background at `contrast` times it.
    pub fn need_contrast(mut self, contrast: f32) -> Self {
        self.need_contrast = Some(contrast);
        self
    }

    /// Overrides the embedder's [`super::Lending`].
    pub fn lending(mut self, lending: super::Lending) -> Self {
        self.lending = Some(lending);
        self
    }

    /// Sets how many `other` fragments one message may bring.
    pub fn max_fragments_per_message(mut self, max: usize) -> Self {
        self.max_fragments_per_message = max;
        self
    }

    /// Sets the pools' settings (`dimension` and `threshold` come from the embedder).
    pub fn pool(mut self, pool: PoolConfig) -> Self {
        self.pool = pool;
        self
    }

    /// Sets how many personal pools are kept at once.
    pub fn max_client_pools(mut self, max: usize) -> Self {
        self.max_client_pools = max;
        self
    }

    /// Sets how long a proposed patch applies.
    pub fn patch_lifetime(mut self, lifetime: Duration) -> Self {
        self.patch_lifetime = lifetime;
        self
    }
}

/// The default engine: a [`HashingEmbedder`] and a [`RuleInducer`] unless told otherwise.
///
/// Feed it every received message (valid or not); it records the lifecycle's
/// metrics in the store, clusters the message's `other` fragments, and when a
/// cluster's dual gate opens, induces a key, checks it against the schema the
/// pool's clients see (a name collision becomes a description refinement),
/// packages a patch and submits it to the store. Patches that touch sensitive
/// keys are never proposed automatically.
pub struct Evolution<E = HashingEmbedder, I = RuleInducer> {
    pub(super) embedder: E,
    pub(super) inducer: I,
    pub(super) config: EvolutionConfig,
    pub(super) pools: BTreeMap<PoolKey, Pool>,
    /// When each personal pool last took a fragment, for eviction.
    last_active: BTreeMap<PoolKey, OffsetDateTime>,
    /// The sequence number of the last operator denial in the store that
    /// the engine acted on (see `reopen_denied`).
    reviewed: u64,
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
        }
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
    fn make_room_for_a_client_pool(&mut self) {
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
    fn reopen_denied(&mut self, store: &SchemaStore) {
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

impl<E: Embedder, I: IntentInducer> EvolutionEngine for Evolution<E, I> {
    fn observe(
        &mut self,
        store: &mut SchemaStore,
        message: &Value,
        client: &str,
        now: OffsetDateTime,
    ) -> Vec<EvolutionEvent> {
        store.record(message, client, now);
        let observation = self.fragments_observed(message, client, now);
        self.ingest_observation(store, &observation)
    }
}

impl<E: Embedder, I: IntentInducer> Evolution<E, I> {
    /// The pools an observation from `client` feeds.
    fn pool_keys(&self, store: &SchemaStore, client: &str) -> Vec<PoolKey> {
        let scenario = store.base().scenario.clone();
        let mut keys = vec![PoolKey {
            scenario: scenario.clone(),
            client: None,
        }];
        if self.config.branching == Branching::GlobalAndPerClient {
            keys.push(PoolKey {
                scenario,
                client: Some(client.to_owned()),
            });
        }
        keys
    }

    /// Clusters an observation's fragments (metrics already recorded) and
    /// proposes a key for each need whose gate opens.
    pub(super) fn ingest_observation(
        &mut self,
        store: &mut SchemaStore,
        observation: &Observation,
    ) -> Vec<EvolutionEvent> {
        self.reopen_denied(store);
        let (client, now) = (observation.client.as_str(), observation.at);
        let keys = self.pool_keys(store, client);
        let mut events = Vec::new();
        if observation.over_cap > 0 {
            let cap = self.config.max_fragments_per_message;
            for key in &keys {
                events.push(EvolutionEvent::Skipped {
                    pool: key.clone(),
                    fragments: observation.over_cap,
                    reason: format!("the message carries more than {cap} fragments"),
                });
            }
        }
        if observation.fragments.is_empty() {
            return events;
        }
        if let Some(returned) = observation.vectors_returned {
            for key in &keys {
                events.push(EvolutionEvent::Skipped {
                    pool: key.clone(),
                    fragments: observation.fragments.len(),
                    reason: format!(
                        "the embedder returned {returned} vectors for {} fragments",
                        observation.fragments.len()
                    ),
                });
            }
            return events;
        }
        for fragment in &observation.fragments {
            for key in &keys {
                let personal = key.client.is_some();
                if personal {
                    if !self.pools.contains_key(key) {
                        self.make_room_for_a_client_pool();
                    }
                    self.last_active.insert(key.clone(), now);
                }
                if !self.pools.contains_key(key) {
                    let pool = match Pool::new(self.pool_config(personal)) {
                        Ok(pool) => pool,
                        Err(error) => {
                            events.push(EvolutionEvent::Skipped {
                                pool: key.clone(),
                                fragments: 1,
                                reason: error.to_string(),
                            });
                            continue;
                        }
                    };
                    self.pools.insert(key.clone(), pool);
                }
                let Some(pool) = self.pools.get_mut(key) else {
                    continue;
                };
                let ingested = match pool.ingest(
                    &fragment.vector,
                    &fragment.text,
                    fragment.flagged,
                    client,
                    now,
                ) {
                    Ok(ingested) => ingested,
                    Err(error) => {
                        // A zero vector (nothing to embed) or a broken embedder output.
                        events.push(EvolutionEvent::Skipped {
                            pool: key.clone(),
                            fragments: 1,
                            reason: error.to_string(),
                        });
                        continue;
                    }
                };
                if !ingested.triggered {
                    continue;
                }
                if let Some(view) = pool.need(ingested.need) {
                    events.push(EvolutionEvent::Triggered {
                        pool: key.clone(),
                        need: ingested.need,
                        cluster: ingested.cluster,
                        heat: view.heat(now),
                        occurrences: view.occurrences(),
                        supported: ingested.supported,
                        recent_clients: view.recent_clients(now),
                        at: now,
                    });
                }
                self.propose(store, key, ingested.need, now, &mut events);
            }
        }
        events
    }
}
