//! A pool's settings ([`PoolConfig`]: thresholds, heat, gate, caps, with
//! the defaults and the checks on them).

use serde::{Deserialize, Serialize};

use crate::evolution::pool::error::PoolError;
use crate::evolution::pool::limits::ClusterLimits;

/// The shortest half-life a pool accepts, in seconds.
pub const MIN_HALF_LIFE_SECS: f64 = 1e-3;

/// How a pool clusters, heats and triggers. The defaults are the draft's
/// examples, except the similarity threshold, which belongs to the embedder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[must_use]
pub struct PoolConfig {
    /// Vector dimension; every vector must have it.
    pub dimension: usize,
    /// Mean similarity to a cluster's members at or above which
    /// a fragment joins a cluster and two clusters merge; take it from
    /// [`Embedder::recommended_threshold`](crate::evolution::Embedder::recommended_threshold) (calibrated for the
    /// default, average linkage).
    pub threshold: f32,
    /// Mean similarity between two groups of fine clusters at or above which
    /// they are one need (average linkage over the clusters' members); looser
    /// than `threshold`, since one need is phrased many ways. Take it from
    /// [`Embedder::recommended_need_threshold`](crate::evolution::Embedder::recommended_need_threshold).
    pub need_threshold: f32,
    /// When set, the need threshold adapts to the pool's domain: this many
    /// times the pool's background similarity (the mean cosine between
    /// fragments of different needs), kept between
    /// [`NEED_FLOOR_RATIO`](crate::evolution::NEED_FLOOR_RATIO) × `threshold` and `threshold`; the support
    /// and claim thresholds scale with it. `need_threshold` applies until
    /// the pool holds [`MIN_BACKGROUND_FRAGMENTS`](crate::evolution::MIN_BACKGROUND_FRAGMENTS) fragments. Once
    /// the background is measured, needs are also linked from the pool's
    /// centre (the mean of its fragments, no longer than the background
    /// allows): similarity that every request of the domain shares does not
    /// join two needs (docs/evolution.md, "The centred need linkage"). Take
    /// it from [`Embedder::recommended_need_contrast`](crate::evolution::Embedder::recommended_need_contrast); `None` (the
    /// default of [`PoolConfig::new`])
    /// keeps `need_threshold` fixed and the linkage plain.
    pub need_contrast: Option<f32>,
    /// Mean similarity at or above which a neighbouring need (not yet
    /// proposed) may lend its heat to the gate of a need at least as hot:
    /// the paraphrases of one need that the grouping left apart. Default
    /// [`SUPPORT_RATIO`] × `need_threshold`.
    pub support_threshold: f32,
    /// Mean similarity at or above which a need that lent its heat to a
    /// proposed neighbour counts as part of it, as [`PoolConfig::lending`]
    /// says. Default [`CLAIM_RATIO`] × `need_threshold`. Under
    /// [`Lending::Silence`], once the pool's centre is measured, it is
    /// carried to the centred scale (as the need threshold is, never below
    /// 0) and compared with the centred link, so a need sharing only the
    /// domain's common words is not silenced.
    pub claim_threshold: f32,
    /// What becomes of the heat a need lent once the neighbour it helped
    /// is proposed. Default [`Lending::Silence`]; take it from [`Embedder::recommended_lending`](crate::evolution::Embedder::recommended_lending).
    pub lending: Lending,
    /// Share of `heat_threshold` a need must hold itself before neighbours
    /// may lend it theirs. Default 0.3.
    pub support_share: f64,
    /// Heat a fragment adds. Default 1.
    pub increment: f64,
    /// Half-life of heat, in seconds. Default 24 h.
    pub half_life_secs: f64,
    /// Heat at or above which the first gate opens. Default 50.
    pub heat_threshold: f64,
    /// Distinct clients within the window that open the second gate. Default 5.
    pub min_clients: usize,
    /// Requests within the window that open the second gate (one message is
    /// one request, however many fragments it carries). Default 10.
    pub min_occurrences: usize,
    /// The gate's window, in seconds. Default 7 days.
    pub window_secs: f64,
    /// Most heat one client may add to one cluster within any window (a
    /// sliding one), so that a single agent cannot force an evolution. Default 15.
    pub client_heat_cap: f64,
    /// Most clusters kept; the coldest goes first. Default 10,000.
    pub max_clusters: usize,
    /// Fragments kept per cluster as examples. Default 8.
    pub max_exemplars: usize,
    /// Clients whose recent heat is tracked per need. Default 64.
    pub max_tracked_clients: usize,
    /// Most clusters one client may found within any window (a calendar
    /// window per client, starting at its first founding), so that a flood
    /// of distinct fragments from one client cannot evict the needs others
    /// are building. Default 1,000.
    pub max_new_clusters_per_client: usize,
    /// Distinct clients that must have sent a fragment's exact text before
    /// it is quoted in a proposed key's description, and that must have
    /// used a word before it names a key or its unit, so that one client's
    /// words (a person's name, an address) never reach a schema. 1 to
    /// [`EXEMPLAR_CLIENTS`](crate::evolution::EXEMPLAR_CLIENTS); default [`MIN_QUOTE_CLIENTS`].
    pub min_quote_clients: usize,
}

/// What becomes of the heat a need lent to a neighbour whose key was then
/// proposed with its help ([`PoolConfig::lending`]). Either way the needs
/// within the claim threshold of the proposed one (from the pool's centre
/// when silenced: [`PoolConfig::claim_threshold`]) do not lend the heat
/// they held then to another proposal, and every need still triggers on
/// its own heat alone; the two differ on a need that lent while small and
/// grows later. Which suits an embedder was chosen on the calibration
/// intents of two corpora (docs/evolution.md, "Lending"): an embedder that
/// cuts a need into many pieces proposes duplicates when pieces regain
/// support, one that cuts it into few loses needs when a piece is
/// silenced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Lending {
    /// The lender lends no more and is never supported again.
    #[default]
    Silence,
    /// The lender's clusters book the heat they hold when the key is
    /// proposed (saved with them, decaying as heat does); only what they
    /// gain later may lend or be supported again.
    Book,
}

/// The default of [`PoolConfig::min_quote_clients`].
pub const MIN_QUOTE_CLIENTS: usize = 2;

/// The need threshold's default share of the fine threshold.
pub const NEED_RATIO: f32 = 0.82;

/// The support threshold's default share of the need threshold.
pub const SUPPORT_RATIO: f32 = 0.45;

/// The claim threshold's default share of the need threshold.
pub const CLAIM_RATIO: f32 = 0.7;

impl PoolConfig {
    /// The defaults for vectors of `dimension` joined at `threshold`.
    pub fn new(dimension: usize, threshold: f32) -> Self {
        Self {
            dimension,
            threshold,
            need_threshold: threshold * NEED_RATIO,
            need_contrast: None,
            support_threshold: threshold * NEED_RATIO * SUPPORT_RATIO,
            claim_threshold: threshold * NEED_RATIO * CLAIM_RATIO,
            lending: Lending::Silence,
            support_share: 0.3,
            increment: 1.0,
            half_life_secs: 86_400.0,
            heat_threshold: 50.0,
            min_clients: 5,
            min_occurrences: 10,
            window_secs: 7.0 * 86_400.0,
            client_heat_cap: 15.0,
            max_clusters: 10_000,
            max_exemplars: 8,
            max_tracked_clients: 64,
            max_new_clusters_per_client: 1_000,
            min_quote_clients: MIN_QUOTE_CLIENTS,
        }
    }

    /// The same settings with another need threshold, and the support and
    /// claim thresholds that go with it ([`SUPPORT_RATIO`] and
    /// [`CLAIM_RATIO`] of it).
    pub fn with_need_threshold(mut self, need_threshold: f32) -> Self {
        self.need_threshold = need_threshold;
        self.support_threshold = need_threshold * SUPPORT_RATIO;
        self.claim_threshold = need_threshold * CLAIM_RATIO;
        self
    }

    /// The same settings with the need threshold adapting to the pool's
    /// background at `contrast` times it, or fixed (`None`); see
    /// [`PoolConfig::need_contrast`].
    pub fn with_need_contrast(mut self, contrast: Option<f32>) -> Self {
        self.need_contrast = contrast;
        self
    }

    /// The same settings with another [`Lending`].
    pub fn with_lending(mut self, lending: Lending) -> Self {
        self.lending = lending;
        self
    }

    /// The first setting, by name, that differs between `self` and `other`
    /// among those a pool's learned state depends on: the vectors
    /// (`dimension`), how they group (`threshold`,
    /// `need_threshold`, `need_contrast`, `support_threshold`,
    /// `claim_threshold`) and how heat is stored (`half_life_secs`). A pool
    /// can be retuned ([`Pool::retune`](crate::evolution::Pool::retune)) to any other settings: the
    /// gate, the increment, the window, the caps and the sizes.
    pub fn learned_difference(&self, other: &PoolConfig) -> Option<&'static str> {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits();
        let same_opt = |a: Option<f32>, b: Option<f32>| a.map(f32::to_bits) == b.map(f32::to_bits);
        if self.dimension != other.dimension {
            Some("dimension")
        } else if !same(self.threshold, other.threshold) {
            Some("threshold")
        } else if !same(self.need_threshold, other.need_threshold) {
            Some("need_threshold")
        } else if !same_opt(self.need_contrast, other.need_contrast) {
            Some("need_contrast")
        } else if !same(self.support_threshold, other.support_threshold) {
            Some("support_threshold")
        } else if !same(self.claim_threshold, other.claim_threshold) {
            Some("claim_threshold")
        } else if self.half_life_secs.to_bits() != other.half_life_secs.to_bits() {
            Some("half_life_secs")
        } else {
            None
        }
    }

    pub(in crate::evolution) fn check(&self) -> Result<(), PoolError> {
        let positive = |v: f64| v > 0.0 && v.is_finite();
        let problem = if self.dimension == 0 {
            Some("dimension must be at least 1")
        } else if [
            self.threshold,
            self.need_threshold,
            self.support_threshold,
            self.claim_threshold,
        ]
        .iter()
        .any(|t| !(t.is_finite() && (-1.0..=1.0).contains(t)))
        {
            Some("thresholds must be cosine similarities in -1..=1")
        } else if self
            .need_contrast
            .is_some_and(|c| !(c.is_finite() && c > 0.0))
        {
            Some("need contrast must be a positive, finite number")
        } else if !(self.support_share.is_finite() && self.support_share >= 0.0) {
            Some("support share must be a finite number, not negative")
        } else if !positive(self.half_life_secs) || self.half_life_secs < MIN_HALF_LIFE_SECS {
            // Heat is kept against the Unix epoch as t / half-life: a shorter
            // half-life would overflow it for ordinary timestamps.
            Some("half-life must be a finite number of seconds, at least 0.001")
        } else if !positive(self.window_secs) {
            Some("window must be a positive, finite number of seconds")
        } else if !positive(self.increment)
            || self.client_heat_cap.is_nan()
            || self.client_heat_cap < 0.0
            || !self.heat_threshold.is_finite()
        {
            Some(
                "increment must be positive, the client cap not negative, the heat threshold finite",
            )
        } else if self.max_clusters == 0
            || self.max_exemplars == 0
            || self.min_clients == 0
            || self.min_occurrences == 0
            || self.max_new_clusters_per_client == 0
        {
            Some("counts (max clusters, exemplars, gate minimums) must be at least 1")
        } else if !(1..=crate::evolution::pool::fine::exemplar::EXEMPLAR_CLIENTS)
            .contains(&self.min_quote_clients)
        {
            Some("the clients a quote needs must be 1 to 4")
        } else {
            None
        };
        problem.map_or(Ok(()), |p| Err(PoolError::Config(p)))
    }

    pub(crate) fn limits(&self) -> ClusterLimits {
        ClusterLimits {
            increment: self.increment,
            half_life: self.half_life_secs,
            client_cap: self.client_heat_cap,
            window: self.window_secs,
            min_clients: self.min_clients,
            min_occurrences: self.min_occurrences,
            max_exemplars: self.max_exemplars,
            max_tracked_clients: self.max_tracked_clients,
        }
    }
}
