//! The exact text users and logs see, pinned for a sample of codes and for
//! every error type's `Display` (the `semver` crate's practice): a change to
//! one of these strings is a visible change and belongs in the changelog.
//! Also: `docs/error-codes.md` documents every `IssueCode` and no stale one.

use std::collections::BTreeSet;

use sdsi::issue::UnknownIssueCode;
use sdsi::key::JsonKind;
use sdsi::{CompiledSchema, Issue, IssueCode, KeyName, KeyType, SchemaTemplate};
use serde_json::{Value, json};

fn schema() -> CompiledSchema {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "f_v1", "scenario": "f",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "o"},
            {"key_name": "n", "key_type": "integer", "required": false, "semantic_description": "n"},
            {"key_name": "tags", "key_type": "array", "required": false, "semantic_description": "t"}
        ]
    }))
    .unwrap();
    CompiledSchema::new(&template).unwrap()
}

/// The one helper: each issue as `code at path: message`, its `Display`.
fn shown(issues: &[Issue]) -> Vec<String> {
    issues.iter().map(ToString::to_string).collect()
}

fn errors_of(message: Value) -> Vec<String> {
    shown(schema().validate(&message).errors())
}

#[test]
fn message_codes() {
    assert_eq!(
        errors_of(json!([])),
        ["not_an_object at /: message must be a JSON object"]
    );
    assert_eq!(
        errors_of(json!({"payload": {"origin": "PEK"}})),
        ["missing_schema_id at /schema_id: message has no schema_id"]
    );
    assert_eq!(
        errors_of(json!({"schema_id": "x", "payload": {"origin": "PEK"}})),
        [r#"schema_id_mismatch at /schema_id: expected schema_id "f_v1", found "x""#]
    );
    assert_eq!(
        errors_of(json!({"schema_id": "f_v1"})),
        ["missing_payload at /payload: message has no payload"]
    );
    assert_eq!(
        errors_of(json!({"schema_id": "f_v1", "payload": []})),
        ["not_an_object at /payload: payload must be a JSON object"]
    );
}

#[test]
fn payload_codes() {
    assert_eq!(
        errors_of(json!({"schema_id": "f_v1", "payload": {"n": "two", "seat": "1", "other": 3}})),
        [
            "type_mismatch at /payload/n: expected integer, found string",
            "missing_required_key at /payload/origin: required key is missing",
            r#"invalid_other at /payload/other: "other" must be a string or an array of strings"#,
            "unknown_key at /payload/seat: key is not defined by the schema",
        ]
    );
    assert_eq!(
        errors_of(json!({"schema_id": "f_v1", "payload": {"origin": "A", "other": ["a", 2]}})),
        [r#"invalid_other at /payload/other/1: every element of "other" must be a string"#]
    );
}

#[test]
fn type_mismatch_carries_its_kinds_as_data() {
    let schema = schema();
    let report =
        schema.validate_owned(json!({"schema_id": "f_v1", "payload": {"origin": "A", "n": 2.5}}));
    let issue = &report.errors()[0];
    assert_eq!(issue.code(), IssueCode::TypeMismatch);
    assert_eq!(issue.expected(), Some(KeyType::Integer));
    assert_eq!(issue.found(), Some(JsonKind::Number));
    assert_eq!(
        serde_json::to_value(issue).unwrap(),
        json!({"code": "type_mismatch", "path": "/payload/n",
               "message": "expected integer, found number",
               "expected": "integer", "found": "number"})
    );
    let report = schema.validate_owned(json!({"schema_id": "f_v1", "payload": {}}));
    let other = &report.errors()[0];
    assert_eq!((other.expected(), other.found()), (None, None));
}

#[test]
fn limit_exceeded_names_the_limit() {
    let text = format!(
        r#"{{"schema_id": "f_v1", "payload": {{"origin": "A", "tags": {}}}}}"#,
        "[".repeat(40) + &"]".repeat(40)
    );
    let schema = schema();
    let report = schema.validate_str(&text);
    assert_eq!(
        shown(report.errors()),
        ["limit_exceeded at /payload/tags: nesting depth exceeds the limit of 32"]
    );
    assert_eq!(report.errors()[0].limit_value(), Some(32));
}

#[test]
fn template_error_display() {
    let error = SchemaTemplate::from_value(&json!({"schema_id": "x", "scenario": "y", "keys": [
        {"key_name": "Bad", "key_type": "float", "required": "yes", "semantic_description": "d"}]}))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        concat!(
            "invalid schema template (3 problems); ",
            r#"invalid_key_name at /keys/0/key_name: key name "Bad" is not snake_case (lowercase ascii words joined by single underscores); "#,
            r#"unknown_key_type at /keys/0/key_type: unknown key type "float" (did you mean "number"?); "#,
            r#"invalid_member at /keys/0/required: member "required" must be a boolean"#
        )
    );
    let error = SchemaTemplate::from_value(&json!([])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid schema template (1 problem); not_an_object at /: a template must be a JSON object"
    );
}

#[test]
fn value_type_errors_display() {
    assert_eq!(
        KeyName::new("Bad").unwrap_err().to_string(),
        r#"key name "Bad" is not snake_case (lowercase ascii words joined by single underscores)"#
    );
    assert_eq!(
        "float".parse::<KeyType>().unwrap_err().to_string(),
        r#"unknown key type "float" (did you mean "number"?)"#
    );
    assert_eq!(
        "bad".parse::<IssueCode>().unwrap_err(),
        UnknownIssueCode("bad".to_owned())
    );
    assert_eq!(
        "bad".parse::<IssueCode>().unwrap_err().to_string(),
        r#"unknown issue code "bad""#
    );
}

#[cfg(feature = "envelope")]
#[test]
fn envelope_error_display() {
    let error = sdsi::Envelope::from_value(&json!({
        "id": "x", "protocol_version": "0.1", "timestamp": "2026-01-01T00:00:00Z",
        "agent_id": "a", "target_agent": "b", "message_type": "m", "capabilities": []
    }))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        concat!(
            "invalid envelope (2 problems); ",
            r#"invalid_uuid at /id: "x" is not a uuid in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx; "#,
            r#"missing_field at /payload: mandatory field "payload" is missing"#
        )
    );
}

#[cfg(feature = "patch")]
#[test]
fn patch_error_display() {
    let error = sdsi::patch::SchemaPatch::from_slice(b"[]").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("patch refused (1 problem); invalid_patch at /: "),
        "{error}"
    );
}

#[test]
fn codes_round_trip_through_their_names() {
    for code in IssueCode::ALL {
        assert_eq!(code.as_str().parse::<IssueCode>(), Ok(code));
        assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
    }
    let names: BTreeSet<_> = IssueCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(names.len(), IssueCode::ALL.len(), "two codes share a name");
}

/// Every code in a table row's first column of docs/error-codes.md, and the
/// section each sits in.
fn documented_codes() -> Vec<(String, String)> {
    let text = include_str!("../../docs/error-codes.md");
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title.to_owned();
        } else if let Some(rest) = line.strip_prefix("| `") {
            if let Some((code, _)) = rest.split_once('`') {
                out.push((section.clone(), code.to_owned()));
            }
        }
    }
    out
}

#[test]
fn error_code_reference_is_complete_and_current() {
    let documented = documented_codes();
    assert!(documented.len() > 40, "the parser found too few rows");
    let known: BTreeSet<&str> = IssueCode::ALL.iter().map(|c| c.as_str()).collect();
    for code in IssueCode::ALL {
        assert!(
            documented.iter().any(|(_, c)| c == code.as_str()),
            "docs/error-codes.md does not document {code}"
        );
    }
    for (section, code) in &documented {
        let cli_only = section.starts_with("CLI");
        assert!(
            known.contains(code.as_str()) != cli_only,
            "docs/error-codes.md, section {section:?}: {code:?} is {}",
            if cli_only {
                "a library code listed as CLI-only"
            } else {
                "not an IssueCode"
            }
        );
    }
}

#[cfg(feature = "evolution")]
#[test]
fn snapshot_error_display() {
    let store = sdsi::SchemaStore::new(
        SchemaTemplate::from_value(&json!({"schema_id": "f_v1", "scenario": "f", "keys": []}))
            .unwrap(),
        sdsi::patch::LifecyclePolicy::default(),
    )
    .unwrap();
    let mut value = serde_json::to_value(&store).unwrap();
    value["version"] = json!(2);
    assert_eq!(
        serde_json::from_value::<sdsi::SchemaStore>(value)
            .unwrap_err()
            .to_string(),
        "schema store snapshot version 2 is not supported (this build reads version 1)"
    );
    assert_eq!(
        serde_json::from_value::<sdsi::SchemaStore>(json!({"format": "x", "version": 1}))
            .unwrap_err()
            .to_string(),
        "not a schema store snapshot: format \"x\", expected \"sdsi.store\""
    );
    assert_eq!(
        serde_json::from_value::<sdsi::SchemaStore>(json!({"format": "sdsi.store", "version": 1}))
            .unwrap_err()
            .to_string(),
        "schema store snapshot has no `base`"
    );
    assert_eq!(
        serde_json::from_value::<sdsi::evolution::EvolutionState>(
            json!({"format": "sdsi.evolution", "version": 9, "pools": []})
        )
        .unwrap_err()
        .to_string(),
        "evolution state version 9 is not supported (this build reads version 1)"
    );
}
