//! The default evolution engine: `other` fragments → pool → trigger → inducer
//! → conflict detection → packaged patch → the store's guard and lifecycle.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use time::{Duration, OffsetDateTime};

use super::pool::Pool;
use super::pool_config::{PoolConfig, PoolError};
use super::redact::{Redaction, redact};
use super::sanitize::sanitize_fragment;
use super::state::{EvolutionState, EvolutionStateError};
use super::{Embedder, EvolutionEngine, HashingEmbedder, IntentInducer, RuleInducer};
use crate::issue::Issue;
use crate::key::{EXPERIMENTAL_MEMBER, KeyDefinition, OTHER_KEY, Sensitivity};
use crate::patch::DenySensitive;
use crate::patch::{PatchScope, SchemaPatch};
use crate::patch::{SchemaStore, Submission};

/// The last instant `time` represents (without its `large-dates` feature).
const LAST_INSTANT: OffsetDateTime = time::macros::datetime!(9999-12-31 23:59:59.999_999_999 UTC);

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

/// Something the engine did with a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EvolutionEvent {
    /// A need's dual gate opened.
    Triggered {
        /// The pool.
        pool: PoolKey,
        /// The need.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// The fine cluster the message's fragment joined.
        #[serde(serialize_with = "hex_id")]
        cluster: u64,
        /// The need's heat.
        heat: f64,
        /// Its requests so far (one message is one, however many fragments).
        occurrences: u64,
        /// Whether the gate opened only with the heat of neighbouring needs
        /// (the need's paraphrases the grouping kept apart).
        supported: bool,
        /// Distinct clients within the gate window (counted up to the gate's minimum).
        recent_clients: usize,
        /// When.
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
    },
    /// A patch was packaged and handed to the store.
    Proposed {
        /// The pool.
        pool: PoolKey,
        /// The need it came from.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// The patch.
        patch: Box<SchemaPatch>,
        /// Applied, or queued behind the convergence guard.
        submission: Submission,
    },
    /// A proposal was put off: the inducer proposed nothing, or the store
    /// could not build the schema to check it against. The need may
    /// trigger again from `retry_at` (a backoff doubling per failure).
    Deferred {
        /// The pool.
        pool: PoolKey,
        /// The need.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// Why.
        reason: String,
        /// When it may be tried again.
        #[serde(with = "time::serde::rfc3339")]
        retry_at: OffsetDateTime,
    },
    /// A need will propose nothing: most of its fragments read as
    /// instructions to a model, which must never become schema.
    Withheld {
        /// The pool.
        pool: PoolKey,
        /// The need.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// Why.
        reason: String,
    },
    /// Fragments did not enter a pool (nothing left to embed, an embedder
    /// output the pool refuses, the client's quota of new clusters spent,
    /// or more fragments in one message than the engine takes); the
    /// fragments themselves are not repeated.
    Skipped {
        /// The pool.
        pool: PoolKey,
        /// How many fragments.
        fragments: usize,
        /// Why.
        reason: String,
    },
    /// The store refused the packaged patch. A patch touching a sensitive
    /// key is refused by the pipeline's authorizer
    /// (`unauthorized_sensitive_change`) and held here for an operator, who
    /// may review it and submit it with an authorizer of their own.
    Refused {
        /// The pool.
        pool: PoolKey,
        /// The need it came from.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// The refused patch, whole (its description quotes only redacted,
        /// unflagged fragments, as a proposed patch does).
        patch: Box<SchemaPatch>,
        /// Why.
        errors: Vec<Issue>,
    },
}

/// Need and cluster ids go on the wire as 16 hex digits (as in patch ids): JSON
/// numbers above 2^53 lose precision in many languages.
fn hex_id<S: serde::Serializer>(id: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("{id:016x}"))
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
    embedder: E,
    inducer: I,
    config: EvolutionConfig,
    pools: BTreeMap<PoolKey, Pool>,
    /// When each personal pool last took a fragment, for eviction.
    last_active: BTreeMap<PoolKey, OffsetDateTime>,
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
        EvolutionState::new(&self.pools, &self.last_active)
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
        let (mut pools, mut last_active) = state.into_parts();
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

    fn propose(
        &mut self,
        store: &mut SchemaStore,
        key: &PoolKey,
        need: u64,
        now: OffsetDateTime,
        events: &mut Vec<EvolutionEvent>,
    ) {
        let Some(pool) = self.pools.get_mut(key) else {
            return;
        };
        let mut defer = |pool: &mut Pool, reason: String| {
            if let Some(retry_at) = pool.defer(need, now) {
                events.push(EvolutionEvent::Deferred {
                    pool: key.clone(),
                    need,
                    reason,
                    retry_at,
                });
            }
        };
        let template = match store.template_for(key.client.as_deref(), now) {
            Ok(template) => template,
            Err(error) => {
                defer(
                    pool,
                    format!("the store could not build the schema: {error}"),
                );
                return;
            }
        };
        let flagged_majority = pool.need(need).is_some_and(|view| {
            let (flagged, total) = view.exemplars().iter().fold((0u64, 0u64), |(f, t), e| {
                (f + if e.flagged { e.count } else { 0 }, t + e.count)
            });
            flagged * 2 >= total && total > 0
        });
        if flagged_majority {
            pool.mark_proposed(need, "");
            events.push(EvolutionEvent::Withheld {
                pool: key.clone(),
                need,
                reason: "most of its fragments read as instructions to a model".to_owned(),
            });
            return;
        }
        let candidate = pool
            .need(need)
            .and_then(|view| self.inducer.induce(&view, &template));
        let Some(candidate) = candidate else {
            defer(pool, "the inducer proposed no key".to_owned());
            return;
        };
        pool.mark_proposed(need, candidate.key_name.as_str());
        if candidate.key_name.as_str() == OTHER_KEY {
            return;
        }
        // A need whose fragments carried payment, identity or credential
        // values (now placeholders), or whose key reads as one, is proposed
        // marked sensitive: the store then holds it for the authorizer.
        let carried = pool.need(need).and_then(|view| {
            view.exemplars()
                .iter()
                .flat_map(|e| Redaction::found_in(&e.text))
                .map(Redaction::sensitivity)
                .next()
        });
        let mut candidate = candidate;
        if candidate.sensitivity().is_none() {
            if let Some(sensitivity) = carried.or_else(|| Sensitivity::classify(&candidate)) {
                candidate = candidate.with_sensitivity(sensitivity);
            }
        }
        let mut patch = SchemaPatch::new(
            patch_id(key, need, now),
            template.schema_id.clone(),
            now,
            // Near the end of the representable range the lifetime is cut
            // at its last instant; at that very instant the store refuses the
            // patch (it would expire as it starts) and says so in an event.
            now.checked_add(self.config.patch_lifetime)
                .unwrap_or(LAST_INSTANT),
        );
        // A base without a digest (see `DigestError`) cannot be named; the
        // patch still names its parent schema id.
        patch.parent_digest = store.base().digest().ok();
        if let Some(client) = &key.client {
            patch.scope = PatchScope::Client(client.clone());
        }
        match template.key(candidate.key_name.as_str()) {
            // Conflict detection (§6.2.2): refine the existing key, never duplicate it.
            Some(existing) => patch.modified_keys.push(refinement(existing, &candidate)),
            None => {
                let mut key_def = candidate;
                key_def
                    .extra
                    .insert(EXPERIMENTAL_MEMBER.to_owned(), Value::Bool(true));
                patch.new_keys.push(key_def);
            }
        }
        match store.submit_by(patch.clone(), Some("sdsi:evolution"), now, &DenySensitive) {
            Ok(submission) => events.push(EvolutionEvent::Proposed {
                pool: key.clone(),
                need,
                patch: Box::new(patch),
                submission,
            }),
            Err(error) => events.push(EvolutionEvent::Refused {
                pool: key.clone(),
                need,
                patch: Box::new(patch),
                errors: error.errors().to_vec(),
            }),
        }
    }
}

/// A patch id no other pool can produce: global and personal pools number
/// their needs independently, so the pool is part of it.
fn patch_id(pool: &PoolKey, need: u64, now: OffsetDateTime) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    pool.hash(&mut hasher);
    format!(
        "evo-{:016x}-{need:016x}-{}",
        hasher.finish(),
        now.unix_timestamp()
    )
}

/// `existing` with the candidate's description appended: same type, same
/// flags, so the merge accepts it as a refinement.
fn refinement(existing: &KeyDefinition, candidate: &KeyDefinition) -> KeyDefinition {
    let mut refined = existing.clone();
    refined.semantic_description = format!(
        "{} {}",
        existing.semantic_description, candidate.semantic_description
    );
    refined
}

/// The `other` fragments of a message: a string, or the strings of an array.
fn other_fragments(message: &Value) -> Vec<&str> {
    match message.get("payload").and_then(|p| p.get(OTHER_KEY)) {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
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
        let mut events = Vec::new();
        // No raw personal value or secret goes any further: not into the
        // embedding, the pool, an exemplar, a snapshot, an event or a key.
        let fragments = other_fragments(message);
        let cap = self.config.max_fragments_per_message;
        if fragments.len() > cap {
            for key in &keys {
                events.push(EvolutionEvent::Skipped {
                    pool: key.clone(),
                    fragments: fragments.len() - cap,
                    reason: format!("the message carries more than {cap} fragments"),
                });
            }
        }
        let cleaned: Vec<_> = fragments
            .into_iter()
            .take(cap)
            .filter_map(sanitize_fragment)
            .map(|mut clean| {
                clean.text = redact(&clean.text).text;
                clean
            })
            .collect();
        if cleaned.is_empty() {
            return events;
        }
        // One call for the message's fragments: a model embeds a batch in
        // one forward pass, a Python embedder in one call.
        let texts: Vec<&str> = cleaned.iter().map(|clean| clean.text.as_str()).collect();
        let vectors = self.embedder.embed_batch(&texts);
        if vectors.len() != texts.len() {
            for key in &keys {
                events.push(EvolutionEvent::Skipped {
                    pool: key.clone(),
                    fragments: texts.len(),
                    reason: format!(
                        "the embedder returned {} vectors for {} fragments",
                        vectors.len(),
                        texts.len()
                    ),
                });
            }
            return events;
        }
        for (clean, vector) in cleaned.iter().zip(&vectors) {
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
                let ingested = match pool.ingest(vector, &clean.text, clean.flagged, client, now) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_ids_differ_between_pools() {
        let now = time::macros::datetime!(2026-05-01 0:00 UTC);
        let global = PoolKey {
            scenario: "s".into(),
            client: None,
        };
        let personal = PoolKey {
            scenario: "s".into(),
            client: Some("agent-7".into()),
        };
        assert_ne!(patch_id(&global, 42, now), patch_id(&personal, 42, now));
        assert_eq!(
            patch_id(&global, 42, now),
            patch_id(&global.clone(), 42, now)
        );
    }
}
