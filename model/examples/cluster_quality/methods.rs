//! The groupings measured: the plain baseline (online leader clustering),
//! the pool's fine clusters, and the pool's needs.

use std::collections::HashMap;

use sdsi::evolution::{Pool, PoolConfig, PoolError};
use time::Duration;
use time::macros::datetime;

/// A grouping of the texts, one entry per text (`None`: nothing to embed).
pub type Grouping = Vec<Option<u64>>;

/// Plain online leader clustering: a text joins the cluster whose first
/// text (its leader) it is most similar to, if at least `threshold`, and
/// leads a new cluster otherwise. The baseline the need level must beat.
pub fn leader(vectors: &[Vec<f32>], order: &[usize], threshold: f32) -> Grouping {
    let dim = vectors.first().map_or(0, Vec::len);
    // Unit leaders, contiguous, scanned with an unrolled dot product.
    let mut leaders: Vec<f32> = Vec::new();
    let mut out = vec![None; vectors.len()];
    for &i in order {
        let Some(v) = vectors.get(i) else { continue };
        let norm = dot(v, v).sqrt();
        if norm == 0.0 || dim == 0 {
            continue;
        }
        let unit: Vec<f32> = v.iter().map(|x| x / norm).collect();
        let best = leaders
            .chunks_exact(dim)
            .map(|l| dot(l, &unit))
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let cluster = match best {
            Some((k, s)) if s >= threshold => k,
            _ => {
                leaders.extend_from_slice(&unit);
                leaders.len() / dim - 1
            }
        };
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(cluster as u64);
        }
    }
    out
}

/// `a · b` with eight accumulators, so that it vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let chunks = a.chunks_exact(8).zip(b.chunks_exact(8));
    for (x, y) in chunks {
        for ((s, p), q) in acc.iter_mut().zip(x).zip(y) {
            *s += p * q;
        }
    }
    let tail = a.len() - a.len() % 8;
    let rest: f32 = a
        .iter()
        .skip(tail)
        .zip(b.iter().skip(tail))
        .map(|(x, y)| x * y)
        .sum();
    acc.iter().sum::<f32>() + rest
}

/// The pool's fine clusters and needs for the texts, ingested in `order`
/// one a second from one client, with nothing evicted; each text's cluster
/// is the one it joined, followed through later merges, and its need that
/// cluster's need once every text is in.
pub fn pool(
    vectors: &[Vec<f32>],
    texts: &[String],
    order: &[usize],
    config: PoolConfig,
) -> Result<(Grouping, Grouping), String> {
    let mut config = config;
    config.max_clusters = 1_000_000;
    config.max_new_clusters_per_client = usize::MAX;
    let mut pool = Pool::new(config).map_err(|e| e.to_string())?;
    let start = datetime!(2026-11-22 0:00 UTC);
    // The texts in each live cluster, moved to the survivor on a merge (a
    // merged cluster's id may later be reused by a new cluster).
    let mut members: HashMap<u64, Vec<usize>> = HashMap::new();
    for (step, &i) in order.iter().enumerate() {
        let (Some(vector), Some(text)) = (vectors.get(i), texts.get(i)) else {
            continue;
        };
        let now = start + Duration::seconds(step as i64);
        let outcome = match pool.ingest(vector, text, false, "client", now) {
            Ok(outcome) => outcome,
            Err(PoolError::ZeroVector) => continue,
            Err(e) => return Err(e.to_string()),
        };
        if let Some(gone) = outcome.merged {
            let moved = members.remove(&gone).unwrap_or_default();
            members.entry(outcome.cluster).or_default().extend(moved);
        }
        members.entry(outcome.cluster).or_default().push(i);
    }
    let mut clusters: Grouping = vec![None; vectors.len()];
    for (id, texts) in &members {
        for &i in texts {
            if let Some(slot) = clusters.get_mut(i) {
                *slot = Some(*id);
            }
        }
    }
    let needs = clusters
        .iter()
        .map(|c| c.and_then(|id| pool.cluster(id)).map(|c| c.need()))
        .collect();
    Ok((clusters, needs))
}
