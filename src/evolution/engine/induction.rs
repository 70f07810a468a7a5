//! Induction off the message path
//! ([`Induction::OffPath`](crate::evolution::Induction::OffPath)): a need whose
//! gate opened waits; the server takes it as a [`PendingInduction`] (the
//! need's pool and schema copied, so no engine is borrowed while a model
//! answers), runs it on any thread, and hands the [`InducedKey`] back to
//! [`Evolution::complete`], which decides as `observe` would have.

use time::{Duration, OffsetDateTime};

use crate::evolution::embed::embedder::Embedder;
use crate::evolution::engine::event::EvolutionEvent;
use crate::evolution::engine::pipeline::Evolution;
use crate::evolution::engine::pool_key::PoolKey;
use crate::evolution::engine::proposal::schema_for;
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::pool::data::Pool;
use crate::key::KeyDefinition;
use crate::patch::SchemaStore;
use crate::template::SchemaTemplate;

/// How long a need waits for its induction before it may open again (a
/// server restarted, or an answer lost): a model's answer takes seconds.
pub const INDUCTION_WAIT: Duration = Duration::hours(1);

/// A need waiting for its key, with what the inducer reads: a copy of its
/// pool and of the schema its clients see, taken by [`Evolution::inductions`].
#[derive(Clone)]
pub struct PendingInduction {
    pool_key: PoolKey,
    need: u64,
    pool: Pool,
    schema: SchemaTemplate,
}

impl std::fmt::Debug for PendingInduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingInduction")
            .field("pool_key", &self.pool_key)
            .field("need", &self.need)
            .finish_non_exhaustive()
    }
}

impl PendingInduction {
    /// The pool the need is in.
    pub fn pool_key(&self) -> &PoolKey {
        &self.pool_key
    }

    /// The need.
    pub fn need(&self) -> u64 {
        self.need
    }

    /// Induces the need's key with `inducer` (the slow part: call it where
    /// waiting is fine).
    pub fn run<I: IntentInducer + ?Sized>(self, inducer: &I) -> InducedKey {
        let key = self
            .pool
            .need(self.need)
            .and_then(|view| inducer.induce(&view, &self.schema));
        InducedKey {
            pool_key: self.pool_key,
            need: self.need,
            key,
        }
    }
}

/// What an induction answered, for [`Evolution::complete`]; made only by
/// [`PendingInduction::run`].
#[derive(Debug, Clone, PartialEq)]
pub struct InducedKey {
    pool_key: PoolKey,
    need: u64,
    key: Option<KeyDefinition>,
}

impl InducedKey {
    /// The pool the need is in.
    pub fn pool_key(&self) -> &PoolKey {
        &self.pool_key
    }

    /// The need.
    pub fn need(&self) -> u64 {
        self.need
    }

    /// The key induced, or `None` (the need is then deferred).
    pub fn key(&self) -> Option<&KeyDefinition> {
        self.key.as_ref()
    }
}

impl<E: Embedder, I: IntentInducer> Evolution<E, I> {
    /// Marks need `need` of pool `key` as waiting for its induction.
    pub(in crate::evolution::engine) fn wait_for_induction(
        &mut self,
        key: &PoolKey,
        need: u64,
        now: OffsetDateTime,
        events: &mut Vec<EvolutionEvent>,
    ) {
        let Some(pool) = self.pools.get_mut(key) else {
            return;
        };
        let until = now.checked_add(INDUCTION_WAIT).unwrap_or(now);
        if pool.wait(need, until) {
            self.waiting.insert((key.clone(), need));
            events.push(EvolutionEvent::Inducing {
                pool: key.clone(),
                need,
                until,
            });
        }
    }

    /// The needs waiting for their key
    /// ([`Induction::OffPath`](crate::evolution::Induction::OffPath)), each with
    /// a copy of its pool and of the schema its clients see at `now`; the
    /// engine forgets them (a need whose answer never comes opens again
    /// after [`INDUCTION_WAIT`]). A need whose pool or schema is gone is
    /// dropped.
    pub fn inductions(
        &mut self,
        store: &SchemaStore,
        now: OffsetDateTime,
    ) -> Vec<PendingInduction> {
        let waiting = std::mem::take(&mut self.waiting);
        self.inducing.extend(waiting.iter().cloned());
        waiting
            .into_iter()
            .filter_map(|(pool_key, need)| {
                let pool = self.pools.get(&pool_key)?.clone();
                let schema = schema_for(store, &pool_key, now).ok()?;
                Some(PendingInduction {
                    pool_key,
                    need,
                    pool,
                    schema,
                })
            })
            .collect()
    }

    /// Decides what becomes of an induced key at `now`, as `observe` does
    /// with an inline induction: checked against the schema the pool's
    /// clients see now, packaged and submitted, held or deferred. An answer
    /// for a need not handed out by [`Evolution::inductions`], or already
    /// completed, changes nothing.
    pub fn complete(
        &mut self,
        store: &mut SchemaStore,
        induced: InducedKey,
        now: OffsetDateTime,
    ) -> Vec<EvolutionEvent> {
        let mut events = Vec::new();
        let InducedKey {
            pool_key,
            need,
            key,
        } = induced;
        if !self.inducing.remove(&(pool_key.clone(), need)) {
            return events;
        }
        let template = schema_for(store, &pool_key, now);
        self.decide(store, &pool_key, need, now, template, key, &mut events);
        events
    }

    /// Takes the waiting needs, runs each with the engine's own inducer and
    /// completes it: the whole off-path round on the caller's thread (for
    /// a replay, or a test).
    pub fn induce_waiting(
        &mut self,
        store: &mut SchemaStore,
        now: OffsetDateTime,
    ) -> Vec<EvolutionEvent> {
        let mut events = Vec::new();
        for pending in self.inductions(store, now) {
            let induced = pending.run(&self.inducer);
            events.extend(self.complete(store, induced, now));
        }
        events
    }
}
