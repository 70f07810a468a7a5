//! Schema self-evolution (§6.2): the Differential Semantic Pool and the
//! pipeline that turns recurring `other` fragments into schema patches.
//!
//! Every model is a trait with a dependency-free default:
//! [`Embedder`] ([`HashingEmbedder`]), [`IntentInducer`] ([`RuleInducer`]),
//! and the whole pipeline, [`EvolutionEngine`] ([`Evolution`]).
//!
//! | concept | file |
//! |---|---|
//! | the traits | `evolution/mod.rs` |
//! | [`Evolution`]: fragments → pool → trigger | `evolution/pipeline.rs` |
//! | a triggered need → withheld, proposed, held for an operator or deferred | `evolution/proposal.rs` |
//! | [`EvolutionEvent`]: what the engine reports | `evolution/event.rs` |
//! | [`Pool`]: clustering, the dual-gate trigger, snapshots | `evolution/pool.rs` |
//! | the adaptive need threshold ([`PoolConfig::need_contrast`]) | `evolution/background.rs` |
//! | [`Pool::retune`]: other gate settings, the same learned state | `evolution/retune.rs` |
//! | one cluster's state, [`Exemplar`] | `evolution/cluster.rs` |
//! | heat and its decay | `evolution/heat.rs` |
//! | [`HashingEmbedder`] | `evolution/embed.rs` |
//! | [`RuleInducer`] | `evolution/induce.rs` |
//! | [`sanitize_fragment`]: clean and flag free text before it is stored | `evolution/sanitize.rs` |
//! | [`redact`]: personal data and secrets become placeholders | `evolution/redact.rs` |
//! | prompt-injection detection behind [`Sanitized::flagged`] | `evolution/injection.rs` |
//!
//! Feature `evolution` (on by default; needs `patch`).

mod background;
mod cap;
mod cluster;
mod cluster_view;
mod embedder;
mod engine;
mod engine_config;
mod event;
mod eviction;
mod exemplar;
mod gate;
mod grouping;
mod hashing_embedder;
mod heat;
mod ids;
mod induce;
mod inducer;
mod ingest;
mod injection;
mod intake;
mod limits;
mod linkage;
mod marking;
mod merge;
mod need_view;
mod needs;
mod observation;
mod pipeline;
mod pool;
mod pool_config;
mod pool_error;
mod pool_key;
mod proposal;
mod proposal_mark;
mod quota;
mod redact;
mod replica;
mod retune;
mod rows;
mod sanitize;
mod snapshot;
mod state;
mod storage;
mod vectors;

pub use background::{MIN_BACKGROUND_FRAGMENTS, NEED_FLOOR_RATIO};
pub use cluster_view::ClusterView;
pub use embedder::Embedder;
pub use engine::EvolutionEngine;
pub use engine_config::{Branching, EvolutionConfig};
pub use event::EvolutionEvent;
pub use exemplar::{EXEMPLAR_CLIENTS, Exemplar, client_tag};
pub use hashing_embedder::HashingEmbedder;
pub use induce::RuleInducer;
pub use inducer::IntentInducer;
pub use ingest::Ingested;
pub use linkage::Linkage;
pub use need_view::NeedView;
pub use observation::{Observation, ObservedFragment};
pub use pipeline::Evolution;
pub use pool::Pool;
pub use pool_config::{
    CLAIM_RATIO, Lending, MIN_QUOTE_CLIENTS, NEED_RATIO, PoolConfig, SUPPORT_RATIO,
};
pub use pool_error::PoolError;
pub use pool_key::PoolKey;
pub use redact::{Redacted, Redaction, redact};
pub use rows::{EngineRows, PoolRow, RowDigests, RowWrites};
pub use sanitize::{MAX_FRAGMENT_CHARS, Sanitized, sanitize_fragment};
pub use state::{EVOLUTION_FORMAT_VERSION, EvolutionState, EvolutionStateError};
pub use storage::{SavedServer, SplitState, StateStorage, Versioned};
