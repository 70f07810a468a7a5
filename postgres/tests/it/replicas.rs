//! Against a real PostgreSQL server (`scripts/with-postgres.sh` starts a
//! throwaway one and sets `SDSI_TEST_POSTGRES`): round trip, optimistic
//! concurrency, and three replicas sharing one state.

use crate::common::server;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use sdsi::evolution::{Evolution, EvolutionEngine, EvolutionEvent, SavedServer, StateStorage};
use sdsi::patch::{DenySensitive, LifecyclePolicy, Submission};
use sdsi::{SchemaStore, SchemaTemplate};
use sdsi_postgres::{Error, PgState};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

fn store() -> SchemaStore {
    let template: SchemaTemplate = serde_json::from_value(json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [{"key_name": "origin", "key_type": "string", "required": true,
                  "semantic_description": "Departure airport code"}]}))
    .unwrap();
    SchemaStore::new(template, LifecyclePolicy::default()).unwrap()
}

/// Eight clients asking in turn for three needs, one message every five minutes.
fn stream() -> Vec<(String, OffsetDateTime, Value)> {
    let needs = [
        "window seat please",
        "a vegetarian meal",
        "travelling with my cat",
    ];
    (0..480)
        .map(|i| {
            let message = json!({"schema_id": "flight_booking_v1",
                "payload": {"origin": "PEK", "other": needs[(i / 8) % 3]}});
            (
                format!("agent-{}", i % 8),
                datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(5 * i as i64),
                message,
            )
        })
        .collect()
}

fn proposed_keys(events: &[EvolutionEvent]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EvolutionEvent::Proposed {
                patch,
                submission: Submission::Applied | Submission::Queued { .. },
                ..
            } => Some(patch.new_keys.iter().map(|k| k.key_name.to_string())),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Attachments sit beside a scenario's state, per name; the last write
/// wins and another connection reads it.
#[test]
fn attachments_sit_beside_a_scenario() {
    let Some(params) = server() else { return };
    let key = "attachments/flight_booking";
    let mut a = PgState::connect(&params).unwrap();
    let mut b = PgState::connect(&params).unwrap();
    assert_eq!(a.attachment(key, "history").unwrap(), None);
    a.save_attachment(key, "history", b"one").unwrap();
    b.save_attachment(key, "history", b"two").unwrap();
    a.save_attachment(key, "cursor", b"c").unwrap();
    assert_eq!(
        b.attachment(key, "history").unwrap().as_deref(),
        Some(&b"two"[..])
    );
    assert_eq!(
        b.attachment(key, "cursor").unwrap().as_deref(),
        Some(&b"c"[..])
    );
    assert_eq!(b.attachment("another", "history").unwrap(), None);
    assert!(a.load(key).unwrap().is_none(), "an attachment is no state");
}

#[test]
fn saves_round_trip_and_never_overwrite_another_writer() {
    let Some(params) = server() else { return };
    let key = "round-trip/flight_booking";
    let mut a = PgState::connect(&params).unwrap();
    let mut b = PgState::connect(&params).unwrap();
    assert!(a.load(key).unwrap().is_none());
    let v1 = a.save(key, None, b"first").unwrap();
    let r = b.save(key, None, b"second");
    assert!(
        matches!(r, Err(Error::Conflict { found: Some(1), .. })),
        "{r:?}"
    );
    let v2 = b.save(key, Some(v1), b"second").unwrap();
    let r = a.save(key, Some(v1), b"stale");
    assert!(
        matches!(
            r,
            Err(Error::Conflict {
                expected: Some(1),
                found: Some(2),
                ..
            })
        ),
        "{r:?}"
    );
    let saved = a.load(key).unwrap().unwrap();
    assert_eq!(
        (saved.version, saved.bytes.as_slice()),
        (v2, &b"second"[..])
    );
}

/// How far (in messages) replicas may run ahead of the oldest message not
/// yet handled: traffic reaches replicas in about the order it was sent, so
/// they handle it in about that order, and neighbours race for the save.
const JITTER: usize = 3;

/// A message of the stream, with its index in the whole stream.
type Indexed = (usize, (String, OffsetDateTime, Value));

/// One replica: handles its messages against the shared state, reloading
/// whenever another replica saved since and redoing a message whose save
/// lost the race. Returns its events and how many saves it redid.
fn replica(
    params: &str,
    key: &str,
    messages: Vec<Indexed>,
    done: &AtomicUsize,
) -> (Vec<EvolutionEvent>, usize) {
    let mut db = PgState::connect(params).unwrap();
    let (mut store, mut engine, mut version) = (store(), Evolution::default(), None);
    let (mut events, mut conflicts) = (Vec::new(), 0);
    for (index, (client, at, message)) in messages {
        while done.load(Ordering::SeqCst) + JITTER < index {
            std::thread::yield_now();
        }
        loop {
            if let Some(saved) = db.load(key).unwrap() {
                if Some(saved.version) != version {
                    let state = SavedServer::from_bytes(&saved.bytes).unwrap();
                    store = state.store;
                    engine = Evolution::default();
                    engine.restore(state.engine).unwrap();
                    version = Some(saved.version);
                }
            }
            let happened = engine.observe(&mut store, &message, &client, at);
            store.evaluate(at, &DenySensitive);
            let bytes = SavedServer::encode(1, 0, &store, &engine.state()).unwrap();
            match db.save(key, version, &bytes) {
                Ok(v) => {
                    version = Some(v);
                    events.extend(happened);
                    break;
                }
                Err(Error::Conflict { .. }) => {
                    conflicts += 1;
                    version = None; // reload and redo
                }
                Err(e) => panic!("{e}"),
            }
        }
        done.fetch_add(1, Ordering::SeqCst);
    }
    (events, conflicts)
}

#[test]
fn three_replicas_sharing_one_server_propose_what_one_process_does() {
    let Some(params) = server() else { return };
    let all = stream();
    let (mut store, mut engine) = (store(), Evolution::default());
    let mut alone = Vec::new();
    for (client, at, message) in &all {
        alone.extend(engine.observe(&mut store, message, client, *at));
        store.evaluate(*at, &DenySensitive);
    }
    let expected = proposed_keys(&alone);
    assert!(expected.len() >= 2, "{expected:?}");

    // Disjoint thirds, each replica on its own connection and thread.
    let key = "replicas/flight_booking";
    let thirds: Vec<Vec<Indexed>> = (0..3)
        .map(|r| all.iter().cloned().enumerate().skip(r).step_by(3).collect())
        .collect();
    let done = AtomicUsize::new(0);
    let (events, conflicts) = std::thread::scope(|s| {
        let handles: Vec<_> = thirds
            .into_iter()
            .map(|part| {
                let (params, done) = (params.clone(), &done);
                s.spawn(move || replica(&params, key, part, done))
            })
            .collect();
        let (mut events, mut conflicts) = (Vec::new(), 0);
        for handle in handles {
            let (e, c) = handle.join().unwrap();
            events.extend(e);
            conflicts += c;
        }
        (events, conflicts)
    });
    eprintln!("{conflicts} saves lost a race and were redone");
    // One trigger per need across the replicas, not one per replica.
    let triggers = events
        .iter()
        .filter(|e| matches!(e, EvolutionEvent::Triggered { .. }))
        .count();
    let alone_triggers = alone
        .iter()
        .filter(|e| matches!(e, EvolutionEvent::Triggered { .. }))
        .count();
    assert_eq!(triggers, alone_triggers, "{events:#?}");
    assert_eq!(proposed_keys(&events), expected);
    // The shared state holds each key once, with unique patch ids.
    let mut db = PgState::connect(&params).unwrap();
    let shared = SavedServer::from_bytes(&db.load(key).unwrap().unwrap().bytes).unwrap();
    let ids: Vec<&str> = shared
        .store
        .patches()
        .map(|p| p.patch_id.as_str())
        .collect();
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique.len());
}
