//! `sdsi evolve --state`: a replay that stops (or is killed) and resumes
//! gives the same output as one that never stopped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{fixture, fresh_dir};
use serde_json::{Value, json};

/// A log of `n` lines: eight clients asking, in turn, for three needs, one
/// message every five minutes, so keys are proposed and judged on the way.
pub(crate) fn log(path: &Path, n: usize) {
    let needs = [
        "window seat please",
        "a vegetarian meal",
        "travelling with my cat",
    ];
    let start = time::macros::datetime!(2026-05-01 8:00 UTC);
    let mut text = String::new();
    for i in 0..n {
        let at = start + time::Duration::minutes(5 * i as i64);
        let line = json!({
            "at": at.format(&time::format_description::well_known::Rfc3339).unwrap(),
            "client": format!("agent-{}", i % 8),
            "message": {"schema_id": "flight_booking_v1", "payload": {
                "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
                "other": needs[(i / 8) % 3]}}
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// Runs `sdsi evolve` over `events`; returns the JSON lines it printed.
pub(crate) fn evolve(events: &Path, extra: &[&str]) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(["evolve", "--schema", &fixture("flight_template.json")])
        .args(extra)
        .arg(events)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn without_summary(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["event"] != "summary")
        .cloned()
        .collect()
}

/// A 600-line log in `d` and its first 300 lines beside it.
fn halves(d: &Path) -> (PathBuf, PathBuf) {
    let (whole, first_half) = (d.join("all.jsonl"), d.join("half.jsonl"));
    log(&whole, 600);
    let text = std::fs::read_to_string(&whole).unwrap();
    let half: String = text.lines().take(300).map(|l| format!("{l}\n")).collect();
    std::fs::write(&first_half, half).unwrap();
    (whole, first_half)
}

#[test]
fn a_replay_stopped_halfway_resumes_with_the_same_output() {
    let d = fresh_dir("state-halves");
    let (whole, first_half) = halves(&d);

    let straight = evolve(&whole, &[]);
    assert!(straight.iter().any(|l| l["event"] == "proposed"));
    let db = d.join("state.db");
    let db = db.to_str().unwrap();
    let mut resumed = evolve(&first_half, &["--state", db, "--save-every", "7"]);
    let second = evolve(&whole, &["--state", db]);
    assert_eq!(second.last().unwrap()["resumed_after_line"], 300);
    resumed.extend(second);
    assert_eq!(without_summary(&resumed), without_summary(&straight));
    // Nothing left: a third run replays no line.
    let third = evolve(&whole, &["--state", db]);
    assert_eq!(third.len(), 1);
    assert_eq!(third[0]["lines"], 0);
}

/// By default the state file keeps the state as rows (its bytes alone no
/// longer restore); a later run with `--whole-state` reads it and saves it
/// whole, and the output is the same as one uninterrupted run.
#[test]
fn a_state_kept_as_rows_resumes_whole_with_the_same_output() {
    use sdsi::evolution::{SavedServer, StateStorage};
    let d = fresh_dir("state-pool-rows");
    let (whole, first_half) = halves(&d);
    let straight = evolve(&whole, &[]);
    let path = d.join("state.db");
    let db = path.to_str().unwrap();
    let mut resumed = evolve(&first_half, &["--state", db, "--save-every", "7"]);
    let mut file = sdsi_sqlite::SqliteState::open(&path).unwrap();
    let scenario = file.scenarios().unwrap().remove(0);
    let bytes = StateStorage::load(&mut file, &scenario)
        .unwrap()
        .unwrap()
        .bytes;
    assert!(
        SavedServer::from_bytes(&bytes).is_err(),
        "the pools are rows"
    );
    assert!(file.load(&scenario).unwrap().is_some());
    drop(file);
    resumed.extend(evolve(&whole, &["--state", db, "--whole-state"]));
    assert_eq!(without_summary(&resumed), without_summary(&straight));
    let mut file = sdsi_sqlite::SqliteState::open(&path).unwrap();
    let bytes = StateStorage::load(&mut file, &scenario)
        .unwrap()
        .unwrap()
        .bytes;
    assert!(SavedServer::from_bytes(&bytes).is_ok(), "saved whole");
}

/// The events without their line numbers (each log numbers from 1).
fn unnumbered(lines: &[Value]) -> Vec<Value> {
    without_summary(lines)
        .into_iter()
        .map(|mut l| {
            l.as_object_mut().unwrap().remove("line");
            l
        })
        .collect()
}

/// Runs `sdsi evolve ... -` with `input` on standard input.
fn evolve_stdin(input: &str, extra: &[&str]) -> Vec<Value> {
    let run = crate::common::run_with_stdin(
        &[
            &["evolve", "--schema", &fixture("flight_template.json")],
            extra,
            &["-"],
        ]
        .concat(),
        input.as_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A daily run with a new file each day: each file is read from its first
/// line (the cursor is tied to the log it read, not a bare line number),
/// and three days in turn propose what one run over the three does.
#[test]
fn a_state_fed_new_logs_in_turn_replays_them_whole() {
    let d = fresh_dir("state-days");
    let whole = d.join("all.jsonl");
    log(&whole, 600);
    let text = std::fs::read_to_string(&whole).unwrap();
    let all: Vec<&str> = text.lines().collect();
    let days: Vec<PathBuf> = (0..3)
        .map(|k| {
            let path = d.join(format!("day{k}.jsonl"));
            let day: String = all[200 * k..200 * (k + 1)]
                .iter()
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(&path, day).unwrap();
            path
        })
        .collect();
    let straight = evolve(&whole, &[]);
    let db = d.join("state.db");
    let db = db.to_str().unwrap();
    let mut in_turn = Vec::new();
    for (k, day) in days.iter().enumerate() {
        let run = evolve(day, &["--state", db, "--save-every", "50"]);
        let summary = run.last().unwrap();
        assert_eq!(summary["lines"], 200, "day {k} is read whole: {summary}");
        assert_eq!(summary["new_log"] == true, k > 0, "day {k}: {summary}");
        in_turn.extend(run);
    }
    assert!(straight.iter().any(|l| l["event"] == "proposed"));
    assert_eq!(unnumbered(&in_turn), unnumbered(&straight));
    // The last day again: it is the log the state was saved from, all read.
    let again = evolve(&days[2], &["--state", db]);
    assert_eq!(again.last().unwrap()["resumed_after_line"], 200);
    assert_eq!(again.last().unwrap()["lines"], 0);
}

/// Standard input too: the same log grown since resumes after what was
/// replayed; another log is read from its first line.
#[test]
fn standard_input_resumes_only_the_same_log() {
    let d = fresh_dir("state-stdin");
    let whole = d.join("all.jsonl");
    log(&whole, 300);
    let text = std::fs::read_to_string(&whole).unwrap();
    let first: String = text.lines().take(100).map(|l| format!("{l}\n")).collect();
    let other: String = text.lines().skip(100).map(|l| format!("{l}\n")).collect();
    let db = d.join("state.db");
    let db = db.to_str().unwrap();
    evolve_stdin(&first, &["--state", db]);
    let grown = evolve_stdin(&text, &["--state", db]);
    let summary = grown.last().unwrap();
    assert_eq!(summary["resumed_after_line"], 100, "{summary}");
    assert_eq!(summary["lines"], 200);
    // A state at line 300 of `text`, given a 200-line log that is not it.
    let new = evolve_stdin(&other, &["--state", db]);
    let summary = new.last().unwrap();
    assert_eq!(summary["new_log"], true, "{summary}");
    assert_eq!(summary["lines"], 200);
}

/// A line that cannot be read stops the replay before it, and a later run
/// over the same log resumes there (the cursor does not count it), rather
/// than taking the log for another one and replaying it all again.
#[test]
fn an_unreadable_line_is_met_again_not_replayed_around() {
    let d = fresh_dir("state-unreadable");
    let path = d.join("log.jsonl");
    log(&path, 100);
    let mut bytes = std::fs::read(&path).unwrap();
    let good: Vec<u8> = bytes
        .split(|b| *b == b'\n')
        .take(50)
        .flat_map(|l| [l, b"\n"].concat())
        .collect();
    bytes = [
        good.as_slice(),
        b"\xff\xfe not UTF-8\n",
        &bytes[good.len()..],
    ]
    .concat();
    std::fs::write(&path, bytes).unwrap();
    let db = d.join("state.db");
    let db = db.to_str().unwrap();
    let run = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
            .args([
                "evolve",
                "--schema",
                &fixture("flight_template.json"),
                "--state",
                db,
            ])
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "an unreadable line exits 1");
        let lines: Vec<Value> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines.last().unwrap().clone()
    };
    assert_eq!(run(&[])["lines"], 50);
    let again = run(&[]);
    assert_eq!(again["resumed_after_line"], 50, "{again}");
    assert_eq!(again["lines"], 0, "{again}");
}

/// A state resumed 40 days later: the lines are refused (the store does
/// not jump past its 30-day bound on one clock's word) until the run says
/// the pause was real with `--after-pause`.
#[test]
fn a_long_pause_is_accepted_only_when_said() {
    let d = fresh_dir("state-pause");
    let first = d.join("first.jsonl");
    log(&first, 200);
    let text = std::fs::read_to_string(&first).unwrap();
    let later: String = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let at = time::OffsetDateTime::parse(
                v["at"].as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap()
                + time::Duration::days(40);
            v["at"] = at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap()
                .into();
            format!("{v}\n")
        })
        .collect();
    let second = d.join("second.jsonl");
    std::fs::write(&second, later).unwrap();
    let db = d.join("state.db");
    let db = db.to_str().unwrap();
    evolve(&first, &["--state", db]);
    let copy = d.join("copy.db");
    std::fs::copy(db, &copy).unwrap();
    let refused = evolve(&second, &["--state", db]);
    let count = |lines: &[Value], kind: &str| lines.iter().filter(|l| l["event"] == kind).count();
    assert_eq!(count(&refused, "clock_refused"), 200, "every line refused");
    let accepted = evolve(
        &second,
        &["--state", copy.to_str().unwrap(), "--after-pause"],
    );
    assert_eq!(count(&accepted, "clock_refused"), 0);
    assert!(
        count(&accepted, "transition") > 0,
        "the keys' lives moved on"
    );
}

#[test]
fn a_killed_replay_resumes_from_its_last_save() {
    let d = fresh_dir("state-killed");
    let events = d.join("all.jsonl");
    log(&events, 20_000);
    let straight = evolve(&events, &[]);
    let db = d.join("state.db");
    let db = db.to_str().unwrap();

    // Kill the process once it has printed something, mid-replay.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(["evolve", "--schema", &fixture("flight_template.json")])
        .args(["--state", db, "--save-every", "50"])
        .arg(&events)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut before: Vec<Value> = Vec::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while before.len() < 3 && reader.read_line(&mut line).unwrap() > 0 {
        before.push(serde_json::from_str(&line).unwrap());
        line.clear();
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let after = evolve(&events, &["--state", db]);
    let summary = after.last().unwrap();
    let resumed_after = summary["resumed_after_line"].as_u64().unwrap_or(0);
    let upto = |lines: &[Value]| -> Vec<Value> {
        lines
            .iter()
            .filter(|l| l["line"].as_u64().is_some_and(|n| n <= resumed_after))
            .cloned()
            .collect()
    };
    // What the killed run printed is what an uninterrupted run prints, as
    // far as it got; the second run carries on from the last save, so the
    // uninterrupted run's events up to that line plus the second run's are
    // the whole of it (lines the killed run did after its last save are
    // replayed, not lost).
    let expected_before = upto(&straight);
    assert_eq!(before[..], straight[..before.len()]);
    let mut joined = expected_before;
    joined.extend(without_summary(&after));
    assert_eq!(joined, without_summary(&straight));
    assert!(
        resumed_after < 20_000,
        "the process was killed before the end"
    );
}

#[test]
fn a_state_file_from_another_template_or_a_damaged_one_is_refused() {
    let d = fresh_dir("state-refused");
    let events = d.join("all.jsonl");
    log(&events, 20);
    let db = d.join("state.db");
    let db_str = db.to_str().unwrap();
    evolve(&events, &["--state", db_str]);

    // Another template of the same scenario.
    let mut template: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("flight_template.json")).unwrap())
            .unwrap();
    template["keys"][0]["semantic_description"] = json!("changed");
    let other = d.join("other.json");
    std::fs::write(&other, template.to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args([
            "evolve",
            "--schema",
            other.to_str().unwrap(),
            "--state",
            db_str,
        ])
        .arg(&events)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("another template"));

    // A file that is not a database.
    let junk = d.join("junk.db");
    std::fs::write(&junk, vec![7u8; 10_000]).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(["evolve", "--schema", &fixture("flight_template.json")])
        .args(["--state", junk.to_str().unwrap()])
        .arg(&events)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("unreadable_input"));
}

/// Tuning the gate keeps what was learned: a state saved under the default
/// heat threshold resumes under another (the new lines are replayed with
/// it), while one saved with another similarity threshold is refused with
/// an error that names it.
#[test]
fn a_state_resumes_under_another_heat_threshold() {
    let d = fresh_dir("state-retune");
    let (whole, first) = (d.join("all.jsonl"), d.join("first.jsonl"));
    log(&whole, 120);
    let text = std::fs::read_to_string(&whole).unwrap();
    let head: String = text.lines().take(60).map(|l| format!("{l}\n")).collect();
    std::fs::write(&first, head).unwrap();
    let db = d.join("state.db");
    let db = db.to_str().unwrap();
    evolve(&first, &["--state", db, "--heat-threshold", "1000"]);

    let resumed = evolve(&whole, &["--state", db, "--heat-threshold", "5"]);
    let summary = resumed.iter().find(|l| l["event"] == "summary").unwrap();
    assert_eq!(summary["resumed_after_line"], 60, "{summary}");
    assert!(
        resumed.iter().any(|l| l["event"] == "proposed"),
        "the lower gate opened on the resumed pool: {resumed:#?}"
    );

    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(["evolve", "--schema", &fixture("flight_template.json")])
        .args(["--state", db, "--threshold", "0.5"])
        .arg(&whole)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("another threshold"), "{stdout}");
}
