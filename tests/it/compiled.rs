//! Compiling: taking the template (`from_template`) gives the same schema
//! as borrowing it (`new`); defaults and issue paths, which a compiled
//! schema no longer copies or builds up front, read as before.

use crate::common::{self, Extras, key_definition, message_for, template};
use proptest::prelude::*;
use sdsi::validate::ValidateOptions;
use sdsi::{CompiledSchema, IssueCode, SchemaTemplate};
use serde_json::{Value, json};

/// Every answer a schema gives about itself and about `messages`.
fn answers(schema: &CompiledSchema, messages: &[Value]) -> Vec<String> {
    let mut out = vec![
        format!("{:?}", schema.template()),
        format!("{:?}", schema.digest()),
        schema.schema_id().to_owned(),
    ];
    #[cfg(feature = "export")]
    out.extend([schema.json_schema().to_string(), schema.prompt()]);
    for message in messages {
        let report = schema.validate(message);
        let problems = format!("{:?} {:?}", report.errors(), report.warnings());
        let normalized = serde_json::to_string(&report.into_normalized()).unwrap();
        out.push(format!("{problems} {normalized}"));
        out.push(schema.is_valid(message).to_string());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn taking_the_template_compiles_the_same_schema(
        (template, messages) in template(Extras::All).prop_flat_map(|t| {
            let messages = prop::collection::vec(message_for(&t), 1..6);
            (Just(t), messages)
        }),
        limits in common::options_with_limits(),
    ) {
        let borrowed = CompiledSchema::with_options(&template, limits).unwrap();
        let taken =
            CompiledSchema::from_template_with_options(template.clone(), limits).unwrap();
        prop_assert_eq!(taken.template(), &template);
        prop_assert_eq!(answers(&taken, &messages), answers(&borrowed, &messages));
    }

    #[test]
    fn a_cloned_key_equals_its_original(key in key_definition(Extras::Keys)) {
        let clone = key.clone();
        prop_assert_eq!(&clone, &key);
        prop_assert_eq!(clone.extra.keys().collect::<Vec<_>>(), key.extra.keys().collect::<Vec<_>>());
    }
}

#[test]
fn taking_a_bad_template_fails_as_borrowing_it_does() {
    let bad = SchemaTemplate::from_value(&json!({
        "schema_id": "t", "scenario": "s",
        "keys": [{"key_name": "size", "key_type": "string", "required": false,
                  "semantic_description": "Size."}]
    }))
    .unwrap();
    let mut bad = bad;
    bad.keys.push(bad.keys[0].clone());
    let borrowed = CompiledSchema::new(&bad).unwrap_err();
    let taken = CompiledSchema::from_template(bad).unwrap_err();
    assert_eq!(taken, borrowed);
    assert_eq!(taken.errors()[0].code(), IssueCode::DuplicateKeyName);
}

fn coffee() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "coffee_v1", "scenario": "coffee_order",
        "keys": [
            {"key_name": "size", "key_type": "string", "required": true,
             "semantic_description": "Cup size."},
            {"key_name": "shots", "key_type": "integer", "required": false,
             "default_value": 2.0, "semantic_description": "Espresso shots."},
            {"key_name": "milk", "key_type": "string", "required": false,
             "default_value": "whole", "semantic_description": "Milk."}
        ]
    }))
    .unwrap()
}

#[test]
fn an_integer_default_written_as_a_float_normalizes_to_an_integer() {
    let schema = CompiledSchema::from_template(coffee()).unwrap();
    let message = json!({"schema_id": "coffee_v1", "payload": {"size": "large"}});
    let normalized = schema.validate(&message).into_normalized().unwrap();
    assert_eq!(normalized["shots"].as_i64(), Some(2));
    assert_eq!(normalized["milk"], "whole");
    // The template the schema keeps is the one it was given.
    assert_eq!(schema.template().keys[1].default_value, Some(json!(2.0)));
}

#[test]
fn issue_paths_name_declared_and_implicit_keys_from_any_thread() {
    // `other` is not declared: the schema adds it, and its path too.
    let schema = CompiledSchema::with_options(&coffee(), ValidateOptions::default()).unwrap();
    let message = json!({"schema_id": "coffee_v1",
                         "payload": {"size": 3, "shots": "two", "other": [1]}});
    let expected = vec![
        "/payload/other/0".to_owned(),
        "/payload/shots".to_owned(),
        "/payload/size".to_owned(),
    ];
    // The paths are built by whichever call first needs one: let several
    // threads race to it.
    let paths: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let report = schema.validate(&message);
                    report
                        .errors()
                        .iter()
                        .map(|e| e.path().to_owned())
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for found in paths {
        assert_eq!(found, expected);
    }
}
