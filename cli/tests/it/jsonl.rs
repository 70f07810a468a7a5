//! `sdsi validate --jsonl` (one message per line), a byte order mark before
//! JSON, and `--at` refused whatever the other flags.

use crate::common::{Run, fixture, run_with_stdin};
use serde_json::{Value, json};

/// Runs `sdsi` with `stdin`; (exit code, stdout, stderr).
fn sdsi(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let Run {
        code,
        stdout,
        stderr,
    } = run_with_stdin(args, stdin);
    (code, stdout, stderr)
}

fn valid_line(origin: &str) -> String {
    json!({"schema_id": "flight_booking_v1", "payload": {
        "origin": origin, "destination": "SHA", "departure_date": "2026-05-04"}})
    .to_string()
}

fn jsonl(input: &[u8]) -> (i32, Vec<Value>, Value) {
    let template = fixture("flight_template.json");
    let (code, stdout, stderr) = sdsi(&["validate", "--jsonl", "--schema", &template, "-"], input);
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let summary = serde_json::from_str(stderr.trim()).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (code, lines, summary)
}

#[test]
fn every_line_gets_a_result_with_its_number() {
    let input = format!(
        "\u{feff}{}\n\n{}\r\nnot json\n{}",
        valid_line("PEK"),
        json!({"schema_id": "flight_booking_v1", "payload": {"origin": 1}}),
        valid_line("CAN"),
    );
    let (code, lines, summary) = jsonl(input.as_bytes());
    assert_eq!(code, 1, "one invalid message makes the run invalid");
    let numbers: Vec<u64> = lines.iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 3, 4, 5], "blank line 2 is skipped");
    assert_eq!(
        lines[0]["valid"],
        json!(true),
        "a byte order mark is skipped"
    );
    assert_eq!(lines[0]["normalized"]["passenger_count"], json!(1));
    assert_eq!(lines[1]["errors"][0]["code"], json!("missing_required_key"));
    assert_eq!(lines[2]["errors"][0]["code"], json!("invalid_json"));
    assert_eq!(
        lines[3]["normalized"]["origin"],
        json!("CAN"),
        "last line without newline"
    );
    assert_eq!(summary["messages"], json!(4));
    assert_eq!(
        (summary["valid"].clone(), summary["invalid"].clone()),
        (json!(2), json!(2))
    );
    assert!(summary["messages_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn all_valid_exits_0_and_many_lines_stream() {
    let line = valid_line("PEK");
    let input: String = (0..20_000).map(|_| format!("{line}\n")).collect();
    let (code, lines, summary) = jsonl(input.as_bytes());
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 20_000);
    assert_eq!(summary["valid"], json!(20_000));
}

#[test]
fn an_oversized_line_is_refused_and_the_next_one_read() {
    let long = format!(
        r#"{{"schema_id": "flight_booking_v1", "payload": {{"other": "{}"}}}}"#,
        "x".repeat(5 << 20)
    );
    let input = format!("{long}\n{}\n", valid_line("PEK"));
    let (code, lines, _) = jsonl(input.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(lines[0]["errors"][0]["code"], json!("limit_exceeded"));
    assert_eq!(lines[1]["valid"], json!(true));
}

#[test]
fn a_byte_order_mark_before_a_message_file_is_skipped() {
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend_from_slice(valid_line("PEK").as_bytes());
    let template = fixture("flight_template.json");
    let (code, stdout, _) = sdsi(&["validate", "--schema", &template, "-"], &input);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_bad_at_is_refused_whatever_the_other_flags() {
    let template = fixture("flight_template.json");
    let message = fixture("valid_message.json");
    for extra in [&[][..], &["--jsonl"][..], &["--client", "agent-7"][..]] {
        let mut args = vec!["validate", "--schema", &template, "--at", "garbage"];
        args.extend_from_slice(extra);
        args.push(&message);
        let (code, stdout, _) = sdsi(&args, b"");
        assert_eq!(code, 2, "{extra:?}: {stdout}");
        let out: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(out["errors"][0]["code"], json!("invalid_timestamp"));
    }
}
