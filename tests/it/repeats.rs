//! A member name repeated inside a payload member's value, as in
//! `{"meta": {"a": [[…40 levels…]], "a": 1}}`: serde_json keeps the last
//! occurrence, so every reader of the text (bytes, serde source, typed)
//! gives the report the `Value` path gives the parsed text, or leaves the
//! message to that path (`None`). The property tests that plant such
//! repeats at every depth are in `properties.rs`.

use crate::common::repeats::{nested, text_with_repeats};
use crate::common::text_numbers_arrive_as_maps;
use sdsi::validate::{Limits, Refusal, UnknownKeys, ValidateOptions};
use sdsi::{CompiledSchema, IssueCode, Report, SchemaTemplate};
use serde_json::{Map, Value, json};

fn template() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "notes_v1", "scenario": "notes",
        "keys": [
            {"key_name": "meta", "key_type": "object", "required": true,
             "semantic_description": "Anything about the note."},
            {"key_name": "tags", "key_type": "array", "required": false,
             "semantic_description": "Labels."}
        ]
    }))
    .unwrap()
}

/// The message `{"schema_id": "notes_v1", "payload": <payload>}` as text.
fn message(payload: &str) -> String {
    format!(r#"{{"schema_id":"notes_v1","payload":{payload}}}"#)
}

/// Checks every reader of `text` against the `Value` path on the parsed
/// text, and returns that report (for the caller to look at, or not).
fn agree(schema: &CompiledSchema, text: &str) -> Report<'static> {
    let parsed: Value = serde_json::from_str(text).unwrap();
    let report = schema.validate(&parsed).into_owned();
    assert_eq!(schema.validate_str(text), report, "{text}");
    assert_eq!(schema.is_valid_str(text), report.is_valid(), "{text}");
    assert_eq!(schema.is_valid(&parsed), report.is_valid(), "{text}");
    // (serde_json's `arbitrary_precision` makes its reader no such source.)
    if !text_numbers_arrive_as_maps() {
        let source = || serde_json::Deserializer::from_str(text);
        if let Some(valid) = schema.is_valid_from(&mut source()).unwrap() {
            assert_eq!(valid, report.is_valid(), "{text}");
        }
        if let Some(checked) = schema.problems_from(&mut source()).unwrap() {
            assert_eq!(&checked.problems, report.problems(), "{text}");
        }
    }
    match schema.deserialize_slice::<Map<String, Value>>(text.as_bytes()) {
        Ok(accepted) => {
            assert!(report.is_valid(), "{text}");
            assert_eq!(
                Some(accepted.payload),
                report.normalized().map(|n| n.to_map())
            );
        }
        Err(Refusal::Invalid(refused)) => assert_eq!(*refused, report, "{text}"),
        Err(other) => panic!("{text}: {other}"),
    }
    report
}

/// The issue's example: the deep first `a` is replaced by the shallow
/// last one, so the message is valid; the text readers used to measure the
/// deep one too and answer `limit_exceeded`.
#[test]
fn a_deep_member_replaced_by_a_shallow_repeat_is_valid_from_every_reader() {
    let schema = CompiledSchema::new(&template()).unwrap();
    let deep = nested(40);
    let text = message(&format!(r#"{{"meta":{{"a":{deep},"a":1}}}}"#));
    let report = agree(&schema, &text);
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.normalized().unwrap()["meta"], json!({"a": 1}));
    // A serde source that may repeat names leaves a value it finds too
    // deep to the `Value` path.
    let mut source = serde_json::Deserializer::from_str(&text);
    assert_eq!(schema.is_valid_from(&mut source).unwrap(), None);
    let mut source = serde_json::Deserializer::from_str(&text);
    assert!(schema.problems_from(&mut source).unwrap().is_none());
}

/// The other way round: the last occurrence is the deep one, so the limit
/// is exceeded, with the same issue from every reader.
#[test]
fn a_shallow_member_replaced_by_a_deep_repeat_exceeds_the_limit_everywhere() {
    let schema = CompiledSchema::new(&template()).unwrap();
    let deep = nested(40);
    let report = agree(
        &schema,
        &message(&format!(r#"{{"meta":{{"a":1,"a":{deep}}}}}"#)),
    );
    assert_eq!(report.errors().len(), 1);
    assert_eq!(report.errors()[0].code(), IssueCode::LimitExceeded);
    assert_eq!(report.errors()[0].path(), "/payload/meta");
}

/// Repeats deeper down, inside arrays of objects, in an array key and in a
/// member the schema does not define (kept, so measured, under `Warn`).
#[test]
fn repeats_at_any_depth_and_in_unknown_members_agree() {
    let strict = CompiledSchema::new(&template()).unwrap();
    let warn = CompiledSchema::with_options(
        &template(),
        ValidateOptions::default().unknown_keys(UnknownKeys::Warn),
    )
    .unwrap();
    let deep = nested(35);
    let payloads = [
        format!(r#"{{"meta":{{"list":[{{"b":{{"a":{deep},"a":[]}}}}]}}}}"#),
        format!(r#"{{"meta":{{}},"tags":[1,{{"a":{deep},"a":"x"}}]}}"#),
        format!(r#"{{"meta":{{}},"extra":{{"a":{deep},"a":null}}}}"#),
        format!(r#"{{"meta":{{}},"extra":{{"a":null,"a":{deep}}}}}"#),
        format!(r#"{{"meta":{{"a":{{"a":{deep},"a":2}},"a":{{"a":3,"a":{deep}}}}}}}"#),
    ];
    for payload in &payloads {
        for schema in [&strict, &warn] {
            let _ = agree(schema, &message(payload));
        }
    }
    let report = agree(&warn, &message(&payloads[2]));
    assert!(report.is_valid(), "{report:?}");
    assert_eq!(report.warnings()[0].code(), IssueCode::UnknownKey);
    let report = agree(&warn, &message(&payloads[3]));
    assert_eq!(report.errors()[0].code(), IssueCode::LimitExceeded);
    assert_eq!(report.errors()[0].path(), "/payload/extra");
}

/// Under tight limits the same holds for shallow repeats, and a value too
/// deep with no repeat at all gets the same report either way.
#[test]
fn tight_limits_and_deep_values_without_repeats_agree() {
    let tight = CompiledSchema::with_options(
        &template(),
        ValidateOptions::default().limits(Limits::default().with_max_depth(2)),
    )
    .unwrap();
    for payload in [
        r#"{"meta":{"a":[[1]],"a":1}}"#,
        r#"{"meta":{"a":1,"a":[[1]]}}"#,
        r#"{"meta":{"a":[1]}}"#,
        r#"{"meta":{"a":[[1]]}}"#,
    ] {
        let _ = agree(&tight, &message(payload));
    }
    // A source that promises unique names is taken at its word: no repeat
    // can hide under a value too deep, so it answers at once.
    let text = message(r#"{"meta":{"a":[[1]]}}"#);
    let mut source = serde_json::Deserializer::from_str(&text);
    assert_eq!(
        tight.is_valid_from_unique(&mut source).unwrap(),
        Some(false)
    );
}

/// The property tests' writer: decoys go just before the member they
/// repeat, so the text parses back to the value, member order included.
#[test]
fn planted_text_parses_back_to_its_value() {
    let value = json!({"a": 1, "b": {"c": [{"d": 2}]}});
    // Four members (a, b, c, d), numbered depth first: 7 is d again.
    let plants = vec![(3, json!([[1]])), (1, json!("x")), (7, json!(0))];
    let text = text_with_repeats(&value, &plants);
    assert_eq!(
        text,
        r#"{"a":1,"b":"x","b":{"c":[{"d":[[1]],"d":0,"d":2}]}}"#
    );
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back, value);
    assert_eq!(text_with_repeats(&json!(3), &plants), "3");
}
