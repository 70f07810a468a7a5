//! Opening a state file while other connections hold it: openers racing on
//! a new file, a reader's write lock met while switching to WAL, a lock
//! held past the busy timeout.

use std::time::Duration;

use sdsi_sqlite::SqliteState;

use crate::state::{dir, user_version};

/// Processes opening one new file at once all find it migrated: none fails
/// on a table or a version another wrote, and every one can save. (The
/// migration is idempotent, so this cannot tell whether it ran twice; the
/// version re-read under the write lock is what keeps it to once.) Ten
/// new files in turn, since the race is not met on every one.
#[test]
fn openers_racing_on_a_new_file_all_find_it_migrated() {
    let d = dir("migrate-race");
    for round in 0..10 {
        let path = d.join(format!("state-{round}.db"));
        let handles: Vec<_> = (0..6)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut db = SqliteState::open(&path).unwrap();
                    db.save_attachment("flight_booking", &format!("opener-{i}"), b"x")
                        .unwrap();
                    db.schema_version().unwrap()
                })
            })
            .collect();
        for handle in handles {
            assert_eq!(handle.join().unwrap(), sdsi_sqlite::SCHEMA_VERSION);
        }
        assert_eq!(user_version(&path), sdsi_sqlite::SCHEMA_VERSION);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The cause of the race above, met on purpose: the switch of a new file
/// (still in SQLite's rollback journal) to WAL takes the write lock from
/// inside the read it starts with, and SQLite fails such an upgrade at once
/// when another connection holds the write lock, without calling the busy
/// handler. The opener waits for the lock instead, within its busy
/// timeout, as for any other lock: here it gets through once the other
/// connection commits (it failed at once before).
#[test]
fn an_open_waits_for_a_write_lock_met_while_switching_to_wal() {
    let d = dir("wal-switch");
    let path = d.join("state.db");
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder
        .execute_batch(
            "CREATE TABLE other (x INTEGER); BEGIN IMMEDIATE; INSERT INTO other VALUES (1);",
        )
        .unwrap();
    let release = std::thread::spawn(move || {
        // Well within the busy timeout (5 s); the lock is held until then
        // whenever this thread runs.
        std::thread::sleep(Duration::from_millis(300));
        holder.execute_batch("COMMIT").unwrap();
    });
    let opened = SqliteState::open(&path);
    release.join().unwrap();
    let db = opened.unwrap();
    assert_eq!(db.schema_version().unwrap(), sdsi_sqlite::SCHEMA_VERSION);
    std::fs::remove_dir_all(&d).unwrap();
}

/// Another process holding the file's lock past the busy timeout is as
/// retryable when opening as when saving (it was a plain error there).
#[test]
fn a_locked_file_is_retryable_on_open() {
    let path = dir("locked").join("state.db");
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder
        .execute_batch(
            "CREATE TABLE other (x INTEGER); BEGIN EXCLUSIVE; INSERT INTO other VALUES (1);",
        )
        .unwrap();
    let error = SqliteState::open(&path).expect_err("the lock is held");
    assert!(error.is_retryable(), "{error}");
    holder.execute_batch("COMMIT").unwrap();
    assert!(SqliteState::open(&path).is_ok());
}
