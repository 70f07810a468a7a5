//! What the engine reports for each message it observes.

use serde::Serialize;
use time::OffsetDateTime;

use crate::evolution::engine::pool_key::PoolKey;
use crate::patch::{HoldReason, SchemaPatch, Submission};

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
    /// A proposal was put off: the inducer proposed nothing, the store
    /// could not build the schema to check the patch against or refused it
    /// (a conflict, a bad window), no more proposals can be held, or an
    /// operator denied the same need and its requests have not changed
    /// materially since. The need may trigger again from `retry_at` (a
    /// backoff doubling per failure, up to a week).
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
    /// A triggered need is a key the schema already has and describes as
    /// the inducer would (conflict detection, §6.2.2): nothing is
    /// proposed, and the need counts as that key's.
    Covered {
        /// The pool.
        pool: PoolKey,
        /// The need.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// The key it is.
        key_name: String,
    },
    /// A triggered need waits for its key to be induced off the message
    /// path ([`Induction::OffPath`](crate::evolution::Induction::OffPath)):
    /// take it with [`Evolution::inductions`](crate::evolution::Evolution::inductions).
    /// It does not trigger again before `until`, when it opens again if no
    /// answer came back.
    Inducing {
        /// The pool.
        pool: PoolKey,
        /// The need.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// When it may open again without an answer.
        #[serde(with = "time::serde::rfc3339")]
        until: OffsetDateTime,
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
    /// The packaged patch waits for an operator (it touches a sensitive
    /// key, the authorizer refused it, or it would rewrite a base key): it
    /// is kept in the store ([`crate::SchemaStore::pending`]) under id
    /// `proposal` until approved or denied, and the need is not proposed
    /// again meanwhile.
    Held {
        /// The pool.
        pool: PoolKey,
        /// The need it came from.
        #[serde(serialize_with = "hex_id")]
        need: u64,
        /// The pending proposal's id (the patch's id).
        proposal: String,
        /// Why it waits.
        reason: HoldReason,
        /// The problem in words.
        detail: String,
        /// The held patch, whole (its description quotes only redacted,
        /// unflagged, multi-client fragments, as a proposed patch does).
        patch: Box<SchemaPatch>,
    },
}

/// Need and cluster ids go on the wire as 16 hex digits (as in patch ids): JSON
/// numbers above 2^53 lose precision in many languages.
fn hex_id<S: serde::Serializer>(id: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("{id:016x}"))
}
