//! Feeding one message to the engine: [`EvolutionEngine::observe`] records
//! the lifecycle's metrics and observes the message, and every observation,
//! made here or folded in from a replica's log, goes to the pools it feeds,
//! fragment by fragment, with a proposal for each need whose gate opens.

use serde_json::Value;
use time::OffsetDateTime;

use crate::evolution::embed::embedder::Embedder;
use crate::evolution::engine::config::Branching;
use crate::evolution::engine::event::EvolutionEvent;
use crate::evolution::engine::interface::EvolutionEngine;
use crate::evolution::engine::observation::Observation;
use crate::evolution::engine::pipeline::Evolution;
use crate::evolution::engine::pool_key::PoolKey;
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::pool::data::Pool;
use crate::patch::SchemaStore;

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
    pub(in crate::evolution) fn ingest_observation(
        &mut self,
        store: &mut SchemaStore,
        observation: &Observation,
    ) -> Vec<EvolutionEvent> {
        self.reopen_denied(store);
        let (client, now) = (observation.client.as_str(), observation.at);
        let keys = self.pool_keys(store, client);
        let mut events = Vec::new();
        // One `skipped` event per pool the fragments would have fed.
        let skipped =
            |events: &mut Vec<EvolutionEvent>, fragments: usize, reason: &dyn Fn() -> String| {
                if fragments > 0 {
                    let reason = reason();
                    events.extend(keys.iter().map(|key| EvolutionEvent::Skipped {
                        pool: key.clone(),
                        fragments,
                        reason: reason.clone(),
                    }));
                }
            };
        let cap = self.config.max_fragments_per_message;
        skipped(&mut events, observation.over_cap, &|| {
            format!("the message carries more than {cap} fragments")
        });
        skipped(&mut events, observation.instructions, &|| {
            "nothing but text that spoke to the system, a model or the schema".to_owned()
        });
        if observation.fragments.is_empty() {
            return events;
        }
        // The store's clock guard holds for the pools too: a time it refuses
        // (far past its last evaluation) would otherwise date a cluster's
        // heat in the future, and every later request of that need would
        // add almost nothing to it.
        if let Some(jump) = store.lifecycle().clock_jump(now) {
            let n = observation.fragments.len();
            skipped(&mut events, n, &|| jump.to_string());
            return events;
        }
        if let Some(returned) = observation.vectors_returned {
            let n = observation.fragments.len();
            skipped(&mut events, n, &|| {
                format!("the embedder returned {returned} vectors for {n} fragments")
            });
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
                // A review of a need already proposed reports only what
                // came of it (covered, refined, deferred).
                if let Some(view) = pool.need(ingested.need).filter(|v| v.proposed().is_none()) {
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
