//! Exports: the JSON Schema export accepts exactly what the validator accepts
//! (`jsonschema` as the oracle, both directions, under both big-integer
//! policies), the strict and elicitation schemas only admit valid payloads,
//! every export writes the template's keys in the template's order, and the
//! `PayloadBuilder` only builds valid ones.

use crate::common::{
    Extras, assert_send_sync, figure, flight_template, json_value, message_for, template,
    unknown_key_policy, value_of,
};
use indexmap::IndexMap;
use proptest::prelude::*;
use sdsi::payload::{BuildError, PayloadBuilder, Placement};
use sdsi::validate::{BigIntegers, ValidateOptions};
use sdsi::{CompiledSchema, KeyType, SchemaTemplate};
use serde_json::{Map, Value, json};

fn oracle(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{e}: {schema}"))
}

/// Whole numbers at the 64-bit edges and past them, as JSON text: parsed,
/// a number past `u64` is a float (with serde_json's `arbitrary_precision`,
/// its digits); `-9223372036854775809` reads as `-2^63`, which an `i64`
/// holds. Some sit inside an array or an object, where no policy looks.
const EDGE_INTEGERS: [&str; 16] = [
    "18446744073709551615",
    "18446744073709551616",
    "18446744073709549568",
    "1.8446744073709552e19",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "-9223372036854777856",
    "1e19",
    "-1e19",
    "1e20",
    "-1e300",
    "4.0",
    "[18446744073709551616, 1e20]",
    r#"{"n": -1e19}"#,
];

/// One of [`EDGE_INTEGERS`], parsed.
fn edge_integer() -> impl Strategy<Value = Value> {
    proptest::sample::select(EDGE_INTEGERS.to_vec())
        .prop_map(|text| serde_json::from_str(text).unwrap())
}

/// Options an export can express: the unknown-key policy and the
/// big-integer policy, with default limits.
fn export_options() -> impl Strategy<Value = ValidateOptions> {
    (unknown_key_policy(), any::<bool>()).prop_map(|(options, reject)| {
        options.big_integers(if reject {
            BigIntegers::Reject
        } else {
            BigIntegers::Accept
        })
    })
}

/// Messages near `template` (`message_for`), some of whose keys then hold
/// an edge integer (whatever the key's type).
fn messages_with_edge_integers(template: &SchemaTemplate) -> BoxedStrategy<Vec<Value>> {
    let names: Vec<String> = template
        .keys
        .iter()
        .map(|k| k.key_name.to_string())
        .collect();
    let edits = if names.is_empty() {
        Just(Vec::new()).boxed()
    } else {
        prop::collection::vec((proptest::sample::select(names), edge_integer()), 0..3).boxed()
    };
    prop::collection::vec((message_for(template), edits), 1..6)
        .prop_map(|messages| {
            messages
                .into_iter()
                .map(|(mut message, edits)| {
                    if let Some(Value::Object(payload)) = message.get_mut("payload") {
                        payload.extend(edits);
                    }
                    message
                })
                .collect()
        })
        .boxed()
}

/// JSON read with every object's members in the order of the text (a
/// `Value`'s map is sorted unless serde_json's `preserve_order` is on);
/// anything but an object is skipped.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum InOrder {
    Object(IndexMap<String, InOrder>),
    Other(serde::de::IgnoredAny),
}

/// The member names of the object at `path` in `text`, in the text's order.
fn names_at(text: &str, path: &[&str]) -> Vec<String> {
    let mut node: InOrder = serde_json::from_str(text).unwrap();
    for step in path {
        node = match node {
            InOrder::Object(mut members) => members
                .swap_remove(*step)
                .unwrap_or_else(|| panic!("no {step} in {text}")),
            _ => panic!("{step}: not an object in {text}"),
        };
    }
    match node {
        InOrder::Object(members) => members.into_keys().collect(),
        _ => panic!("{path:?}: not an object in {text}"),
    }
}

/// A payload for the strict schema: every producer key present, optional
/// ones sometimes null.
fn strict_payload(template: &SchemaTemplate) -> BoxedStrategy<Map<String, Value>> {
    let primitive = || {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            "[a-z]{0,3}".prop_map(Value::from),
        ]
    };
    let mut members: Vec<BoxedStrategy<(String, Value)>> = template
        .keys
        .iter()
        // A strict export leaves optional free-form objects out.
        .filter(|k| k.required || k.key_type != KeyType::Object || k.key_name.is_other())
        .map(|k| {
            let name = k.key_name.to_string();
            let value = if k.key_name.is_other() {
                prop_oneof![
                    "[a-z]{0,4}".prop_map(Value::from),
                    prop::collection::vec("[a-z]{0,3}", 0..3).prop_map(|v| json!(v))
                ]
                .boxed()
            } else {
                match k.key_type {
                    // What strict mode lets a decoder produce.
                    KeyType::Array => prop::collection::vec(primitive(), 0..3)
                        .prop_map(Value::from)
                        .boxed(),
                    KeyType::Object => Just(json!({})).boxed(),
                    other => value_of(other),
                }
            };
            let value = if k.required {
                value
            } else {
                prop_oneof![1 => Just(Value::Null), 3 => value].boxed()
            };
            value.prop_map(move |v| (name.clone(), v)).boxed()
        })
        .collect();
    if template.key("other").is_none() {
        members.push(
            prop_oneof![Just(Value::Null), "[a-z]{0,4}".prop_map(Value::from)]
                .prop_map(|v| ("other".to_owned(), v))
                .boxed(),
        );
    }
    members
        .prop_map(|m| m.into_iter().collect::<Map<_, _>>())
        .boxed()
}

/// The strict-mode rules of structured-output decoders, at every depth:
/// every object closed with all its properties required, every array with
/// `items`, no `default`.
fn assert_strict_rules(schema: &Value, at: &str) {
    match schema {
        Value::Object(members) => {
            assert!(!members.contains_key("default"), "{at}: default");
            let types: Vec<&str> = match members.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if types.contains(&"object") {
                assert_eq!(
                    members.get("additionalProperties"),
                    Some(&json!(false)),
                    "{at}: open object"
                );
                let properties: Vec<&String> =
                    members["properties"].as_object().unwrap().keys().collect();
                let required: Vec<&str> = members["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                assert_eq!(properties.len(), required.len(), "{at}: not all required");
                assert!(
                    properties.iter().all(|p| required.contains(&p.as_str())),
                    "{at}"
                );
            }
            if types.contains(&"array") {
                assert!(members.contains_key("items"), "{at}: array without items");
            }
            for (name, value) in members {
                assert_strict_rules(value, &format!("{at}/{name}"));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_strict_rules(item, &format!("{at}/{i}"));
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    /// The headline property: accepted by the JSON Schema export iff
    /// accepted by the validator, under either big-integer policy, with
    /// whole numbers at and past the 64-bit edges in any key.
    #[test]
    fn json_schema_accepts_exactly_what_the_validator_accepts(
        (template, messages) in template(Extras::None).prop_flat_map(|t| {
            let m = messages_with_edge_integers(&t);
            (Just(t), m)
        }),
        opts in export_options(),
    ) {
        let schema = CompiledSchema::with_options(&template, opts).unwrap();
        let exported = schema.json_schema();
        let validator = oracle(&exported);
        for message in &messages {
            prop_assert_eq!(
                validator.is_valid(message),
                schema.is_valid(message),
                "message {} against {}", message, exported
            );
        }
        // The MCP tool input schema is the payload member of the same
        // schema (as 2025-11-25 writes it; 2026-07-28 adds `$schema`).
        prop_assert_eq!(
            &exported["properties"]["payload"],
            &schema.mcp_input_schema_for(sdsi::mcp::McpVersion::V2025_11_25)
        );
    }

    /// Every export lists the template's keys in the template's order (an
    /// undeclared `other` last), in its serialized text, whatever serde_json
    /// features are on: `scripts/test.sh` runs this without and with
    /// `preserve_order`.
    #[test]
    fn exports_keep_the_template_key_order(template in template(Extras::None)) {
        let schema = CompiledSchema::new(&template).unwrap();
        let mut keys: Vec<String> = template.keys.iter().map(|k| k.key_name.to_string()).collect();
        if template.key("other").is_none() {
            keys.push("other".to_owned());
        }
        let text = schema.json_schema().to_string();
        prop_assert_eq!(names_at(&text, &["properties"]), ["schema_id", "payload"]);
        prop_assert_eq!(&names_at(&text, &["properties", "payload", "properties"]), &keys);
        let text = serde_json::to_string(&schema.mcp_input_schema()).unwrap();
        prop_assert_eq!(&names_at(&text, &["properties"]), &keys);
        let strict = schema.strict_schema();
        let text = serde_json::to_string(&strict).unwrap();
        let offered: Vec<String> = keys.iter().filter(|k| strict.schema["properties"].get(k.as_str()).is_some()).cloned().collect();
        prop_assert_eq!(&names_at(&text, &["schema", "properties"]), &offered);
        prop_assert_eq!(&strict.schema["required"], &json!(offered));
        let form = schema.mcp_elicitation_schema();
        let text = form.schema.to_string();
        let mut asked: Vec<String> = keys.iter().filter(|k| *k != "other" && form.schema["properties"].get(k.as_str()).is_some()).cloned().collect();
        asked.push("other".to_owned());
        prop_assert_eq!(&names_at(&text, &["properties"]), &asked);
    }

    /// The same, over the JSON-Schema-derived shape of valid messages only
    /// (so the `true` side is exercised as much as the `false` one).
    #[test]
    fn json_schema_accepts_every_normalized_payload(
        (template, payload) in template(Extras::None).prop_flat_map(|t| { let p = strict_payload(&t); (Just(t), p) }),
    ) {
        let schema = CompiledSchema::new(&template).unwrap();
        let message = json!({"schema_id": template.schema_id, "payload": payload});
        let validator = oracle(&schema.json_schema());
        prop_assert!(schema.is_valid(&message));
        prop_assert!(validator.is_valid(&message));
        let normalized = schema.validate(&message).into_normalized().unwrap();
        let again = json!({"schema_id": template.schema_id, "payload": normalized});
        prop_assert!(validator.is_valid(&again));
    }

    /// Strict schema: what it accepts is valid; every key is required and
    /// there is no default; a full strict-shaped payload is accepted by both.
    #[test]
    fn strict_schema_only_admits_valid_payloads(
        (template, payload, others) in template(Extras::None).prop_flat_map(|t| {
            let p = strict_payload(&t);
            let m = prop::collection::vec(message_for(&t), 1..4);
            (Just(t), p, m)
        }),
    ) {
        let schema = CompiledSchema::new(&template).unwrap();
        let export = schema.strict_schema();
        let strict = export.schema;
        assert_strict_rules(&strict, "");
        // Every key is offered, or a warning says why not (or how it was narrowed).
        for (index, key) in template.keys.iter().enumerate() {
            let offered = strict["properties"].get(key.key_name.as_str()).is_some();
            let warned = export.warnings.iter().any(|w| w.path() == format!("/keys/{index}"));
            prop_assert!(offered || warned, "{} neither offered nor reported", key.key_name);
            prop_assert_eq!(warned, matches!(key.key_type, KeyType::Array | KeyType::Object) && !key.key_name.is_other());
        }
        let validator = oracle(&strict);
        prop_assert!(!strict.to_string().contains("\"default\""));
        let names: Vec<&String> = strict["properties"].as_object().unwrap().keys().collect();
        let required: Vec<&str> = strict["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        prop_assert_eq!(names.len(), required.len());
        let wrap = |p: &Value| json!({"schema_id": template.schema_id, "payload": p});
        let payload = Value::Object(payload);
        prop_assert!(validator.is_valid(&payload), "{} against {}", payload, strict);
        prop_assert!(schema.is_valid(&wrap(&payload)));
        for message in &others {
            if let Some(p) = message.get("payload") {
                if validator.is_valid(p) {
                    prop_assert!(schema.is_valid(&wrap(p)), "{}", p);
                }
            }
        }
    }

    /// MCP elicitation: flat primitive properties only; a key is either
    /// offered or reported; answers it accepts are valid payloads unless a
    /// required key could not be asked for.
    #[test]
    fn elicitation_schema_is_flat_and_honest(
        (template, payload) in template(Extras::None).prop_flat_map(|t| { let p = strict_payload(&t); (Just(t), p) }),
    ) {
        let schema = CompiledSchema::new(&template).unwrap();
        let export = schema.mcp_elicitation_schema();
        let properties = export.schema["properties"].as_object().unwrap();
        for (name, property) in properties {
            let ty = property["type"].as_str().unwrap();
            prop_assert!(["string", "number", "integer", "boolean"].contains(&ty), "{}: {}", name, ty);
            prop_assert!(property.as_object().unwrap().keys().all(|k| ["type", "title", "description", "default"].contains(&k.as_str())));
        }
        let mut blocked = false;
        for (index, key) in template.keys.iter().enumerate() {
            let offered = properties.contains_key(key.key_name.as_str());
            let reported = export.warnings.iter().any(|w| w.path() == format!("/keys/{index}"));
            prop_assert!(offered != reported || key.key_name.is_other(), "{}", key.key_name);
            blocked |= reported && key.required;
        }
        // An answer: the payload restricted to the offered keys, nulls dropped,
        // `other` as a string.
        let answer: Map<String, Value> = payload
            .into_iter()
            .filter(|(k, v)| properties.contains_key(k) && !v.is_null() && (k != "other" || v.is_string()))
            .collect();
        let answer = Value::Object(answer);
        if oracle(&export.schema).is_valid(&answer) && !blocked {
            prop_assert!(schema.is_valid(&json!({"schema_id": template.schema_id, "payload": answer})), "{}", answer);
        }
    }

    /// The builder never produces an invalid payload, whatever it is fed.
    #[test]
    fn builder_only_builds_valid_payloads(
        (template, sets) in template(Extras::None).prop_flat_map(|t| {
            let names: Vec<String> = t.keys.iter().map(|k| k.key_name.to_string())
                .chain(["unknown".to_owned(), "other".to_owned()]).collect();
            let sets = prop::collection::vec(
                (proptest::sample::select(names), json_value(), 0.0f64..1.0), 0..10);
            (Just(t), sets)
        }),
        threshold in 0.0f64..1.0,
    ) {
        let schema = CompiledSchema::new(&template).unwrap();
        let mut builder = PayloadBuilder::new(&schema).with_threshold(threshold);
        for (key, value, confidence) in sets {
            match builder.set(&key, value, confidence) {
                Ok(Placement::Key) => prop_assert!(confidence >= threshold),
                Ok(_) => {}
                Err(BuildError::InvalidOther) => prop_assert_eq!(key.as_str(), "other"),
                Err(_) => prop_assert!(confidence >= threshold),
            }
        }
        match builder.build() {
            Ok(message) => prop_assert!(schema.validate(&message.to_value()).is_valid()),
            Err(BuildError::Invalid(issues)) => prop_assert!(!issues.is_empty()),
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }
}

fn flight() -> CompiledSchema {
    CompiledSchema::new(&flight_template()).unwrap()
}

#[test]
fn flight_json_schema_is_the_documented_one() {
    let schema = flight().json_schema();
    assert_eq!(schema["$schema"], sdsi::export::JSON_SCHEMA_DIALECT);
    assert_eq!(schema["required"], json!(["schema_id", "payload"]));
    let payload = &schema["properties"]["payload"];
    assert_eq!(
        payload["required"],
        json!(["origin", "destination", "departure_date"])
    );
    assert_eq!(
        payload["properties"]["cabin_class"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(payload["properties"]["cabin_class"]["default"], "economy");
    assert_eq!(payload["properties"]["origin"].get("default"), None);
    let validator = oracle(&schema);
    let figure_4 = figure("fig04_flight_payload");
    assert!(validator.is_valid(&figure_4));
}

#[test]
fn builder_with_the_flight_template() {
    let schema = flight();
    let mut builder = PayloadBuilder::new(&schema).with_threshold(0.8);
    builder.set("origin", "PEK", 0.99).unwrap();
    builder.set("destination", "SHA", 0.95).unwrap();
    builder
        .set_from("next Monday", "departure_date", "2026-05-04", 0.9)
        .unwrap();
    assert_eq!(
        builder.set_from("something roomy", "cabin_class", "business", 0.55),
        Ok(Placement::Other)
    );
    builder.push_other("window seat");
    let message = builder.build().unwrap();
    assert_eq!(
        message.to_value(),
        json!({"schema_id": "flight_booking_v1", "payload": {
            "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
            "other": ["something roomy", "window seat"]}})
    );
}

/// MCP's form mode must not request sensitive information: a key marked
/// sensitive, or named like one, is left out with a warning.
#[test]
fn sensitive_keys_never_reach_an_elicitation_form() {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "pay_v1", "scenario": "pay",
        "keys": [
            {"key_name": "amount", "key_type": "number", "required": true, "semantic_description": "Amount."},
            {"key_name": "card_number", "key_type": "string", "required": false, "semantic_description": "The card.",
             "sensitive": "payment"},
            {"key_name": "passport_number", "key_type": "string", "required": false, "semantic_description": "As printed."}
        ]
    }))
    .unwrap();
    let export = CompiledSchema::new(&template)
        .unwrap()
        .mcp_elicitation_schema();
    let properties = export.schema["properties"].as_object().unwrap();
    assert!(properties.contains_key("amount"));
    assert!(!properties.contains_key("card_number"));
    assert!(!properties.contains_key("passport_number"));
    let paths: Vec<&str> = export.warnings.iter().map(|w| w.path()).collect();
    assert_eq!(paths, ["/keys/1", "/keys/2"]);
}

/// A template whose key order is not the alphabet's, `other` declared
/// between two keys.
fn unsorted() -> CompiledSchema {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "order_v1", "scenario": "coffee",
        "keys": [
            {"key_name": "size", "key_type": "string", "required": true, "semantic_description": "Cup size."},
            {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Rest."},
            {"key_name": "milk", "key_type": "string", "required": false, "semantic_description": "Milk."},
            {"key_name": "amount", "key_type": "integer", "required": true, "semantic_description": "Cups."}
        ]
    }))
    .unwrap();
    CompiledSchema::new(&template).unwrap()
}

/// Held out: the strict schema a decoder is constrained by lists `size`
/// first, never `other` (which sorts before `size`) nor `amount`, and its
/// text is the same whatever serde_json features are on; the other exports
/// keep the order too, as text, through serde and in their `Export`.
/// `scripts/test.sh` runs this without and with serde_json's
/// `preserve_order`; without it a `Value` sorts them, which is what went
/// wrong.
#[test]
fn exports_write_the_template_key_order() {
    let schema = unsorted();
    let order = ["size", "other", "milk", "amount"];
    let strict = schema.strict_schema();
    assert_eq!(
        strict.schema.to_string(),
        r#"{"type":"object","properties":{"size":{"type":"string","description":"Cup size."},"other":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}},{"type":"null"}],"description":"Rest."},"milk":{"type":["string","null"],"description":"Milk."},"amount":{"type":"integer","description":"Cups."}},"required":["size","other","milk","amount"],"additionalProperties":false}"#
    );
    let exported = serde_json::to_string(&strict).unwrap();
    assert_eq!(names_at(&exported, &["schema", "properties"]), order);
    let pretty = format!("{:#}", schema.json_schema());
    assert_eq!(
        names_at(&pretty, &[]),
        [
            "$schema",
            "title",
            "description",
            "type",
            "properties",
            "required"
        ]
    );
    assert_eq!(
        names_at(&pretty, &["properties", "payload", "properties"]),
        order
    );
    let input = serde_json::to_string_pretty(&schema.mcp_output_schema()).unwrap();
    assert_eq!(names_at(&input, &["properties"]), order);
    let form = serde_json::to_string(&schema.mcp_elicitation_schema()).unwrap();
    assert_eq!(
        names_at(&form, &["schema", "properties"]),
        ["size", "milk", "amount", "other"]
    );
    // The document reads and compares as the `Value` it holds, whose own
    // order is serde_json's: sorted unless `preserve_order` is on.
    let value = strict.schema.clone().into_value();
    assert_eq!(strict.schema, value);
    let preserve_order = json!({"b": 0, "a": 0}).to_string().starts_with(r#"{"b""#);
    let value_order = names_at(&value.to_string(), &["properties"]);
    if preserve_order {
        assert_eq!(value_order, order);
    } else {
        assert_eq!(value_order, ["amount", "milk", "other", "size"]);
    }
    assert_send_sync::<sdsi::export::OrderedJson>();
}

/// An integer key's schema carries `minimum`/`maximum` when the schema
/// was compiled with `BigIntegers::Reject` (nothing under `Accept`), so that
/// each export accepts an edge integer only if the validator does: the JSON
/// Schema exactly, the strict schema and the elicitation form never more
/// (the form stops at `i64::MAX`, the most `rmcp`'s form schema holds;
/// `rmcp` reads the form).
#[test]
fn big_integer_rejection_is_bounded_in_every_export() {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "count_v1", "scenario": "count",
        "keys": [
            {"key_name": "cups", "key_type": "integer", "required": true, "semantic_description": "Cups."},
            {"key_name": "spare", "key_type": "integer", "required": false, "semantic_description": "Spare."},
            {"key_name": "weight", "key_type": "number", "required": false, "semantic_description": "Grams."},
            {"key_name": "notes", "key_type": "array", "required": false, "semantic_description": "Notes."}
        ]
    }))
    .unwrap();
    let accept = CompiledSchema::new(&template).unwrap();
    for export in [accept.mcp_input_schema(), accept.strict_schema().schema] {
        assert!(export["properties"]["cups"].get("maximum").is_none());
    }
    let reject = CompiledSchema::with_options(
        &template,
        ValidateOptions::default().big_integers(BigIntegers::Reject),
    )
    .unwrap();
    let input = reject.mcp_input_schema();
    for key in ["cups", "spare"] {
        assert_eq!(input["properties"][key]["minimum"], json!(i64::MIN));
        assert_eq!(input["properties"][key]["maximum"], json!(u64::MAX));
    }
    assert!(input["properties"]["weight"].get("minimum").is_none());
    let strict = reject.strict_schema().schema;
    assert_eq!(strict["properties"]["spare"]["maximum"], json!(u64::MAX));
    let form = reject.mcp_elicitation_schema().schema;
    assert_eq!(form["properties"]["cups"]["minimum"], json!(i64::MIN));
    assert_eq!(form["properties"]["cups"]["maximum"], json!(i64::MAX));
    serde_json::from_value::<rmcp::model::ElicitationSchema>(form.clone().into_value()).unwrap();

    let (whole, strict, form) = (
        oracle(&reject.json_schema()),
        oracle(&strict),
        oracle(&form),
    );
    for text in EDGE_INTEGERS {
        let edge: Value = serde_json::from_str(text).unwrap();
        for payload in [
            json!({"cups": edge, "spare": null, "weight": null, "notes": null, "other": null}),
            json!({"cups": 1, "spare": edge, "weight": edge, "notes": [edge], "other": null}),
        ] {
            let message = json!({"schema_id": "count_v1", "payload": payload});
            let valid = reject.is_valid(&message);
            assert_eq!(whole.is_valid(&message), valid, "{message}");
            if strict.is_valid(&payload) {
                assert!(valid, "strict: {payload}");
            }
            let answer: Map<String, Value> = payload
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, v)| ["cups", "spare", "weight"].contains(&k.as_str()) && !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if form.is_valid(&json!(answer)) {
                let message = json!({"schema_id": "count_v1", "payload": answer});
                assert!(reject.is_valid(&message), "form: {message}");
            }
        }
    }
    // What the policy refuses, the schema refuses: both edges.
    for (text, valid) in [
        ("18446744073709551615", true),
        ("18446744073709551616", false),
        ("-9223372036854775808", true),
        ("-1e19", false),
    ] {
        let message: Value = serde_json::from_str(&format!(
            r#"{{"schema_id": "count_v1", "payload": {{"cups": {text}}}}}"#
        ))
        .unwrap();
        assert_eq!(reject.is_valid(&message), valid, "{text}");
        assert_eq!(whole.is_valid(&message), valid, "{text}");
    }
}
