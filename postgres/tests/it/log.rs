//! The observation log against a real PostgreSQL server
//! (`scripts/with-postgres.sh`): migrations, idempotent appends, folding in
//! time order up to the replicas' watermark, one evaluator at a time, the
//! fold saved atomically with its rows, and change notices.

use crate::common::{self, server};
use std::time::Duration;

use sdsi::evolution::{Evolution, Observation, StateStorage};
use sdsi_postgres::{Error, Horizon, Logged, PgState, SCHEMA_VERSION, Watch};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;

/// An observation of a message from `client`, `minutes` after 8:00.
fn observed(text: &str, client: &str, minutes: i64) -> Observation {
    let at = datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(minutes);
    let message = json!({"schema_id": "s", "payload": {"origin": "PEK", "other": text}});
    Evolution::default().observation(&message, client, at)
}

fn logged(id: &str, minutes: i64) -> Logged {
    Logged::new(id, "hashing", observed("a window seat", "agent-1", minutes))
}

/// A store and an engine state to save.
fn state_parts() -> (sdsi::SchemaStore, sdsi::evolution::EvolutionState) {
    let template = sdsi::SchemaTemplate::from_value(&json!({
        "schema_id": "s", "scenario": "s", "keys": []}))
    .unwrap();
    let store = sdsi::SchemaStore::new(template, sdsi::patch::LifecyclePolicy::default()).unwrap();
    (store, Evolution::default().state())
}

const FOREVER: Watch = Watch::new(Duration::from_secs(3600), Duration::ZERO);

fn times(rows: &[sdsi_postgres::Unfolded]) -> Vec<OffsetDateTime> {
    rows.iter()
        .map(|r| r.observation.as_ref().unwrap().at)
        .collect()
}

#[test]
fn migrations_apply_once_and_connecting_again_changes_nothing() {
    let Some(params) = server() else { return };
    let a = PgState::connect(&params).unwrap();
    let b = PgState::connect(&params).unwrap();
    assert_eq!(a.schema_version(), SCHEMA_VERSION);
    assert_eq!(b.schema_version(), SCHEMA_VERSION);
    let mut client = postgres::Client::connect(&params, postgres::NoTls).unwrap();
    let rows = client
        .query("SELECT version FROM sdsi_migration ORDER BY version", &[])
        .unwrap();
    let versions: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION).collect::<Vec<_>>());
}

/// A retry (the same message id) counts once, whichever replica sends it.
#[test]
fn an_append_retried_counts_once() {
    let Some(params) = server() else { return };
    let key = "log-retry/s";
    let mut db = PgState::connect(&params).unwrap();
    db.join(key, "r1").unwrap();
    db.join(key, "r2").unwrap();
    let batch = [logged("m1", 0), logged("m2", 1)];
    assert_eq!(db.append(key, "r1", &batch).unwrap(), 2);
    assert_eq!(db.append(key, "r1", &batch).unwrap(), 0);
    assert_eq!(
        db.append(key, "r2", &[logged("m2", 1), logged("m3", 2)])
            .unwrap(),
        1
    );
    assert_eq!(db.log_counts(key).unwrap(), (3, 3));
}

/// Rows are folded in time order, and none newer than what every running
/// replica has appended: a replica behind holds the others back until it
/// catches up, finishes, or is no longer heard of.
#[test]
fn rows_fold_in_time_order_up_to_the_watermark() {
    let Some(params) = server() else { return };
    let key = "log-watermark/s";
    let mut db = PgState::connect(&params).unwrap();
    db.join(key, "fast").unwrap();
    db.join(key, "slow").unwrap();
    db.append(
        key,
        "fast",
        &[logged("f1", 1), logged("f2", 5), logged("f3", 9)],
    )
    .unwrap();
    // `slow` appended nothing yet: nothing may be folded.
    assert!(db.unfolded(key, 100, FOREVER).unwrap().is_empty());
    db.append(key, "slow", &[logged("s1", 0), logged("s2", 6)])
        .unwrap();
    let minute = |m: i64| datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(m);
    assert_eq!(
        times(&db.unfolded(key, 100, FOREVER).unwrap()),
        [minute(0), minute(1), minute(5), minute(6)]
    );
    // Once `slow` is done, the rest.
    db.finish(key, "slow").unwrap();
    assert_eq!(times(&db.unfolded(key, 100, FOREVER).unwrap()).len(), 5);
    // A replica not heard of within the given time holds nothing back.
    db.join(key, "silent").unwrap();
    assert!(db.unfolded(key, 100, FOREVER).unwrap().is_empty());
    std::thread::sleep(Duration::from_millis(1100));
    let brief = Watch::new(Duration::from_secs(1), Duration::ZERO);
    assert_eq!(db.unfolded(key, 100, brief).unwrap().len(), 5);
    // A row folds only once every earlier row has settled (here: been in
    // the log a second; the others were appended before the sleep): a
    // fresh row at 8:03 holds back those after it, not those before.
    db.finish(key, "silent").unwrap();
    db.append(key, "slow", &[logged("fresh", 3)]).unwrap();
    let settle = Watch::new(Duration::from_secs(3600), Duration::from_secs(1));
    assert_eq!(
        times(&db.unfolded(key, 100, settle).unwrap()),
        [minute(0), minute(1)]
    );
}

/// One evaluator at a time; when its connection goes, the next takes over.
#[test]
fn one_evaluator_at_a_time_and_the_lock_passes_on_when_it_dies() {
    let Some(params) = server() else { return };
    let key = "log-lead/s";
    let mut a = PgState::connect(&params).unwrap();
    let mut b = PgState::connect(&params).unwrap();
    assert!(a.lead(key, false).unwrap());
    assert!(a.lead(key, false).unwrap(), "the holder asking again");
    assert!(!b.lead(key, false).unwrap());
    assert!(
        b.lead("log-lead/another", false).unwrap(),
        "one lock per scenario"
    );
    drop(a); // the replica dies: its connection closes
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !b.lead(key, false).unwrap() {
        assert!(
            std::time::Instant::now() < deadline,
            "the lock never passed on"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    b.resign(key).unwrap();
    let mut c = PgState::connect(&params).unwrap();
    assert!(c.lead(key, false).unwrap());
}

/// A fold's save and its rows' marks are one transaction: a save that lost
/// the race leaves the rows unfolded; a save that won marks them, forgets
/// what is old enough, and notifies listeners.
#[test]
fn a_fold_is_saved_with_its_rows_or_not_at_all() {
    let Some(params) = server() else { return };
    let key = "log-fold/s";
    let mut db = PgState::connect(&params).unwrap();
    let mut listener = PgState::connect(&params).unwrap();
    listener.listen().unwrap();
    db.join(key, "r").unwrap();
    db.append(
        key,
        "r",
        &[logged("a", 0), logged("b", 60), logged("c", 120)],
    )
    .unwrap();
    db.finish(key, "r").unwrap();
    let rows = db.unfolded(key, 100, FOREVER).unwrap();
    let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
    let parts = state_parts();
    let v1 = db
        .save_folded(
            key,
            None,
            1,
            &parts.0,
            &parts.1,
            &seqs[..1],
            &[("history", b"h1")],
            None,
        )
        .unwrap();
    // Another writer's version: refused, nothing marked.
    let stale = db.save_folded(key, None, 2, &parts.0, &parts.1, &seqs[1..], &[], None);
    assert!(matches!(stale, Err(Error::Conflict { .. })), "{stale:?}");
    assert_eq!(db.log_counts(key).unwrap(), (3, 2));
    assert_eq!(
        db.attachment(key, "history").unwrap().as_deref(),
        Some(&b"h1"[..])
    );
    // Forget folded rows dated before 8:30 (the newest counted, 10:00,
    // less 90 minutes): `a` (8:00) only; `b` (9:00) and `c` (10:00) are
    // newer.
    let mut horizon = Horizon::new(
        datetime!(2026-05-01 10:00 UTC),
        time::Duration::ZERO,
        time::Duration::minutes(90),
    );
    horizon.counted(datetime!(2026-05-01 10:00 UTC));
    db.save_folded(
        key,
        Some(v1),
        2,
        &parts.0,
        &parts.1,
        &seqs[1..],
        &[],
        Some(&horizon),
    )
    .unwrap();
    assert_eq!(db.log_counts(key).unwrap(), (2, 0));
    assert_eq!(db.load_saved(key).unwrap().unwrap().cursor, 2);
    // Both saves notify, and the two may be read by separate calls: hear
    // until quiet; this scenario was named (other tests' saves notify too).
    let mut heard = listener.wait_for_change(Duration::from_secs(5)).unwrap();
    loop {
        let more = listener
            .wait_for_change(Duration::from_millis(200))
            .unwrap();
        if more.is_empty() {
            break;
        }
        heard.extend(more);
    }
    assert!(heard.iter().any(|name| name == key), "{heard:?}");
}

/// The database's clock, for replicas that share one.
#[test]
fn the_servers_clock_is_read() {
    let Some(params) = server() else { return };
    let mut db = PgState::connect(&params).unwrap();
    let (first, second) = (db.now().unwrap(), db.now().unwrap());
    assert!(second >= first);
    assert!(first.year() >= 2024, "{first}");
}

/// With `sslmode=require` the connection is TLS, verified against
/// `sslrootcert`: the test server refuses plain TCP, so connecting at all
/// over TCP proves TLS; without the test CA the server is not trusted.
#[test]
fn tls_connections_verify_the_server() {
    let Some(params) = common::tls_server() else {
        return;
    };
    let mut db = PgState::connect(&params).unwrap();
    db.save_attachment("tls/s", "a", b"over TLS").unwrap();
    assert_eq!(
        db.attachment("tls/s", "a").unwrap().as_deref(),
        Some(&b"over TLS"[..])
    );
    // The same as a URL, the CA's path percent-encoded.
    let field = |name: &str| {
        params
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .unwrap()
            .to_owned()
    };
    let url = format!(
        "postgresql://postgres@localhost:{}/postgres?sslmode=require&sslrootcert={}",
        field("port"),
        field("sslrootcert").replace('/', "%2F")
    );
    assert!(PgState::connect(&url).is_ok());
    // Plain TCP is refused by the server...
    let plain = params
        .replace("sslmode=require", "sslmode=disable")
        .replace(&format!("sslrootcert={}", field("sslrootcert")), "");
    assert!(PgState::connect(&plain).is_err());
    // ...and TLS without the test CA does not trust the server.
    let untrusted = params.replace(&format!("sslrootcert={}", field("sslrootcert")), "");
    let refused = PgState::connect(&untrusted);
    assert!(refused.is_err(), "a server no trusted root vouches for");
    // A root file that is not PEM is a TLS error, not a panic.
    let bad = params.replace(&field("sslrootcert"), "/dev/null");
    assert!(matches!(PgState::connect(&bad), Err(Error::Tls { .. })));
}

/// Each row's transaction id (`xmin`), by row name: it changes only when
/// the row is written.
fn row_versions(db_params: &str, table: &str, name: &str, scenario: &str) -> Vec<(String, String)> {
    let mut client = postgres::Client::connect(db_params, postgres::NoTls).unwrap();
    client
        .query(
            &format!("SELECT {name}, xmin::TEXT FROM {table} WHERE scenario = $1 ORDER BY 1"),
            &[&scenario],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// The evaluator's save keeps the store as rows that read back as the
/// store; a save rewrites only rows that changed, and one that loses the
/// race writes none; a state saved as bytes alone leaves rows that are no
/// longer read as current.
#[test]
fn the_store_is_kept_as_rows_written_only_where_they_change() {
    use sdsi::patch::{
        DenySensitive, HoldReason, LifecyclePolicy, PatchScope, PendingProposal, SchemaPatch,
    };
    use sdsi::{KeyDefinition, KeyName, KeyType, SchemaStore, SchemaTemplate};

    let Some(params) = server() else { return };
    let key = "rows/flight_booking";
    let at = datetime!(2026-05-01 8:00 UTC);
    let patch = |id: &str, client: Option<&str>, name: &str| {
        let mut p = SchemaPatch::new(id, "s", at, at + time::Duration::days(30));
        if let Some(client) = client {
            p.scope = PatchScope::Client(client.to_owned());
        }
        p.new_keys = vec![KeyDefinition::new(
            KeyName::new(name).unwrap(),
            KeyType::String,
            false,
            format!("{name} the passenger asks for"),
        )];
        p
    };
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "s", "scenario": "flight_booking",
        "keys": [{"key_name": "origin", "key_type": "string", "required": true,
                  "semantic_description": "Departure airport"}]}))
    .unwrap();
    let mut store = SchemaStore::new(template, LifecyclePolicy::default()).unwrap();
    store
        .submit(patch("meal", None, "meal_preference"), at, &DenySensitive)
        .unwrap();
    store
        .submit(
            patch("seat-x", Some("agent-x"), "seat_preference"),
            at,
            &DenySensitive,
        )
        .unwrap();
    let engine = Evolution::default().state();
    let mut db = PgState::connect(&params).unwrap();
    assert!(db.store_rows(key).unwrap().is_none());
    let v1 = db
        .save_folded(key, None, 1, &store, &engine, &[], &[], None)
        .unwrap();
    let rows = db.store_rows(key).unwrap().unwrap();
    assert_eq!(rows, store.rows().unwrap());
    assert_eq!(rows.patches.len(), 2);
    assert_eq!(rows.patches[1].client.as_deref(), Some("agent-x"));
    assert_eq!(rows.patches[1].patch().unwrap().patch_id, "seat-x");
    assert_eq!(
        rows.keys
            .iter()
            .map(|r| r.scope.as_str())
            .collect::<Vec<_>>(),
        ["client:agent-x", "global"]
    );

    let patches = row_versions(&params, "sdsi_patch", "patch_id", key);
    let keys = row_versions(&params, "sdsi_key_record", "key_name", key);
    store
        .hold(PendingProposal::new(
            patch("bags", None, "extra_bags"),
            HoldReason::Unauthorized,
            "an operator decides",
            at,
        ))
        .unwrap();
    let v2 = db
        .save_folded(key, Some(v1), 2, &store, &engine, &[], &[], None)
        .unwrap();
    assert_eq!(db.store_rows(key).unwrap().unwrap(), store.rows().unwrap());
    assert_eq!(
        row_versions(&params, "sdsi_patch", "patch_id", key),
        patches
    );
    assert_eq!(
        row_versions(&params, "sdsi_key_record", "key_name", key),
        keys
    );

    store
        .approve("bags", "ops", at + time::Duration::hours(1))
        .unwrap();
    let approved = store.rows().unwrap();
    // A save that lost the race writes no row.
    let stale = db.save_folded(key, Some(v1), 9, &store, &engine, &[], &[], None);
    assert!(matches!(stale, Err(Error::Conflict { .. })), "{stale:?}");
    assert_eq!(db.store_rows(key).unwrap().unwrap().pending.len(), 1);
    let v3 = db
        .save_folded(key, Some(v2), 3, &store, &engine, &[], &[], None)
        .unwrap();
    let rows = db.store_rows(key).unwrap().unwrap();
    assert_eq!(rows, approved);
    assert!(rows.pending.is_empty());
    let after = row_versions(&params, "sdsi_patch", "patch_id", key);
    assert_eq!(after.len(), 3);
    // `bags` is global, so it comes before `seat-x`, whose position (and
    // only that row) was rewritten; `meal` is as it was.
    assert!(after.contains(&patches[0]), "meal is unchanged");
    assert!(!after.contains(&patches[1]), "seat-x moved");
    assert_eq!(
        db.store_rows(key).unwrap().unwrap().patches[2].patch_id,
        "seat-x"
    );

    let later = at + time::Duration::hours(2);
    store.suggestion_for("agent-x", later).unwrap().unwrap();
    let v4 = db
        .save_folded(key, Some(v3), 4, &store, &engine, &[], &[], None)
        .unwrap();
    let told = row_versions(&params, "sdsi_delivered", "key_name", key);
    assert_eq!(told.len(), 3, "agent-x was told of its three keys");
    store.suggestion_for("agent-y", later).unwrap().unwrap();
    let v5 = db
        .save_folded(key, Some(v4), 5, &store, &engine, &[], &[], None)
        .unwrap();
    assert_eq!(db.store_rows(key).unwrap().unwrap(), store.rows().unwrap());
    let after = row_versions(&params, "sdsi_delivered", "client || key_name", key);
    assert_eq!(after.len(), 5, "agent-y was told of the two global keys");
    assert!(
        told.iter()
            .all(|(name, xmin)| after.contains(&(format!("agent-x{name}"), xmin.clone()))),
        "agent-x's rows were not rewritten"
    );

    StateStorage::save(&mut db, key, Some(v5), b"six").unwrap();
    assert!(db.store_rows(key).unwrap().is_none());
}

/// With the pools kept as rows, another connection loads the same state,
/// and a fold of one more message sends and writes the few clusters and
/// needs it touched; the bytes alone are refused as a whole state; saving
/// whole again clears the rows.
#[test]
fn pools_kept_as_rows_are_written_where_they_change() {
    use sdsi::evolution::{EvolutionEngine, SavedServer};
    let Some(params) = server() else { return };
    let key = "pool-rows/s";
    let (mut store, _) = state_parts();
    let mut engine = Evolution::default();
    let texts = [
        "a window seat",
        "a vegetarian meal",
        "travelling with my cat",
        "extra legroom",
        "wheelchair at the gate",
        "two extra bags",
        "a kosher meal",
        "an infant bassinet",
        "priority boarding",
        "lounge access",
    ];
    let observe = |engine: &mut Evolution, store: &mut sdsi::SchemaStore, i: usize| {
        let message = json!({"schema_id": "s", "payload": {"other": texts[i % texts.len()]}});
        let at = datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(11 * i as i64);
        engine.observe(store, &message, &format!("agent-{}", i % 5), at);
    };
    for i in 0..40 {
        observe(&mut engine, &mut store, i);
    }
    let (store_v1, engine_v1) = (store.clone(), engine.state());
    let mut db = PgState::connect(&params).unwrap();
    db.keep_state_as_rows(true);
    let v1 = db
        .save_folded(key, None, 40, &store, &engine.state(), &[], &[], None)
        .unwrap();
    let clusters = row_versions(&params, "sdsi_cluster", "id", key);
    let needs = row_versions(&params, "sdsi_need", "id", key);
    assert!(clusters.len() > 3, "{clusters:?}");
    let counter = "scope || '/' || key_name || '/' || metric || '/' || day || '=' || count";
    let counts = row_versions(&params, "sdsi_key_count", counter, key);
    assert!(!counts.is_empty());

    let mut other = PgState::connect(&params).unwrap();
    other.keep_state_as_rows(true);
    let saved = other.load_saved(key).unwrap().unwrap();
    assert_eq!((saved.version, saved.cursor), (v1, 40));
    assert_eq!(saved.engine, engine.state());
    let bytes = StateStorage::load(&mut other, key).unwrap().unwrap().bytes;
    assert!(SavedServer::from_bytes(&bytes).is_err());

    // One more message, saved by the connection that loaded: only its rows.
    let mut restored = Evolution::default();
    restored.restore(saved.engine).unwrap();
    let mut restored_store = saved.store;
    observe(&mut restored, &mut restored_store, 40);
    observe(&mut engine, &mut store, 40);
    assert_eq!(restored.state(), engine.state());
    let v2 = other
        .save_folded(
            key,
            Some(v1),
            41,
            &restored_store,
            &restored.state(),
            &[],
            &[],
            None,
        )
        .unwrap();
    // Exactly the rows the fold changed were written: every other row keeps
    // the transaction id it was written with.
    let before = SavedServer::encode_split(1, 40, &store_v1, &engine_v1)
        .unwrap()
        .pools;
    let after = SavedServer::encode_split(2, 41, &store, &engine.state())
        .unwrap()
        .pools;
    let changes = after.writes(Some(&before.digests()));
    for (table, old, changed) in [
        ("sdsi_cluster", &clusters, &changes.clusters),
        ("sdsi_need", &needs, &changes.needs),
    ] {
        let now = row_versions(&params, table, "id", key);
        let rewritten: Vec<&String> = now
            .iter()
            .filter(|row| !old.contains(row))
            .map(|(id, _)| id)
            .collect();
        let mut expected: Vec<&String> = changed.iter().map(|row| &row.id).collect();
        expected.sort();
        assert_eq!(rewritten, expected, "{table}");
        assert!(
            rewritten.len() < now.len(),
            "{table}: some rows were left alone"
        );
    }
    assert!(
        !changes.clusters.is_empty(),
        "the message changed a cluster"
    );
    // The message moved the day's message total by one, in place (the
    // row's name holds its count): every other counter row is as it was.
    let now = row_versions(&params, "sdsi_key_count", counter, key);
    let moved: Vec<&String> = now
        .iter()
        .filter(|row| !counts.contains(row))
        .map(|(name, _)| name)
        .collect();
    let was: Vec<&String> = counts
        .iter()
        .filter(|row| !now.contains(row))
        .map(|(name, _)| name)
        .collect();
    assert_eq!((moved.len(), was.len()), (1, 1), "{moved:?} {was:?}");
    let count = |name: &str| name.rsplit_once('=').unwrap().1.parse::<i64>().unwrap();
    assert!(moved[0].starts_with("global//messages/"), "{moved:?}");
    assert_eq!(count(moved[0]), count(was[0]) + 1);
    assert_eq!(
        PgState::connect(&params)
            .unwrap()
            .load_saved(key)
            .unwrap()
            .unwrap()
            .engine,
        engine.state()
    );

    db.keep_state_as_rows(false);
    db.save_folded(key, Some(v2), 42, &store, &engine.state(), &[], &[], None)
        .unwrap();
    assert!(row_versions(&params, "sdsi_cluster", "id", key).is_empty());
    let saved = db.load_saved(key).unwrap().unwrap();
    assert_eq!((saved.cursor, saved.engine), (42, engine.state()));
}

/// What a connection knows of the rows holds only while the database still
/// holds the rows its save wrote: after a restore that brings the version
/// number back and another replica's save of other counts, the next save
/// rewrites the counters instead of adding to ones it never knew, and the
/// state loads as the saver had it.
#[test]
fn counters_are_rewritten_when_the_rows_are_not_the_ones_known() {
    let Some(params) = server() else { return };
    let key = "counters-restore/s";
    let (mut store, engine) = state_parts();
    let message = json!({"schema_id": "s", "payload": {"origin": "PEK"}});
    let at = datetime!(2026-05-01 8:00 UTC);
    store.record(&message, "agent-1", at);
    let mut writer = PgState::connect(&params).unwrap();
    let v1 = writer
        .save_folded(key, None, 1, &store, &engine, &[], &[], None)
        .unwrap();
    // The backup of an empty database comes back; another replica saves
    // version 1 with five more messages counted.
    let mut raw = postgres::Client::connect(&params, postgres::NoTls).unwrap();
    for table in ["sdsi_state", "sdsi_rows_version", "sdsi_rows_written"] {
        raw.execute(&format!("DELETE FROM {table} WHERE scenario = $1"), &[&key])
            .unwrap();
    }
    let mut other = store.clone();
    for c in 0..5 {
        other.record(&message, &format!("agent-{c}"), at);
    }
    let mut replica = PgState::connect(&params).unwrap();
    let restored = replica
        .save_folded(key, None, 1, &other, &engine, &[], &[], None)
        .unwrap();
    assert_eq!(restored, v1, "the same version number, other counts");
    store.record(&message, "agent-1", at);
    writer
        .save_folded(key, Some(v1), 2, &store, &engine, &[], &[], None)
        .unwrap();
    let saved = PgState::connect(&params)
        .unwrap()
        .load_saved(key)
        .unwrap()
        .unwrap();
    assert_eq!(
        serde_json::to_value(&saved.store).unwrap(),
        serde_json::to_value(&store).unwrap(),
        "the writer's counts, not a sum"
    );
    let messages: i64 = raw
        .query_one(
            "SELECT SUM(count)::BIGINT FROM sdsi_key_count
             WHERE scenario = $1 AND metric = 'messages' AND scope = 'global'",
            &[&key],
        )
        .unwrap()
        .get(0);
    assert_eq!(messages, 2);
}

/// A row the crate's tables could not hold (NULL where it always writes a
/// value, after someone altered the table) is an error naming the table
/// and the column, never a panic. In a schema of its own, so the other
/// tests' tables stay as they are.
#[test]
fn a_damaged_row_is_an_error_naming_its_table_and_column() {
    let Some(params) = server() else { return };
    let schema = format!("sdsi_damaged_{}", std::process::id());
    let mut admin = postgres::Client::connect(&params, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let mut db = PgState::connect(&format!("{params} options='-c search_path={schema}'")).unwrap();
    admin
        .batch_execute(&format!(
            "ALTER TABLE {schema}.sdsi_attachment ALTER COLUMN bytes DROP NOT NULL;
             INSERT INTO {schema}.sdsi_attachment VALUES ('s', 'a', NULL);
             ALTER TABLE {schema}.sdsi_state ALTER COLUMN state DROP NOT NULL;
             INSERT INTO {schema}.sdsi_state VALUES ('s', 1, NULL)"
        ))
        .unwrap();
    let attachment = db.attachment("s", "a").unwrap_err();
    assert!(
        matches!(&attachment, Error::Column { table: "sdsi_attachment", column, .. } if column == "bytes"),
        "{attachment}"
    );
    let state = StateStorage::load(&mut db, "s").unwrap_err();
    assert!(
        matches!(&state, Error::Column { table: "sdsi_state", column, .. } if column == "state"),
        "{state}"
    );
    let state = db.load_saved("s").unwrap_err();
    assert!(
        matches!(&state, Error::Column { table: "sdsi_state", column, .. } if column == "state"),
        "{state}"
    );
    admin
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .unwrap();
}
