//! What one message costs a save, by how the state is kept: a store with 8
//! patch keys told to and used by N clients (every client has its rows of
//! adoption and delivery), one more payload recorded, then saved. Whole:
//! the state row is rewritten with every client's entries in it. Rows
//! (`keep_state_as_rows`): the state row holds the store's slowly changing
//! header, and the save moves the message's counters in place (the client
//! sends a key it already sent that day: no adoption row changes).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a bench may panic on a broken fixture"
)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sdsi::evolution::Evolution;
use sdsi::patch::{DenySensitive, LifecyclePolicy, SchemaPatch};
use sdsi::{KeyDefinition, KeyName, KeyType, SchemaStore, SchemaTemplate};
use sdsi_sqlite::SqliteState;
use serde_json::{Value, json};
use time::Duration;
use time::macros::datetime;

const KEYS: usize = 8;

fn store(clients: usize) -> SchemaStore {
    let base = SchemaTemplate::from_value(&json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true,
             "semantic_description": "Departure IATA code."},
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Anything else."}
        ]
    }))
    .unwrap();
    let mut store = SchemaStore::new(base, LifecyclePolicy::default()).unwrap();
    let t0 = datetime!(2026-05-01 0:00 UTC);
    let mut patch = SchemaPatch::new("p", "flight_booking_v1", t0, t0 + Duration::days(60));
    for k in 0..KEYS {
        patch.new_keys.push(KeyDefinition::new(
            KeyName::new(&format!("extra_key_{k}")).unwrap(),
            KeyType::String,
            false,
            format!("Key {k}: what the traveller asked for."),
        ));
    }
    store.submit(patch, t0, &DenySensitive).unwrap();
    let at = t0 + Duration::hours(1);
    for c in 0..clients {
        let client = format!("agent-{c}");
        store.suggestion_for(&client, at).unwrap();
        store.record(&message(c), &client, at);
    }
    store
}

fn message(c: usize) -> Value {
    let mut payload = serde_json::Map::new();
    payload.insert("origin".into(), json!("PEK"));
    payload.insert(format!("extra_key_{}", c % KEYS), json!("aisle"));
    json!({"schema_id": "flight_booking_v1", "payload": payload})
}

fn bench(c: &mut Criterion) {
    let engine = Evolution::default().state();
    let dir = std::env::temp_dir().join(format!("sdsi-bench-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("save_one_message");
    group.sample_size(20);
    for clients in [1_000, 10_000] {
        for (name, as_rows) in [("whole", false), ("rows", true)] {
            let mut s = store(clients);
            let path = dir.join(format!("{name}-{clients}.db"));
            let _ = std::fs::remove_file(&path);
            let mut db = SqliteState::open(&path).unwrap();
            db.keep_state_as_rows(as_rows);
            let mut version = db.save("flight_booking", None, 0, &s, &engine).unwrap();
            let mut n = 0usize;
            let at = datetime!(2026-05-01 2:00 UTC);
            group.bench_function(BenchmarkId::new(name, clients), |b| {
                b.iter(|| {
                    n += 1;
                    let client = n % clients;
                    s.record(&message(n), &format!("agent-{client}"), at);
                    version = db
                        .save("flight_booking", Some(version), n as u64, &s, &engine)
                        .unwrap();
                })
            });
        }
    }
    group.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);
