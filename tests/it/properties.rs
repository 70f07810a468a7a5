//! Property tests: serde round trips, bytes path ≡ Value path, no input panics.

use crate::common::repeats::{first_member_of, plants, text_with_repeats};
use crate::common::{
    Extras, assert_send_sync, extra_members, json_value, key_definition, message_for,
    numbers_arrive_as_maps, options_with_limits, template, text_numbers_arrive_as_maps,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use sdsi::negotiate::{ExecutionResult, SchemaRequest, SchemaUpdateSuggestion};
use sdsi::validate::{Limits, Refusal, UnknownKeys, ValidateOptions};
use sdsi::{CompiledSchema, IssueCode, KeyDefinition, SchemaTemplate, StructuredPayload};
use serde_json::{Value, json};

/// Serializes `message` with the decoys of `plants` written in at any
/// depth (`common::repeats`) and, when asked, one more before the
/// payload's first member, so the text readers meet repeated members.
fn to_text(message: &Value, duplicate: Option<Value>, plants: &[(usize, Value)]) -> String {
    let mut plants = plants.to_vec();
    if let (Some(decoy), Some(first)) = (duplicate, first_member_of(message, "payload")) {
        plants.push((first, decoy));
    }
    text_with_repeats(message, &plants)
}

/// Every reader of `message` as text (bytes: `validate_str`,
/// `is_valid_str`; typed: `deserialize_slice`; serde source:
/// `is_valid_from`, `problems_from`) agrees with the `Value` path on the
/// parsed text, with `decoy` as a duplicate payload member and `plants`
/// repeating names at any depth; a normalized payload validates to itself
/// under default limits.
fn check_bytes_path(
    template: &SchemaTemplate,
    message: &Value,
    opts: ValidateOptions,
    decoy: Option<Value>,
    plants: &[(usize, Value)],
) -> Result<(), TestCaseError> {
    let schema = CompiledSchema::with_options(template, opts).unwrap();
    let repeats = decoy.is_some() || !plants.is_empty();
    let text = to_text(message, decoy, plants);
    // The reference: what serde_json makes of the text (last duplicate wins).
    let parsed: Value = serde_json::from_str(&text).unwrap();
    let report = schema.validate(&parsed);
    prop_assert_eq!(&schema.validate_str(&text), &report);
    prop_assert_eq!(schema.is_valid_str(&text), report.is_valid());
    prop_assert_eq!(schema.is_valid(&parsed), report.is_valid());
    match schema.deserialize_slice::<serde_json::Map<String, Value>>(text.as_bytes()) {
        Ok(accepted) => {
            prop_assert_eq!(
                Some(accepted.payload),
                report.normalized().map(|n| n.to_map())
            );
            prop_assert_eq!(&accepted.warnings[..], report.warnings());
        }
        Err(Refusal::Invalid(refused)) => prop_assert_eq!(&*refused, &report),
        Err(other) => return Err(TestCaseError::fail(other.to_string())),
    }
    if !text_numbers_arrive_as_maps() {
        // A serde source that may repeat names settles the text as the
        // `Value` path does, or leaves it to that path (`None`): only when
        // something repeats, is too deep, or there are too many members.
        let members = parsed
            .get("payload")
            .and_then(Value::as_object)
            .map_or(0, |p| p.len());
        let unsettled = repeats || members > opts.limits.max_keys || limit_exceeded(&report);
        let source = || serde_json::Deserializer::from_str(&text);
        match schema.is_valid_from(&mut source()).unwrap() {
            Some(valid) => prop_assert_eq!(valid, report.is_valid()),
            None => prop_assert!(unsettled),
        }
        match schema.problems_from(&mut source()).unwrap() {
            Some(checked) => prop_assert_eq!(&checked.problems, report.problems()),
            None => prop_assert!(unsettled),
        }
    }
    // Nothing accepted from the input is nested deeper than the limit,
    // unknown keys kept under `UnknownKeys::Warn` included (defaults come from
    // the template, not the input, and are not limited).
    let sent = parsed.get("payload").and_then(Value::as_object);
    for (name, value) in report.normalized().into_iter().flatten() {
        // (A `null` sent is "not given": the key's default stands in.)
        if sent.and_then(|p| p.get(name)).is_some_and(|v| !v.is_null()) {
            prop_assert!(
                depth(value) <= opts.limits.max_depth,
                "{} nests {} deep",
                name,
                depth(value)
            );
        }
    }
    if let (Some(normalized), true) = (report.normalized(), opts.limits == Limits::default()) {
        // Normalizing is idempotent: the normalized payload validates to itself.
        // (Only under default limits: defaults can push a payload past tight ones.)
        let message = json!({"schema_id": template.schema_id, "payload": normalized});
        let again = schema.validate(&message);
        prop_assert_eq!(again.normalized(), Some(normalized));
    }
    Ok(())
}

/// Whether `report` has a limit error (a value too deep, too many members).
fn limit_exceeded(report: &sdsi::Report<'_>) -> bool {
    report
        .errors()
        .iter()
        .any(|e| e.code() == IssueCode::LimitExceeded)
}

/// Nesting of arrays and objects (a scalar is 0, `[1]` is 1).
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
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
        (template, message) in template(Extras::All).prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        opts in options_with_limits(),
        decoy in proptest::option::of(json_value()),
        plants in plants(),
    ) {
        check_bytes_path(&template, &message, opts, decoy, &plants)?;
    }

    /// A message read through any serde `Deserializer` (here `&Value`'s own)
    /// gets the `Value` path's verdict and problems, or `None` only when one
    /// pass cannot settle it (more members than `max_keys`; a value too deep,
    /// unless the source promises unique names).
    #[test]
    fn deserializer_path_equals_value_path(
        (template, message) in template(Extras::All).prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        opts in options_with_limits(),
    ) {
        let schema = CompiledSchema::with_options(&template, opts).unwrap();
        if numbers_arrive_as_maps() {
            // serde_json's `arbitrary_precision` hands numbers to visitors
            // as maps: that source is read with `validate`, as documented.
            return Ok(());
        }
        let report = schema.validate(&message);
        let members = message.get("payload").and_then(Value::as_object).map_or(0, |p| p.len());
        let too_many = members > opts.limits.max_keys;
        // A source that may repeat names leaves a value too deep to the
        // `Value` path too (a repeat inside it may have made it look deeper).
        let unsettled = too_many || limit_exceeded(&report);
        match schema.problems_from(&message).unwrap() {
            Some(checked) => {
                prop_assert_eq!(&checked.problems, report.problems());
                // The edits, applied to the payload as sent, give the
                // normalized payload exactly.
                let normalized = report.normalized().map(|n| n.to_map());
                let edited = checked.edits.as_ref().map(|edits| apply_edits(&schema, edits, &message));
                prop_assert_eq!(edited, normalized);
            }
            None => prop_assert!(unsettled),
        }
        match schema.is_valid_from(&message).unwrap() {
            Some(valid) => prop_assert_eq!(valid, report.is_valid()),
            None => prop_assert!(unsettled),
        }
        // A `Value` cannot repeat a member: stopping at the first error
        // changes nothing.
        match schema.is_valid_from_unique(&message).unwrap() {
            Some(valid) => prop_assert_eq!(valid, report.is_valid()),
            None => prop_assert!(too_many),
        }
        // The documented contract: text inside a member's value is not read.
        let blanked = blank_member_values(&message);
        let blanked_report = schema.validate(&blanked);
        prop_assert_eq!(blanked_report.problems(), report.problems());
        if let Some(checked) = schema.problems_from(&blanked).unwrap() {
            prop_assert_eq!(&checked.problems, report.problems());
        }
    }

    /// A payload looked up key by key (`keyed_verdict` / `keyed_problems`)
    /// gets the `Value` path's verdict and problems for a message with the
    /// schema's `schema_id`, or `None` exactly when the members that are
    /// not keys are needed.
    #[test]
    fn keyed_path_equals_value_path(
        (template, message) in template(Extras::All).prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        opts in options_with_limits(),
    ) {
        let schema = CompiledSchema::with_options(&template, opts).unwrap();
        let Some(payload) = message.get("payload").and_then(Value::as_object) else {
            return Ok(());
        };
        let whole = json!({"schema_id": schema.schema_id(), "payload": payload});
        let report = schema.validate(&whole);
        let names: Vec<&str> = schema.key_names().collect();
        let unknown = payload.keys().any(|name| !names.contains(&name.as_str()));

        let Some(mut verdict) = schema.keyed_verdict(payload.len()) else {
            prop_assert!(payload.len() > opts.limits.max_keys);
            return Ok(());
        };
        for (index, name) in names.iter().enumerate() {
            let go_on = match payload.get(*name) {
                Some(value) => verdict.key(index, value).unwrap(),
                None => verdict.absent(index),
            };
            if !go_on {
                prop_assert!(!report.is_valid());
                break;
            }
        }
        match verdict.finish() {
            Some(valid) => prop_assert_eq!(valid, report.is_valid()),
            None => prop_assert!(unknown && opts.unknown_keys == UnknownKeys::Warn),
        }

        // By key number, members that are not keys left out: the problems
        // need their names, so `None` exactly when there are some.
        let mut by_key = schema.keyed_problems(payload.len()).unwrap();
        for (index, name) in names.iter().enumerate() {
            if let Some(value) = payload.get(*name) {
                by_key.key(index, value).unwrap();
            }
        }
        prop_assert_eq!(by_key.finish().is_none(), unknown);

        // By name, every member in the payload's own order (`member`), as
        // a caller walking its dict does: always settled.
        let mut verdict = schema.keyed_verdict(payload.len()).unwrap();
        for (name, value) in payload {
            if !verdict.member(name, value).unwrap() {
                prop_assert!(!report.is_valid());
                break;
            }
        }
        prop_assert_eq!(verdict.finish(), Some(report.is_valid()));
        let mut problems = schema.keyed_problems(payload.len()).unwrap();
        for (name, value) in payload {
            problems.member(name, value).unwrap();
        }
        let checked = problems.finish();
        prop_assert!(checked.is_some());
        if let Some(checked) = checked {
            prop_assert_eq!(&checked.problems, report.problems());
            let normalized = report.normalized().map(|n| n.to_map());
            let edited = checked.edits.as_ref().map(|edits| apply_edits(&schema, edits, &whole));
            prop_assert_eq!(edited, normalized);
        }
    }

    #[test]
    fn generated_templates_compile_and_round_trip(template in template(Extras::All)) {
        prop_assert!(template.check().is_valid());
        prop_assert!(CompiledSchema::new(&template).is_ok());
        round_trip(&template);
        let text = serde_json::to_vec(&template).unwrap();
        prop_assert_eq!(SchemaTemplate::from_slice(&text).unwrap(), template);
    }

    #[test]
    fn model_types_round_trip(
        key in key_definition(Extras::All),
        id in "[a-z_]{1,8}",
        payload in prop::collection::vec(("[a-z_]{1,6}", json_value()), 0..4),
        extra in extra_members(),
        lang in proptest::option::of("[a-z]{2}-[A-Z]{2}"),
        keys in prop::collection::vec(key_definition(Extras::All), 0..3),
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
        let mut suggestion = SchemaUpdateSuggestion::default();
        suggestion.new_keys = Some(keys.clone());
        suggestion.modified_keys = if keys.is_empty() { None } else { Some(keys) };
        suggestion.extra = extra.clone();
        round_trip(&suggestion);
        let mut result = ExecutionResult::default();
        result.schema_update_suggestion = Some(suggestion);
        result.result = payload.into_iter().filter(|(k, _)| k != "schema_update_suggestion").collect();
        round_trip(&result);
    }

    #[test]
    fn arbitrary_json_never_panics(template in json_value(), message in json_value(), opts in options_with_limits()) {
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

    /// Every issue points at what it is about: the path of an issue on a
    /// value resolves in the message (`Value::pointer`), for member names
    /// with `~`, `/` and non-ASCII text and of lengths either side of the
    /// inline limit an issue path has (32 bytes); a missing member's path
    /// is its place, where nothing is, under a parent that is there.
    #[test]
    fn every_issue_path_points_at_its_value(
        (template, message) in template(Extras::All).prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        added in prop::collection::vec(
            (prop_oneof!["[a-zé_]{0,40}", "[a-z~/é_]{0,40}"], json_value()),
            0..4,
        ),
        opts in options_with_limits(),
    ) {
        let mut message = message;
        if let Some(payload) = message.get_mut("payload").and_then(Value::as_object_mut) {
            payload.extend(added);
        }
        let schema = CompiledSchema::with_options(&template, opts).unwrap();
        let report = schema.validate(&message);
        for issue in report.errors().iter().chain(report.warnings()) {
            let missing = matches!(
                issue.code(),
                IssueCode::MissingRequiredKey | IssueCode::MissingPayload | IssueCode::MissingSchemaId
            );
            if missing {
                // Where it belongs: nothing there, its parent there.
                prop_assert!(message.pointer(issue.path()).is_none());
                let (parent, name) = issue.path().rsplit_once('/').unwrap();
                prop_assert!(message.pointer(parent).is_some());
                if issue.code() == IssueCode::MissingRequiredKey {
                    prop_assert_eq!(parent, "/payload");
                    prop_assert!(
                        template.keys.iter().any(|k| k.key_name.as_str() == name),
                        "{} names no key", issue.path()
                    );
                }
            } else {
                prop_assert!(
                    message.pointer(issue.path()).is_some(),
                    "{} ({}) does not resolve in {}", issue.path(), issue.code(), message
                );
            }
        }
    }
}

/// The payload of `message` with `edits` applied, as a caller keeping the
/// payload in its own form would.
fn apply_edits(
    schema: &CompiledSchema,
    edits: &sdsi::validate::Edits,
    message: &Value,
) -> serde_json::Map<String, Value> {
    let mut payload = message["payload"].as_object().cloned().unwrap();
    // `keeps_members` tells, without the walk, that nothing is removed or
    // rewritten.
    assert_eq!(
        edits.keeps_members(),
        edits.removed(schema).next().is_none() && edits.to_integer(schema).next().is_none()
    );
    for name in edits.removed(schema) {
        payload.remove(name);
    }
    for name in edits.to_integer(schema) {
        let integer = sdsi::validate::Edits::integer(payload[name].as_f64().unwrap()).unwrap();
        payload.insert(name.to_owned(), integer);
    }
    for (name, default) in edits.defaults(schema) {
        payload.insert(name.to_owned(), default.clone());
    }
    payload
}

/// Over JSON text that repeats a member, the last occurrence counts:
/// `is_valid_from` sees the repeat and leaves the verdict to the `Value`
/// path; `is_valid_from_unique` (for sources that cannot repeat one) stops
/// at the first occurrence's error, as documented.
#[test]
fn a_repeated_member_is_left_to_the_value_path() {
    let schema = CompiledSchema::new(&flight()).unwrap();
    let text = r#"{"schema_id": "elsewhere", "schema_id": "flight_booking_v1",
        "payload": {"origin": "PEK", "passenger_count": 2}}"#;
    assert!(schema.is_valid_str(text));
    let from = |unique: bool| {
        let mut de = serde_json::Deserializer::from_str(text);
        if unique {
            schema.is_valid_from_unique(&mut de).unwrap()
        } else {
            schema.is_valid_from(&mut de).unwrap()
        }
    };
    assert_eq!(from(false), None);
    assert_eq!(from(true), Some(false));
    let mut de = serde_json::Deserializer::from_str(text);
    assert!(schema.problems_from(&mut de).unwrap().is_none());
}

/// `message` with every string inside a payload member's value (member
/// names in there too) replaced by `""`.
fn blank_member_values(message: &Value) -> Value {
    fn blank(value: &Value) -> Value {
        match value {
            Value::String(_) => Value::String(String::new()),
            Value::Array(items) => Value::Array(items.iter().map(blank).collect()),
            Value::Object(map) => {
                // Distinct blank-ish names keep the member count (and so
                // the nesting) the same: names made of the empty string
                // would collapse into one member.
                let mut out = serde_json::Map::new();
                for (i, (_, v)) in map.iter().enumerate() {
                    out.insert(" ".repeat(i), blank(v));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }
    let mut out = message.clone();
    if let Some(Value::Object(payload)) = out.get_mut("payload") {
        for value in payload.values_mut() {
            *value = blank(value);
        }
    }
    out
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

/// The case saved in `properties.proptest-regressions`, kept by value: its
/// seed now draws other values from the shared generators. Object defaults
/// nested past a tight depth limit, a duplicate member, unknown keys warned.
#[test]
fn bytes_path_regression_nested_defaults_under_tight_limits() {
    let template: SchemaTemplate = serde_json::from_value(json!({
        "schema_id": "____au", "scenario": "scenario",
        "keys": [
            {"key_name": "b73f", "key_type": "object", "required": false,
             "default_value": {"k": [1, {"j": null}]},
             "semantic_description": "%K|*&&hsX_b\\P$eA9", "x_on": ["  r dc ", 2.0]},
            {"key_name": "e5_z1lt_9h", "key_type": "object", "required": true,
             "default_value": null, "semantic_description": "R*TVv\\'h$X+=)j6<*%",
             "x_qsqyr": [{}]},
            {"key_name": "s13hq_x", "key_type": "array", "required": false,
             "default_value": [[null, {}]], "semantic_description": "dYC0v", "x_shb": []},
            {"key_name": "q9z5", "key_type": "array", "required": false,
             "default_value": [{"b": [true], "u_uus": ["nmft ", null, 2.0]}, {"_oh__": " l tow  "}],
             "semantic_description": "n/:/"}
        ],
        "x_h": [null, 2.0]
    }))
    .unwrap();
    assert_eq!(template.keys[0].extra["x_on"], json!(["  r dc ", 2.0]));
    assert_eq!(template.extra["x_h"], json!([null, 2.0]));
    let message = json!({
        "payload": {"e5_z1lt_9h": {"k": [1, {"j": null}]}, "~": null},
        "schema_id": "____au", "trace": 1
    });
    let opts = ValidateOptions::default()
        .unknown_keys(UnknownKeys::Warn)
        .limits(Limits::default().with_max_depth(3).with_max_keys(4));
    let decoy = json!([[], [null, 474_622.666_178_251_8]]);
    check_bytes_path(&template, &message, opts, Some(decoy), &[]).unwrap();
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
    assert_send_sync::<CompiledSchema>();
    assert_send_sync::<sdsi::Report>();
    assert_send_sync::<sdsi::Issue>();
    assert_send_sync::<sdsi::TemplateError>();
    assert_send_sync::<SchemaTemplate>();
    assert_send_sync::<KeyDefinition>();
    assert_send_sync::<StructuredPayload>();
    assert_send_sync::<ExecutionResult>();
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
        // With serde_json's `arbitrary_precision`, 1e400 is a number.
        if serde_json::from_slice::<Value>(extra).is_ok() {
            continue;
        }
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

/// A float default survives parse → serialize → parse exactly. This needs
/// serde_json's `float_roundtrip`, which sdsi does not declare itself: its
/// dependency serde_json_canonicalizer turns it on (docs/fuzzing.md, "What
/// the oracle accepts, and why").
/// If that ever changes, this test says so before a user's template drifts.
#[test]
fn float_defaults_round_trip_exactly() {
    let text = r#"{"schema_id": "f_v1", "scenario": "f", "keys": [{"key_name": "x",
        "key_type": "number", "required": false, "default_value": 1.0715660391465826e-75,
        "semantic_description": "d"}]}"#;
    let template = SchemaTemplate::from_json(text).unwrap();
    let again = SchemaTemplate::from_json(&serde_json::to_string(&template).unwrap()).unwrap();
    assert_eq!(again, template);
    let default = template.keys[0].default_value.as_ref().unwrap();
    assert_eq!(default.as_f64(), Some(1.0715660391465826e-75));
}
