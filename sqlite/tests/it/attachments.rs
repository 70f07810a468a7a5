//! Attachments: named bytes kept beside a scenario's state, alone or
//! saved in the state's own transaction.

use sdsi_sqlite::SqliteState;

use crate::state::{busy, dir};

#[test]
fn attachments_sit_beside_a_scenario_and_the_last_write_wins() {
    let d = dir("attachment");
    let path = d.join("state.db");
    let mut db = SqliteState::open(&path).unwrap();
    assert_eq!(db.attachment("flight_booking", "history").unwrap(), None);
    db.save_attachment("flight_booking", "history", b"one")
        .unwrap();
    db.save_attachment("flight_booking", "history", b"two")
        .unwrap();
    db.save_attachment("hotel", "history", b"other scenario")
        .unwrap();
    drop(db);
    let mut db = SqliteState::open(&path).unwrap();
    assert_eq!(
        db.attachment("flight_booking", "history")
            .unwrap()
            .as_deref(),
        Some(&b"two"[..])
    );
    assert_eq!(
        db.attachment("hotel", "history").unwrap().as_deref(),
        Some(&b"other scenario"[..])
    );
    assert_eq!(db.attachment("flight_booking", "notes").unwrap(), None);
    // An attachment is no state: the scenario still has none saved.
    assert!(db.load("flight_booking").unwrap().is_none());
    std::fs::remove_dir_all(&d).unwrap();
}

/// A save with attachments writes them in the state's transaction. One
/// whose write fails among them (a trigger raises, as a full disk, a busy
/// lock or a kill would stop it) leaves the state and every attachment as
/// they were, not a new state beside old attachments; the next save goes
/// through whole. The state kept as rows and kept whole alike.
#[test]
fn attachments_saved_with_the_state_are_written_with_it_or_not_at_all() {
    let d = dir("attachment-atomic");
    let (s, e) = busy();
    for as_rows in [true, false] {
        let path = d.join(format!("state-{as_rows}.db"));
        let mut db = SqliteState::open(&path).unwrap();
        db.keep_state_as_rows(as_rows);
        db.save_attachment("flight_booking", "notes", b"untouched")
            .unwrap();
        let first: &[(&str, &[u8])] = &[("cursor", b"1"), ("history", b"h1")];
        let v1 = db
            .save_with_attachments("flight_booking", None, 1, &s, &e.state(), first)
            .unwrap();
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch(
            "CREATE TRIGGER failpoint BEFORE UPDATE ON sdsi_attachment
             WHEN NEW.name = 'history' BEGIN SELECT RAISE(ABORT, 'failpoint'); END;",
        )
        .unwrap();
        let second: &[(&str, &[u8])] = &[("cursor", b"2"), ("history", b"h2")];
        let failed =
            db.save_with_attachments("flight_booking", Some(v1), 2, &s, &e.state(), second);
        assert!(failed.is_err(), "the trigger fails the save");
        let attachment = |db: &mut SqliteState, name: &str| {
            db.attachment("flight_booking", name).unwrap().unwrap()
        };
        let saved = db.load("flight_booking").unwrap().unwrap();
        assert_eq!((saved.version, saved.cursor), (v1, 1), "as_rows {as_rows}");
        assert_eq!(attachment(&mut db, "cursor"), b"1", "as_rows {as_rows}");
        assert_eq!(attachment(&mut db, "history"), b"h1");
        raw.execute_batch("DROP TRIGGER failpoint").unwrap();
        let v2 = db
            .save_with_attachments("flight_booking", Some(v1), 2, &s, &e.state(), second)
            .unwrap();
        drop(db);
        let mut db = SqliteState::open(&path).unwrap();
        let saved = db.load("flight_booking").unwrap().unwrap();
        assert_eq!((saved.version, saved.cursor), (v2, 2));
        assert_eq!(attachment(&mut db, "cursor"), b"2");
        assert_eq!(attachment(&mut db, "history"), b"h2");
        assert_eq!(attachment(&mut db, "notes"), b"untouched", "not named");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
