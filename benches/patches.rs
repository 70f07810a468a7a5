//! Patch and lifecycle costs: compiling an effective schema from a base plus
//! 10 global patches and a 5-patch client stack, and recording one payload's
//! metrics; then a store's per-request costs (compile, digest, suggestion,
//! record, submit) at 10^3-10^5 clients of 10 personal patches each, and
//! after 10^4 expired patches, which should not grow with either.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a bench may panic on a broken fixture"
)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sdsi::patch::{
    DenySensitive, EffectiveSchema, GuardScope, Lifecycle, LifecyclePolicy, PatchScope, SchemaPatch,
};
use sdsi::{CompiledSchema, KeyDefinition, KeyName, KeyType, SchemaStore, SchemaTemplate};
use serde_json::{Value, json};
use time::Duration;
use time::macros::datetime;

fn base() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "Departure IATA code."},
            {"key_name": "destination", "key_type": "string", "required": true, "semantic_description": "Arrival IATA code."},
            {"key_name": "departure_date", "key_type": "string", "required": true, "semantic_description": "YYYY-MM-DD."},
            {"key_name": "cabin_class", "key_type": "string", "required": false, "default_value": "economy",
             "semantic_description": "economy, premium_economy, business, first."},
            {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1,
             "semantic_description": "Number of passengers, 1-9."},
            {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Anything else."}
        ]
    }))
    .unwrap()
}

/// 10 global patches (one new key each, every third also refining a base
/// description) and 5 patches scoped to client `agent-7`.
fn patches() -> Vec<SchemaPatch> {
    let t0 = datetime!(2026-05-01 0:00 UTC);
    let mut out = Vec::new();
    for i in 0..15 {
        let at = t0 + Duration::hours(i);
        let mut p = SchemaPatch::new(
            format!("p{i}"),
            "flight_booking_v1",
            at,
            at + Duration::days(60),
        );
        let ty = [KeyType::String, KeyType::Boolean, KeyType::Integer][i as usize % 3];
        p.new_keys.push(KeyDefinition::new(
            KeyName::new(&format!("extra_key_{i}")).unwrap(),
            ty,
            false,
            format!("Key {i} induced from recurring requests. Example: 'fragment {i}' -> value."),
        ));
        if i % 3 == 0 {
            p.modified_keys.push(KeyDefinition::new(
                KeyName::new("origin").unwrap(),
                KeyType::String,
                true,
                format!("Departure IATA code (refinement {i})."),
            ));
        }
        if i >= 10 {
            p.scope = PatchScope::Client("agent-7".into());
        }
        out.push(p);
    }
    out
}

fn bench(c: &mut Criterion) {
    let base = base();
    let patches = patches();
    let now = datetime!(2026-05-10 0:00 UTC);
    let mut group = c.benchmark_group("patches");
    group.bench_function("compile/base_only", |b| {
        b.iter(|| CompiledSchema::new(black_box(&base)).unwrap())
    });
    group.bench_function("compile/base+10_global+5_client", |b| {
        b.iter(|| {
            EffectiveSchema::new(black_box(&base))
                .patches(black_box(&patches))
                .client("agent-7")
                .compile(now)
                .unwrap()
        })
    });
    let effective = EffectiveSchema::new(&base)
        .patches(&patches)
        .client("agent-7")
        .compile(now)
        .unwrap();
    assert_eq!(effective.template().keys.len(), 6 + 15);

    let mut lifecycle = Lifecycle::new(LifecyclePolicy::default());
    for p in &patches {
        lifecycle.track(p, p.timestamp);
    }
    let message: Value = json!({"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
        "cabin_class": "business", "extra_key_1": true, "extra_key_3": "aisle", "extra_key_11": true,
        "other": "window seat"});
    let payload = message.as_object().unwrap().clone();
    group.bench_function("record_payload/8_keys_3_tracked", |b| {
        b.iter(|| lifecycle.record_payload(black_box(&payload), "agent-7", now))
    });
    group.bench_function("evaluate/15_keys", |b| {
        b.iter_batched(
            || lifecycle.clone(),
            |mut l| l.evaluate(now + Duration::days(8)),
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// A store with `clients` clients of 10 personal patches each (one new key
/// per patch), on top of 10 global keys, every key on trial.
fn store_with_clients(clients: usize, start: time::OffsetDateTime) -> SchemaStore {
    let mut policy = LifecyclePolicy::default();
    policy.guard = GuardScope::PerScope;
    let mut store = SchemaStore::new(base(), policy).unwrap();
    for g in 0..10 {
        let mut p = SchemaPatch::new(
            format!("g{g}"),
            "flight_booking_v1",
            start,
            start + Duration::days(60),
        );
        p.new_keys
            .push(extra(&format!("global_key_{g}"), "a global trial key"));
        store.submit(p, start, &DenySensitive).unwrap();
    }
    for c in 0..clients {
        for k in 0..10 {
            let mut p = SchemaPatch::new(
                format!("c{c}-{k}"),
                "flight_booking_v1",
                start,
                start + Duration::days(60),
            );
            p.scope = PatchScope::Client(format!("client-{c}"));
            p.new_keys
                .push(extra(&format!("personal_key_{k}"), "a personal trial key"));
            store.submit(p, start, &DenySensitive).unwrap();
        }
    }
    store
}

/// A store that lived through `expired` one-day global patches, one a day,
/// each offer ended and its key gone, then 10 live global keys.
fn store_with_history(
    expired: usize,
    start: time::OffsetDateTime,
) -> (SchemaStore, time::OffsetDateTime) {
    let mut store = SchemaStore::new(base(), LifecyclePolicy::default()).unwrap();
    let mut now = start;
    for i in 0..expired {
        let mut p = SchemaPatch::new(
            format!("old{i}"),
            "flight_booking_v1",
            now,
            now + Duration::days(1),
        );
        p.new_keys
            .push(extra(&format!("old_key_{i}"), "a key whose offer ended"));
        store.submit(p, now, &DenySensitive).unwrap();
        now += Duration::days(1);
        store.evaluate(now, &DenySensitive);
    }
    now += Duration::days(60);
    store.evaluate(now, &DenySensitive);
    for g in 0..10 {
        let mut p = SchemaPatch::new(
            format!("g{g}"),
            "flight_booking_v1",
            now,
            now + Duration::days(60),
        );
        p.new_keys
            .push(extra(&format!("global_key_{g}"), "a global trial key"));
        store.submit(p, now, &DenySensitive).unwrap();
    }
    (store, now)
}

fn extra(name: &str, description: &str) -> KeyDefinition {
    KeyDefinition::new(
        KeyName::new(name).unwrap(),
        KeyType::Boolean,
        false,
        description,
    )
}

/// Per-request costs of a store as its population and history grow: each
/// should stay flat. `SDSI_BENCH_STORE_SIZES` (comma-separated client
/// counts) overrides the default `1000,10000,100000`.
fn bench_store(c: &mut Criterion) {
    let start = datetime!(2026-05-01 0:00 UTC);
    let sizes: Vec<usize> = std::env::var("SDSI_BENCH_STORE_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let mut group = c.benchmark_group("store");
    let message = json!({"schema_id": "flight_booking_v1", "payload": {"origin": "PEK", "destination": "SHA",
        "departure_date": "2026-05-04", "personal_key_3": true, "global_key_1": false}});
    let mut stores: Vec<(String, SchemaStore, time::OffsetDateTime)> = sizes
        .iter()
        .map(|&n| {
            (
                format!("clients_{n}x10"),
                store_with_clients(n, start),
                start + Duration::days(1),
            )
        })
        .collect();
    let (history, at) = store_with_history(10_000, start);
    stores.push(("expired_10000".to_owned(), history, at + Duration::hours(1)));
    for (label, store, now) in &mut stores {
        let now = *now;
        group.bench_function(format!("compile_for/{label}"), |b| {
            b.iter(|| store.compile_for(Some("client-7"), black_box(now)).unwrap())
        });
        group.bench_function(format!("digest_for/{label}"), |b| {
            b.iter(|| store.digest_for(Some("client-7"), black_box(now)).unwrap())
        });
        group.bench_function(format!("suggestion_for/{label}"), |b| {
            b.iter(|| store.suggestion_for("client-7", black_box(now)).unwrap())
        });
        group.bench_function(format!("record/{label}"), |b| {
            b.iter(|| store.record(black_box(&message), "client-7", now))
        });
        let mut next = 0u64;
        group.bench_function(format!("submit_personal/{label}"), |b| {
            b.iter(|| {
                next += 1;
                let mut p = SchemaPatch::new(
                    format!("new-{next}"),
                    "flight_booking_v1",
                    now,
                    now + Duration::days(30),
                );
                p.scope = PatchScope::Client(format!("fresh-{next}"));
                p.new_keys.push(extra("fresh_key", "a new personal key"));
                store.submit(p, now, &DenySensitive).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench, bench_store
}
criterion_main!(benches);
