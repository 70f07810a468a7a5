//! `sdsi evolve --state` when a save fails halfway: the state, its report
//! history and its log cursor are saved together or not at all, so the
//! next run resumes where the state really is. The failure is a trigger
//! the test puts in the state file (as a full disk or a busy lock would
//! stop the write), not a sleep.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{fixture, fresh_dir};
use crate::state::{evolve, log};

/// Runs `sdsi evolve --state DB --save-every 50 EVENTS`; its exit code and
/// the JSON lines it printed.
fn evolve_saving(events: &Path, db: &Path) -> (i32, Vec<Value>) {
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(["evolve", "--schema", &fixture("flight_template.json")])
        .args(["--save-every", "50", "--state"])
        .args([db, events])
        .output()
        .unwrap();
    let lines = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (output.status.code().unwrap(), lines)
}

/// Makes every write of the attachment `name` (the CLI's `report_history`
/// or `log_cursor`) beside the state fail, until [`heal`].
fn fail_writes_of(db: &Path, name: &str) {
    let connection = rusqlite::Connection::open(db).unwrap();
    for (trigger, on) in [
        ("failpoint_insert", "INSERT"),
        ("failpoint_update", "UPDATE"),
    ] {
        connection
            .execute_batch(&format!(
                "CREATE TRIGGER {trigger} BEFORE {on} ON sdsi_attachment WHEN NEW.name = '{name}'
                 BEGIN SELECT RAISE(ABORT, 'failpoint'); END;"
            ))
            .unwrap();
    }
}

/// Takes away what [`fail_writes_of`] put in.
fn heal(db: &Path) {
    rusqlite::Connection::open(db)
        .unwrap()
        .execute_batch("DROP TRIGGER failpoint_insert; DROP TRIGGER failpoint_update;")
        .unwrap();
}

/// What the state file holds: the store and the engine's state, the report
/// history and the log cursor (not the version, which counts saves).
pub(crate) fn saved(db: &Path) -> (Value, Value, Value, Value) {
    let mut file = sdsi_sqlite::SqliteState::open(db).unwrap();
    let scenario = file.scenarios().unwrap().remove(0);
    let state = file.load(&scenario).unwrap().unwrap();
    let mut attachment = |name: &str| -> Value {
        serde_json::from_slice(&file.attachment(&scenario, name).unwrap().unwrap()).unwrap()
    };
    let (history, cursor) = (attachment("report_history"), attachment("log_cursor"));
    (
        serde_json::to_value(&state.store).unwrap(),
        serde_json::to_value(&state.engine).unwrap(),
        history,
        cursor,
    )
}

/// A log of 100 lines, then grown to 200: the run over the grown log fails
/// to save its report history at line 150 (the state was committed before
/// the history, which was lost). The next run over the same log must end
/// with the state, history and cursor of one clean run: before, it resumed
/// after the state's line 150 with a history that never saw lines 101-150.
#[test]
fn a_save_failed_halfway_leaves_the_state_as_it_was() {
    let d = fresh_dir("interrupted-history");
    let events = d.join("today.jsonl");
    log(&events, 200);
    let clean = d.join("clean.db");
    let (code, _) = evolve_saving(&events, &clean);
    assert_eq!(code, 0);

    let text = std::fs::read_to_string(&events).unwrap();
    let first: String = text.lines().take(100).map(|l| format!("{l}\n")).collect();
    std::fs::write(&events, first).unwrap();
    let db = d.join("state.db");
    assert_eq!(evolve_saving(&events, &db).0, 0);
    std::fs::write(&events, &text).unwrap();
    fail_writes_of(&db, "report_history");
    let (code, lines) = evolve_saving(&events, &db);
    assert_eq!(code, 2, "the save at line 150 fails: {:?}", lines.last());
    assert_eq!(
        lines.last().unwrap()["errors"][0]["code"],
        "unwritable_output"
    );
    heal(&db);

    let (code, lines) = evolve_saving(&events, &db);
    assert_eq!(code, 0);
    let summary = lines.last().unwrap();
    assert_eq!(summary["resumed_after_line"], 100, "{summary}");
    assert_eq!(summary["lines"], 100, "{summary}");
    let (store, engine, history, cursor) = saved(&db);
    let (clean_store, clean_engine, clean_history, clean_cursor) = saved(&clean);
    assert_eq!(store, clean_store, "the store");
    assert_eq!(engine, clean_engine, "the pools");
    assert_eq!(history, clean_history, "the report history");
    assert_eq!(cursor, clean_cursor, "the log cursor");
    std::fs::remove_dir_all(&d).unwrap();
}

/// The save fails at its log cursor, and the next run is given tomorrow's
/// log: it is read from its first line. Before, the state was committed
/// at line 150 beside the cursor of line 100, and the run trusted the
/// state's bare line count: it skipped tomorrow's first 150 lines unread.
#[test]
fn a_log_after_a_failed_save_is_read_from_its_first_line() {
    let d = fresh_dir("interrupted-cursor");
    let (today, tomorrow) = (d.join("today.jsonl"), d.join("tomorrow.jsonl"));
    log(&today, 200);
    let text = std::fs::read_to_string(&today).unwrap();
    let first: String = text.lines().take(100).map(|l| format!("{l}\n")).collect();
    let rest: String = text.lines().skip(100).map(|l| format!("{l}\n")).collect();
    std::fs::write(&today, &first).unwrap();
    std::fs::write(&tomorrow, [rest.as_str(), &rest].concat()).unwrap();
    let db = d.join("state.db");
    assert_eq!(evolve_saving(&today, &db).0, 0);
    std::fs::write(&today, &text).unwrap();
    fail_writes_of(&db, "log_cursor");
    assert_eq!(
        evolve_saving(&today, &db).0,
        2,
        "the save at line 150 fails"
    );
    heal(&db);

    let (code, lines) = evolve_saving(&tomorrow, &db);
    assert_eq!(code, 0);
    let summary = lines.last().unwrap();
    assert_eq!(summary["new_log"], true, "{summary}");
    assert_eq!(summary["lines"], 200, "every line of tomorrow: {summary}");
    // The state is today's first 100 lines and tomorrow's 200, as two
    // clean runs over them leave it.
    let clean = d.join("clean.db");
    std::fs::write(&today, &first).unwrap();
    evolve(&today, &["--state", clean.to_str().unwrap()]);
    evolve(&tomorrow, &["--state", clean.to_str().unwrap()]);
    let (store, engine, history, _) = saved(&db);
    let (clean_store, clean_engine, clean_history, _) = saved(&clean);
    assert_eq!(
        (store, engine, history),
        (clean_store, clean_engine, clean_history)
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A state past line 0 whose log cursor is missing (or another save's)
/// cannot say which log it read: it is refused, rather than trusted to
/// skip that many lines of whatever log is given (as states saved before
/// cursors were, once). A state at line 0 with no cursor reads every line.
#[test]
fn a_state_without_its_log_cursor_is_refused() {
    let d = fresh_dir("interrupted-no-cursor");
    let events = d.join("today.jsonl");
    log(&events, 100);
    let db = d.join("state.db");
    assert_eq!(evolve_saving(&events, &db).0, 0);
    let forget_cursor = |db: &Path| {
        rusqlite::Connection::open(db)
            .unwrap()
            .execute("DELETE FROM sdsi_attachment WHERE name = 'log_cursor'", [])
            .unwrap()
    };
    assert_eq!(forget_cursor(&db), 1);
    let (code, lines) = evolve_saving(&events, &db);
    assert_eq!(code, 2, "{lines:?}");
    let error = &lines.last().unwrap()["errors"][0];
    assert_eq!(error["code"], "unreadable_input", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("after line 100") && message.contains("log cursor is missing"),
        "{message}"
    );

    let empty = d.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let fresh = d.join("fresh.db");
    assert_eq!(evolve_saving(&empty, &fresh).0, 0);
    assert_eq!(forget_cursor(&fresh), 1);
    let (code, lines) = evolve_saving(&events, &fresh);
    assert_eq!(code, 0);
    assert_eq!(lines.last().unwrap()["lines"], 100);
    std::fs::remove_dir_all(&d).unwrap();
}
