//! Importing templates from JSON Schema and MCP tools: round trips through
//! the exports (the draft's figures exactly, generated templates where the
//! models overlap), and every construct a template cannot express reported
//! with its pointer.

use crate::common::{Extras, cases, figure_templates as figures, template};
use proptest::prelude::*;
use sdsi::import::{from_json_schema, from_mcp_tool};
use sdsi::{CompiledSchema, KeyDefinition, SchemaTemplate};
use serde_json::{Value, json};

/// What a key means to the validator, for comparing round trips: `other`
/// always takes a string or strings, and a required key's default never
/// applies, so the exports do not carry them.
fn by_value(value: &Value) -> Value {
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Null, Value::from),
        Value::Array(items) => items.iter().map(by_value).collect(),
        Value::Object(members) => members
            .iter()
            .map(|(k, v)| (k.clone(), by_value(v)))
            .collect(),
        other => other.clone(),
    }
}

fn meaning(key: &KeyDefinition) -> Value {
    let other = key.key_name.is_other();
    json!({
        "name": key.key_name.as_str(),
        "type": if other { "string or strings".to_owned() } else { key.key_type.to_string() },
        "required": key.required,
        // The exports leave a blank description out.
        "description": key.semantic_description.trim(),
        // `3.0` and `3` are one integer default (the exports write `3`).
        "default": if key.required { None } else { key.effective_default().map(by_value) },
        "deprecated": key.is_deprecated(),
    })
}

/// The keys' meanings by name: a JSON object's member order is the
/// parser's (serde_json sorts members unless its `preserve_order` feature is
/// on), so an imported template's key order is not the original's.
fn meanings(template: &SchemaTemplate) -> Vec<Value> {
    let mut all: Vec<Value> = template.keys.iter().map(meaning).collect();
    all.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    all
}

#[test]
fn the_figures_round_trip_through_json_schema_and_mcp() {
    for template in figures() {
        let schema = CompiledSchema::new(&template).unwrap();
        let back = from_json_schema(&schema.json_schema(), "unused", &template.scenario).unwrap();
        assert!(back.unsupported.is_empty(), "{:?}", back.unsupported);
        assert_eq!(
            back.template.schema_id, template.schema_id,
            "the id comes from the const"
        );
        assert_eq!(back.template.scenario, template.scenario);
        assert_eq!(meanings(&back.template), meanings(&template));
        // Identity, up to key order and `"default_value": null` (the same
        // as no default).
        let mut expected = template.clone();
        for key in &mut expected.keys {
            if key.default_value.as_ref().is_some_and(Value::is_null) {
                key.default_value = None;
            }
        }
        let mut got = back.template.clone();
        for t in [&mut expected, &mut got] {
            t.keys
                .sort_by(|a, b| a.key_name.as_str().cmp(b.key_name.as_str()));
        }
        assert_eq!(got, expected);

        let tool = json!({"name": template.schema_id, "inputSchema": schema.mcp_input_schema()});
        let from_tool = from_mcp_tool(&tool).unwrap();
        assert_eq!(meanings(&from_tool.template), meanings(&template));
        assert_eq!(from_tool.template.schema_id, template.schema_id);
    }
}

#[test]
fn what_a_template_cannot_say_is_reported_with_its_pointer() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "city": {"type": "string", "pattern": "^[A-Z]", "description": "City."},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ref": {"$ref": "#/$defs/thing"},
            "either": {"type": ["string", "number"]},
            "bookTitle": {"type": "string"},
            "maybe": {"type": ["string", "null"]}
        },
        "required": ["city", "maybe"],
        "additionalProperties": true,
        "$defs": {"thing": {"type": "string"}}
    });
    let imported = from_json_schema(&schema, "weather_v1", "weather").unwrap();
    let mut paths: Vec<&str> = imported.unsupported.iter().map(|i| i.path()).collect();
    paths.sort_unstable();
    // `ref` resolves to a string in `$defs`, which is only a container.
    let mut expected = vec![
        "/additionalProperties",
        "/properties/city/pattern",
        "/properties/days/minimum",
        "/properties/days/maximum",
        "/properties/unit/enum",
        "/properties/where/properties",
        "/properties/tags/items",
        "/properties/either/type",
        "/properties/bookTitle",
        "/properties/maybe/type",
    ];
    expected.sort_unstable();
    assert_eq!(paths, expected);
    assert!(
        imported
            .unsupported
            .iter()
            .all(|i| i.code().as_str() == "not_expressible")
    );
    let mut names: Vec<&str> = imported
        .template
        .keys
        .iter()
        .map(|k| k.key_name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "book_title",
            "city",
            "days",
            "either",
            "maybe",
            "ref",
            "tags",
            "unit",
            "where"
        ]
    );
    assert_eq!(
        imported.template.key("days").unwrap().default_value,
        Some(json!(3))
    );
    assert!(imported.template.key("maybe").unwrap().required);
}

/// `tests/cases/import.json`: `{description, from, input, schema_id?,
/// scenario?, keys: [[name, type, required, default]], unsupported:
/// [pointer], error?}`; keys and pointers compared in sorted order.
#[test]
fn import_cases() {
    let cases = cases("import.json");
    for case in &cases {
        let description = case["description"].as_str().unwrap();
        let result = match case["from"].as_str().unwrap() {
            "mcp-tool" => from_mcp_tool(&case["input"]),
            _ => from_json_schema(
                &case["input"],
                case["schema_id"].as_str().unwrap(),
                case["scenario"].as_str().unwrap(),
            ),
        };
        if case["error"] == true {
            assert!(result.is_err(), "{description}");
            continue;
        }
        let imported = result.unwrap_or_else(|e| panic!("{description}: {e}"));
        if let Some(id) = case["schema_id_out"].as_str() {
            assert_eq!(imported.template.schema_id, id, "{description}");
        }
        let mut keys: Vec<Value> = imported
            .template
            .keys
            .iter()
            .map(|k| {
                json!([
                    k.key_name.as_str(),
                    k.key_type.as_str(),
                    k.required,
                    k.default_value
                ])
            })
            .collect();
        keys.sort_by_key(|k| k[0].as_str().unwrap_or_default().to_owned());
        assert_eq!(&keys, case["keys"].as_array().unwrap(), "{description}");
        let mut paths: Vec<&str> = imported.unsupported.iter().map(|i| i.path()).collect();
        paths.sort_unstable();
        let expected: Vec<&str> = case["unsupported"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(paths, expected, "{description}");
        assert!(
            imported
                .unsupported
                .iter()
                .all(|i| i.code().as_str() == "not_expressible")
        );
    }
    assert!(cases.len() >= 15);
}

#[test]
fn unusable_schemas_are_errors() {
    assert!(from_json_schema(&json!("string"), "a", "b").is_err());
    assert!(from_json_schema(&json!({"type": "array"}), "a", "b").is_err());
    // Two names that become the same key.
    let clash = json!({"type": "object", "properties": {"a_b": {"type": "string"}, "aB": {"type": "string"}}});
    let error = from_json_schema(&clash, "a", "b").unwrap_err();
    assert!(
        error
            .errors()
            .iter()
            .any(|e| e.code().as_str() == "duplicate_key_name"),
        "{error}"
    );
    assert!(from_mcp_tool(&json!({"name": "t"})).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// template → JSON Schema → template keeps every key's meaning, with
    /// nothing reported as unsupported.
    #[test]
    fn json_schema_round_trips_where_the_models_overlap(template in template(Extras::None)) {
        let schema = CompiledSchema::new(&template).unwrap();
        let back = from_json_schema(&schema.json_schema(), "x", &template.scenario).unwrap();
        prop_assert!(back.unsupported.is_empty(), "{:?}", back.unsupported);
        prop_assert_eq!(&back.template.schema_id, &template.schema_id);
        let mut want = meanings(&template);
        // A template without `other` gets the implicit one from the export.
        if template.key("other").is_none() {
            want.push(json!({"name": "other", "type": "string or strings", "required": false,
                "description": back.template.key("other").unwrap().semantic_description, "default": null, "deprecated": false}));
        }
        want.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        prop_assert_eq!(meanings(&back.template), want);
        // And the imported template exports the same payload schema (its
        // `required` list in key order, so compared as a set).
        let again = CompiledSchema::new(&back.template).unwrap();
        let payload_schema = |schema: &CompiledSchema| {
            let mut payload = schema.json_schema()["properties"]["payload"].clone();
            if let Some(Value::Array(required)) = payload.get_mut("required") {
                required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            }
            payload
        };
        prop_assert_eq!(payload_schema(&again), payload_schema(&schema));
    }
}

/// The narrowings MCP tools and pydantic models meet most: an open object
/// (no `additionalProperties`) made closed, a `required` name with no
/// property; each reported where it is, saying what the template does.
#[test]
fn an_open_object_and_a_dangling_required_are_reported() {
    let tool = json!({"name": "lookup", "inputSchema": {"type": "object",
        "properties": {"q": {"type": "string"}}, "required": ["q", "limit"]}});
    let imported = from_mcp_tool(&tool).unwrap();
    let paths: Vec<&str> = imported.unsupported.iter().map(|i| i.path()).collect();
    assert_eq!(
        paths,
        [
            "/inputSchema/required/1",
            "/inputSchema/additionalProperties"
        ]
    );
    let messages: Vec<String> = imported
        .unsupported
        .iter()
        .map(|i| i.message().into_owned())
        .collect();
    assert_eq!(
        messages,
        [
            "required \"limit\" names no property, so no key is made for it: the template takes payloads without that member, and refuses it as an unknown key",
            "the object is open (it takes any other member) and the template is closed: members besides the properties are unknown keys (UnknownKeys::Warn accepts them with a warning)",
        ]
    );
    assert_eq!(imported.template.keys.len(), 1);
    assert!(imported.template.keys[0].required);

    // Closed, and every required name has its property: nothing to say.
    let closed = json!({"type": "object", "properties": {"q": {"type": "string"}},
        "required": ["q"], "additionalProperties": false});
    assert!(
        from_json_schema(&closed, "s", "x")
            .unwrap()
            .unsupported
            .is_empty()
    );
}
