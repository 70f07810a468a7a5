//! Criterion benchmark of evolution's per-message path:
//! `EvolutionEngine::observe` (the lifecycle's metrics, intake, the hashing
//! embedder, the pool, its need level and its gate) for a message with one
//! `other` fragment, in an engine whose scenario pool holds about `size`
//! fine clusters.
//!
//! Benchmark ids are `observe/hashing/<size>`, for 100, 1,000 and 10,000
//! clusters. Each measured message repeats one of the texts the pool was
//! filled with, so it joins a cluster and the pool keeps its size; the
//! texts are taken in turn and the clock moves an hour per message, so
//! heat stays low and no gate opens while timing (that path, induction,
//! is `induce_rules` in `benches/evolution.rs`).
//!
//! Run with `cargo bench --bench observe`; the figures are in
//! `benches/README.md` ("Evolution ingest through `observe`").

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a bench may panic on a broken setup, which is a bug in the bench"
)]

use std::hint::black_box;
use std::time::Duration as StdDuration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sdsi::evolution::{Evolution, EvolutionEngine};
use sdsi::patch::LifecyclePolicy;
use sdsi::{SchemaStore, SchemaTemplate};
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const SIZES: [usize; 3] = [100, 1_000, 10_000];
const T0: OffsetDateTime = datetime!(2026-11-22 0:00 UTC);

/// `n` distinct fragments of three made-up seven-letter words each
/// (random letters from a fixed seed: they share few character n-grams,
/// so the hashing embedder keeps most fragments apart).
fn texts(n: usize) -> Vec<String> {
    let mut state = 0x5eed_u64;
    let mut letter = || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        char::from(b'a' + ((z ^ (z >> 31)) % 26) as u8)
    };
    (0..n)
        .map(|_| {
            let mut text = String::new();
            for word in 0..3 {
                if word > 0 {
                    text.push(' ');
                }
                text.extend((0..7).map(|_| letter()));
            }
            text
        })
        .collect()
}

fn message(other: &str) -> Value {
    json!({"schema_id": "trip_v1", "payload": {"city": "Lyon", "other": other}})
}

fn store() -> SchemaStore {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "trip_v1", "scenario": "trip",
        "keys": [
            {"key_name": "city", "key_type": "string", "required": false,
             "semantic_description": "The city"},
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Anything else"}]}))
    .unwrap();
    SchemaStore::new(template, LifecyclePolicy::default()).unwrap()
}

/// An engine whose scenario pool was fed `texts`, one message each, from
/// 64 clients in turn (each may found 1,000 clusters a window).
fn filled(texts: &[String]) -> (Evolution, SchemaStore) {
    let (mut engine, mut store) = (Evolution::default(), store());
    for (i, text) in texts.iter().enumerate() {
        let client = format!("agent-{:02}", i % 64);
        let at = T0 + Duration::seconds(i as i64);
        engine.observe(&mut store, &message(text), &client, at);
    }
    (engine, store)
}

fn clusters(engine: &Evolution) -> usize {
    engine.pools().map(|(_, pool)| pool.len()).sum()
}

fn observe(c: &mut Criterion) {
    let mut group = c.benchmark_group("observe");
    group
        .sample_size(30)
        .measurement_time(StdDuration::from_secs(3))
        .warm_up_time(StdDuration::from_millis(500))
        .throughput(Throughput::Elements(1));
    for size in SIZES {
        let texts = texts(size);
        let (mut engine, mut store) = filled(&texts);
        let before = clusters(&engine);
        // Made-up words share letters, so a few fragments join another's
        // cluster; the bench reports how many clusters the pool holds.
        assert!(before * 4 >= size * 3, "{before} clusters for {size} texts");
        eprintln!("observe/hashing/{size}: {before} fine clusters");
        let messages: Vec<Value> = texts.iter().map(|t| message(t)).collect();
        let clients: Vec<String> = (0..37).map(|i| format!("agent-{i:02}")).collect();
        let mut i = 0usize;
        group.bench_function(BenchmarkId::new("hashing", size), |b| {
            b.iter(|| {
                i += 1;
                let at = T0 + Duration::hours(1 + i as i64);
                black_box(engine.observe(
                    &mut store,
                    black_box(&messages[i % messages.len()]),
                    &clients[i % clients.len()],
                    at,
                ))
            });
        });
        assert_eq!(
            clusters(&engine),
            before,
            "a measured message changed the pool's size"
        );
    }
    group.finish();
}

criterion_group!(benches, observe);
criterion_main!(benches);
