//! Patch and lifecycle costs: compiling an effective schema from a base plus
//! 10 global patches and a 5-patch client stack, and recording one payload's
//! metrics.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a bench may panic on a broken fixture"
)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sdsi::patch::{EffectiveSchema, Lifecycle, LifecyclePolicy, PatchScope, SchemaPatch};
use sdsi::{CompiledSchema, KeyDefinition, KeyName, KeyType, SchemaTemplate};
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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
