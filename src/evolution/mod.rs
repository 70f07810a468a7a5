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
mod embed;
mod event;
mod exemplar;
mod gate;
mod grouping;
mod heat;
mod ids;
mod induce;
mod injection;
mod limits;
mod linkage;
mod need_view;
mod needs;
mod observation;
mod pipeline;
mod pool;
mod pool_config;
mod pool_error;
mod proposal;
mod proposal_mark;
mod quota;
mod redact;
mod replica;
mod retune;
mod rows;
mod sanitize;
mod state;
mod storage;
mod vectors;

pub use background::{MIN_BACKGROUND_FRAGMENTS, NEED_FLOOR_RATIO};
pub use embed::HashingEmbedder;
pub use event::EvolutionEvent;
pub use exemplar::{EXEMPLAR_CLIENTS, Exemplar, client_tag};
pub use induce::RuleInducer;
pub use linkage::Linkage;
pub use need_view::NeedView;
pub use observation::{Observation, ObservedFragment};
pub use pipeline::{Branching, Evolution, EvolutionConfig, PoolKey};
pub use pool::{ClusterView, Ingested, Pool};
pub use pool_config::{
    CLAIM_RATIO, Lending, MIN_QUOTE_CLIENTS, NEED_RATIO, PoolConfig, SUPPORT_RATIO,
};
pub use pool_error::PoolError;
pub use redact::{Redacted, Redaction, redact};
pub use rows::{EngineRows, PoolRow, RowDigests, RowWrites};
pub use sanitize::{MAX_FRAGMENT_CHARS, Sanitized, sanitize_fragment};
pub use state::{EVOLUTION_FORMAT_VERSION, EvolutionState, EvolutionStateError};
pub use storage::{SavedServer, SplitState, StateStorage, Versioned};

use serde_json::Value;
use time::OffsetDateTime;

use crate::key::KeyDefinition;
use crate::patch::SchemaStore;
use crate::template::SchemaTemplate;

/// Text → a unit vector of a fixed dimension.
///
/// The similarity threshold that suits an embedder is the embedder's to say:
/// the draft's 0.85 is tuned for sentence-transformer models, and a hashing
/// embedder needs a lower one. A pool takes it from
/// [`Embedder::recommended_threshold`] unless told otherwise.
///
/// ```
/// use sdsi::evolution::Embedder;
/// /// A toy embedder: is the text about seats or not?
/// struct Seats;
/// impl Embedder for Seats {
///     fn dimension(&self) -> usize { 2 }
///     fn recommended_threshold(&self) -> f32 { 0.9 }
///     fn embed_into(&self, text: &str, out: &mut [f32]) {
///         let seat = text.contains("seat");
///         out.copy_from_slice(if seat { &[1.0, 0.0] } else { &[0.0, 1.0] });
///     }
/// }
/// assert_eq!(Seats.embed("window seat"), vec![1.0, 0.0]);
/// ```
pub trait Embedder: Send + Sync {
    /// The vectors' dimension.
    fn dimension(&self) -> usize;
    /// The similarity at or above which a text joins a fine cluster (its
    /// mean cosine to the cluster's members).
    fn recommended_threshold(&self) -> f32;
    /// The looser similarity at or above which groups of fine clusters are
    /// one need (the mean cosine between their members): one need is phrased
    /// many ways. Default: [`NEED_RATIO`] × the fine threshold.
    fn recommended_need_threshold(&self) -> f32 {
        NEED_RATIO * self.recommended_threshold()
    }
    /// How many times the pool's background similarity the need threshold
    /// is, when it adapts to the pool's domain
    /// ([`PoolConfig::need_contrast`]); `None` (the default) keeps
    /// [`Embedder::recommended_need_threshold`] fixed. Calibrate it as that
    /// threshold is: on labelled requests of more than one domain.
    fn recommended_need_contrast(&self) -> Option<f32> {
        None
    }
    /// What becomes of the heat a need lent to a neighbour proposed with its
    /// help ([`PoolConfig::lending`]). Default [`Lending::Silence`]; choose
    /// it on the calibration intents, as the need contrast is.
    fn recommended_lending(&self) -> Lending {
        Lending::Silence
    }
    /// Writes the unit vector of `text` into `out` (of length `dimension()`);
    /// all zeros when the text has nothing to embed.
    fn embed_into(&self, text: &str, out: &mut [f32]);
    /// The unit vector of `text`.
    fn embed(&self, text: &str) -> Vec<f32> {
        let mut out = vec![0.0; self.dimension()];
        self.embed_into(text, &mut out);
        out
    }
    /// The unit vectors of `texts`, in order. The default embeds one text at
    /// a time; a model that runs faster on a batch (one forward pass for
    /// many texts) overrides it. Every vector equals what [`Embedder::embed`]
    /// gives for the same text, up to the model's floating-point rounding.
    fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        texts.iter().map(|text| self.embed(text)).collect()
    }
}

/// A boxed embedder is an embedder, so the model can be chosen at run time
/// (`Evolution<Box<dyn Embedder>>`).
impl<E: Embedder + ?Sized> Embedder for Box<E> {
    fn dimension(&self) -> usize {
        (**self).dimension()
    }
    fn recommended_threshold(&self) -> f32 {
        (**self).recommended_threshold()
    }
    fn recommended_need_threshold(&self) -> f32 {
        (**self).recommended_need_threshold()
    }
    fn recommended_need_contrast(&self) -> Option<f32> {
        (**self).recommended_need_contrast()
    }
    fn recommended_lending(&self) -> Lending {
        (**self).recommended_lending()
    }
    fn embed_into(&self, text: &str, out: &mut [f32]) {
        (**self).embed_into(text, out);
    }
    fn embed(&self, text: &str) -> Vec<f32> {
        (**self).embed(text)
    }
    fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        (**self).embed_batch(texts)
    }
}

/// A mature need plus the schema it would extend → a candidate key.
///
/// The candidate's `semantic_description` must quote real fragments from the
/// need (§6.2.2); use only exemplars that are not `flagged`.
///
/// ```
/// use sdsi::{KeyDefinition, KeyName, KeyType, SchemaTemplate};
/// use sdsi::evolution::{IntentInducer, NeedView};
/// /// Always proposes the same key.
/// struct Fixed;
/// impl IntentInducer for Fixed {
///     fn induce(&self, need: &NeedView<'_>, _: &SchemaTemplate) -> Option<KeyDefinition> {
///         let example = need.exemplars().iter().find(|e| !e.flagged)?;
///         let name = KeyName::new("seat_preference").ok()?;
///         Some(KeyDefinition::new(name, KeyType::String, false, format!("Example: '{}'", example.text)))
///     }
/// }
/// ```
pub trait IntentInducer: Send + Sync {
    /// The key the need asks for, or `None` to propose nothing.
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition>;
}

/// A boxed inducer is an inducer, so the inducer can be chosen at run time
/// (`Evolution<E, Box<dyn IntentInducer>>`).
impl<I: IntentInducer + ?Sized> IntentInducer for Box<I> {
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition> {
        (**self).induce(need, schema)
    }
}

/// The whole evolution pipeline, so a server can swap the engine.
///
/// ```
/// use sdsi::SchemaStore;
/// use sdsi::evolution::{EvolutionEngine, EvolutionEvent};
/// use serde_json::Value;
/// /// An engine that never evolves anything.
/// struct Frozen;
/// impl EvolutionEngine for Frozen {
///     fn observe(&mut self, _: &mut SchemaStore, _: &Value, _: &str, _: time::OffsetDateTime) -> Vec<EvolutionEvent> {
///         Vec::new()
///     }
/// }
/// ```
pub trait EvolutionEngine: Send + Sync {
    /// Takes one received message `{"schema_id", "payload"}` from `client` at
    /// `now`, and proposes patches to `store` when a need matures.
    fn observe(
        &mut self,
        store: &mut SchemaStore,
        message: &Value,
        client: &str,
        now: OffsetDateTime,
    ) -> Vec<EvolutionEvent>;
}
