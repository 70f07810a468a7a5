//! Heat with exponential decay, kept as forward decay in the log domain.
//!
//! Heat at time `t` is `Σ incᵢ · 2^(-(t - tᵢ)/h)`. Rewritten against a fixed
//! landmark (the Unix epoch), it is `2^(-t/h) · Σ incᵢ · 2^(tᵢ/h)`; the sum no
//! longer depends on `t`, so an update is one `log-add-exp` (O(1), no sweep),
//! the order of updates does not matter, two heats add by adding their sums
//! (how replicas merge), and keeping the sum's logarithm keeps years of
//! simulated time finite.

use serde::{Deserialize, Serialize};

/// Seconds since the Unix epoch, as a float (the crate's instants are `OffsetDateTime`).
pub(crate) fn seconds(at: time::OffsetDateTime) -> f64 {
    at.unix_timestamp() as f64 + f64::from(at.nanosecond()) / 1e9
}

/// A decaying heat score.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Heat {
    /// `(ln Σ incᵢ · 2^(tᵢ/h), latest tᵢ)`; `None` before the first increment.
    /// Heat is not defined before the latest increment, so an earlier `now`
    /// (a clock gone back) reads the heat at that instant.
    sum: Option<(f64, f64)>,
}

/// `ln(eᵃ + eᵇ)` without overflow; symmetric in its arguments, bit for bit.
fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

impl Heat {
    /// Adds `increment` (> 0) at `at` seconds, with half-life `half_life` seconds (> 0).
    pub(crate) fn add(&mut self, increment: f64, at: f64, half_life: f64) {
        if !(increment > 0.0 && increment.is_finite() && at.is_finite()) {
            return;
        }
        let term = increment.ln() + at / half_life * std::f64::consts::LN_2;
        self.sum = Some(match self.sum {
            Some((sum, latest)) => (log_add_exp(sum, term), latest.max(at)),
            None => (term, at),
        });
    }

    /// The heat at `at` seconds (at the latest increment, if `at` is earlier).
    pub(crate) fn value(&self, at: f64, half_life: f64) -> f64 {
        let Some((sum, latest)) = self.sum else {
            return 0.0;
        };
        let at = if at.is_finite() {
            at.max(latest)
        } else {
            latest
        };
        let heat = (sum - at / half_life * std::f64::consts::LN_2).exp();
        if heat.is_finite() { heat } else { 0.0 }
    }

    /// The time of the latest increment (seconds), or −∞ before any.
    pub(crate) fn latest(&self) -> f64 {
        self.sum.map_or(f64::NEG_INFINITY, |(_, latest)| latest)
    }

    /// The sum of two heats (forward-decay sums add).
    pub(crate) fn combine(self, other: Heat) -> Heat {
        let sum = match (self.sum, other.sum) {
            (Some((a, la)), Some((b, lb))) => Some((log_add_exp(a, b), la.max(lb))),
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
        let ac = a.combine(c);
        assert_eq!(ac, c.combine(a));
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
        // With a one-second half-life, 6e9 s from the landmark costs ~1e-6 of precision.
        assert!(v.is_finite() && (v - 1.0).abs() < 1e-5);
        assert_eq!(h.value(0.0, 1.0), v);
        assert_eq!(h.value(f64::NAN, 1.0), v);
    }
}
