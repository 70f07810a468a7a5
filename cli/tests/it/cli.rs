//! Runs the real `sdsi` binary over the fixtures in `tests/fixtures/` and checks
//! the contract of `docs/cli.md`: one JSON object on stdout with exactly the
//! documented members, and exit status 0 (valid), 1 (invalid) or 2 (unusable).

use crate::common::{Run, codes, fixture, pairs, run_with_stdin, sdsi};
use serde_json::{Value, json};

const VALIDATE_MEMBERS: [&str; 4] = ["valid", "errors", "warnings", "normalized"];
const CHECK_MEMBERS: [&str; 3] = ["valid", "errors", "warnings"];

fn validate(template: &str, message: &str) -> Run {
    sdsi(&[
        "validate",
        "--schema",
        &fixture(template),
        &fixture(message),
    ])
}

#[test]
fn valid_message_exits_0_with_normalized_payload() {
    let run = validate("flight_template.json", "valid_message.json");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(out["valid"], true);
    assert_eq!(out["errors"], json!([]));
    assert_eq!(out["warnings"], json!([]));
    assert_eq!(
        out["normalized"],
        json!({"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
               "cabin_class": "business", "passenger_count": 1, "other": "window seat"})
    );
}

#[test]
fn invalid_message_exits_1_with_every_problem() {
    let run = validate("flight_template.json", "invalid_message.json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(out["valid"], false);
    assert_eq!(
        codes(&out["errors"]),
        pairs(&[
            ("missing_required_key", "/payload/origin"),
            ("invalid_other", "/payload/other"),
            ("type_mismatch", "/payload/passenger_count"),
            ("unknown_key", "/payload/seat"),
        ])
    );
    assert_eq!(
        out["errors"][2]["message"],
        "expected integer, found string"
    );
    assert_eq!(out["normalized"], Value::Null);
}

#[test]
fn valid_json_that_is_not_a_message_exits_1() {
    let template = fixture("flight_template.json");
    let run = run_with_stdin(&["validate", "--schema", &template, "-"], b"[1, 2]");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(codes(&out["errors"]), pairs(&[("not_an_object", "")]));
}

#[test]
fn malformed_message_exits_2_with_invalid_json() {
    let run = validate("flight_template.json", "malformed_message.json");
    assert_eq!(run.code, 2, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(out["valid"], false);
    assert_eq!(codes(&out["errors"]), pairs(&[("invalid_json", "")]));
    assert_eq!(out["normalized"], Value::Null);
}

#[test]
fn invalid_template_on_validate_exits_2_with_template_errors() {
    let run = validate("invalid_template.json", "valid_message.json");
    assert_eq!(run.code, 2, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(out["valid"], false);
    // Paths point into the template, not the message.
    assert_eq!(
        codes(&out["errors"]),
        pairs(&[
            ("missing_member", "/scenario"),
            ("invalid_key_name", "/keys/0/key_name"),
            ("default_type_mismatch", "/keys/1/default_value"),
            ("duplicate_key_name", "/keys/2/key_name"),
            ("other_must_be_optional", "/keys/3/required"),
        ])
    );
    assert_eq!(
        codes(&out["warnings"]),
        pairs(&[("empty_semantic_description", "/keys/3/semantic_description")])
    );
    assert_eq!(out["normalized"], Value::Null);
}

#[test]
fn malformed_template_on_validate_exits_2() {
    let run = validate("malformed_template.json", "valid_message.json");
    assert_eq!(run.code, 2);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(codes(&out["errors"]), pairs(&[("invalid_json", "")]));
}

#[test]
fn missing_message_file_exits_2_with_unreadable_input() {
    let missing = fixture("no_such_message.json");
    let run = sdsi(&[
        "validate",
        "--schema",
        &fixture("flight_template.json"),
        &missing,
    ]);
    assert_eq!(run.code, 2);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(out["valid"], false);
    assert_eq!(codes(&out["errors"]), pairs(&[("unreadable_input", "")]));
    let message = out["errors"][0]["message"].as_str().expect("message");
    assert!(
        message.starts_with(&format!("cannot read {missing}: ")),
        "{message}"
    );
    assert_eq!(out["normalized"], Value::Null);
}

#[test]
fn missing_template_and_message_are_both_reported() {
    let run = validate("no_such_template.json", "no_such_message.json");
    assert_eq!(run.code, 2);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(
        codes(&out["errors"]),
        pairs(&[("unreadable_input", ""), ("unreadable_input", "")])
    );
    assert!(
        out["errors"][0]["message"]
            .as_str()
            .expect("message")
            .contains("no_such_template.json")
    );
}

#[test]
fn message_from_stdin_gets_defaults() {
    let template = fixture("flight_template.json");
    let message = br#"{"schema_id": "flight_booking_v1",
        "payload": {"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"}}"#;
    let run = run_with_stdin(&["validate", "--schema", &template, "-"], message);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(
        out["normalized"],
        json!({"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
               "cabin_class": "economy", "passenger_count": 1})
    );
}

#[test]
fn stdin_cannot_be_both_inputs() {
    let run = run_with_stdin(&["validate", "--schema", "-", "-"], b"{}");
    assert_eq!(run.code, 2);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(codes(&out["errors"]), pairs(&[("unreadable_input", "")]));
}

#[test]
fn template_warnings_stay_out_of_a_validation_report() {
    let template = fixture("warning_template.json");
    let message = br#"{"schema_id": "coffee_v1", "payload": {"size": "large"}}"#;
    let run = run_with_stdin(&["validate", "-s", &template, "-"], message);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(out["warnings"], json!([]));
    assert_eq!(out["normalized"], json!({"size": "large", "milk": false}));
}

#[test]
fn oversized_message_exits_1_with_limit_exceeded() {
    let template = fixture("flight_template.json");
    let max = 4 << 20;
    let message = vec![b' '; max + 1];
    let run = run_with_stdin(&["validate", "--schema", &template, "-"], &message);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.object(&VALIDATE_MEMBERS);
    assert_eq!(codes(&out["errors"]), pairs(&[("limit_exceeded", "")]));
    assert_eq!(out["errors"][0]["limit"], max);
}

#[test]
fn check_template_valid_exits_0() {
    let run = sdsi(&[
        "check-template",
        "--schema",
        &fixture("flight_template.json"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.object(&CHECK_MEMBERS);
    assert_eq!(out, json!({"valid": true, "errors": [], "warnings": []}));
}

#[test]
fn check_template_invalid_exits_1() {
    let run = sdsi(&[
        "check-template",
        "--schema",
        &fixture("invalid_template.json"),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.object(&CHECK_MEMBERS);
    assert_eq!(out["valid"], false);
    assert_eq!(
        codes(&out["errors"]),
        pairs(&[
            ("missing_member", "/scenario"),
            ("invalid_key_name", "/keys/0/key_name"),
            ("default_type_mismatch", "/keys/1/default_value"),
            ("duplicate_key_name", "/keys/2/key_name"),
            ("other_must_be_optional", "/keys/3/required"),
        ])
    );
    assert_eq!(
        codes(&out["warnings"]),
        pairs(&[("empty_semantic_description", "/keys/3/semantic_description")])
    );
}

#[test]
fn check_template_not_an_object_exits_1() {
    let run = run_with_stdin(&["check-template", "--schema", "-"], b"[]");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.object(&CHECK_MEMBERS);
    assert_eq!(codes(&out["errors"]), pairs(&[("not_an_object", "")]));
}

#[test]
fn check_template_malformed_exits_2() {
    let run = sdsi(&[
        "check-template",
        "--schema",
        &fixture("malformed_template.json"),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let out = run.object(&CHECK_MEMBERS);
    assert_eq!(out["valid"], false);
    assert_eq!(codes(&out["errors"]), pairs(&[("invalid_json", "")]));
}

#[test]
fn check_template_with_warning_is_still_valid() {
    let run = sdsi(&[
        "check-template",
        "--schema",
        &fixture("warning_template.json"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.object(&CHECK_MEMBERS);
    assert_eq!(out["valid"], true);
    assert_eq!(out["errors"], json!([]));
    assert_eq!(
        codes(&out["warnings"]),
        pairs(&[("empty_semantic_description", "/keys/1/semantic_description")])
    );
}

#[test]
fn check_template_missing_file_exits_2() {
    let run = sdsi(&[
        "check-template",
        "--schema",
        &fixture("no_such_template.json"),
    ]);
    assert_eq!(run.code, 2);
    let out = run.object(&CHECK_MEMBERS);
    assert_eq!(codes(&out["errors"]), pairs(&[("unreadable_input", "")]));
}

#[test]
fn check_template_reads_stdin() {
    let template = std::fs::read(fixture("flight_template.json")).expect("fixture");
    let run = run_with_stdin(&["check-template", "--schema", "-"], &template);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.object(&CHECK_MEMBERS)["valid"], true);
}

#[test]
fn pretty_output_is_indented_and_equal() {
    let compact = validate("flight_template.json", "invalid_message.json");
    let template = fixture("flight_template.json");
    let message = fixture("invalid_message.json");
    let pretty = sdsi(&["validate", "--pretty", "--schema", &template, &message]);
    assert_eq!(pretty.code, 1);
    assert!(pretty.stdout.lines().count() > 1);
    assert!(pretty.stdout.starts_with("{\n  \"valid\": false,"));
    let a: Value = serde_json::from_str(&compact.stdout).expect("compact JSON");
    let b: Value = serde_json::from_str(&pretty.stdout).expect("pretty JSON");
    assert_eq!(a, b);
    // The flag is global: it may come before the subcommand too.
    let before = sdsi(&["--pretty", "check-template", "--schema", &template]);
    assert_eq!(before.code, 0);
    assert!(before.stdout.lines().count() > 1);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["validate", "--bogus"][..],
        &["validate", &fixture("valid_message.json")][..],
        &["no-such-command"][..],
        &[][..],
    ] {
        let run = sdsi(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(!run.stderr.is_empty(), "{args:?}");
    }
}
