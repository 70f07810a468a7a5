//! The lifecycle's policy (§6.2.3): the trial, the promotion and
//! deprecation thresholds, the grace and compatibility windows, the
//! observation window and the convergence guard, with the draft's defaults.

use serde::{Deserialize, Serialize};
use time::Duration;

/// Metric thresholds: usage frequency, semantic alignment accuracy and value
/// type correctness, each a ratio in `0.0..=1.0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Thresholds {
    /// Share of the scenario's payloads that carry the key.
    pub usage_frequency: f64,
    /// Share of judged payloads whose value matched the user's intent.
    pub semantic_alignment_accuracy: f64,
    /// Share of payloads carrying the key whose value had the declared type.
    pub value_type_correctness: f64,
}

/// The lifecycle's numbers, with the draft's defaults; every one can be changed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[must_use]
pub struct LifecyclePolicy {
    /// How long a new key stays experimental before it is judged. Default 7 days.
    pub trial: Duration,
    /// Promotion needs every metric at or above these. Default 15 %, 80 %, 90 %.
    pub promote_at: Thresholds,
    /// Deprecation follows any metric below these. Default 5 %, 60 %, 70 %.
    pub deprecate_below: Thresholds,
    /// How long a deprecated key stays in the schema. Default 14 days.
    pub grace: Duration,
    /// How long a withdrawn key is still accepted. Default 30 days.
    pub backward_compatibility: Duration,
    /// The window metrics are counted over, in whole UTC days. Default 30 days.
    pub observation_window: Duration,
    /// The convergence guard: most experimental keys at once. Default 10.
    pub max_experimental: usize,
    /// What the guard's cap counts: every scope of the scenario together
    /// (the draft's reading, the default) or each scope on its own.
    pub guard: GuardScope,
    /// How far in the future a submitted patch's timestamp may lie, for
    /// clocks that disagree a little. Default 5 minutes.
    pub clock_skew: Duration,
    /// The furthest `now` may lie past the last evaluation: a later one (a
    /// replica or a log line with a wrong clock) is refused by `evaluate`
    /// and ignored by the metric recorders, instead of moving every key to
    /// gone, emptying the metric windows and freezing the store until real
    /// time catches up. A server restarted
    /// after a longer pause evaluates once with
    /// `SchemaStore::evaluate_after_pause`. Zero or less sets no bound.
    /// Default 30 days.
    #[serde(default = "default_max_clock_jump")]
    pub max_clock_jump: Duration,
}

/// The default [`LifecyclePolicy::max_clock_jump`] (also for policies saved
/// before it existed).
fn default_max_clock_jump() -> Duration {
    Duration::days(30)
}

/// What the convergence guard's cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GuardScope {
    /// Experimental keys of the whole scenario: global ones plus every
    /// client's personal ones (§6.2.3: "per scenario").
    #[default]
    Scenario,
    /// Experimental keys of the patch's own scope (global, or one client).
    PerScope,
}

impl Default for LifecyclePolicy {
    fn default() -> Self {
        Self {
            trial: Duration::days(7),
            promote_at: Thresholds {
                usage_frequency: 0.15,
                semantic_alignment_accuracy: 0.80,
                value_type_correctness: 0.90,
            },
            deprecate_below: Thresholds {
                usage_frequency: 0.05,
                semantic_alignment_accuracy: 0.60,
                value_type_correctness: 0.70,
            },
            grace: Duration::days(14),
            backward_compatibility: Duration::days(30),
            observation_window: Duration::days(30),
            max_experimental: 10,
            guard: GuardScope::Scenario,
            clock_skew: Duration::minutes(5),
            max_clock_jump: default_max_clock_jump(),
        }
    }
}

impl LifecyclePolicy {
    /// The observation window in whole days, at least 1.
    pub(super) fn window_days(&self) -> usize {
        self.observation_window.whole_days().clamp(1, 3660) as usize
    }
}
