//! Schema self-evolution (§6.2): the Differential Semantic Pool and the
//! pipeline that turns recurring `other` fragments into schema patches.
//!
//! Every model is a trait with a dependency-free default:
//! [`Embedder`] ([`HashingEmbedder`]), [`IntentInducer`] ([`RuleInducer`]),
//! and the whole pipeline, [`EvolutionEngine`] ([`Evolution`]).
//!
//! # Concepts
//!
//! - **Fragments**: the free text of a payload's `other` member, cleaned
//!   and flagged when it reads as an instruction to an LLM
//!   ([`sanitize_fragment`], [`Sanitized::flagged`]) and redacted
//!   ([`redact`]: personal data and secrets become placeholders) before
//!   anything embeds or stores it. An [`Observation`] is one message's
//!   fragments with their vectors, so replicas can share the costly part.
//! - **The pool** ([`Pool`]): fragment vectors clustered into fine clusters
//!   ([`ClusterView`]: a fragment joins by its mean similarity to the
//!   members; [`Exemplar`]s say what each means), fine clusters grouped into
//!   needs ([`NeedView`]), as one need is phrased many ways. Heat decays
//!   with a half-life; the need threshold may adapt to the pool's background
//!   similarity ([`PoolConfig::need_contrast`]). [`Pool::retune`] puts other
//!   gate settings in force on the same learned state; [`Pool::merge`]
//!   combines replicas.
//! - **The trigger**: a need's dual gate opens on its heat and on enough
//!   distinct clients or requests within a window, each client's share
//!   capped; a need may open with the heat its close neighbours lend it
//!   ([`Lending`]).
//! - **The proposal**: [`Evolution`] turns a triggered need into a key
//!   ([`IntentInducer`]), checks it against the schema the pool's clients
//!   see, and applies, queues, holds, withholds or defers the patch;
//!   [`EvolutionEvent`] reports each step.
//! - **State**: [`EvolutionState`] is the engine's pools, saved;
//!   [`EngineRows`] keeps them as rows, so that a back end
//!   ([`StateStorage`]) rewrites only what a fold changed.
//!
//! Each word above has one meaning, given in docs/evolution.md, "Words used
//! here". The code is in one folder per stage, each saying in its `mod.rs`
//! what it holds and what it may use: `intake/` (text only, knows nothing
//! of pools), `embed/`, `pool/` (with `fine/`, `needs/` and `gate/`; the
//! pool's records are written only there), `induce/`, `engine/` and
//! `persist/`. This file only declares and re-exports them;
//! `scripts/check-module-cycles.py` holds every file to depending only
//! downward. The crate's module map is in the crate root.
//!
//! Feature `evolution` (on by default; needs `patch`).

mod embed;
mod engine;
mod induce;
mod intake;
mod persist;
mod pool;

pub use embed::embedder::Embedder;
pub use embed::hashing::HashingEmbedder;
pub use engine::config::{Branching, EvolutionConfig, Induction};
pub use engine::event::EvolutionEvent;
pub use engine::induction::{INDUCTION_WAIT, InducedKey, PendingInduction};
pub use engine::interface::EvolutionEngine;
pub use engine::observation::{Observation, ObservedFragment};
pub use engine::pipeline::Evolution;
pub use engine::pool_key::PoolKey;
pub use induce::inducer::IntentInducer;
pub use induce::rules::RuleInducer;
pub use intake::{
    MAX_FRAGMENT_CHARS, Redacted, Redaction, Sanitized, redact, sanitize_description,
    sanitize_fragment,
};
pub use persist::rows::{EngineRows, PoolRow, RowDigests, RowWrites};
pub use persist::state::{EVOLUTION_FORMAT_VERSION, EvolutionState, EvolutionStateError};
pub use persist::storage::{SavedServer, SplitState, StateStorage, Versioned};
pub use pool::config::{
    CLAIM_RATIO, Lending, MIN_QUOTE_CLIENTS, NEED_RATIO, PoolConfig, SUPPORT_RATIO,
};
pub use pool::data::Pool;
pub use pool::error::PoolError;
pub use pool::fine::exemplar::{EXEMPLAR_CLIENTS, Exemplar, client_tag};
pub use pool::fine::ingest::Ingested;
pub use pool::fine::view::ClusterView;
pub use pool::needs::background::{MIN_BACKGROUND_FRAGMENTS, NEED_FLOOR_RATIO};
pub use pool::needs::view::NeedView;
