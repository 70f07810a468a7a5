//! Property tests: serde round trips, bytes path ≡ Value path, no input panics.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers: a panic is a failed test"
)]

use proptest::prelude::*;
use sdsi::{
    CompiledSchema, ExecutionResult, KeyDefinition, KeyName, KeyType, Limits, SchemaRequest,
    SchemaTemplate, SchemaUpdateSuggestion, StructuredPayload, UnknownKeys, ValidateOptions,
};
use serde_json::{Map, Value, json};

fn key_name() -> impl Strategy<Value = KeyName> {
    "[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,4}){0,2}".prop_map(|s| KeyName::new(&s).unwrap())
}

fn key_type() -> impl Strategy<Value = KeyType> {
    proptest::sample::select(KeyType::ALL.to_vec())
}

/// Any JSON value, small and nested.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(json!(2.0)),
        "[a-z ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,6}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A value of type `ty`.
fn value_of(ty: KeyType) -> BoxedStrategy<Value> {
    match ty {
        KeyType::String => "[a-z]{0,6}".prop_map(Value::from).boxed(),
        KeyType::Integer => {
            prop_oneof![any::<i32>().prop_map(Value::from), Just(json!(3.0))].boxed()
        }
        KeyType::Number => {
            prop_oneof![any::<i32>().prop_map(Value::from), Just(json!(0.25))].boxed()
        }
        KeyType::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        KeyType::Array => prop::collection::vec(json_value(), 0..3)
            .prop_map(Value::Array)
            .boxed(),
        KeyType::Object => Just(json!({"k": [1, {"j": null}]})).boxed(),
        KeyType::Null => Just(Value::Null).boxed(),
    }
}

fn extra_members() -> impl Strategy<Value = indexmap::IndexMap<String, Value>> {
    prop::collection::vec(("x_[a-z]{1,5}", json_value()), 0..2)
        .prop_map(|kv| kv.into_iter().collect())
}

fn key_definition() -> impl Strategy<Value = KeyDefinition> {
    (
        key_name(),
        key_type(),
        any::<bool>(),
        "[ -~]{1,20}",
        0..3u8,
        extra_members(),
    )
        .prop_flat_map(|(name, ty, required, desc, default_kind, extra)| {
            let default = match default_kind {
                0 => Just(None).boxed(),
                1 => Just(Some(Value::Null)).boxed(),
                _ => value_of(ty).prop_map(Some).boxed(),
            };
            default.prop_map(move |default_value| {
                let mut key = KeyDefinition::new(name.clone(), ty, required, desc.clone());
                key.default_value = default_value;
                key.extra = extra.clone();
                key
            })
        })
}

/// A template that passes every check: unique names, a well-formed `other`.
fn template() -> impl Strategy<Value = SchemaTemplate> {
    (
        prop::collection::vec(key_definition(), 0..8),
        any::<bool>(),
        "[a-z_]{1,10}",
        extra_members(),
    )
        .prop_map(|(keys, with_other, id, extra)| {
            let mut seen = std::collections::HashSet::new();
            let mut keys: Vec<_> = keys
                .into_iter()
                .filter(|k| !k.key_name.is_other() && seen.insert(k.key_name.clone()))
                .collect();
            if with_other {
                keys.push(KeyDefinition::new(
                    KeyName::new("other").unwrap(),
                    KeyType::Array,
                    false,
                    "unmapped",
                ));
            }
            let mut t = SchemaTemplate::new(id, "scenario", keys);
            t.extra = extra;
            t
        })
}

/// A message near the template: each key omitted, well-typed, `null`, or any value;
/// sometimes unknown keys, a bad `other`, a wrong schema_id, or a non-object payload.
fn message_for(template: &SchemaTemplate) -> BoxedStrategy<Value> {
    let id = template.schema_id.clone();
    let members: Vec<BoxedStrategy<Option<(String, Value)>>> = template
        .keys
        .iter()
        .map(|k| {
            let name = k.key_name.to_string();
            let ty = if k.key_name.is_other() {
                KeyType::String
            } else {
                k.key_type
            };
            prop_oneof![
                2 => Just(None),
                4 => value_of(ty).prop_map(Some),
                1 => Just(Some(Value::Null)),
                1 => json_value().prop_map(Some),
            ]
            .prop_map(move |v| v.map(|v| (name.clone(), v)))
            .boxed()
        })
        .collect();
    let extras = prop::collection::vec(
        prop_oneof![
            ("[a-z~/]{1,5}", json_value()),
            json_value().prop_map(|v| ("other".to_owned(), v))
        ],
        0..2,
    );
    (members, extras, 0..10u8)
        .prop_map(move |(members, extras, shape)| {
            let payload: Map<String, Value> = members.into_iter().flatten().chain(extras).collect();
            match shape {
                0 => json!({"payload": payload}),
                1 => json!({"schema_id": "elsewhere", "payload": payload}),
                2 => json!({"schema_id": id.clone(), "payload": [payload]}),
                3 => json!({"schema_id": id.clone()}),
                _ => json!({"schema_id": id.clone(), "payload": payload, "trace": 1}),
            }
        })
        .boxed()
}

fn options() -> impl Strategy<Value = ValidateOptions> {
    (any::<bool>(), 0..6usize, 0..12usize).prop_map(|(warn, depth, keys)| {
        let policy = if warn {
            UnknownKeys::Warn
        } else {
            UnknownKeys::Reject
        };
        let limits = if depth == 5 {
            Limits::default()
        } else {
            Limits::default().with_max_depth(depth).with_max_keys(keys)
        };
        ValidateOptions::default()
            .unknown_keys(policy)
            .limits(limits)
    })
}

/// Serializes `message` and, when asked, repeats one payload member (first
/// occurrence replaced by `decoy`) so the bytes path meets duplicate members.
fn to_text(message: &Value, duplicate: Option<Value>) -> String {
    let text = serde_json::to_string(message).unwrap();
    let Some(decoy) = duplicate else { return text };
    let Some(payload) = message.get("payload").and_then(Value::as_object) else {
        return text;
    };
    let Some((name, _)) = payload.iter().next() else {
        return text;
    };
    let prefix = format!("{}:{},", serde_json::to_string(name).unwrap(), decoy);
    text.replacen("\"payload\":{", &format!("\"payload\":{{{prefix}"), 1)
}

fn round_trip<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(value).unwrap();
    let back: T = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(&back, value);
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn bytes_path_equals_value_path(
        (template, message) in template().prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        opts in options(),
        decoy in proptest::option::of(json_value()),
    ) {
        let schema = CompiledSchema::with_options(&template, opts).unwrap();
        let text = to_text(&message, decoy);
        // The reference: what serde_json makes of the text (last duplicate wins).
        let parsed: Value = serde_json::from_str(&text).unwrap();
        let report = schema.validate(&parsed);
        prop_assert_eq!(&schema.validate_str(&text), &report);
        prop_assert_eq!(schema.is_valid_str(&text), report.is_valid());
        prop_assert_eq!(schema.is_valid(&parsed), report.is_valid());
        if let (Some(normalized), true) = (report.normalized(), opts.limits == Limits::default()) {
            // Normalizing is idempotent: the normalized payload validates to itself.
            // (Only under default limits: defaults can push a payload past tight ones.)
            let again = schema.validate(&json!({"schema_id": template.schema_id, "payload": normalized}));
            prop_assert_eq!(again.normalized(), Some(normalized));
        }
    }

    #[test]
    fn generated_templates_compile_and_round_trip(template in template()) {
        prop_assert!(template.check().errors.is_empty());
        prop_assert!(CompiledSchema::new(&template).is_ok());
        round_trip(&template);
        let text = serde_json::to_vec(&template).unwrap();
        prop_assert_eq!(SchemaTemplate::from_slice(&text).unwrap(), template);
    }

    #[test]
    fn model_types_round_trip(
        key in key_definition(),
        id in "[a-z_]{1,8}",
        payload in prop::collection::vec(("[a-z_]{1,6}", json_value()), 0..4),
        extra in extra_members(),
        lang in proptest::option::of("[a-z]{2}-[A-Z]{2}"),
        keys in prop::collection::vec(key_definition(), 0..3),
    ) {
        round_trip(&key);
        round_trip(&key.key_name);
        round_trip(&key.key_type);
        let mut message = StructuredPayload::new(id.clone());
        message.payload = payload.iter().cloned().collect();
        message.extra = extra.clone();
        round_trip(&message);
        let mut request = SchemaRequest::new(id.clone(), lang);
        request.extra = extra.clone();
        round_trip(&request);
        let suggestion = SchemaUpdateSuggestion {
            new_keys: Some(keys.clone()),
            modified_keys: if keys.is_empty() { None } else { Some(keys) },
            extra: extra.clone(),
        };
        round_trip(&suggestion);
        let result = ExecutionResult {
            schema_update_suggestion: Some(suggestion),
            result: payload.into_iter().filter(|(k, _)| k != "schema_update_suggestion").collect(),
        };
        round_trip(&result);
    }

    #[test]
    fn arbitrary_json_never_panics(template in json_value(), message in json_value(), opts in options()) {
        let _ = SchemaTemplate::from_value(&template);
        let schema = CompiledSchema::with_options(&flight(), opts).unwrap();
        let report = schema.validate(&message);
        let text = serde_json::to_string(&message).unwrap();
        prop_assert_eq!(&schema.validate_str(&text), &report);
        prop_assert_eq!(schema.is_valid(&message), report.is_valid());
        let _ = serde_json::to_string(&report).unwrap();
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = SchemaTemplate::from_slice(&bytes);
        let schema = CompiledSchema::new(&flight()).unwrap();
        let report = schema.validate_slice(&bytes);
        prop_assert_eq!(schema.is_valid_slice(&bytes), report.is_valid());
    }
}

fn flight() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "from"},
            {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1,
             "semantic_description": "passengers"},
            {"key_name": "tags", "key_type": "array", "required": false, "semantic_description": "tags"}
        ]
    }))
    .unwrap()
}

#[test]
fn invalid_json_is_a_report_not_a_panic() {
    let schema = CompiledSchema::new(&flight()).unwrap();
    let report = schema.validate_str("{\"schema_id\": ");
    assert_eq!(report.errors()[0].code().as_str(), "invalid_json");
    assert!(!schema.is_valid_str("{\"schema_id\": "));
    assert!(!schema.is_valid_str("{} trailing"));
}

#[test]
fn oversized_input_is_a_limit() {
    let opts = ValidateOptions::default().limits(Limits::default().with_max_bytes(8));
    let schema = CompiledSchema::with_options(&flight(), opts).unwrap();
    let report = schema.validate_str("{\"schema_id\": 1}");
    assert_eq!(report.errors()[0].code().as_str(), "limit_exceeded");
    assert_eq!(report.errors()[0].limit_value(), Some(8));
    assert!(!schema.is_valid_str("{\"schema_id\": 1}"));
}

#[test]
fn extreme_nesting_is_rejected_without_overflow() {
    let schema = CompiledSchema::new(&flight()).unwrap();
    let deep = format!(
        "{{\"schema_id\":\"flight_booking_v1\",\"payload\":{{\"origin\":\"x\",\"tags\":{}1{}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(!schema.validate_str(&deep).is_valid());
    assert!(!schema.is_valid_str(&deep));
}

#[test]
fn duplicate_members_follow_serde_json() {
    let schema = CompiledSchema::new(&flight()).unwrap();
    // serde_json keeps the last of repeated members; so must the bytes path.
    let text = r#"{"schema_id":"flight_booking_v1","payload":{"origin":1,"origin":"PEK"}}"#;
    assert!(schema.validate_str(text).is_valid());
    assert!(schema.is_valid_str(text));
    let text = r#"{"schema_id":"flight_booking_v1","payload":{"origin":"PEK","origin":1}}"#;
    assert!(!schema.is_valid_str(text));
    let text = r#"{"schema_id":"x","schema_id":"flight_booking_v1","payload":{"origin":"PEK"}}"#;
    assert!(schema.is_valid_str(text));
}

#[test]
fn public_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<CompiledSchema>();
    check::<sdsi::Report>();
    check::<sdsi::Issue>();
    check::<sdsi::TemplateError>();
    check::<SchemaTemplate>();
    check::<KeyDefinition>();
    check::<StructuredPayload>();
    check::<ExecutionResult>();
}

/// Found by fuzzing: values the bytes path passes over must still be JSON
/// that `serde_json::Value` accepts (UTF-8, no lone surrogates, numbers in
/// range, nesting within 128 levels), or the two paths disagree.
#[test]
fn skipped_values_are_checked_like_parsed_ones() {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let extras: [&[u8]; 4] = [b"\"\xb6\"", br#""\ud800""#, b"1e400", deep.as_bytes()];
    let strict = CompiledSchema::new(&flight()).unwrap();
    let warn = CompiledSchema::with_options(
        &flight(),
        ValidateOptions::default().unknown_keys(UnknownKeys::Warn),
    )
    .unwrap();
    for extra in extras {
        for (place, prefix, suffix) in [
            (
                "a top-level member",
                &br#"{"schema_id":"flight_booking_v1","payload":{"origin":"PEK"},"x":"#[..],
                &b"}"[..],
            ),
            (
                "an unknown payload key",
                br#"{"schema_id":"flight_booking_v1","payload":{"origin":"PEK","x":"#,
                b"}}",
            ),
            (
                "a known key's value",
                br#"{"schema_id":"flight_booking_v1","payload":{"origin":"PEK","tags":["#,
                b"]}}",
            ),
        ] {
            let message = [prefix, extra, suffix].concat();
            assert!(serde_json::from_slice::<Value>(&message).is_err());
            for schema in [&strict, &warn] {
                let report = schema.validate_slice(&message);
                assert_eq!(report.errors().len(), 1, "{place}: {report:?}");
                assert_eq!(
                    report.errors()[0].code().as_str(),
                    "invalid_json",
                    "{place}"
                );
                assert!(!schema.is_valid_slice(&message), "{place}");
            }
        }
    }
    let array = b"[{\"\":\"\xb6\"}]";
    assert_eq!(
        strict.validate_slice(array).errors()[0].code().as_str(),
        "invalid_json"
    );
}
