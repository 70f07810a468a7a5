//! A sealed state (a store that requires signatures): it loads only with
//! its key, intact, and no older than the save last seen.

use sdsi::patch::{HoldReason, PendingProposal, SealError, SealPin, Signer};
use sdsi_sqlite::{Error, SqliteState};
use time::macros::datetime;

use crate::state::{busy, dir};

/// A store that required signatures comes back only through `load_sealed`
/// with its key; `load` refuses it, and a row changed by someone without
/// the key is refused too.
#[test]
fn a_sealed_state_loads_only_with_its_key() {
    use sdsi::patch::{SealError, SealPin, Signer};
    let d = dir("sealed");
    let path = d.join("state.db");
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let (s, e) = busy();
    let s = s.require_signatures(signer.clone());
    let mut db = SqliteState::open(&path).unwrap();
    // The blob is what this test copies and forges (the rows' seal:
    // tests/it/store.rs, counters_are_rows_moved_by_what_was_counted).
    db.keep_state_as_rows(false);
    db.save("flight_booking", None, 80, &s, &e.state()).unwrap();
    assert!(matches!(
        db.load("flight_booking"),
        Err(Error::Damaged { .. })
    ));
    let saved = db
        .load_sealed("flight_booking", signer.clone(), SealPin::NONE)
        .unwrap()
        .unwrap();
    assert_eq!(saved.cursor, 80);
    assert_eq!(
        serde_json::to_value(saved.store.saved_as(1)).unwrap(),
        serde_json::to_value(s.saved_as(1)).unwrap()
    );
    let other = Signer::new(*b"another key, also thirty-two byt").unwrap();
    assert!(matches!(
        db.load_sealed("flight_booking", other, SealPin::NONE),
        Err(Error::Seal {
            error: SealError::WrongKey,
            ..
        })
    ));
    // Someone with write access to the file but not the key copies the
    // row to another scenario, then edits a key.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute(
        "INSERT INTO sdsi_state SELECT 'hotel', version, state FROM sdsi_state",
        [],
    )
    .unwrap();
    assert!(matches!(
        db.load_sealed("hotel", signer.clone(), SealPin::NONE),
        Err(Error::Damaged { .. })
    ));
    raw.execute("DELETE FROM sdsi_state WHERE scenario = 'hotel'", [])
        .unwrap();
    let bytes: Vec<u8> = raw
        .query_row("SELECT state FROM sdsi_state", [], |r| r.get(0))
        .unwrap();
    let forged = String::from_utf8(bytes).unwrap().replacen(
        "\"key_type\":\"string\"",
        "\"key_type\":\"integer\"",
        1,
    );
    raw.execute("UPDATE sdsi_state SET state = ?1", [forged.as_bytes()])
        .unwrap();
    assert!(matches!(
        db.load_sealed("flight_booking", signer, SealPin::NONE),
        Err(Error::Seal {
            error: SealError::Tampered,
            ..
        })
    ));
    std::fs::remove_dir_all(&d).unwrap();
}

/// Someone who can write the file puts back the state of an older save,
/// its header with its rows (every table a save writes, copied from a
/// backup): a loader that saw the newer save refuses it, whether it
/// remembers it (the same connection) or is given it (a pin, after a
/// restart), so the denied proposal and the expired patch do not come
/// back; the older save under the newer version number is refused even
/// without a pin. A loader that remembers nothing cannot tell.
#[test]
fn an_older_sealed_state_put_back_is_refused() {
    let d = dir("rollback");
    let (path, backup) = (d.join("state.db"), d.join("backup.db"));
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let (s, e) = busy();
    let mut s = s.require_signatures(signer.clone());
    let patches = s.patches().count();
    assert!(patches > 0, "the burst proposed a key");
    let card = sdsi::patch::SchemaPatch::new(
        "card",
        "flight_booking_v1",
        datetime!(2026-05-02 0:00 UTC),
        datetime!(2026-06-02 0:00 UTC),
    );
    let at = datetime!(2026-05-02 0:00 UTC);
    let held = PendingProposal::new(card, HoldReason::Sensitive, "a payment key", at);
    s.hold(held).unwrap();
    let mut db = SqliteState::open(&path).unwrap();
    let v1 = db.save("flight_booking", None, 80, &s, &e.state()).unwrap();
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute("VACUUM INTO ?1", [backup.to_str().unwrap()])
        .unwrap();

    // Save 2: the proposal denied, the burst's patches expired.
    let later = datetime!(2026-08-01 0:00 UTC);
    s.deny("card", "ops", "no card data", later).unwrap();
    s.evaluate_after_pause(later, &sdsi::patch::DenySensitive);
    assert_eq!(s.patches().count(), 0);
    let v2 = db
        .save("flight_booking", Some(v1), 81, &s, &e.state())
        .unwrap();
    // Loaded with its pin, save 2 is what was saved.
    let saved = SqliteState::open(&path)
        .unwrap()
        .load_sealed("flight_booking", signer.clone(), SealPin::at_least(v2))
        .unwrap()
        .unwrap();
    assert_eq!((saved.version, saved.cursor), (v2, 81));
    assert_eq!(saved.store.pending().count(), 0);
    assert_eq!(saved.store.denials().count(), 1);
    assert_eq!(saved.store.patches().count(), 0);
    assert_eq!(saved.engine, e.state());

    // Every table a save writes, put back as the backup holds it.
    let put_back = |raw: &rusqlite::Connection| {
        raw.execute("ATTACH ?1 AS old", [backup.to_str().unwrap()])
            .unwrap();
        let tables: Vec<String> = raw
            .prepare(
                "SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
                 WHERE m.type = 'table' AND m.name LIKE 'sdsi_%' AND c.name = 'scenario'",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(tables.len() > 5, "{tables:?}");
        for table in tables {
            raw.execute_batch(&format!(
                "DELETE FROM main.{table}; INSERT INTO main.{table} SELECT * FROM old.{table};"
            ))
            .unwrap();
        }
        raw.execute("DETACH old", []).unwrap();
    };
    put_back(&raw);
    let rolled_back = |result: Result<Option<sdsi_sqlite::Saved>, Error>| {
        matches!(
            result,
            Err(Error::Seal {
                error: SealError::RolledBack {
                    found: 1,
                    expected_at_least: 2
                },
                ..
            })
        )
    };
    // The connection that saved version 2 remembers it.
    let loaded = db.load_sealed("flight_booking", signer.clone(), SealPin::NONE);
    assert!(rolled_back(loaded));
    // After a restart, the pin the application kept.
    let mut restarted = SqliteState::open(&path).unwrap();
    let loaded = restarted.load_sealed("flight_booking", signer.clone(), SealPin::at_least(v2));
    assert!(rolled_back(loaded));
    // The older save under the newer version number, to pass a writer's
    // version check: refused with no pin at all.
    raw.execute_batch(
        "UPDATE sdsi_state SET version = 2; UPDATE sdsi_rows_version SET version = 2;",
    )
    .unwrap();
    let mut fresh = SqliteState::open(&path).unwrap();
    let loaded = fresh.load_sealed("flight_booking", signer.clone(), SealPin::NONE);
    assert!(
        matches!(
            loaded,
            Err(Error::Seal {
                error: SealError::OtherSave {
                    sealed: 1,
                    stored: 2
                },
                ..
            })
        ),
        "{loaded:?}"
    );
    // Put back whole, a loader with no memory and no pin takes it: the
    // denied proposal is pending again (the limit docs/patches.md states).
    put_back(&raw);
    let mut forgetful = SqliteState::open(&path).unwrap();
    let old = forgetful
        .load_sealed("flight_booking", signer.clone(), SealPin::NONE)
        .unwrap()
        .unwrap();
    assert_eq!((old.version, old.store.pending().count()), (1, 1));
    assert_eq!(old.store.patches().count(), patches);

    std::fs::remove_dir_all(&d).unwrap();
}
