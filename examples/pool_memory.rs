//! Heap bytes a pool holds per fine cluster: builds pools of 10,000
//! clusters of 384-d vectors (each founded by one fragment and joined by a
//! second, as `benches/evolution.rs` does) and counts the live heap with a
//! counting allocator. Two shapes: every cluster a need of its own
//! (random directions), and 1,000 needs of ten clusters each.
//!
//! ```text
//! cargo run --release --example pool_memory
//! ```

use std::alloc::System;

use sdsi::evolution::{Pool, PoolConfig};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use time::Duration;
use time::macros::datetime;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const DIM: usize = 384;

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> Vec<f32> {
        let mut v: Vec<f32> = (0..DIM)
            .map(|_| {
                self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = self.0;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        v
    }
}

/// Builds a pool of `needs` × `per_need` clusters; returns it.
fn build(needs: usize, per_need: usize, config: PoolConfig) -> Option<Pool> {
    let mut rng = Rng(42);
    let mut pool = Pool::new(config).ok()?;
    let t0 = datetime!(2026-11-22 0:00 UTC);
    let mut i = 0i64;
    for _ in 0..needs {
        let centre = rng.unit();
        for _ in 0..per_need {
            let off = rng.unit();
            let spread = if per_need > 1 { 0.8 } else { 0.0 };
            let mut v: Vec<f32> = centre
                .iter()
                .zip(&off)
                .map(|(c, o)| c + spread * o)
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            let now = t0 + Duration::seconds(i);
            let client = format!("agent-{}", i % 37);
            pool.ingest(&v, &format!("fragment number {i}"), false, &client, now)
                .ok()?;
            let w: Vec<f32> = v
                .iter()
                .zip(rng.unit())
                .map(|(a, b)| a + 0.01 * b)
                .collect();
            pool.ingest(
                &w,
                &format!("fragment number {i}, again"),
                false,
                &client,
                now,
            )
            .ok()?;
            i += 1;
        }
    }
    Some(pool)
}

fn main() {
    // At 8,192 clusters the pool's vectors are full; at 10,000 they hold
    // the slack of their last doubling (capacity 16,384), which is most of
    // the difference between the two sizes.
    let shapes: [(&str, usize, usize, f32, f32); 4] = [
        ("8,192 clusters, each its own need", 8_192, 1, 0.5, 0.41),
        ("8,192 clusters in 1,024 needs of 8", 1_024, 8, 0.75, 0.5),
        ("10,000 clusters, each its own need", 10_000, 1, 0.5, 0.41),
        ("10,000 clusters in 1,000 needs of 10", 1_000, 10, 0.75, 0.5),
    ];
    for (name, needs, per_need, fine, need) in shapes {
        let mut config = PoolConfig::new(DIM, fine);
        config.need_threshold = need;
        config.max_clusters = 20_000;
        let region = Region::new(GLOBAL);
        let Some(pool) = build(needs, per_need, config) else {
            eprintln!("pool_memory: the pool refused an input");
            return;
        };
        let change = region.change();
        let bytes = change.bytes_allocated as i64 - change.bytes_deallocated as i64
            + change.bytes_reallocated as i64;
        println!(
            "{name}: {} clusters, {} needs, {} bytes live, {:.0} bytes per cluster",
            pool.len(),
            pool.need_count(),
            bytes,
            bytes as f64 / pool.len() as f64
        );
    }
}
