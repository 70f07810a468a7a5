//! `sdsi evolve --state` over a log still being written: a last line
//! without its newline is left for the next run, never counted twice; a
//! log rotated (another file at the same path) is read from its first line.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{fixture, fresh_dir};
use crate::interrupted::saved;
use crate::state::{evolve, log};

/// The lines of a `n`-line log (`state::log`), each with its newline.
fn log_lines(d: &Path, n: usize) -> Vec<String> {
    let path = d.join("source.jsonl");
    log(&path, n);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    text.lines().map(|l| format!("{l}\n")).collect()
}

/// The first `complete` of `lines` and the first `part` bytes of the next,
/// as a writer leaves a log it is still writing.
fn written(lines: &[String], complete: usize, part: usize) -> String {
    let mut text = lines[..complete].concat();
    if let Some(next) = lines.get(complete) {
        text.push_str(&next[..part]);
    }
    text
}

fn without_summary(lines: Vec<Value>) -> Vec<Value> {
    lines
        .into_iter()
        .filter(|l| l["event"] != "summary")
        .collect()
}

/// An hourly run over today's log, which the writer is in the middle of a
/// line of at each run: the unfinished line is not replayed nor counted in
/// the cursor (the summary names it), and the next run reads it once
/// complete. The runs together print what one run over the whole log
/// prints and leave the state one clean run leaves, nothing counted twice.
/// Before, the half line was replayed (a JSON error) and counted, so the
/// next run took the grown log for another one and replayed it all again.
#[test]
fn a_line_still_being_written_is_read_once_complete() {
    let d = fresh_dir("growing-hourly");
    let lines = log_lines(&d, 200);
    let (today, db) = (d.join("today.jsonl"), d.join("state.db"));
    let db_arg = db.to_str().unwrap();
    let mut hourly = Vec::new();
    for (complete, part, resumed) in [(100, 40, 0), (150, 1, 100), (199, 120, 150)] {
        std::fs::write(&today, written(&lines, complete, part)).unwrap();
        let run = evolve(&today, &["--state", db_arg, "--save-every", "7"]);
        let summary = run.last().unwrap().clone();
        assert_eq!(summary["unfinished_line"], complete + 1, "{summary}");
        assert_eq!(summary["lines"], complete - resumed, "{summary}");
        assert_eq!(
            summary["resumed_after_line"].as_u64().unwrap_or(0),
            resumed as u64
        );
        hourly.extend(without_summary(run));
    }
    std::fs::write(&today, lines.concat()).unwrap();
    let last = evolve(&today, &["--state", db_arg]);
    let summary = last.last().unwrap().clone();
    assert_eq!(summary["resumed_after_line"], 199, "{summary}");
    assert_eq!(summary["lines"], 1, "{summary}");
    assert!(summary.get("unfinished_line").is_none(), "{summary}");
    hourly.extend(without_summary(last));

    let straight = evolve(&today, &[]);
    assert!(straight.iter().any(|l| l["event"] == "proposed"));
    assert_eq!(hourly, without_summary(straight));
    let clean = d.join("clean.db");
    evolve(&today, &["--state", clean.to_str().unwrap()]);
    assert_eq!(saved(&db), saved(&clean));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A log rotated under the same path (the writer moved today's file away
/// and started tomorrow's) is another log: read from its first line, its
/// own unfinished last line left for later too.
#[test]
fn a_rotated_log_is_read_from_its_first_line() {
    let d = fresh_dir("growing-rotated");
    let lines = log_lines(&d, 200);
    let (path, db) = (d.join("events.jsonl"), d.join("state.db"));
    let db_arg = db.to_str().unwrap();
    std::fs::write(&path, lines[..120].concat()).unwrap();
    evolve(&path, &["--state", db_arg]);
    std::fs::rename(&path, d.join("events.jsonl.1")).unwrap();
    std::fs::write(&path, written(&lines[120..], 60, 30)).unwrap();
    let run = evolve(&path, &["--state", db_arg]);
    let summary = run.last().unwrap();
    assert_eq!(summary["new_log"], true, "{summary}");
    assert_eq!(summary["lines"], 60, "{summary}");
    assert_eq!(summary["unfinished_line"], 61, "{summary}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A log that really ends without a newline: with `--state` its last line
/// waits for one (the summary says which), and is read once it comes;
/// without a state there is no later run, and it is read at once.
#[test]
fn a_last_line_without_a_newline_waits_only_for_a_state() {
    let d = fresh_dir("growing-no-newline");
    let lines = log_lines(&d, 30);
    let path = d.join("events.jsonl");
    let text = lines.concat();
    std::fs::write(&path, text.trim_end()).unwrap();
    let straight = evolve(&path, &[]);
    assert_eq!(straight.last().unwrap()["lines"], 30);
    assert!(straight.last().unwrap().get("unfinished_line").is_none());

    let db = d.join("state.db");
    let run = evolve(&path, &["--state", db.to_str().unwrap()]);
    let summary = run.last().unwrap();
    assert_eq!(
        (summary["lines"].clone(), summary["unfinished_line"].clone()),
        (29.into(), 30.into())
    );
    std::fs::write(&path, &text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args([
            "evolve",
            "--schema",
            &fixture("flight_template.json"),
            "--state",
        ])
        .args([&db, &path])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let summary: Value = serde_json::from_str(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(summary["resumed_after_line"], 29, "{summary}");
    assert_eq!(summary["lines"], 1, "{summary}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Standard input alike: an unfinished last line is left for the run that
/// sees it complete, and another log, shorter than the one saved and cut
/// in a line, is replayed from the lines held while checking it, its
/// unfinished line named by its own number.
#[test]
fn standard_input_leaves_its_unfinished_line_too() {
    let d = fresh_dir("growing-stdin");
    let lines = log_lines(&d, 200);
    let db = d.join("state.db");
    let summary = |input: String| -> Value {
        let schema = fixture("flight_template.json");
        let args = [
            "evolve",
            "--schema",
            &schema,
            "--state",
            db.to_str().unwrap(),
            "-",
        ];
        let run = crate::common::run_with_stdin(&args, input.as_bytes());
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.lines().pop().unwrap()
    };
    let first = summary(written(&lines, 100, 50));
    assert_eq!(
        (&first["lines"], &first["unfinished_line"]),
        (&100.into(), &101.into())
    );
    let second = summary(written(&lines, 150, 0));
    assert_eq!(second["resumed_after_line"], 100, "{second}");
    assert_eq!(second["lines"], 50, "{second}");
    assert!(second.get("unfinished_line").is_none(), "{second}");
    let other = summary(written(&lines[150..], 40, 10));
    assert_eq!(other["new_log"], true, "{other}");
    assert_eq!(
        (&other["lines"], &other["unfinished_line"]),
        (&40.into(), &41.into())
    );
    std::fs::remove_dir_all(&d).unwrap();
}
