//! Data-driven conformance cases from `tests/cases/*.json`.
//!
//! Payload groups: `{description, schema, options?, tests: [{description, data,
//! valid, errors: [[code, path]], warnings?, normalized?}]}`; every test runs
//! through all four entry points (Value and bytes, report and verdict), which
//! must agree. Template cases (`templates.json`): `{description, template,
//! valid, errors, warnings?}`.

use crate::common::{cases, expected, pairs};
use sdsi::validate::{Limits, UnknownKeys, ValidateOptions};
use sdsi::{CompiledSchema, Report, SchemaTemplate};
use serde_json::Value;

fn options(group: &Value) -> ValidateOptions {
    let mut options = ValidateOptions::default();
    let mut limits = Limits::default();
    if let Some(o) = group.get("options") {
        if o.get("unknown_keys").and_then(Value::as_str) == Some("warn") {
            options = options.unknown_keys(UnknownKeys::Warn);
        }
        if let Some(n) = o.get("max_depth").and_then(Value::as_u64) {
            limits = limits.with_max_depth(n as usize);
        }
        if let Some(n) = o.get("max_keys").and_then(Value::as_u64) {
            limits = limits.with_max_keys(n as usize);
        }
    }
    options.limits(limits)
}

fn run_payload_file(name: &str) -> usize {
    let mut count = 0;
    for group in cases(name) {
        let gdesc = group["description"].as_str().unwrap();
        let template =
            SchemaTemplate::from_value(&group["schema"]).unwrap_or_else(|e| panic!("{gdesc}: {e}"));
        let schema = CompiledSchema::with_options(&template, options(&group)).unwrap();
        for case in group["tests"].as_array().unwrap() {
            let desc = format!("{gdesc} / {}", case["description"].as_str().unwrap());
            let data = &case["data"];
            let text = serde_json::to_string(data).unwrap();
            let report = schema.validate(data);
            let from_bytes = schema.validate_str(&text);
            assert_eq!(
                report, from_bytes,
                "{desc}: bytes path differs from Value path"
            );
            check_report(&desc, case, &report);
            let valid = case["valid"].as_bool().unwrap();
            assert_eq!(schema.is_valid(data), valid, "{desc}: is_valid");
            assert_eq!(schema.is_valid_str(&text), valid, "{desc}: is_valid_str");
            count += 1;
        }
    }
    count
}

fn check_report(desc: &str, case: &Value, report: &Report) {
    assert_eq!(
        report.is_valid(),
        case["valid"].as_bool().unwrap(),
        "{desc}: verdict; errors {:?}",
        report.errors()
    );
    assert_eq!(
        pairs(report.errors()),
        expected(case, "errors"),
        "{desc}: errors"
    );
    assert_eq!(
        pairs(report.warnings()),
        expected(case, "warnings"),
        "{desc}: warnings"
    );
    for issue in report.errors().iter().chain(report.warnings()) {
        assert!(!issue.message().is_empty(), "{desc}: empty message");
    }
    if let Some(normalized) = case.get("normalized") {
        let actual = report.normalized().map(|m| Value::Object(m.to_map()));
        assert_eq!(actual.as_ref(), Some(normalized), "{desc}: normalized");
    }
    if !report.is_valid() {
        assert!(
            report.normalized().is_none(),
            "{desc}: normalized on an invalid report"
        );
    }
}

#[test]
fn draft_figures() {
    assert!(run_payload_file("draft_figures.json") >= 10);
}

#[test]
fn payload_codes() {
    assert!(run_payload_file("payload_codes.json") >= 25);
}

#[test]
fn validation_options() {
    assert!(run_payload_file("options.json") >= 5);
}

#[test]
fn json_schema_test_suite_type_and_required() {
    assert!(run_payload_file("json_schema_suite.json") >= 60);
}

#[test]
fn templates() {
    for case in cases("templates.json") {
        let desc = case["description"].as_str().unwrap();
        let valid = case["valid"].as_bool().unwrap();
        match SchemaTemplate::from_value(&case["template"]) {
            Ok(template) => {
                assert!(valid, "{desc}: accepted an invalid template");
                let check = template.check();
                assert_eq!(
                    pairs(check.warnings()),
                    expected(&case, "warnings"),
                    "{desc}: warnings"
                );
                assert!(CompiledSchema::new(&template).is_ok(), "{desc}: compile");
                let back = serde_json::to_value(&template).unwrap();
                assert_eq!(back, case["template"], "{desc}: round trip");
            }
            Err(err) => {
                assert!(!valid, "{desc}: rejected a valid template: {err}");
                assert_eq!(
                    pairs(err.errors()),
                    expected(&case, "errors"),
                    "{desc}: errors"
                );
                let text = serde_json::to_vec(&case["template"]).unwrap();
                assert_eq!(
                    SchemaTemplate::from_slice(&text).unwrap_err(),
                    err,
                    "{desc}: from_slice"
                );
            }
        }
    }
}

/// An `extra` member named like a real one cannot make the published JSON
/// disagree with the compiled schema: `check` refuses it, compiling refuses
/// it, and serialization never writes it.
#[test]
fn extra_members_cannot_shadow_real_ones() {
    let mut template: SchemaTemplate = serde_json::from_value(serde_json::json!({
        "schema_id": "s", "scenario": "x",
        "keys": [{"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Rest."}]
    }))
    .unwrap();
    template.extra.insert("schema_id".into(), "evil".into());
    template.keys[0]
        .extra
        .insert("required".into(), true.into());
    let problems = template.check();
    assert_eq!(
        pairs(problems.errors()),
        [
            ("shadowed_member", "/schema_id".to_owned()),
            ("shadowed_member", "/keys/0/required".to_owned()),
        ]
    );
    assert!(CompiledSchema::new(&template).is_err());
    let written = serde_json::to_string(&template).unwrap();
    assert_eq!(written.matches("schema_id").count(), 1, "{written}");
    assert!(!written.contains("evil"));
    assert_eq!(written.matches("\"required\"").count(), 1, "{written}");
}

/// Whole numbers beyond 64 bits in an integer key: accepted by default (JSON
/// Schema says integer), refused with `integer_out_of_range` on request; the
/// same on both paths.
#[test]
fn big_integers_policy() {
    use sdsi::validate::BigIntegers;
    let template = SchemaTemplate::from_value(&serde_json::json!({
        "schema_id": "s", "scenario": "x",
        "keys": [
            {"key_name": "n", "key_type": "integer", "required": true, "semantic_description": "N."},
            {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Rest."}
        ]
    }))
    .unwrap();
    let accept = CompiledSchema::new(&template).unwrap();
    let reject = CompiledSchema::with_options(
        &template,
        ValidateOptions::default().big_integers(BigIntegers::Reject),
    )
    .unwrap();
    for (text, big) in [
        ("1e20", true),
        ("18446744073709551616", true),
        ("-1e19", true),
        ("18446744073709551615", false),
        ("1e19", false),
        ("-9223372036854775808", false),
        ("2.0", false),
    ] {
        let message = format!(r#"{{"schema_id": "s", "payload": {{"n": {text}}}}}"#);
        let value: Value = serde_json::from_str(&message).unwrap();
        assert!(accept.validate(&value).is_valid(), "{text}");
        assert!(accept.is_valid_str(&message), "{text}");
        let report = reject.validate(&value);
        assert_eq!(report, reject.validate_str(&message), "{text}");
        assert_eq!(reject.is_valid_str(&message), !big, "{text}");
        if big {
            assert_eq!(
                pairs(report.errors()),
                [("integer_out_of_range", "/payload/n".to_owned())],
                "{text}"
            );
        } else {
            assert!(report.is_valid(), "{text}: {:?}", report.errors());
        }
    }
}
