//! The pool's background similarity, and the need threshold that adapts to
//! it ([`PoolConfig::need_contrast`]).
//!
//! How similar two requests of one need are depends on the domain as much as
//! on the need: in a banking pool every request talks of cards, accounts and
//! money, so requests of *different* needs already score high, while a home
//! assistant's requests about alarms and recipes share almost nothing. A
//! fixed need threshold fuses the first kind or scatters the second. The
//! background, the mean cosine between fragments of different needs,
//! measures the domain's baseline; an adaptive pool links needs at a fixed
//! multiple of it (docs/evolution.md, "The adaptive need threshold").

use serde::{Deserialize, Serialize};

use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::needs::centre::Centre;
use crate::evolution::pool::needs::level::Needs;

/// Fragments a pool must hold before its background is measured: fewer
/// pairs say more about the first few needs than about the domain.
pub const MIN_BACKGROUND_FRAGMENTS: u64 = 32;

/// The lowest adaptive need threshold, as a share of the fine threshold, so
/// that a pool of unrelated one-off requests (a low background) does not
/// fuse them into one need that passes the gate.
pub const NEED_FLOOR_RATIO: f32 = 0.4;

/// The background is measured again once the pool took in this share of the
/// fragments it held at the last measure (and at least
/// [`MIN_BACKGROUND_FRAGMENTS`]): O(needs × dimension) amortised to
/// O(dimension) per fragment.
const REFRESH_DIVISOR: u64 = 16;

/// The measured background and when to measure it again. Part of the pool's
/// state (snapshots carry it), so a restored pool links needs exactly as the
/// pool it was saved from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(in crate::evolution) struct Background {
    /// Mean cosine between fragments of different needs; `None` before the
    /// pool held [`MIN_BACKGROUND_FRAGMENTS`] of them, or while it holds one
    /// need.
    pub(in crate::evolution::pool) value: Option<f32>,
    /// Fragments to take in before the next measure.
    pub(in crate::evolution::pool) due: u64,
    /// The mean of the fragments the needs hold, measured with the value:
    /// what the need level links from (`centre.rs`).
    pub(in crate::evolution::pool) centre: Centre,
}

impl Background {
    /// Counts one fragment taken in; measures the background of `needs`
    /// when due (adaptive pools only).
    pub(in crate::evolution) fn tick(&mut self, config: &PoolConfig, needs: &Needs) {
        if config.need_contrast.is_none() {
            return;
        }
        match self.due.checked_sub(1) {
            Some(left) => self.due = left,
            None => *self = Background::measure(config, needs),
        }
    }

    /// Measures the background from the needs' sums, in id order (so
    /// replicas that hold the same needs measure the same value):
    /// `(|Σ S_k|² − Σ |S_k|²) / (N² − Σ n_k²)` over needs `k` with sum `S_k`
    /// of `n_k` unit vectors, `N` in all. Nothing for a fixed pool.
    pub(in crate::evolution) fn measure(config: &PoolConfig, needs: &Needs) -> Background {
        if config.need_contrast.is_none() {
            return Background::default();
        }
        let dim = config.dimension;
        let mut order: Vec<usize> = (0..needs.len()).collect();
        order.sort_by_key(|&k| needs.states.get(k).map_or(u64::MAX, |s| s.id));
        let mut total = vec![0.0f64; dim];
        let (mut own, mut fragments, mut own_pairs) = (0.0f64, 0u64, 0.0f64);
        for k in order {
            let (Some(sum), Some(state)) = (needs.sum(k), needs.states.get(k)) else {
                continue;
            };
            total
                .iter_mut()
                .zip(sum)
                .for_each(|(t, s)| *t += f64::from(*s));
            own += sum
                .iter()
                .map(|s| f64::from(*s) * f64::from(*s))
                .sum::<f64>();
            fragments = fragments.saturating_add(state.vectors);
            let n = state.vectors as f64;
            own_pairs += n * n;
        }
        let n = fragments as f64;
        let pairs = n * n - own_pairs;
        let across = total.iter().map(|t| t * t).sum::<f64>() - own;
        let value = (fragments >= MIN_BACKGROUND_FRAGMENTS && pairs > 0.0)
            .then(|| (across / pairs) as f32)
            .filter(|v| v.is_finite());
        let centre = value.map_or_else(Centre::default, |b| Centre::of(&total, fragments, b));
        Background {
            value,
            due: (fragments / REFRESH_DIVISOR).max(MIN_BACKGROUND_FRAGMENTS),
            centre,
        }
    }

    /// This background as restored from a snapshot: its centre is kept
    /// only if it could have been measured for `config` (an adaptive pool)
    /// and this value ([`Centre::restored`]).
    pub(in crate::evolution) fn restored(mut self, config: &PoolConfig) -> Background {
        let value = config.need_contrast.and(self.value);
        self.centre = self.centre.restored(config.dimension, value);
        self
    }

    /// The need threshold in force: [`PoolConfig::need_threshold`] for a
    /// fixed pool, or before an adaptive pool's background is known; else
    /// the contrast times the background, kept between
    /// [`NEED_FLOOR_RATIO`] × the fine threshold and the fine threshold.
    pub(in crate::evolution) fn need_threshold(&self, config: &PoolConfig) -> f32 {
        adaptive(config, self.value).unwrap_or(config.need_threshold)
    }

    /// `threshold` (a support or claim threshold) times the ratio of the
    /// need threshold in force to the configured one (unchanged when that
    /// is not positive), so they scale as the need threshold does.
    pub(in crate::evolution) fn scaled(&self, config: &PoolConfig, threshold: f32) -> f32 {
        let configured = config.need_threshold;
        match adaptive(config, self.value) {
            Some(now) if configured > 0.0 => threshold * (now / configured),
            _ => threshold,
        }
    }
}

/// The adaptive need threshold for `background`, if the pool adapts and the
/// background is known.
fn adaptive(config: &PoolConfig, background: Option<f32>) -> Option<f32> {
    let contrast = config.need_contrast?;
    let background = background?;
    let floor = NEED_FLOOR_RATIO * config.threshold;
    let ceiling = config.threshold.max(floor);
    let t = (contrast * background).max(floor).min(ceiling);
    t.is_finite().then_some(t)
}
