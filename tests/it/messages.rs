//! The exact text users and logs see, pinned for every issue code (one
//! table, [`message_table`], checked by `every_issue_code_has_its_message_pinned`)
//! and for every error type's `Display` (the `semver` crate's practice): a
//! change to one of these strings is a visible change and belongs in the
//! changelog.
//! Also: `docs/error-codes.md` documents every `IssueCode` and no stale one.

use std::collections::BTreeSet;

use crate::common;
use sdsi::issue::UnknownIssueCode;
use sdsi::key::JsonKind;
use sdsi::validate::{BigIntegers, Limits, ValidateOptions};
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
    for code in IssueCode::ALL.iter().copied() {
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
    for code in IssueCode::ALL.iter().copied() {
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
        "evolution state version 9 is not supported (this build reads version 2)"
    );
}

// ---------------------------------------------------------------------------
// Every code's message, one row each
// ---------------------------------------------------------------------------

/// Makes a row's issues through the public API, from a real input.
type Produce = fn() -> Vec<Issue>;

/// A row's producer where the build has `feature`, `None` where it does not
/// (the part of the library that reports the code is not compiled).
macro_rules! with_feature {
    ($feature:literal, $produce:expr) => {{
        #[cfg(feature = $feature)]
        let produce: Option<Produce> = Some($produce);
        #[cfg(not(feature = $feature))]
        let produce: Option<Produce> = None;
        produce
    }};
}

/// A row of the table: the code, how to make it (`None`: not in this
/// build), and the issue as shown (`code at path: message`).
struct Row {
    code: IssueCode,
    produce: Option<Produce>,
    shown: &'static str,
}

fn row(code: IssueCode, produce: Produce, shown: &'static str) -> Row {
    gated(code, Some(produce), shown)
}

fn gated(code: IssueCode, produce: Option<Produce>, shown: &'static str) -> Row {
    Row {
        code,
        produce,
        shown,
    }
}

fn both(errors: &[Issue], warnings: &[Issue]) -> Vec<Issue> {
    errors.iter().chain(warnings).cloned().collect()
}

/// Everything `SchemaTemplate::from_value` and then `check` say of `value`.
fn template_issues(value: &Value) -> Vec<Issue> {
    match SchemaTemplate::from_value(value) {
        Ok(template) => {
            let problems = template.check();
            both(problems.errors(), problems.warnings())
        }
        Err(error) => both(error.errors(), error.warnings()),
    }
}

/// A template of `keys` (with `other`, so no warning is about it).
fn keys(keys: Value) -> Value {
    let mut keys = keys.as_array().unwrap().clone();
    let other = json!({"key_name": "other", "key_type": "string", "required": false,
                       "semantic_description": "Anything else."});
    keys.push(other);
    json!({"schema_id": "t_v1", "scenario": "t", "keys": keys})
}

/// Everything the flight schema (Figure 2) says of `message`, compiled with
/// `options`.
fn flight_issues(options: ValidateOptions, message: &Value) -> Vec<Issue> {
    let schema = CompiledSchema::with_options(&common::flight_template(), options).unwrap();
    let report = schema.validate(message);
    both(report.errors(), report.warnings())
}

fn flight(message: Value) -> Vec<Issue> {
    flight_issues(ValidateOptions::default(), &message)
}

/// The envelope document's Basic Query example with `change` applied.
#[cfg(feature = "envelope")]
fn envelope_issues(change: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Vec<Issue> {
    let mut envelope = json!({
        "id": "550e8400-e29b-41d4-a716-446655440000", "protocol_version": "0.1",
        "timestamp": "2025-11-21T20:45:00Z", "agent_id": "diana", "target_agent": "hairvault",
        "message_type": "inventory_query", "capabilities": ["inventory.read"],
        "payload": {"product": "olaplex"}});
    change(envelope.as_object_mut().unwrap());
    let report = sdsi::Envelope::parse(&envelope);
    both(report.errors(), report.warnings())
}

/// What compiling the flight template with `patches` refuses, at a day in.
#[cfg(feature = "patch")]
fn refusal(patches: &[sdsi::patch::SchemaPatch]) -> Vec<Issue> {
    let base = common::flight_template();
    sdsi::patch::EffectiveSchema::new(&base)
        .patches(patches)
        .compile(common::MIDNIGHT + time::Duration::days(1))
        .unwrap_err()
        .errors()
        .to_vec()
}

/// A patch (from midnight, for a year) adding `new_keys`.
#[cfg(feature = "patch")]
fn adding(new_keys: Vec<sdsi::KeyDefinition>) -> sdsi::patch::SchemaPatch {
    common::patch("p", common::MIDNIGHT, 365, new_keys)
}

/// A patch refining `key` in place of the base key of its name.
#[cfg(feature = "patch")]
fn modifying(key: sdsi::KeyDefinition) -> sdsi::patch::SchemaPatch {
    let mut patch = adding(vec![]);
    patch.modified_keys = vec![key];
    patch
}

/// A store whose patch key `meal` nobody uses in a week of bookings:
/// deprecated when its trial ends, withdrawn 14 days later. Returns the
/// store and that instant.
#[cfg(feature = "patch")]
fn store_with_withdrawn_meal() -> (sdsi::SchemaStore, time::OffsetDateTime) {
    use sdsi::patch::{DenySensitive, KeyState};
    use time::Duration;
    let mut store = common::flight_store();
    let t0 = common::MIDNIGHT;
    let meal = common::key("meal", KeyType::String);
    store
        .submit(common::patch("p", t0, 365, vec![meal]), t0, &DenySensitive)
        .unwrap();
    for day in 0..7 {
        let booking =
            json!({"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"});
        let at = t0 + Duration::days(day) + Duration::hours(12);
        store.record(&common::flight_message(booking), "agent-1", at);
    }
    let trial_end = t0 + Duration::days(7);
    let states =
        |moves: Vec<sdsi::patch::Transition>| moves.iter().map(|t| t.to).collect::<Vec<_>>();
    assert_eq!(
        states(store.evaluate(trial_end, &DenySensitive).transitions),
        [KeyState::Deprecated]
    );
    let withdrawn_at = trial_end + Duration::days(14);
    assert_eq!(
        states(store.evaluate(withdrawn_at, &DenySensitive).transitions),
        [KeyState::Withdrawn]
    );
    (store, withdrawn_at)
}

/// What A2A's `template_from_fields` warns of `fields`.
#[cfg(feature = "a2a")]
fn fields_issues(fields: Value) -> Vec<Issue> {
    let fields: Vec<sdsi::a2a::FieldDefinition> = serde_json::from_value(fields).unwrap();
    sdsi::a2a::template_from_fields("t_v1", "t", &fields).warnings
}

/// The number `1e400`, which only serde_json's `arbitrary_precision` reads;
/// `None` in a build without it.
fn beyond_a_double() -> Option<Value> {
    serde_json::from_str("1e400").ok()
}

/// The table: for every `IssueCode`, an input that makes it through the
/// public API and the issue exactly as `Display` shows it (code, path and
/// message). A reworded message fails here; it is a visible change and
/// belongs in the changelog.
fn message_table() -> Vec<Row> {
    use IssueCode as C;
    vec![
        // Templates.
        row(
            C::InvalidJson,
            || {
                let schema = CompiledSchema::new(&common::flight_template()).unwrap();
                schema.validate_str(r#"{"schema_id": "#).errors().to_vec()
            },
            "invalid_json at /: EOF while parsing a value at line 1 column 14",
        ),
        row(
            C::InvalidMember,
            || {
                template_issues(&keys(json!([{"key_name": "a", "key_type": "string",
                "required": "yes", "semantic_description": "A."}])))
            },
            r#"invalid_member at /keys/0/required: member "required" must be a boolean"#,
        ),
        row(
            C::MissingMember,
            || {
                template_issues(&keys(json!([{"key_name": "a", "required": false,
                "semantic_description": "A."}])))
            },
            r#"missing_member at /keys/0/key_type: required member "key_type" is missing"#,
        ),
        row(
            C::InvalidKeyName,
            || {
                template_issues(&keys(
                    json!([{"key_name": "cabinClass", "key_type": "string",
                "required": false, "semantic_description": "A."}]),
                ))
            },
            r#"invalid_key_name at /keys/0/key_name: key name "cabinClass" is not snake_case (lowercase ascii words joined by single underscores)"#,
        ),
        row(
            C::DuplicateKeyName,
            || {
                template_issues(&keys(json!([
                {"key_name": "a", "key_type": "string", "required": false, "semantic_description": "A."},
                {"key_name": "a", "key_type": "integer", "required": false, "semantic_description": "A."}])))
            },
            r#"duplicate_key_name at /keys/1/key_name: key name "a" is already used by /keys/0"#,
        ),
        row(
            C::UnknownKeyType,
            || {
                template_issues(&keys(json!([{"key_name": "a", "key_type": "float",
                "required": false, "semantic_description": "A."}])))
            },
            r#"unknown_key_type at /keys/0/key_type: unknown key type "float" (did you mean "number"?)"#,
        ),
        row(
            C::OtherMustBeOptional,
            || {
                template_issues(&json!({"schema_id": "t_v1", "scenario": "t", "keys": [
                {"key_name": "other", "key_type": "string", "required": true, "semantic_description": "Rest."}]}))
            },
            r#"other_must_be_optional at /keys/0/required: the reserved key "other" must be optional (required: false)"#,
        ),
        row(
            C::OtherBadType,
            || {
                template_issues(&json!({"schema_id": "t_v1", "scenario": "t", "keys": [
                {"key_name": "other", "key_type": "object", "required": false, "semantic_description": "Rest."}]}))
            },
            r#"other_bad_type at /keys/0/key_type: the reserved key "other" must be a string or an array, not object"#,
        ),
        row(
            C::DefaultTypeMismatch,
            || {
                template_issues(&keys(json!([{"key_name": "n", "key_type": "integer",
                "required": false, "default_value": "1", "semantic_description": "N."}])))
            },
            "default_type_mismatch at /keys/0/default_value: default value does not match the key's type: expected integer",
        ),
        row(
            C::ShadowedMember,
            || {
                let mut template = SchemaTemplate::from_value(&keys(json!([]))).unwrap();
                template.extra.insert("schema_id".into(), "evil".into());
                let problems = template.check();
                both(problems.errors(), problems.warnings())
            },
            r#"shadowed_member at /schema_id: extra member "schema_id" has the name of a real member: it would be written twice"#,
        ),
        row(
            C::EmptySemanticDescription,
            || {
                template_issues(&keys(json!([{"key_name": "a", "key_type": "string",
                "required": false, "semantic_description": " "}])))
            },
            "empty_semantic_description at /keys/0/semantic_description: semantic description is empty: the client's model has nothing to map intent against",
        ),
        row(
            C::MissingOther,
            || template_issues(&json!({"schema_id": "t_v1", "scenario": "t", "keys": []})),
            r#"missing_other at /keys: the template does not declare "other": it is accepted anyway, but clients are not told where unmapped requests go"#,
        ),
        row(
            C::EmptyIdentifier,
            || {
                template_issues(&json!({"schema_id": "t_v1", "scenario": "", "keys": [
                {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Rest."}]}))
            },
            "empty_identifier at /scenario: scenario is empty: clients and stores tell templates apart by it",
        ),
        row(
            C::NullOptionalKey,
            || {
                template_issues(&keys(json!([{"key_name": "a", "key_type": "null",
                "required": false, "semantic_description": "A."}])))
            },
            r#"null_optional_key at /keys/0/key_type: an optional key of type null: its only value, null, means "not given""#,
        ),
        row(
            C::DefaultOnRequiredKey,
            || {
                template_issues(&keys(json!([{"key_name": "a", "key_type": "string",
                "required": true, "default_value": "x", "semantic_description": "A."}])))
            },
            "default_on_required_key at /keys/0/default_value: a required key's default never applies: a payload without the key is invalid",
        ),
        // Messages and payloads (the flight template, Figure 2).
        row(
            C::NotAnObject,
            || flight(json!([])),
            "not_an_object at /: message must be a JSON object",
        ),
        row(
            C::MissingSchemaId,
            || {
                flight(
                    json!({"payload": {"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"}}),
                )
            },
            "missing_schema_id at /schema_id: message has no schema_id",
        ),
        row(
            C::SchemaIdMismatch,
            || {
                flight(
                    json!({"schema_id": "flight_booking_v2", "payload": {"origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"}}),
                )
            },
            r#"schema_id_mismatch at /schema_id: expected schema_id "flight_booking_v1", found "flight_booking_v2""#,
        ),
        row(
            C::MissingPayload,
            || flight(json!({"schema_id": "flight_booking_v1"})),
            "missing_payload at /payload: message has no payload",
        ),
        row(
            C::MissingRequiredKey,
            || {
                flight(common::flight_message(
                    json!({"origin": "PEK", "destination": "SHA"}),
                ))
            },
            "missing_required_key at /payload/departure_date: required key is missing",
        ),
        row(
            C::TypeMismatch,
            || {
                flight(common::flight_message(
                    json!({"origin": "PEK", "destination": "SHA",
                "departure_date": "2026-05-04", "passenger_count": "two"}),
                ))
            },
            "type_mismatch at /payload/passenger_count: expected integer, found string",
        ),
        row(
            C::UnknownKey,
            || {
                flight(common::flight_message(
                    json!({"origin": "PEK", "destination": "SHA",
                "departure_date": "2026-05-04", "seat": "12A"}),
                ))
            },
            "unknown_key at /payload/seat: key is not defined by the schema",
        ),
        row(
            C::InvalidOther,
            || {
                flight(common::flight_message(
                    json!({"origin": "PEK", "destination": "SHA",
                "departure_date": "2026-05-04", "other": 3}),
                ))
            },
            r#"invalid_other at /payload/other: "other" must be a string or an array of strings"#,
        ),
        row(
            C::LimitExceeded,
            || {
                flight_issues(
                    ValidateOptions::default().limits(Limits::default().with_max_keys(3)),
                    &common::flight_message(json!({"origin": "PEK", "destination": "SHA",
                    "departure_date": "2026-05-04", "passenger_count": 2})),
                )
            },
            "limit_exceeded at /payload: member count exceeds the limit of 3",
        ),
        row(
            C::IntegerOutOfRange,
            || {
                flight_issues(
                    ValidateOptions::default().big_integers(BigIntegers::Reject),
                    &common::flight_message(json!({"origin": "PEK", "destination": "SHA",
                    "departure_date": "2026-05-04", "passenger_count": 1e20})),
                )
            },
            "integer_out_of_range at /payload/passenger_count: integer beyond 64 bits: no i64 or u64 holds it",
        ),
        row(
            C::DeprecatedKey,
            || {
                let mut template = common::flight_template();
                template.keys[3]
                    .extra
                    .insert("deprecated".into(), true.into());
                let schema = CompiledSchema::new(&template).unwrap();
                let report = schema.validate_owned(common::flight_message(json!({"origin": "PEK",
                    "destination": "SHA", "departure_date": "2026-05-04", "cabin_class": "first"})));
                both(report.errors(), report.warnings())
            },
            "deprecated_key at /payload/cabin_class: key is deprecated and will be withdrawn",
        ),
        // Envelopes.
        gated(
            C::MissingField,
            with_feature!("envelope", || envelope_issues(|e| {
                e.remove("target_agent");
            })),
            r#"missing_field at /target_agent: mandatory field "target_agent" is missing"#,
        ),
        gated(
            C::WrongType,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("agent_id".into(), Value::Null);
            })),
            "wrong_type at /agent_id: expected string, found null",
        ),
        gated(
            C::InvalidUuid,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("id".into(), "550e8400-e29b-11d4-a716-446655440000".into());
            })),
            "invalid_uuid at /id: uuid 550e8400-e29b-11d4-a716-446655440000 is of version 1, not version 4",
        ),
        gated(
            C::InvalidTimestamp,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("timestamp".into(), "2025-11-21T20:45:00".into());
            })),
            r#"invalid_timestamp at /timestamp: "2025-11-21T20:45:00" is not an rfc 3339 date-time with a utc offset, e.g. 2025-11-21T20:45:00Z (the 'offset hour' component could not be parsed)"#,
        ),
        gated(
            C::PayloadNotObject,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("payload".into(), json!([]));
            })),
            "payload_not_object at /payload: payload must be a JSON object, found array",
        ),
        gated(
            C::CapabilitiesNotStrings,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("capabilities".into(), json!(["inventory.read", 2]));
            })),
            "capabilities_not_strings at /capabilities/1: a capability must be a string, found number",
        ),
        gated(
            C::UnsupportedVersion,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("protocol_version".into(), "1.0".into());
            })),
            r#"unsupported_version at /protocol_version: protocol version "1.0" has major version 1; this crate speaks major version 0"#,
        ),
        gated(
            C::NonUtcTimestamp,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("timestamp".into(), "2025-11-22T04:45:00+08:00".into());
            })),
            "non_utc_timestamp at /timestamp: timestamp has utc offset +08:00; the envelope asks for utc (Z)",
        ),
        gated(
            C::PayloadKeyNotSnakeCase,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("payload".into(), json!({"productName": "olaplex"}));
            })),
            r#"payload_key_not_snake_case at /payload/productName: payload key "productName" is not snake_case"#,
        ),
        gated(
            C::PayloadTooDeep,
            with_feature!("envelope", || envelope_issues(|e| {
                e.insert("payload".into(), json!({"a": {"b": {"c": {}}}}));
            })),
            "payload_too_deep at /payload/a/b/c: object nested 3 levels inside the payload; the envelope recommends at most 2",
        ),
        // Patches and the key lifecycle.
        gated(
            C::InvalidPatch,
            with_feature!("patch", || {
                sdsi::patch::SchemaPatch::from_slice(b"[]")
                    .unwrap_err()
                    .errors()
                    .to_vec()
            }),
            "invalid_patch at /: invalid type: sequence, expected struct SchemaPatch at line 1 column 0",
        ),
        gated(
            C::InvalidPatchWindow,
            with_feature!("patch", || {
                let mut patch = serde_json::to_value(adding(vec![])).unwrap();
                patch["expires_at"] = patch["timestamp"].clone();
                sdsi::patch::SchemaPatch::from_slice(patch.to_string().as_bytes())
                    .unwrap_err()
                    .errors()
                    .to_vec()
            }),
            "invalid_patch_window at /expires_at: the patch expires at or before its own timestamp",
        ),
        gated(
            C::PatchParentMismatch,
            with_feature!("patch", || {
                let mut patch = adding(vec![]);
                patch.parent_schema_id = "hotel_v1".into();
                refusal(&[patch])
            }),
            r#"patch_parent_mismatch at /parent_schema_id: the patch is for schema "hotel_v1", not "flight_booking_v1""#,
        ),
        gated(
            C::ParentDigestMismatch,
            with_feature!("patch", || {
                let mut patch = adding(vec![]);
                patch.parent_digest = Some("sha256:0000".into());
                refusal(&[patch])
            }),
            "parent_digest_mismatch at /parent_digest: the patch was made for a base schema with different content",
        ),
        gated(
            C::DuplicatePatchId,
            with_feature!("patch", || {
                let seat = adding(vec![common::key("seat", KeyType::String)]);
                let meal = adding(vec![common::key("meal", KeyType::String)]);
                refusal(&[seat, meal])
            }),
            "duplicate_patch_id at /patch_id: another patch with different content has this id",
        ),
        gated(
            C::KeyRetype,
            with_feature!("patch", || {
                refusal(&[adding(vec![common::key(
                    "passenger_count",
                    KeyType::String,
                )])])
            }),
            r#"key_retype at /new_keys/0/key_type: key "passenger_count" has type integer; a patch cannot change it to string"#,
        ),
        gated(
            C::ModificationNotAllowed,
            with_feature!("patch", || {
                refusal(&[modifying(common::key("passenger_count", KeyType::Integer))])
            }),
            "modification_not_allowed at /modified_keys/0: a patch may refine an existing key's semantic description only: its type, required flag, default and other members must stay as they are",
        ),
        gated(
            C::UnknownModifiedKey,
            with_feature!("patch", || {
                refusal(&[modifying(common::key("seat", KeyType::String))])
            }),
            r#"unknown_modified_key at /modified_keys/0/key_name: there is no key "seat" to modify"#,
        ),
        gated(
            C::OtherNotPatchable,
            with_feature!("patch", || {
                refusal(&[adding(vec![common::key("other", KeyType::String)])])
            }),
            r#"other_not_patchable at /new_keys/0: the reserved key "other" cannot be patched"#,
        ),
        gated(
            C::NewKeyRequired,
            with_feature!("patch", || {
                let mut seat = common::key("seat", KeyType::String);
                seat.required = true;
                refusal(&[adding(vec![seat])])
            }),
            "new_key_required at /new_keys/0/required: a patch can only add optional keys: a new required key would break existing clients",
        ),
        gated(
            C::ReservedKeyName,
            with_feature!("patch", || {
                let (mut store, now) = store_with_withdrawn_meal();
                let comeback =
                    common::patch("p2", now, 365, vec![common::key("meal", KeyType::Integer)]);
                store
                    .submit(comeback, now, &sdsi::patch::DenySensitive)
                    .unwrap_err()
                    .errors()
                    .to_vec()
            }),
            r#"reserved_key_name at /new_keys/0/key_name: "meal" belongs to a withdrawn key still accepted from clients; its name is reserved until it is gone"#,
        ),
        gated(
            C::WithdrawnKey,
            with_feature!("patch", || {
                let (store, now) = store_with_withdrawn_meal();
                let report =
                    store
                        .compile_for(None, now)
                        .unwrap()
                        .validate_owned(common::flight_message(
                            json!({"origin": "PEK", "destination": "SHA",
                    "departure_date": "2026-05-04", "meal": "vegan"}),
                        ));
                both(report.errors(), report.warnings())
            }),
            "withdrawn_key at /payload/meal: key is withdrawn; it is accepted only until its backward-compatibility window ends",
        ),
        gated(
            C::UnauthorizedSensitiveChange,
            with_feature!("patch", || {
                let passport = common::key("passport_number", KeyType::String);
                refusal(&[adding(vec![passport])])
            }),
            "unauthorized_sensitive_change at /: the authorizer refused changes to sensitive keys passport_number",
        ),
        gated(
            C::InvalidSignature,
            with_feature!("patch", || {
                let signer =
                    sdsi::patch::Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
                let mut store = common::flight_store().require_signatures(signer);
                let unsigned = adding(vec![common::key("seat", KeyType::String)]);
                store
                    .submit(unsigned, common::MIDNIGHT, &sdsi::patch::DenySensitive)
                    .unwrap_err()
                    .errors()
                    .to_vec()
            }),
            "invalid_signature at /signature: the value carries no signature",
        ),
        gated(
            C::NotCanonical,
            // Only serde_json's `arbitrary_precision` reads a number no
            // double holds (scripts/test.sh runs the tests with it).
            beyond_a_double().and(with_feature!("patch", || {
                let mut patch =
                    serde_json::to_value(adding(vec![common::key("seat", KeyType::Number)]))
                        .unwrap();
                patch["new_keys"][0]["default_value"] = beyond_a_double().unwrap();
                let patch: sdsi::patch::SchemaPatch = serde_json::from_value(patch).unwrap();
                let mut store = common::flight_store();
                store
                    .submit(patch, common::MIDNIGHT, &sdsi::patch::DenySensitive)
                    .unwrap_err()
                    .errors()
                    .to_vec()
            })),
            "not_canonical at /: no canonical JSON form, so no digest: NaN and +/-Infinity are not permitted in JSON",
        ),
        // Exports and the A2A bridge.
        gated(
            C::NotExpressible,
            with_feature!("export", || {
                let template = SchemaTemplate::from_value(&keys(json!([{"key_name": "tags",
                "key_type": "array", "required": false, "semantic_description": "Tags."}])))
                .unwrap();
                CompiledSchema::new(&template)
                    .unwrap()
                    .mcp_elicitation_schema()
                    .warnings
            }),
            r#"not_expressible at /keys/0: key "tags" of type array cannot be asked for in an mcp elicitation (only string, number, integer and boolean)"#,
        ),
        gated(
            C::FieldRenamed,
            with_feature!("a2a", || {
                fields_issues(json!([{"name": "bookTitle", "kind": "text"}]))
            }),
            r#"field_renamed at /0/name: field name "bookTitle" is not snake_case: the key is "book_title""#,
        ),
        gated(
            C::LossyMapping,
            with_feature!("a2a", || {
                fields_issues(json!([{"name": "cover", "kind": "file"}]))
            }),
            "lossy_mapping at /0/kind: a file field becomes an object key: its value is taken as the file part's json",
        ),
    ]
}

/// Every `IssueCode` has a row, and every row's input gives exactly one
/// issue of its code, shown exactly as the row says (semver's
/// `assert_to_string`, as a table). All differences are listed at once.
#[test]
fn every_issue_code_has_its_message_pinned() {
    let table = message_table();
    for code in IssueCode::ALL.iter().copied() {
        assert!(
            table.iter().any(|row| row.code == code),
            "no row of message_table pins the message of {code}"
        );
    }
    let mut differences = Vec::new();
    let mut not_in_this_build = Vec::new();
    for row in &table {
        let Some(produce) = row.produce else {
            not_in_this_build.push(row.code);
            continue;
        };
        let issues = produce();
        let shown: Vec<String> = issues
            .iter()
            .filter(|issue| issue.code() == row.code)
            .map(ToString::to_string)
            .collect();
        if shown != [row.shown] {
            differences.push(format!(
                "{}: expected [{:?}], got {shown:?}",
                row.code, row.shown
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    if !not_in_this_build.is_empty() {
        eprintln!("not made in this build (a feature is off): {not_in_this_build:?}");
    }
}

/// The `ALL` lists are slices, not arrays: an array's length is part of its
/// type, so a new variant in a `#[non_exhaustive]` enum would change a
/// public type. Typed bindings say so (an array would not coerce here).
#[test]
fn every_all_list_is_a_slice_with_each_variant_once() {
    fn once<T: PartialEq + std::fmt::Debug>(all: &'static [T]) {
        assert!(!all.is_empty());
        for (i, a) in all.iter().enumerate() {
            assert_eq!(
                all.iter().position(|b| b == a),
                Some(i),
                "{a:?} listed twice"
            );
        }
    }
    let codes: &'static [IssueCode] = IssueCode::ALL;
    let types: &'static [KeyType] = KeyType::ALL;
    let modes: &'static [sdsi::compat::Mode] = sdsi::compat::Mode::ALL;
    once(codes);
    once(types);
    once(modes);
    let mcp: &'static [sdsi::mcp::McpVersion] = sdsi::mcp::McpVersion::ALL;
    once(mcp);
    #[cfg(feature = "envelope")]
    {
        let messages: &'static [sdsi::envelope::ProtocolMessage] =
            sdsi::envelope::ProtocolMessage::ALL;
        once(messages);
    }
    #[cfg(feature = "evolution")]
    {
        let redactions: &'static [sdsi::evolution::Redaction] = sdsi::evolution::Redaction::ALL;
        once(redactions);
    }
}
