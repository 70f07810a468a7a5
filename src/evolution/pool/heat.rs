//! Heat with exponential decay, kept as forward decay in the log domain.
//!
//! Heat at time `t` is `Σ incᵢ · 2^(-(t - tᵢ)/h)`. Rewritten against a fixed
//! landmark `L`, it is `2^(-(t - L)/h) · Σ incᵢ · 2^((tᵢ - L)/h)`; the sum no
//! longer depends on `t`, so an update is one `log-add-exp` (O(1), no sweep),
//! the order of updates does not matter, two heats add by adding their sums
//! (how replicas merge), and keeping the sum's logarithm keeps years of
//! simulated time finite. The landmark is the heat's first increment, so the
//! exponents stay small (and precise) even with a short half-life.

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch, as a float (the crate's instants are `OffsetDateTime`).
pub(crate) fn seconds(at: time::OffsetDateTime) -> f64 {
    at.unix_timestamp() as f64 + f64::from(at.nanosecond()) / 1e9
}

/// The log-domain sum behind a heat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct LogSum {
    /// `ln Σ incᵢ · 2^((tᵢ - landmark)/h)`.
    log_sum: f64,
    /// The landmark (seconds): the first increment's time.
    landmark: f64,
    /// The latest increment's time (seconds). Heat is not defined before it,
    /// so an earlier `now` (a clock gone back) reads the heat at this instant.
    latest: f64,
}

/// A decaying heat score.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Heat {
    /// `None` before the first increment.
    sum: Option<LogSum>,
}

/// `ln(eᵃ + eᵇ)` without overflow; symmetric in its arguments, bit for bit.
fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// `ln 2^((t - landmark)/h)`.
fn exponent(t: f64, landmark: f64, half_life: f64) -> f64 {
    (t - landmark) / half_life * std::f64::consts::LN_2
}

impl Heat {
    /// Adds `increment` (> 0) at `at` seconds, with half-life `half_life` seconds (> 0).
    pub(crate) fn add(&mut self, increment: f64, at: f64, half_life: f64) {
        if !(increment > 0.0 && increment.is_finite() && at.is_finite()) {
            return;
        }
        let landmark = self.sum.map_or(at, |s| s.landmark);
        let term = increment.ln() + exponent(at, landmark, half_life);
        if !term.is_finite() {
            return; // only reachable with a half-life the pool's config refuses
        }
        self.sum = Some(match self.sum {
            Some(s) => LogSum {
                log_sum: log_add_exp(s.log_sum, term),
                landmark,
                latest: s.latest.max(at),
            },
            None => LogSum {
                log_sum: term,
                landmark,
                latest: at,
            },
        });
    }

    /// The heat at `at` seconds (at the latest increment, if `at` is earlier).
    pub(crate) fn value(&self, at: f64, half_life: f64) -> f64 {
        let Some(s) = self.sum else { return 0.0 };
        let at = if at.is_finite() {
            at.max(s.latest)
        } else {
            s.latest
        };
        let heat = (s.log_sum - exponent(at, s.landmark, half_life)).exp();
        if heat.is_finite() { heat } else { 0.0 }
    }

    /// Whether the log-domain sum (if any) is finite.
    #[cfg(fuzzing)]
    pub(crate) fn is_finite(&self) -> bool {
        self.sum
            .is_none_or(|s| s.log_sum.is_finite() && s.landmark.is_finite() && s.latest.is_finite())
    }

    /// Whether nothing was ever added.
    pub(crate) fn is_empty(&self) -> bool {
        self.sum.is_none()
    }

    /// The time of the latest increment (seconds), or −∞ before any.
    pub(crate) fn latest(&self) -> f64 {
        self.sum.map_or(f64::NEG_INFINITY, |s| s.latest)
    }

    /// The sum of two heats (forward-decay sums add), on the earlier landmark.
    /// Symmetric: `a.combine(b, h) == b.combine(a, h)`.
    pub(crate) fn combine(self, other: Heat, half_life: f64) -> Heat {
        let sum = match (self.sum, other.sum) {
            (Some(a), Some(b)) => {
                let landmark = a.landmark.min(b.landmark);
                let rebased = |s: LogSum| s.log_sum + exponent(s.landmark, landmark, half_life);
                let log_sum = log_add_exp(rebased(a), rebased(b));
                Some(LogSum {
                    log_sum,
                    landmark,
                    latest: a.latest.max(b.latest),
                })
            }
            (a, b) => a.or(b),
        };
        Heat { sum }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400.0;

    #[test]
    fn a_millisecond_half_life_stays_precise() {
        let mut h = Heat::default();
        h.add(1.0, 1.8e9, 1e-3);
        h.add(1.0, 1.8e9, 1e-3);
        assert!((h.value(1.8e9, 1e-3) - 2.0).abs() < 1e-9);
        // Instants as f64 seconds since 1970 carry ~2.4e-7 s of rounding,
        // a quarter of a thousandth of this half-life.
        assert!((h.value(1.8e9 + 1e-3, 1e-3) - 1.0).abs() < 1e-3);
    }

    #[test]
    fn halves_every_half_life() {
        let mut h = Heat::default();
        h.add(8.0, 1.8e9, DAY);
        assert!((h.value(1.8e9, DAY) - 8.0).abs() < 1e-9);
        assert!((h.value(1.8e9 + DAY, DAY) - 4.0).abs() < 1e-9);
        assert!((h.value(1.8e9 + 3.0 * DAY, DAY) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn order_does_not_matter_and_combining_adds() {
        let (mut a, mut b, mut c) = (Heat::default(), Heat::default(), Heat::default());
        a.add(1.0, 100.0, DAY);
        a.add(2.0, 50_000.0, DAY);
        b.add(2.0, 50_000.0, DAY);
        b.add(1.0, 100.0, DAY);
        assert!((a.value(90_000.0, DAY) - b.value(90_000.0, DAY)).abs() < 1e-12);
        c.add(5.0, 70_000.0, DAY);
        let ac = a.combine(c, DAY);
        assert_eq!(ac, c.combine(a, DAY));
        let naive = 1.0 * 0.5f64.powf((90_000.0 - 100.0) / DAY)
            + 2.0 * 0.5f64.powf((90_000.0 - 50_000.0) / DAY)
            + 5.0 * 0.5f64.powf((90_000.0 - 70_000.0) / DAY);
        assert!((ac.value(90_000.0, DAY) - naive).abs() < 1e-9);
    }

    #[test]
    fn years_of_time_stay_finite_and_a_clock_gone_back_reads_the_latest() {
        let mut h = Heat::default();
        for year in 0..200 {
            h.add(1.0, f64::from(year) * 365.0 * DAY, 1.0);
        }
        let v = h.value(199.0 * 365.0 * DAY, 1.0);
        assert!(v.is_finite() && (v - 1.0).abs() < 1e-9);
        assert_eq!(h.value(0.0, 1.0), v);
        assert_eq!(h.value(f64::NAN, 1.0), v);
    }
}
