//! The pool's centre: the mean of all its fragments' unit vectors, which the
//! need level measures similarity from.
//!
//! Every request of one domain shares a direction (in a banking pool, all
//! speak of cards, accounts and money). Two needs that are both close to
//! that common direction look alike for it alone; two that share what sets
//! them apart from it are alike for a reason. So needs are linked by the
//! mean similarity of their fragments *less the pool's mean*, scaled to the
//! variance left, `(μ_A − m) · (μ_B − m) / (1 − |m|²)`, with each need's
//! mean `μ` its running sum over its count: still exact from the sums. The
//! need threshold is carried over the same way, `(t − |m|²) / (1 − |m|²)`,
//! so two needs link when their plain mean similarity reaches
//! `t + (m · μ_A − |m|²) + (m · μ_B − |m|²)`: a need whose mean leans along
//! the centre further than the centre's own length pays the difference, one
//! that leans less gains it. Needs made of the domain's common words must be
//! closer to link, needs made of distinctive words link sooner
//! (docs/evolution.md, "The centred need linkage").
//!
//! Measured with the background (same needs, same order), so a restored
//! pool and both sides of a replica merge centre alike; a snapshot's centre
//! is checked on restore ([`Centre::restored`]) and dropped if it could not
//! have been measured.

use serde::{Deserialize, Serialize};

use crate::evolution::embed::vectors::dot;

/// Below this share of variance left (`1 − |m|²`) the pool's fragments all
/// point one way; centring would divide by almost nothing, so it is off.
const MIN_SPREAD: f32 = 1e-3;

/// The mean of the pool's fragment vectors, or nothing (a fixed pool, a
/// pool too young to measure, a snapshot from before centring).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(in crate::evolution) struct Centre {
    /// The mean vector; empty when not measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    mean: Vec<f32>,
    /// `|mean|²`, computed from `mean` (never read from a snapshot).
    #[serde(skip)]
    square: f32,
}

impl Centre {
    /// The centre of `total`, a sum of `count` unit vectors, as far as
    /// `background` (the mean cosine between fragments of different needs)
    /// says it is the domain's: `|m|²` is the mean cosine over all pairs,
    /// the background plus what the needs' own pairs add, so a pool where
    /// one need dominates has a centre close to that need. Shortened to
    /// `|m|² = background`, the centre is what the needs have in common,
    /// and a need far from a dominant one is not linked for that alone.
    /// Nothing when the vectors all point one way, the background is not
    /// positive, or any figure is not finite.
    pub(in crate::evolution) fn of(total: &[f64], count: u64, background: f32) -> Centre {
        if count == 0 || !(background.is_finite() && background > 0.0) {
            return Centre::default();
        }
        let n = count as f64;
        let mut mean: Vec<f32> = total.iter().map(|t| (t / n) as f32).collect();
        let mut square = dot(&mean, &mean);
        if square > background {
            let shrink = (background / square).sqrt();
            mean.iter_mut().for_each(|x| *x *= shrink);
            square = dot(&mean, &mean);
        }
        if !(square.is_finite() && mean.iter().all(|x| x.is_finite())) || 1.0 - square < MIN_SPREAD
        {
            return Centre::default();
        }
        Centre { mean, square }
    }

    /// The centre a snapshot holds, if it could have been measured for a
    /// pool of `dimension` whose background is `background` (`None` for a
    /// fixed pool, or one not yet measured): of that length, finite, no
    /// longer than the background allows, leaving variance to divide by.
    /// Anything else (a damaged or crafted snapshot) is dropped, and the
    /// need level links by the plain mean similarity until the next measure.
    pub(in crate::evolution) fn restored(
        self,
        dimension: usize,
        background: Option<f32>,
    ) -> Centre {
        let Some(background) = background.filter(|b| b.is_finite() && *b > 0.0) else {
            return Centre::default();
        };
        if self.mean.len() != dimension || self.mean.iter().any(|x| !x.is_finite()) {
            return Centre::default();
        }
        let square = dot(&self.mean, &self.mean);
        // The shortening leaves `|m|²` at the background up to rounding.
        let longest = background * (1.0 + 1e-3) + 1e-6;
        if !square.is_finite() || square > longest || 1.0 - square < MIN_SPREAD {
            return Centre::default();
        }
        Centre {
            mean: self.mean,
            square,
        }
    }

    /// Whether centring is on.
    fn active(&self) -> bool {
        !self.mean.is_empty()
    }

    /// The mean similarity of two groups of unit vectors (sums `a` of `na`
    /// and `b` of `nb`), centred; the plain mean similarity when off.
    pub(in crate::evolution) fn link(&self, a: &[f32], na: u64, b: &[f32], nb: u64) -> f32 {
        let cross = f64::from(dot(a, b));
        self.link_from(cross, self.along(a), self.along(b), na, nb)
    }

    /// `m · v`; 0 when off.
    pub(in crate::evolution) fn along(&self, v: &[f32]) -> f64 {
        if self.active() {
            f64::from(dot(&self.mean, v))
        } else {
            0.0
        }
    }

    /// [`Centre::link`] from the dot products it needs: `cross = S_A · S_B`
    /// and `along_a = m · S_A`, `along_b = m · S_B` (from [`Centre::along`]),
    /// for a caller that has them without the sums (the rest of a need).
    pub(in crate::evolution) fn link_from(
        &self,
        cross: f64,
        along_a: f64,
        along_b: f64,
        na: u64,
        nb: u64,
    ) -> f32 {
        let (na, nb) = (na.max(1) as f64, nb.max(1) as f64);
        let plain = cross / (na * nb);
        if !self.active() {
            return plain as f32;
        }
        let square = f64::from(self.square);
        ((plain - along_a / na - along_b / nb + square) / (1.0 - square)) as f32
    }

    /// A threshold on the plain scale, carried to the centred one.
    pub(in crate::evolution) fn threshold(&self, plain: f32) -> f32 {
        if !self.active() {
            return plain;
        }
        (plain - self.square) / (1.0 - self.square)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_it_is_the_plain_mean_similarity() {
        let off = Centre::default();
        assert_eq!(off.link(&[1.0, 1.0], 2, &[1.0, 1.0], 2), 0.5);
        assert_eq!(off.threshold(0.4), 0.4);
    }

    #[test]
    fn needs_along_the_centre_need_more_to_link_than_distinctive_ones() {
        // Fragments mostly along x: the centre is (0.8, 0.3, 0.3).
        let centre = Centre::of(&[8.0, 3.0, 3.0], 10, 0.9);
        // Two needs along the common direction and two that share a
        // distinctive one, with the same plain similarity (0.8).
        let common = centre.link(&[1.0, 0.0, 0.0], 1, &[0.8, 0.6, 0.0], 1);
        let distinctive = centre.link(&[0.0, 0.6, 0.8], 1, &[0.0, 0.0, 1.0], 1);
        assert!(distinctive > common, "{distinctive} vs {common}");
        // At a plain threshold of 0.9 the distinctive pair links and the
        // common one does not: each pair pays (or gains) how far its needs
        // lean along the centre beyond its squared length, 0.82 (the
        // common pair gains 0.02, the distinctive one 0.92).
        let t = centre.threshold(0.9);
        assert!(distinctive >= t && common < t, "{distinctive} {common} {t}");
    }

    #[test]
    fn the_carried_threshold_is_the_plain_one_plus_each_need_s_lean() {
        let centre = Centre::of(&[6.0, 3.0, 1.0, 2.0], 10, 0.2);
        let (a, b) = ([0.9f32, 0.1, 0.3, 0.2], [0.2f32, 0.8, 0.1, 0.4]);
        let m = &centre.mean;
        let lean = |v: &[f32]| dot(m, v) - centre.square;
        let plain = dot(&a, &b);
        let mut outcomes = [false, false];
        for step in 0..40u8 {
            let t = f32::from(step) * 0.025;
            let bar = t + lean(&a) + lean(&b);
            let links = centre.link(&a, 1, &b, 1) >= centre.threshold(t);
            if (plain - bar).abs() > 1e-4 {
                assert_eq!(links, plain >= bar, "t {t}: plain {plain}, bar {bar}");
                outcomes[usize::from(links)] = true;
            }
        }
        assert_eq!(outcomes, [true, true], "both sides of the bar were checked");
    }

    #[test]
    fn the_rest_of_a_need_links_as_its_sum_would() {
        let centre = Centre::of(&[6.0, 3.0, 1.0], 10, 0.2);
        let (part, whole) = ([0.9f32, 0.2, 0.1], [2.0f32, 1.4, 0.9]);
        let rest: Vec<f32> = whole.iter().zip(&part).map(|(w, p)| w - p).collect();
        let cross = f64::from(dot(&part, &whole)) - f64::from(dot(&part, &part));
        let along = centre.along(&part);
        let from_dots = centre.link_from(cross, along, centre.along(&whole) - along, 1, 2);
        assert!((from_dots - centre.link(&part, 1, &rest, 2)).abs() < 1e-6);
    }

    #[test]
    fn a_snapshot_s_centre_is_kept_only_if_it_could_have_been_measured() {
        let measured = Centre::of(&[6.0, 3.0, 1.0], 10, 0.2);
        assert_eq!(measured.clone().restored(3, Some(0.2)), measured);
        let with = |mean: Vec<f32>| Centre { mean, square: 0.0 };
        let dropped = [
            with(vec![0.1, 0.1]).restored(3, Some(0.2)),
            with(vec![0.1, f32::INFINITY, 0.0]).restored(3, Some(0.2)),
            with(vec![0.9, 0.1, 0.0]).restored(3, Some(0.2)),
            with(vec![0.1, 0.1, 0.1]).restored(3, None),
            with(vec![0.1, 0.1, 0.1]).restored(3, Some(f32::NAN)),
        ];
        for centre in dropped {
            assert_eq!(centre, Centre::default());
        }
        // `square` always comes from `mean`.
        let kept = with(vec![0.3, 0.0, 0.0]).restored(3, Some(0.2));
        assert!((kept.square - 0.09).abs() < 1e-6);
    }

    #[test]
    fn vectors_all_one_way_turn_it_off() {
        let centre = Centre::of(&[5.0, 0.0], 5, 1.0);
        assert_eq!(centre, Centre::default());
        assert_eq!(Centre::of(&[1.0], 0, 0.5), Centre::default());
        assert_eq!(Centre::of(&[f64::NAN, 0.0], 3, 0.5), Centre::default());
        assert_eq!(Centre::of(&[3.0, 1.0], 5, 0.0), Centre::default());
    }

    #[test]
    fn a_dominant_need_does_not_make_the_centre() {
        // 90 fragments of one need along x, 10 of another along y: the
        // mean is (0.9, 0.1), |m|² 0.82, though the needs share nothing.
        let centre = Centre::of(&[90.0, 10.0], 100, 0.05);
        assert!((centre.square - 0.05).abs() < 1e-6, "{}", centre.square);
        // So the small need is not linked to the big one for being far
        // from it: their centred link stays below the carried threshold.
        let (big, small) = ([90.0f32, 0.0], [0.0f32, 10.0]);
        assert!(centre.link(&big, 90, &small, 10) < centre.threshold(0.2));
    }
}
