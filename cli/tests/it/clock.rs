//! `sdsi evolve` bounds the log's times: a line dated after `--not-after`
//! (by default this machine's clock) is refused, so one far-future line, even
//! the first of a fresh state, changes nothing the real lines do.

use serde_json::Value;

use crate::common::{fixture, fresh_dir, json_lines, log_line};

const WISHES: [&str; 3] = [
    "window seat please",
    "a vegetarian meal",
    "travelling with my cat",
];

/// 240 lines: eight clients, three wishes in turn, one line every five minutes.
fn lines() -> Vec<String> {
    (0..240)
        .map(|i| {
            log_line(
                5 * i,
                &format!("agent-{}", i % 8),
                WISHES[(i as usize / 8) % 3],
            )
        })
        .collect()
}

/// What `sdsi evolve` printed for `lines`, without line numbers, the
/// refusals and the summary (whose line count includes the refused line).
fn evolve(lines: &[String], extra: &[&str]) -> (Vec<Value>, usize) {
    let d = fresh_dir("clock");
    let log = d.join("log.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let schema = fixture("flight_template.json");
    let mut args = vec!["evolve", "--schema", schema.as_str()];
    args.extend_from_slice(extra);
    args.push(log.to_str().unwrap());
    let (code, printed) = json_lines(&args);
    assert_eq!(code, 0, "{printed:#?}");
    let refused = printed
        .iter()
        .filter(|l| l["event"] == "clock_refused")
        .count();
    let kept = printed
        .into_iter()
        .filter(|l| l["event"] != "clock_refused" && l["event"] != "summary")
        .map(|mut l| {
            if let Some(object) = l.as_object_mut() {
                object.remove("line");
            }
            l
        })
        .collect();
    (kept, refused)
}

#[test]
fn a_far_future_line_first_or_midway_changes_nothing() {
    let clean = lines();
    let (expected, none) = evolve(&clean, &[]);
    assert_eq!(none, 0);
    assert!(
        expected.iter().any(|l| l["event"] == "proposed"),
        "{expected:#?}"
    );
    let far =
        log_line(0, "agent-x", WISHES[0]).replace("2026-05-01T08:00:00Z", "9999-12-31T23:59:59Z");
    for at in [0, 100] {
        let mut poisoned = clean.clone();
        poisoned.insert(at, far.clone());
        let (got, refused) = evolve(&poisoned, &[]);
        assert_eq!(refused, 1, "line {at}");
        assert_eq!(got, expected, "a line dated 9999 at line {at}");
    }
}

#[test]
fn not_after_sets_the_bound() {
    // Five-minute steps: lines 0..=12 lie within the first hour.
    let (_, refused) = evolve(&lines(), &["--not-after", "2026-05-01T09:00:00Z"]);
    assert_eq!(refused, 240 - 13);
    let d = fresh_dir("clock-arg");
    let (code, printed) = json_lines(&[
        "evolve",
        "--schema",
        &fixture("flight_template.json"),
        "--not-after",
        "yesterday",
        d.join("none.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{printed:#?}");
}
