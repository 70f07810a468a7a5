//! How a pool scores a fragment against a cluster, and two clusters against
//! each other.

use serde::{Deserialize, Serialize};

use crate::evolution::embed::vectors::dot;

/// What "similar to a cluster" means.
///
/// Both keep, per cluster, the running sum `S` of its members' unit vectors
/// and their number `n`, and store one vector per cluster that a fragment is
/// scored against with a single dot product, so ingest stays one linear scan
/// either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Linkage {
    /// The fragment's mean cosine similarity to the cluster's members,
    /// `v · S / n`; two clusters merge when their members are, on average, as
    /// similar to each other as the threshold asks (`S_A · S_B / (n_A n_B)`).
    /// A cluster takes a fragment only if it is as close to the members as
    /// they are, on average, so a broad topic cluster does not keep growing
    /// by taking every fragment that shares one of its words. The default.
    #[default]
    Average,
    /// The cosine to the cluster's normalised centroid, `v · S / |S|`. A large,
    /// loose cluster is easier to join than a small one (its centroid is
    /// shorter before normalising), which makes clusters grow around common
    /// topic words; kept for pools snapshotted before average linkage, which
    /// restore with it.
    Centroid,
}

impl Linkage {
    /// The linkage of a snapshot that names none: it was written when
    /// centroid linkage was the only one.
    pub(crate) fn legacy() -> Self {
        Linkage::Centroid
    }

    /// Writes the vector a fragment is scored against, for a cluster with
    /// running sum `sum` of `members` unit vectors, into `out`. Returns
    /// `false` (and leaves `out` as it was) if the sum has no direction.
    pub(crate) fn direction(self, sum: &[f32], members: u64, out: &mut [f32]) -> bool {
        // The vectorised f32 kernel first (this runs on every ingest); f64
        // only when the squared length over- or underflows f32.
        let squared = dot(sum, sum);
        let norm = if squared.is_normal() {
            f64::from(squared).sqrt()
        } else {
            sum.iter()
                .map(|x| f64::from(*x) * f64::from(*x))
                .sum::<f64>()
                .sqrt()
        };
        if !(norm.is_finite() && norm > 0.0) {
            return false;
        }
        let divisor = match self {
            Linkage::Centroid => norm,
            // A sum of n unit vectors is at most n long; a count that says
            // otherwise (a snapshot without counts, or a corrupt one) is
            // raised to the length, so the mean never exceeds unit length.
            Linkage::Average => norm.max(members as f64).max(1.0),
        };
        let scale = 1.0 / divisor;
        if scale.is_normal() && (scale as f32).is_normal() {
            let scale = scale as f32;
            out.iter_mut().zip(sum).for_each(|(o, s)| *o = s * scale);
        } else {
            for (o, s) in out.iter_mut().zip(sum) {
                *o = (f64::from(*s) / divisor) as f32;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_is_the_mean_and_centroid_the_unit_direction() {
        // Two members at right angles: mean (0.5, 0.5), unit (0.707, 0.707).
        let sum = [1.0, 1.0];
        let mut out = [0.0; 2];
        assert!(Linkage::Average.direction(&sum, 2, &mut out));
        assert_eq!(out, [0.5, 0.5]);
        assert!(Linkage::Centroid.direction(&sum, 2, &mut out));
        assert!((out[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
    }

    #[test]
    fn a_count_too_small_for_the_sum_is_raised_and_zero_is_refused() {
        let mut out = [9.0; 2];
        assert!(Linkage::Average.direction(&[3.0, 4.0], 0, &mut out));
        assert_eq!(out, [0.6, 0.8]);
        let mut out = [9.0; 2];
        assert!(!Linkage::Average.direction(&[0.0, 0.0], 4, &mut out));
        assert_eq!(out, [9.0, 9.0]);
    }
}
