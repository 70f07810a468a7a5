//! The normalized payload: the borrowed view, the in-place forms and the
//! typed bytes path all give the same members as one owned map.

use std::collections::BTreeMap;

use crate::common::{Extras, message_for, template, unknown_key_policy};
use proptest::prelude::*;
use sdsi::validate::{Refusal, ValidateOptions};
use sdsi::{CompiledSchema, IssueCode, SchemaTemplate};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Every way to get a normalized payload, checked against the `Value`
/// path's view turned into a map.
fn check_forms(schema: &CompiledSchema, message: &Value) -> Result<(), TestCaseError> {
    let report = schema.validate(message);
    let owned = schema.validate_owned(message.clone());
    prop_assert_eq!(&owned, &report);
    let text = serde_json::to_vec(message).unwrap();
    let from_text = schema.validate_slice(&text);
    prop_assert_eq!(&from_text, &report);
    let typed = schema.deserialize_slice::<Map<String, Value>>(&text);
    let Some(view) = report.normalized() else {
        prop_assert!(owned.normalized().is_none() && from_text.normalized().is_none());
        prop_assert!(matches!(typed, Err(Refusal::Invalid(_))));
        return Ok(());
    };
    let map = view.to_map();
    // The view's own reading agrees with the map it copies to.
    prop_assert_eq!(view.len(), map.len());
    prop_assert_eq!(view.iter().count(), map.len());
    for (name, value) in view.iter() {
        prop_assert_eq!(map.get(name), Some(value));
        prop_assert_eq!(view.get(name), Some(value));
        prop_assert_eq!(&view[name], value);
    }
    prop_assert_eq!(&view[" not a key "], &Value::Null);
    // Serialized, the view and the map are the same text, member order included.
    prop_assert_eq!(
        serde_json::to_string(view).unwrap(),
        serde_json::to_string(&map).unwrap()
    );
    prop_assert_eq!(
        view.deserialize::<Map<String, Value>>().unwrap(),
        map.clone()
    );
    // The in-place and text forms keep the same member order too (under
    // serde_json's `preserve_order`, `Map::remove` would not).
    for other in [owned.normalized(), from_text.normalized()] {
        prop_assert_eq!(
            serde_json::to_string(&other).unwrap(),
            serde_json::to_string(&Some(view)).unwrap()
        );
    }
    prop_assert_eq!(owned.into_normalized(), Some(map.clone()));
    prop_assert_eq!(from_text.into_normalized(), Some(map.clone()));
    match typed {
        Ok(accepted) => {
            prop_assert_eq!(accepted.payload, map);
            prop_assert_eq!(&accepted.warnings[..], report.warnings());
        }
        Err(refusal) => prop_assert!(false, "valid message refused: {}", refusal),
    }
    // Valid payload alone, borrowed and owned.
    if let Some(payload) = message.get("payload").and_then(Value::as_object) {
        let bare = schema.validate_payload(payload);
        prop_assert_eq!(bare.normalized().map(|n| n.to_map()), Some(view.to_map()));
        let bare_owned = schema.validate_payload_owned(payload.clone());
        prop_assert_eq!(bare_owned.into_normalized(), Some(view.to_map()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_form_gives_the_same_members(
        (template, message) in template(Extras::None).prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        policy in unknown_key_policy(),
    ) {
        let schema = CompiledSchema::with_options(&template, policy).unwrap();
        check_forms(&schema, &message)?;
    }
}

fn coffee() -> CompiledSchema {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "coffee_v1", "scenario": "coffee_order",
        "keys": [
            {"key_name": "size", "key_type": "string", "required": true,
             "semantic_description": "Cup size."},
            {"key_name": "shots", "key_type": "integer", "required": false,
             "default_value": 1, "semantic_description": "Espresso shots."},
            {"key_name": "milk", "key_type": "string", "required": false,
             "default_value": "whole", "semantic_description": "Milk."},
            {"key_name": "note", "key_type": "string", "required": false,
             "semantic_description": "A note."}
        ]
    }))
    .unwrap();
    CompiledSchema::new(&template).unwrap()
}

#[derive(Debug, Deserialize, PartialEq)]
struct Coffee {
    size: String,
    shots: u8,
    milk: String,
    note: Option<String>,
}

#[test]
fn the_view_reads_through_and_adds_what_normalizing_changes() {
    let schema = coffee();
    let message = json!({"schema_id": "coffee_v1",
        "payload": {"size": "large", "shots": 2.0, "milk": null, "note": null}});
    let report = schema.validate(&message);
    let view = report.normalized().unwrap();
    assert_eq!(view["shots"], json!(2));
    assert!(
        view["shots"].is_i64(),
        "2.0 in an integer key reads as an integer"
    );
    assert_eq!(
        view["milk"],
        json!("whole"),
        "a null optional value takes the default"
    );
    assert!(
        !view.contains_key("note"),
        "a null optional value without default is left out"
    );
    assert_eq!(view.len(), 3);
    let names: Vec<&str> = view.iter().map(|(name, _)| name).collect();
    // The message's members in the order its map holds them, then the defaults.
    let mut expected: Vec<&str> = message["payload"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|name| ["size", "shots"].contains(name))
        .collect();
    expected.push("milk");
    assert_eq!(names, expected);
    let coffee: Coffee = view.deserialize().unwrap();
    assert_eq!(
        coffee,
        Coffee {
            size: "large".into(),
            shots: 2,
            milk: "whole".into(),
            note: None
        }
    );
}

#[test]
fn deserialize_slice_fills_defaults_and_reports_refusals() {
    let schema = coffee();
    let accepted = schema
        .deserialize_slice::<Coffee>(br#"{"payload": {"size": "small"}, "schema_id": "coffee_v1"}"#)
        .unwrap();
    assert_eq!(
        accepted.payload,
        Coffee {
            size: "small".into(),
            shots: 1,
            milk: "whole".into(),
            note: None
        }
    );
    // Normalizing that removes or rewrites members goes through the map.
    let accepted = schema
        .deserialize_slice::<Coffee>(
            br#"{"schema_id": "coffee_v1", "payload": {"size": "s", "shots": 3.0, "milk": null}}"#,
        )
        .unwrap();
    assert_eq!(
        (accepted.payload.shots, accepted.payload.milk.as_str()),
        (3, "whole")
    );
    // A repeated member: the last one wins, as in serde_json.
    let accepted = schema
        .deserialize_slice::<Coffee>(
            br#"{"schema_id": "coffee_v1", "payload": {"size": 1, "size": "tall"}}"#,
        )
        .unwrap();
    assert_eq!(accepted.payload.size, "tall");

    let Err(Refusal::Invalid(report)) = schema.deserialize_slice::<Coffee>(b"{\"payload\": {}}")
    else {
        panic!("a message without schema_id is invalid");
    };
    let codes: Vec<IssueCode> = report.errors().iter().map(|i| i.code()).collect();
    assert_eq!(
        codes,
        [IssueCode::MissingRequiredKey, IssueCode::MissingSchemaId],
        "ordered by path: /payload/size, /schema_id"
    );

    // Valid for the schema, but the type wants shots ≤ 255.
    let refusal = schema
        .deserialize_slice::<Coffee>(
            br#"{"schema_id": "coffee_v1", "payload": {"size": "s", "shots": 300}}"#,
        )
        .unwrap_err();
    assert!(matches!(refusal, Refusal::Mismatch(_)), "{refusal}");
    assert!(
        refusal.to_string().starts_with("valid message"),
        "{refusal}"
    );
}

#[test]
fn deserialize_slice_hands_unknown_kept_members_to_the_type() {
    let template = coffee().template().clone();
    let schema = CompiledSchema::with_options(
        &template,
        ValidateOptions::default().unknown_keys(sdsi::validate::UnknownKeys::Warn),
    )
    .unwrap();
    let accepted = schema
        .deserialize_slice::<BTreeMap<String, Value>>(
            br#"{"schema_id": "coffee_v1", "payload": {"size": "s", "extra": [1]}}"#,
        )
        .unwrap();
    assert_eq!(accepted.payload["extra"], json!([1]));
    assert_eq!(accepted.payload["shots"], json!(1));
    assert_eq!(accepted.warnings[0].code(), IssueCode::UnknownKey);
}

#[test]
fn in_place_normalizing_moves_the_callers_payload() {
    let schema = coffee();
    let payload = json!({"size": "large", "note": "hot"});
    let report = schema.validate_payload_owned(payload.as_object().unwrap().clone());
    let normalized = report.into_normalized().unwrap();
    assert_eq!(
        Value::Object(normalized),
        json!({"size": "large", "note": "hot", "shots": 1, "milk": "whole"})
    );
}
