//! `sdsi evolve` and `sdsi cluster`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers: a panic is a failed test"
)]

use std::process::Command;

use serde_json::Value;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `sdsi ARGS`; returns the exit code and the JSON lines it printed.
fn sdsi(args: &[&str]) -> (i32, Vec<Value>) {
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(args)
        .output()
        .unwrap();
    let lines = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    (output.status.code().unwrap(), lines)
}

fn events<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == kind).collect()
}

#[test]
fn evolve_replays_a_log_and_proposes_the_seat_key() {
    let (code, lines) = sdsi(&[
        "evolve",
        "--schema",
        &fixture("flight_template.json"),
        &fixture("events.jsonl"),
    ]);
    assert_eq!(code, 1, "one line of the log is not JSON");
    let errors = events(&lines, "error");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["line"], 11);
    assert_eq!(events(&lines, "triggered").len(), 1);
    let proposed = events(&lines, "proposed");
    assert_eq!(proposed.len(), 1);
    let key = &proposed[0]["patch"]["new_keys"][0];
    assert!(key["key_name"].as_str().unwrap().contains("seat"));
    assert_eq!(key["experimental"], true);
    assert_eq!(proposed[0]["submission"]["status"], "applied");
    let summary = lines.last().unwrap();
    assert_eq!(summary["event"], "summary");
    assert_eq!(summary["patches_proposed"], 1);
    assert_eq!(summary["lines"], 97);
}

#[test]
fn evolve_gates_are_flags() {
    // A heat threshold no traffic reaches: nothing fires.
    let (_, lines) = sdsi(&[
        "evolve",
        "--schema",
        &fixture("flight_template.json"),
        "--heat-threshold",
        "1000",
        &fixture("events.jsonl"),
    ]);
    assert!(events(&lines, "triggered").is_empty());
    let (code, lines) = sdsi(&[
        "evolve",
        "--schema",
        &fixture("flight_template.json"),
        "--half-life",
        "soon",
        "x",
    ]);
    assert_eq!(code, 2, "usage error");
    assert!(lines.is_empty());
}

#[test]
fn evolve_with_an_unusable_template_exits_2() {
    let (code, lines) = sdsi(&[
        "evolve",
        "--schema",
        &fixture("invalid_template.json"),
        &fixture("events.jsonl"),
    ]);
    assert_eq!(code, 2);
    assert_eq!(lines.len(), 1);
    assert!(!lines[0]["errors"].as_array().unwrap().is_empty());
}

#[test]
fn cluster_groups_paraphrases_with_stable_ids() {
    let (code, lines) = sdsi(&["cluster", &fixture("fragments.txt")]);
    assert_eq!(code, 0);
    let cluster = |i: usize| lines[i]["cluster"].clone();
    assert_eq!(cluster(0), 0);
    assert_eq!(cluster(1), 0, "a seat by the window joins window seat");
    assert_eq!(cluster(2), 1);
    assert_eq!(cluster(3), Value::Null, "an empty line joins nothing");
    assert_eq!(cluster(4), 1);
    assert_eq!(cluster(5), 0);
    assert_eq!(lines[6]["summary"]["clusters"], 2);
    // At a threshold of 1 only identical embeddings share a cluster: never
    // fewer clusters than at the recommended threshold.
    let (_, strict) = sdsi(&["cluster", "--threshold", "1", &fixture("fragments.txt")]);
    let clusters = strict.last().unwrap()["summary"]["clusters"]
        .as_u64()
        .unwrap();
    assert!(clusters >= 2, "{strict:?}");
    let founded = strict.iter().filter(|l| l["new"] == true).count() as u64;
    assert_eq!(
        founded, clusters,
        "each cluster is founded by exactly one line"
    );
    let (code, _) = sdsi(&["cluster", "--threshold", "2", &fixture("fragments.txt")]);
    assert_eq!(code, 2, "a threshold outside -1..=1 is refused");
}
