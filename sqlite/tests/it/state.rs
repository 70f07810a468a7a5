//! The state file: round trip, optimistic concurrency, damaged files.

use std::path::PathBuf;

use sdsi::evolution::Evolution;
use sdsi::patch::LifecyclePolicy;
use sdsi::{SchemaStore, SchemaTemplate};
use sdsi_sqlite::{Error, SqliteState};
use serde_json::json;
use time::macros::datetime;

/// A fresh directory for one test.
pub(crate) fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sdsi-sqlite-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn store() -> SchemaStore {
    let template: SchemaTemplate = serde_json::from_value(json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [{"key_name": "origin", "key_type": "string", "required": true,
                  "semantic_description": "Departure airport code"}]}))
    .unwrap();
    SchemaStore::new(template, LifecyclePolicy::default()).unwrap()
}

/// A store and engine that have seen a burst, so there is real state.
pub(crate) fn busy() -> (SchemaStore, Evolution) {
    let (mut s, mut e) = (store(), Evolution::default());
    for i in 0..80 {
        let message = json!({"schema_id": "flight_booking_v1",
            "payload": {"origin": "PEK", "other": "window seat please"}});
        let now = datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(15 * i);
        sdsi::evolution::EvolutionEngine::observe(
            &mut e,
            &mut s,
            &message,
            &format!("agent-{}", i % 8),
            now,
        );
    }
    (s, e)
}

#[test]
fn a_saved_state_comes_back_whole() {
    let d = dir("roundtrip");
    let (s, e) = busy();
    assert!(s.patches().count() > 0, "the burst proposed a key");
    let path = d.join("state.db");
    let version = SqliteState::open(&path)
        .unwrap()
        .save("flight_booking", None, 80, &s, &e.state())
        .unwrap();
    // Another process opening the file later.
    let mut db = SqliteState::open(&path).unwrap();
    let saved = db.load("flight_booking").unwrap().unwrap();
    assert_eq!((saved.version, saved.cursor), (version, 80));
    assert_eq!(
        serde_json::to_value(&saved.store).unwrap(),
        serde_json::to_value(&s).unwrap()
    );
    assert_eq!(saved.engine, e.state());
    assert!(db.load("another_scenario").unwrap().is_none());
}

#[test]
fn two_writers_never_overwrite_each_other() {
    let d = dir("conflict");
    let path = d.join("state.db");
    let (s, e) = busy();
    let mut a = SqliteState::open(&path).unwrap();
    let mut b = SqliteState::open(&path).unwrap();
    let v1 = a.save("flight_booking", None, 1, &s, &e.state()).unwrap();
    // b read nothing and tries to create: refused, a's save stands.
    let r = b.save("flight_booking", None, 2, &s, &e.state());
    assert!(
        matches!(r, Err(Error::Conflict { found: Some(1), .. })),
        "{r:?}"
    );
    // Both read version 1; the first to save wins, the second is refused.
    let v2 = b
        .save("flight_booking", Some(v1), 3, &s, &e.state())
        .unwrap();
    let r = a.save("flight_booking", Some(v1), 4, &s, &e.state());
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
    assert_eq!(a.load("flight_booking").unwrap().unwrap().cursor, 3);
    assert_eq!(v2, 2);
}

#[test]
fn a_file_that_is_not_a_database_is_an_error() {
    let d = dir("garbage");
    let path = d.join("state.db");
    std::fs::write(
        &path,
        b"this is not a database, just some text that is long enough",
    )
    .unwrap();
    let r = SqliteState::open(&path);
    assert!(matches!(r, Err(Error::Sqlite(_))), "{r:?}");
}

#[test]
fn a_truncated_file_is_an_error_never_an_empty_state() {
    let d = dir("truncated");
    let path = d.join("state.db");
    let (s, e) = busy();
    SqliteState::open(&path)
        .unwrap()
        .save("flight_booking", None, 80, &s, &e.state())
        .unwrap();
    // Fold the WAL into the main file so truncating it loses data.
    db_checkpoint(&path);
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8192, "{} bytes", bytes.len());
    for keep in [bytes.len() / 2, 4096 + 100, 100] {
        let cut = d.join(format!("cut-{keep}.db"));
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let outcome = SqliteState::open(&cut).and_then(|mut db| db.load("flight_booking"));
        assert!(
            matches!(outcome, Err(Error::Sqlite(_) | Error::Damaged { .. })),
            "kept {keep} bytes: {outcome:?}"
        );
    }
}

#[test]
fn a_damaged_row_is_named() {
    let d = dir("damaged");
    let path = d.join("state.db");
    let (s, e) = busy();
    let mut db = SqliteState::open(&path).unwrap();
    db.keep_state_as_rows(false); // the blob is what this test damages
    db.save("flight_booking", None, 1, &s, &e.state()).unwrap();
    let raw = rusqlite_update(
        &path,
        "UPDATE sdsi_state SET state = CAST('{\"cursor\":1,\"store\":{\"format\":\"sdsi.store\",\"version\":7}}' AS BLOB)",
    );
    assert_eq!(raw, 1);
    let r = SqliteState::open(&path).unwrap().load("flight_booking");
    match r {
        Err(Error::Damaged { message, .. }) => {
            assert!(message.contains("version 7"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

fn db_checkpoint(path: &std::path::Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    c.execute_batch("PRAGMA journal_mode = DELETE;").unwrap();
}

fn rusqlite_update(path: &std::path::Path, sql: &str) -> usize {
    rusqlite::Connection::open(path)
        .unwrap()
        .execute(sql, [])
        .unwrap()
}

/// A writer that holds the lock past the busy timeout gets a retryable
/// `Busy`, not a plain SQLite error; once the lock is free the save goes
/// through.
#[test]
fn a_held_lock_is_a_retryable_busy() {
    let d = dir("busy");
    let path = d.join("state.db");
    let (s, e) = busy();
    let mut a = SqliteState::open(&path).unwrap();
    a.set_busy_timeout(std::time::Duration::from_millis(100))
        .unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = a.save("flight_booking", None, 1, &s, &e.state());
    assert!(matches!(r, Err(Error::Busy { .. })), "{r:?}");
    assert!(r.unwrap_err().is_retryable());
    holder.execute_batch("COMMIT").unwrap();
    assert_eq!(
        a.save("flight_booking", None, 1, &s, &e.state()).unwrap(),
        1
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// Writers in threads, each loading and saving in a loop, retrying what is
/// retryable: no save is lost or doubled, and no error is a plain one (a
/// deferred transaction failed here when a writer upgraded a read made
/// before another committed).
#[test]
fn racing_writers_see_only_retryable_errors() {
    let d = dir("race");
    let path = d.join("state.db");
    let (s, e) = busy();
    let state = e.state();
    SqliteState::open(&path)
        .unwrap()
        .save("flight_booking", None, 0, &s, &state)
        .unwrap();
    let (writers, saves) = (4, 15);
    std::thread::scope(|scope| {
        for w in 0..writers {
            let (path, s, state) = (&path, &s, &state);
            scope.spawn(move || {
                let mut db = SqliteState::open(path).unwrap();
                let mut done = 0;
                while done < saves {
                    let saved = db.load("flight_booking").unwrap().unwrap();
                    match db.save("flight_booking", Some(saved.version), w, s, state) {
                        Ok(_) => done += 1,
                        Err(error) if error.is_retryable() => {}
                        Err(error) => panic!("writer {w}: {error}"),
                    }
                }
            });
        }
    });
    let saved = SqliteState::open(&path)
        .unwrap()
        .load("flight_booking")
        .unwrap()
        .unwrap();
    assert_eq!(saved.version, 1 + writers * saves);
    std::fs::remove_dir_all(&d).unwrap();
}

pub(crate) fn user_version(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

fn set_user_version(path: &std::path::Path, version: i64) {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_update(None, "user_version", version)
        .unwrap();
}

/// A new file is migrated to this release's schema; a file written before
/// migrations were numbered (its tables there, `user_version` 0) is
/// migrated and keeps its state; a file a newer release migrated further
/// opens unchanged and still loads and saves (migrations are additive).
#[test]
fn files_are_migrated_forward_and_never_back() {
    use sdsi_sqlite::SCHEMA_VERSION;
    let d = dir("migrate");
    let path = d.join("state.db");
    let (s, e) = busy();
    let mut db = SqliteState::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    let version = db.save("flight_booking", None, 3, &s, &e.state()).unwrap();
    drop(db);

    set_user_version(&path, 0);
    let mut db = SqliteState::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    let saved = db.load("flight_booking").unwrap().unwrap();
    assert_eq!((saved.version, saved.cursor), (version, 3));
    drop(db);

    set_user_version(&path, SCHEMA_VERSION + 5);
    let mut db = SqliteState::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION + 5);
    assert_eq!(
        db.save("flight_booking", Some(version), 4, &s, &e.state())
            .unwrap(),
        version + 1
    );
    drop(db);
    assert_eq!(user_version(&path), SCHEMA_VERSION + 5);
    std::fs::remove_dir_all(&d).unwrap();
}

/// A read-only opening writes nothing: a file from before numbered
/// migrations stays at version 0 and still loads; a save through it fails;
/// a missing file is an error, not a new database.
#[test]
fn a_read_only_opening_reads_without_migrating() {
    let d = dir("read-only");
    let path = d.join("state.db");
    let (s, e) = busy();
    // A file of version 0 predates rows: its state is whole.
    let mut db = SqliteState::open(&path).unwrap();
    db.keep_state_as_rows(false);
    let version = db.save("flight_booking", None, 7, &s, &e.state()).unwrap();
    drop(db);
    set_user_version(&path, 0);
    let mut db = SqliteState::open_read_only(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), 0);
    let saved = db.load("flight_booking").unwrap().unwrap();
    assert_eq!((saved.version, saved.cursor), (version, 7));
    assert!(
        db.save("flight_booking", Some(version), 8, &s, &e.state())
            .is_err()
    );
    drop(db);
    assert_eq!(user_version(&path), 0);
    assert!(SqliteState::open_read_only(d.join("missing.db")).is_err());
    assert!(!d.join("missing.db").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

/// Counts the writes to the store's row tables, by a trigger on each.
fn count_row_writes(path: &std::path::Path) {
    count_row_writes_of(
        path,
        &[
            "sdsi_patch",
            "sdsi_key_record",
            "sdsi_pending",
            "sdsi_delivered",
        ],
    );
}

/// Counts the writes to `tables`, by a trigger on each.
fn count_row_writes_of(path: &std::path::Path, tables: &[&str]) {
    let connection = rusqlite::Connection::open(path).unwrap();
    connection
        .execute_batch("CREATE TABLE row_writes (tbl TEXT, kind TEXT)")
        .unwrap();
    for table in tables {
        for kind in ["INSERT", "UPDATE", "DELETE"] {
            connection
                .execute_batch(&format!(
                    "CREATE TRIGGER count_{table}_{kind} AFTER {kind} ON {table}
                     BEGIN INSERT INTO row_writes VALUES ('{table}', '{kind}'); END"
                ))
                .unwrap();
        }
    }
}

/// The writes counted since the last call, as "table kind" lines, sorted.
fn row_writes(path: &std::path::Path) -> Vec<String> {
    let connection = rusqlite::Connection::open(path).unwrap();
    let mut statement = connection
        .prepare("SELECT tbl || ' ' || kind FROM row_writes ORDER BY 1")
        .unwrap();
    let writes = statement
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<Vec<String>, _>>()
        .unwrap();
    connection.execute("DELETE FROM row_writes", []).unwrap();
    writes
}

/// The store is also kept as rows (patches, key records, pending
/// proposals) that read back as what the store holds; a save rewrites
/// only the rows that changed; a state saved as bytes alone leaves rows
/// that are no longer read as current.
#[test]
fn the_store_is_kept_as_rows_written_only_where_they_change() {
    use sdsi::evolution::StateStorage;
    use sdsi::patch::{HoldReason, PatchScope, PatchStatus, PendingProposal, SchemaPatch};
    use sdsi::{KeyDefinition, KeyName, KeyType};

    let d = dir("rows");
    let path = d.join("state.db");
    let (mut s, e) = busy();
    let mut db = SqliteState::open(&path).unwrap();
    assert_eq!(db.store_rows("flight_booking").unwrap(), None);
    let mut version = db.save("flight_booking", None, 80, &s, &e.state()).unwrap();
    let rows = db.store_rows("flight_booking").unwrap().unwrap();
    assert_eq!(rows, s.rows().unwrap());
    assert!(!rows.patches.is_empty() && !rows.keys.is_empty());
    let stored: Vec<SchemaPatch> = rows.patches.iter().map(|r| r.patch().unwrap()).collect();
    assert_eq!(stored, s.patches().cloned().collect::<Vec<_>>());
    for record in rows.records().unwrap() {
        assert_eq!(
            Some(&record),
            s.lifecycle()
                .record(&record.scope, record.key_name.as_str())
        );
    }

    count_row_writes(&path);
    version = db
        .save("flight_booking", Some(version), 80, &s, &e.state())
        .unwrap();
    assert_eq!(row_writes(&path), Vec::<String>::new(), "nothing changed");

    let at = datetime!(2026-05-03 9:00 UTC);
    let mut personal = SchemaPatch::new(
        "meal-for-agent-x",
        "flight_booking_v1",
        at,
        at + time::Duration::days(30),
    );
    personal.scope = PatchScope::Client("agent-x".to_owned());
    personal.new_keys = vec![KeyDefinition::new(
        KeyName::new("meal_preference").unwrap(),
        KeyType::String,
        false,
        "The meal the passenger wants",
    )];
    s.hold(PendingProposal::new(
        personal.clone(),
        HoldReason::Unauthorized,
        "needs an operator",
        at,
    ))
    .unwrap();
    version = db
        .save("flight_booking", Some(version), 81, &s, &e.state())
        .unwrap();
    assert_eq!(row_writes(&path), ["sdsi_pending INSERT"]);
    let rows = db.store_rows("flight_booking").unwrap().unwrap();
    assert_eq!(rows.pending.len(), 1);
    assert_eq!(
        &rows.pending[0].proposal().unwrap(),
        s.pending().next().unwrap()
    );

    s.approve("meal-for-agent-x", "ops", at + time::Duration::hours(1))
        .unwrap();
    version = db
        .save("flight_booking", Some(version), 82, &s, &e.state())
        .unwrap();
    assert_eq!(
        row_writes(&path),
        [
            "sdsi_key_record INSERT",
            "sdsi_patch INSERT",
            "sdsi_pending DELETE"
        ]
    );
    let rows = db.store_rows("flight_booking").unwrap().unwrap();
    assert_eq!(rows, s.rows().unwrap());
    let added = rows
        .patches
        .iter()
        .find(|r| r.patch_id == "meal-for-agent-x")
        .unwrap();
    assert_eq!(
        (added.client.as_deref(), added.status),
        (Some("agent-x"), PatchStatus::Accepted)
    );
    assert!(rows.keys.iter().any(|r| r.scope == "client:agent-x"));
    assert!(rows.pending.is_empty());

    // Telling a client of its keys adds its delivered rows (and counts the
    // deliveries in the records); telling a second one touches none of the
    // first one's rows.
    let later = at + time::Duration::hours(2);
    s.suggestion_for("agent-x", later).unwrap().unwrap();
    version = db
        .save("flight_booking", Some(version), 83, &s, &e.state())
        .unwrap();
    let told = db.store_rows("flight_booking").unwrap().unwrap().delivered;
    assert!(
        told.iter()
            .any(|r| (r.client.as_str(), r.key_name.as_str()) == ("agent-x", "meal_preference"))
    );
    assert!(
        told.iter()
            .all(|r| r.client == "agent-x" && r.tag.len() == 16)
    );
    row_writes(&path);
    s.suggestion_for("agent-y", later).unwrap().unwrap();
    version = db
        .save("flight_booking", Some(version), 84, &s, &e.state())
        .unwrap();
    let rows = db.store_rows("flight_booking").unwrap().unwrap();
    assert_eq!(rows, s.rows().unwrap());
    let first: Vec<_> = told.iter().collect();
    assert!(first.iter().all(|r| rows.delivered.contains(r)));
    let writes = row_writes(&path);
    assert!(
        writes
            .iter()
            .filter(|w| w.starts_with("sdsi_delivered"))
            .all(|w| w == "sdsi_delivered INSERT"),
        "{writes:?}"
    );
    assert_eq!(
        writes
            .iter()
            .filter(|w| w.starts_with("sdsi_delivered"))
            .count(),
        rows.delivered.len() - told.len()
    );

    let bytes = sdsi::evolution::SavedServer::encode(1, 85, &s, &e.state()).unwrap();
    StateStorage::save(&mut db, "flight_booking", Some(version), &bytes).unwrap();
    assert_eq!(db.store_rows("flight_booking").unwrap(), None);
    std::fs::remove_dir_all(&d).unwrap();
}

/// Counting a message moves its counters in place: a save after one
/// payload runs `count = count + 1` on the few rows it touched (the day's
/// message total, the key's present and well-typed counts) and writes no key
/// record; with the pools as rows the state row's bytes hold no counter, and
/// a load (by another connection too) gives the counts back. A connection
/// that does not know the stored counts rewrites them whole, to the same
/// values.
#[test]
fn counters_move_in_place_by_what_a_save_counted() {
    let d = dir("counters");
    let path = d.join("state.db");
    let (mut s, e) = busy();
    let record = &s.lifecycle().records()[0];
    let key = record.key_name.to_string();
    let value = match record.key_type {
        sdsi::KeyType::Boolean => json!(true),
        sdsi::KeyType::Integer | sdsi::KeyType::Number => json!(2),
        _ => json!("aisle"),
    };
    let mut db = SqliteState::open(&path).unwrap();
    db.keep_state_as_rows(true);
    let mut version = db.save("flight_booking", None, 80, &s, &e.state()).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE count_writes (kind TEXT, metric TEXT, old INTEGER, new INTEGER);
             CREATE TRIGGER count_update AFTER UPDATE ON sdsi_key_count BEGIN
                 INSERT INTO count_writes VALUES ('update', new.metric, old.count, new.count);
             END;
             CREATE TRIGGER count_insert AFTER INSERT ON sdsi_key_count BEGIN
                 INSERT INTO count_writes VALUES ('insert', new.metric, NULL, new.count);
             END;
             CREATE TRIGGER count_delete AFTER DELETE ON sdsi_key_count BEGIN
                 INSERT INTO count_writes VALUES ('delete', old.metric, old.count, NULL);
             END;",
        )
        .unwrap();
    count_row_writes(&path);
    let counted = |path: &std::path::Path| {
        let connection = rusqlite::Connection::open(path).unwrap();
        let mut statement = connection
            .prepare("SELECT kind, metric, old, new FROM count_writes ORDER BY metric")
            .unwrap();
        let writes: Vec<(String, String, Option<i64>, Option<i64>)> = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        connection.execute("DELETE FROM count_writes", []).unwrap();
        writes
    };

    // The burst's last day; the first message with the key inserts its
    // rows for the day, the second moves them.
    let at = datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(15 * 79);
    let message = json!({"schema_id": "flight_booking_v1",
        "payload": {"origin": "PEK", key.as_str(): value}});
    s.record(&message, "agent-1", at);
    version = db
        .save("flight_booking", Some(version), 81, &s, &e.state())
        .unwrap();
    let inserted = counted(&path);
    assert_eq!(
        inserted
            .iter()
            .filter(|(kind, ..)| kind == "insert")
            .count(),
        2,
        "{inserted:?}"
    );
    row_writes(&path);
    s.record(&message, "agent-3", at);
    version = db
        .save("flight_booking", Some(version), 81, &s, &e.state())
        .unwrap();
    let writes = counted(&path);
    let moved: Vec<(&str, &str, i64)> = writes
        .iter()
        .map(|(kind, metric, old, new)| {
            (kind.as_str(), metric.as_str(), new.unwrap() - old.unwrap())
        })
        .collect();
    assert_eq!(
        moved,
        [
            ("update", "messages", 1),
            ("update", "present", 1),
            ("update", "well_typed", 1)
        ]
    );
    let other = row_writes(&path);
    assert!(
        other
            .iter()
            .all(|w| w.starts_with("sdsi_delivered") || w.starts_with("sdsi_adoption")),
        "{other:?}"
    );
    let header: serde_json::Value = serde_json::from_slice(
        &rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT state FROM sdsi_state", [], |r| {
                r.get::<_, Vec<u8>>(0)
            })
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        header["store"]["lifecycle"]["totals"],
        json!({"window_days": 30})
    );
    let told = header["store"]["delivered"].as_object().unwrap();
    assert!(told.values().all(|keys| keys == &json!({})), "{told:?}");

    // Read back: the same store, here and by a fresh connection; a save by
    // that connection (which knows the counts it read) moves nothing.
    let same = |db: &mut SqliteState, s: &SchemaStore| {
        let saved = db.load("flight_booking").unwrap().unwrap();
        assert_eq!(
            serde_json::to_vec(&saved.store).unwrap(),
            serde_json::to_vec(s).unwrap()
        );
        saved.version
    };
    assert_eq!(same(&mut db, &s), version);
    let mut other_db = SqliteState::open(&path).unwrap();
    other_db.keep_state_as_rows(true);
    same(&mut other_db, &s);
    version = other_db
        .save("flight_booking", Some(version), 82, &s, &e.state())
        .unwrap();
    assert_eq!(counted(&path), []);
    // The first connection's counts are stale now (another wrote since):
    // it rewrites them whole, to the same values.
    s.record(&message, "agent-2", at);
    db.save("flight_booking", Some(version), 83, &s, &e.state())
        .unwrap();
    let writes = counted(&path);
    assert!(writes.iter().any(|(kind, ..)| kind == "delete"));
    assert_eq!(same(&mut other_db, &s), version + 1);
    std::fs::remove_dir_all(&d).unwrap();
}

fn count(path: &std::path::Path, sql: &str) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// With the pools kept as rows, the state row holds a small header, a
/// second process loads the same state, and a save after one more message
/// writes the few clusters and needs it touched, not the pool; saving whole
/// again clears the rows; the bytes alone are refused as a whole state.
#[test]
fn pools_kept_as_rows_are_written_where_they_change() {
    let d = dir("pool-rows");
    let path = d.join("state.db");
    let (mut s, mut e) = busy();
    let texts = [
        "a vegetarian meal",
        "travelling with my cat",
        "extra legroom",
        "an aisle seat",
        "wheelchair at the gate",
        "two extra bags",
    ];
    for (i, text) in texts.iter().cycle().take(30).enumerate() {
        let message = json!({"schema_id": "flight_booking_v1",
            "payload": {"origin": "PEK", "other": text}});
        let at = datetime!(2026-05-01 22:00 UTC) + time::Duration::minutes(9 * i as i64);
        let client = format!("agent-{}", i % 5);
        sdsi::evolution::EvolutionEngine::observe(&mut e, &mut s, &message, &client, at);
    }
    let mut db = SqliteState::open(&path).unwrap();
    db.keep_state_as_rows(true);
    let v1 = db.save("flight_booking", None, 80, &s, &e.state()).unwrap();
    let clusters: usize = e.state().pools().map(|(_, p)| p.len()).sum();
    assert!(clusters > 1);
    assert_eq!(
        count(&path, "SELECT COUNT(*) FROM sdsi_cluster"),
        i64::try_from(clusters).unwrap()
    );
    let state_bytes = count(&path, "SELECT length(state) FROM sdsi_state");
    let whole = sdsi::evolution::SavedServer::encode(1, 80, &s, &e.state()).unwrap();
    assert!(state_bytes < i64::try_from(whole.len()).unwrap());

    let mut other = SqliteState::open(&path).unwrap();
    let saved = other.load("flight_booking").unwrap().unwrap();
    assert_eq!(saved.engine, e.state());
    assert_eq!(saved.version, v1);
    let bytes = sdsi::evolution::StateStorage::load(&mut other, "flight_booking")
        .unwrap()
        .unwrap()
        .bytes;
    assert!(sdsi::evolution::SavedServer::from_bytes(&bytes).is_err());

    count_row_writes_of(&path, &["sdsi_cluster", "sdsi_need"]);
    let message = json!({"schema_id": "flight_booking_v1",
        "payload": {"origin": "PEK", "other": "a vegetarian meal"}});
    let later = datetime!(2026-05-02 4:00 UTC);
    sdsi::evolution::EvolutionEngine::observe(&mut e, &mut s, &message, "agent-3", later);
    let v2 = db
        .save("flight_booking", Some(v1), 81, &s, &e.state())
        .unwrap();
    let writes = row_writes(&path);
    assert!(!writes.is_empty() && writes.len() <= 4, "{writes:?}");
    assert_eq!(
        SqliteState::open(&path)
            .unwrap()
            .load("flight_booking")
            .unwrap()
            .unwrap()
            .engine,
        e.state()
    );

    // The other process loaded v1: its save is refused, and it writes no row.
    let stale = other.save("flight_booking", Some(v1), 81, &s, &e.state());
    assert!(matches!(stale, Err(Error::Conflict { .. })));
    assert!(row_writes(&path).is_empty());

    db.keep_state_as_rows(false);
    db.save("flight_booking", Some(v2), 82, &s, &e.state())
        .unwrap();
    assert_eq!(count(&path, "SELECT COUNT(*) FROM sdsi_cluster"), 0);
    let saved = SqliteState::open(&path)
        .unwrap()
        .load("flight_booking")
        .unwrap()
        .unwrap();
    assert_eq!((saved.engine, saved.cursor), (e.state(), 82));

    // The state row replaced behind a writer's back (a restore from a
    // backup, then another writer): the same version number comes back
    // with other rows (more messages counted), and what the writer knows no
    // longer describes them. Its next save rewrites every row instead of
    // adding to counters that are not the ones it knew.
    db.keep_state_as_rows(true);
    let fresh = dir("pool-rows-fresh").join("s.db");
    let mut writer = SqliteState::open(&fresh).unwrap();
    writer.keep_state_as_rows(true);
    let v1 = writer
        .save("flight_booking", None, 1, &s, &e.state())
        .unwrap();
    let connection = rusqlite::Connection::open(&fresh).unwrap();
    connection
        .execute_batch("DELETE FROM sdsi_state; DELETE FROM sdsi_rows_version;")
        .unwrap();
    drop(connection);
    let mut other = s.clone();
    let message = json!({"schema_id": "flight_booking_v1", "payload": {"origin": "PEK"}});
    for c in 0..5 {
        other.record(
            &message,
            &format!("agent-{c}"),
            datetime!(2026-05-01 20:00 UTC),
        );
    }
    let restored = SqliteState::open(&fresh)
        .unwrap()
        .save("flight_booking", None, 1, &other, &e.state())
        .unwrap();
    assert_eq!(restored, v1, "the same version number, other rows");
    writer
        .save("flight_booking", Some(v1), 2, &s, &e.state())
        .unwrap();
    let saved = SqliteState::open(&fresh)
        .unwrap()
        .load("flight_booking")
        .unwrap()
        .unwrap();
    assert_eq!((saved.engine, saved.cursor), (e.state(), 2));
    assert_eq!(
        serde_json::to_value(&saved.store).unwrap(),
        serde_json::to_value(&s).unwrap(),
        "the counters are the writer's, not the sum"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
