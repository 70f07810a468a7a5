//! The vector math of the pool: dot products, unit vectors, and the mean
//! similarity of groups of unit vectors kept as running sums. Every score
//! the pool computes (joining, merging, grouping into needs, replica pairs)
//! goes through here, so one kernel carries the hot loop.

use crate::evolution::pool::error::PoolError;

/// `a · b` with eight independent accumulators, so the compiler can vectorise it.
#[inline]
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (a8, a_rest) = a.split_at(a.len() - a.len() % 8);
    let (b8, b_rest) = b.split_at(b.len().min(a8.len()));
    for (x, y) in a8.chunks_exact(8).zip(b8.chunks_exact(8)) {
        for i in 0..8 {
            // chunks_exact(8) guarantees both have 8 elements.
            if let (Some(p), Some(q), Some(s)) = (x.get(i), y.get(i), acc.get_mut(i)) {
                *s += p * q;
            }
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// Writes `v / |v|` into `out`, or fails for zero, NaN or infinite input.
/// Scales by the largest component only when the squared norm would over-
/// or underflow (`[1e20]`, `[1e-30]`), so the usual case is one pass.
fn unit_into(v: &[f32], out: &mut [f32]) -> Result<(), PoolError> {
    if v.iter().any(|x| !x.is_finite()) {
        return Err(PoolError::NonFinite);
    }
    let squared = dot(v, v);
    if squared.is_normal() {
        let norm = squared.sqrt();
        out.iter_mut().zip(v).for_each(|(o, x)| *o = x / norm);
        return Ok(());
    }
    let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if largest <= 0.0 {
        return Err(PoolError::ZeroVector);
    }
    let norm = v
        .iter()
        .map(|x| (x / largest) * (x / largest))
        .sum::<f32>()
        .sqrt();
    if !(norm.is_finite() && norm > 0.0) {
        return Err(PoolError::ZeroVector);
    }
    out.iter_mut()
        .zip(v)
        .for_each(|(o, x)| *o = x / largest / norm);
    Ok(())
}

/// `v / |v|` as a new vector.
pub(in crate::evolution) fn normalized(v: &[f32]) -> Result<Vec<f32>, PoolError> {
    let mut out = vec![0.0; v.len()];
    unit_into(v, &mut out)?;
    Ok(out)
}

/// Whether `a + b` still points somewhere, from dot products alone.
pub(in crate::evolution) fn sum_has_direction(a: &[f32], b: &[f32]) -> bool {
    let squared = dot(a, a) + 2.0 * dot(a, b) + dot(b, b);
    squared.is_finite() && squared > f32::EPSILON * (dot(a, a) + dot(b, b))
}

/// Mean similarity between two groups of unit vectors given their sums and
/// counts: `S_A · S_B / (n_A n_B)` (each count at least 1).
pub(crate) fn link(a: &[f32], na: u64, b: &[f32], nb: u64) -> f32 {
    let denominator = (na.max(1) as f64) * (nb.max(1) as f64);
    (f64::from(dot(a, b)) / denominator) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_is_the_mean_pairwise_cosine() {
        // Two groups of two unit vectors each: pairs (1,0)·(1,0)=1,
        // (1,0)·(0,1)=0, (0,1)·(1,0)=0, (0,1)·(0,1)=1 → mean 0.5.
        assert_eq!(link(&[1.0, 1.0], 2, &[1.0, 1.0], 2), 0.5);
        assert_eq!(link(&[2.0, 0.0], 2, &[0.0, 3.0], 3), 0.0);
    }
}
