//! The evolution engine's settings ([`EvolutionConfig`]): the pools'
//! settings and the embedder overrides, which pools a fragment feeds
//! ([`Branching`]), the per-message cap, the patch lifetime, and how many
//! personal pools are kept.

use serde::Serialize;
use time::Duration;

use crate::evolution::pool::config::{Lending, PoolConfig};

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

/// Where a need's key is induced once its gate opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Induction {
    /// Within `observe`, on the message's path: right for a fast inducer
    /// (the rule inducer takes microseconds to milliseconds).
    #[default]
    Inline,
    /// Off the message's path: `observe` only records that the need waits
    /// (`EvolutionEvent::Inducing`); the server takes the waiting needs
    /// with `Evolution::inductions`, runs each (`PendingInduction::run`, on any
    /// thread, with no engine borrowed) and hands the result back with
    /// `Evolution::complete`. For an inducer that calls a model over the
    /// network, so that `observe` never waits on it.
    OffPath,
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
    /// ([`Embedder::recommended_need_threshold`](crate::evolution::Embedder::recommended_need_threshold)); the support
    /// threshold follows it ([`SUPPORT_RATIO`](crate::evolution::SUPPORT_RATIO)). Setting it alone
    /// also fixes the need threshold (no adaptive contrast).
    pub need_threshold: Option<f32>,
    /// A need contrast overriding the embedder's recommendation
    /// ([`Embedder::recommended_need_contrast`](crate::evolution::Embedder::recommended_need_contrast)): the need threshold
    /// adapts to each pool's background ([`PoolConfig::need_contrast`]).
    pub need_contrast: Option<f32>,
    /// A [`Lending`] overriding the embedder's recommendation
    /// ([`Embedder::recommended_lending`](crate::evolution::Embedder::recommended_lending)).
    pub lending: Option<Lending>,
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
    /// Where keys are induced. Default [`Induction::Inline`].
    pub induction: Induction,
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
            induction: Induction::Inline,
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

    /// Overrides the embedder's [`Lending`].
    pub fn lending(mut self, lending: Lending) -> Self {
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

    /// Sets where keys are induced.
    pub fn induction(mut self, induction: Induction) -> Self {
        self.induction = induction;
        self
    }

    /// Sets how long a proposed patch applies.
    pub fn patch_lifetime(mut self, lifetime: Duration) -> Self {
        self.patch_lifetime = lifetime;
        self
    }
}
