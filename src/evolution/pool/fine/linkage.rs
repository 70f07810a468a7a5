//! How a pool scores a fragment against a fine cluster: by its mean cosine
//! similarity to the cluster's members (average linkage).
//!
//! Each cluster keeps the running sum `S` of its members' unit vectors and
//! their number `n`; the pool stores `S / n` per cluster, so a fragment `v`
//! is scored with one dot product (`v · S / n`) and ingest stays one linear
//! scan. Two clusters merge when their members are, on average, as similar
//! to each other as the threshold asks (`S_A · S_B / (n_A n_B)`). A cluster
//! takes a fragment only if it is as close to the members as they are, on
//! average, so a broad topic cluster does not keep growing by taking every
//! fragment that shares one of its words.

use crate::evolution::embed::vectors::dot;

/// Writes the vector a fragment is scored against, the members' mean, for
/// a cluster with running sum `sum` of `members` unit vectors, into `out`.
/// Returns `false` (and leaves `out` as it was) if the sum has no direction.
pub(in crate::evolution) fn mean_direction(sum: &[f32], members: u64, out: &mut [f32]) -> bool {
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
    // A sum of n unit vectors is at most n long; a count that says
    // otherwise (a corrupt snapshot) is raised to the length, so the mean
    // never exceeds unit length.
    let divisor = norm.max(members as f64).max(1.0);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_direction_is_the_members_mean() {
        // Two members at right angles: mean (0.5, 0.5).
        let mut out = [0.0; 2];
        assert!(mean_direction(&[1.0, 1.0], 2, &mut out));
        assert_eq!(out, [0.5, 0.5]);
    }

    #[test]
    fn a_count_too_small_for_the_sum_is_raised_and_zero_is_refused() {
        let mut out = [9.0; 2];
        assert!(mean_direction(&[3.0, 4.0], 0, &mut out));
        assert_eq!(out, [0.6, 0.8]);
        let mut out = [9.0; 2];
        assert!(!mean_direction(&[0.0, 0.0], 4, &mut out));
        assert_eq!(out, [9.0, 9.0]);
    }
}
