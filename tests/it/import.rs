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

/// A schema a real generator wrote (`tests/fixtures/import/`, provenance in
/// its README), and what importing it must give.
struct Generated {
    file: &'static str,
    /// `[name, type, required, default]` per key, sorted by name.
    keys: Value,
    /// Every pointer reported, sorted.
    reported: &'static [&'static str],
    /// Payloads, whether the generator's schema accepts each, whether the
    /// imported template (its validator and its exported `inputSchema`)
    /// does, and, where they differ, the reported pointer that says why.
    examples: Vec<(Value, bool, bool, Option<&'static str>)>,
}

fn round_trip(generated: &Generated) {
    let file = generated.file;
    let fixture = crate::common::import_fixture(file);
    let (imported, original) = match fixture.get("inputSchema") {
        Some(input) => (from_mcp_tool(&fixture).unwrap(), input.clone()),
        None => (
            from_json_schema(&fixture, file, file).unwrap(),
            fixture.clone(),
        ),
    };
    let mut keys: Vec<Value> = imported
        .template
        .keys
        .iter()
        .map(|k| {
            let default = k.default_value.clone().unwrap_or(Value::Null);
            json!([
                k.key_name.as_str(),
                k.key_type.as_str(),
                k.required,
                default
            ])
        })
        .collect();
    keys.sort_by_key(|k| k[0].as_str().unwrap_or_default().to_owned());
    assert_eq!(Value::from(keys), generated.keys, "{file}");
    let mut reported: Vec<&str> = imported.unsupported.iter().map(|i| i.path()).collect();
    reported.sort_unstable();
    assert_eq!(
        reported, generated.reported,
        "{file}: {:#?}",
        imported.unsupported
    );
    assert!(
        imported
            .unsupported
            .iter()
            .all(|i| i.code().as_str() == "not_expressible")
    );

    let schema = CompiledSchema::new(&imported.template).unwrap();
    let exported = jsonschema::validator_for(&schema.mcp_input_schema()).unwrap();
    let original = jsonschema::validator_for(&original).unwrap();
    for (payload, by_original, by_template, because) in &generated.examples {
        assert_eq!(
            original.is_valid(payload),
            *by_original,
            "{file}: the generator's schema on {payload}"
        );
        assert_eq!(
            exported.is_valid(payload),
            *by_template,
            "{file}: the export on {payload}"
        );
        let object = payload.as_object().unwrap();
        assert_eq!(
            schema.is_valid_payload(object),
            *by_template,
            "{file}: the validator on {payload}"
        );
        // Every difference in verdict is one the import reported.
        assert_eq!(
            by_original != by_template,
            because.is_some(),
            "{file}: {payload}"
        );
        if let Some(pointer) = because {
            assert!(
                reported.contains(pointer),
                "{file}: {pointer} explains {payload}"
            );
        }
    }
}

#[test]
fn rmcp_tool_schemas_import_with_every_difference_reported() {
    round_trip(&Generated {
        file: "rmcp_search_flights",
        keys: json!([
            ["cabin", "string", false, null],
            ["date", "string", true, null],
            ["destination", "string", true, null],
            ["direct_only", "boolean", false, false],
            ["max_price", "number", false, null],
            ["origin", "string", true, null],
            ["passengers", "integer", false, null],
            ["preferred_airlines", "array", false, null],
        ]),
        reported: &[
            "/inputSchema/$defs/Cabin/enum",
            "/inputSchema/additionalProperties",
            "/inputSchema/properties/max_price/format",
            "/inputSchema/properties/passengers/format",
            "/inputSchema/properties/passengers/maximum",
            "/inputSchema/properties/passengers/minimum",
            "/inputSchema/properties/preferred_airlines/items",
        ],
        examples: vec![
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01"}),
                true,
                true,
                None,
            ),
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01", "passengers": 2,
                    "cabin": "premium_economy", "direct_only": true, "preferred_airlines": ["AF"], "max_price": 900.5}),
                true,
                true,
                None,
            ),
            // `Option` fields take null: an optional key's "not given".
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01", "passengers": null,
                    "cabin": null, "preferred_airlines": null, "max_price": null}),
                true,
                true,
                None,
            ),
            (
                json!({"origin": "CDG", "date": "2026-12-01"}),
                false,
                false,
                None,
            ),
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01", "passengers": "two"}),
                false,
                false,
                None,
            ),
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01", "currency": "EUR"}),
                true,
                false,
                Some("/inputSchema/additionalProperties"),
            ),
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01", "cabin": "steerage"}),
                false,
                true,
                Some("/inputSchema/$defs/Cabin/enum"),
            ),
            (
                json!({"origin": "CDG", "destination": "JFK", "date": "2026-12-01", "passengers": 12}),
                false,
                true,
                Some("/inputSchema/properties/passengers/maximum"),
            ),
        ],
    });
    round_trip(&Generated {
        file: "rmcp_create_event",
        keys: json!([
            ["attendees", "array", false, []],
            ["duration_minutes", "integer", false, 30],
            ["location", "object", false, null],
            ["note", "string", false, null],
            ["starts_at", "string", true, null],
            ["title", "string", true, null],
        ]),
        reported: &[
            "/inputSchema/$defs/Location/properties",
            "/inputSchema/$defs/Location/required",
            "/inputSchema/additionalProperties",
            "/inputSchema/properties/attendees/items",
            "/inputSchema/properties/durationMinutes",
            "/inputSchema/properties/durationMinutes/format",
            "/inputSchema/properties/durationMinutes/minimum",
            "/inputSchema/properties/startsAt",
        ],
        examples: vec![
            (
                json!({"title": "Standup", "startsAt": "2026-12-01T09:00:00Z"}),
                true,
                false,
                Some("/inputSchema/properties/startsAt"),
            ),
            (
                json!({"title": "Standup", "starts_at": "2026-12-01T09:00:00Z"}),
                false,
                true,
                Some("/inputSchema/properties/startsAt"),
            ),
            (
                json!({"title": "Standup", "starts_at": "2026-12-01T09:00:00Z", "location": {"city": "Lyon"}, "note": null}),
                false,
                true,
                Some("/inputSchema/properties/startsAt"),
            ),
            (json!({"title": "Standup"}), false, false, None),
            (
                json!({"title": "Standup", "startsAt": "x", "starts_at": "x", "location": {"address": "1 rue"}}),
                false,
                false,
                None,
            ),
        ],
    });
}

#[test]
fn pydantic_model_schemas_import_with_every_difference_reported() {
    round_trip(&Generated {
        file: "pydantic_coffee_order",
        keys: json!([
            ["decaf", "boolean", false, false],
            ["extras", "array", false, null],
            ["milk", "string", false, null],
            ["name", "string", false, null],
            ["shots", "integer", false, 1],
            ["size", "string", true, null],
        ]),
        reported: &[
            "/$defs/Size/enum",
            "/properties/extras/items",
            "/properties/milk/anyOf/0/enum",
            "/properties/name/anyOf/0/maxLength",
            "/properties/shots/maximum",
            "/properties/shots/minimum",
        ],
        examples: vec![
            (json!({"size": "large"}), true, true, None),
            (
                json!({"size": "small", "shots": 2, "milk": "oat", "extras": ["vanilla"], "name": "Ada", "decaf": true}),
                true,
                true,
                None,
            ),
            (
                json!({"size": "small", "milk": null, "name": null}),
                true,
                true,
                None,
            ),
            (json!({"shots": 2}), false, false, None),
            (json!({"size": "small", "cream": true}), false, false, None),
            (json!({"size": "small", "shots": "two"}), false, false, None),
            (
                json!({"size": "venti"}),
                false,
                true,
                Some("/$defs/Size/enum"),
            ),
            (
                json!({"size": "small", "milk": "goat"}),
                false,
                true,
                Some("/properties/milk/anyOf/0/enum"),
            ),
        ],
    });
    round_trip(&Generated {
        file: "pydantic_table_booking",
        keys: json!([
            ["budget", "number", false, null],
            ["contact_phone", "string", true, null],
            ["date", "string", true, null],
            ["delivery_address", "object", false, null],
            ["notes", "string", false, null],
            ["party_size", "integer", true, null],
            ["restaurant_id", "string", true, null],
            ["seating", "string", false, null],
        ]),
        reported: &[
            "/$defs/Address/properties",
            "/$defs/Address/required",
            "/additionalProperties",
            "/properties/contact_phone/anyOf/1",
            "/properties/date/pattern",
            "/properties/party_size/exclusiveMinimum",
            "/properties/seating/anyOf/0/enum",
        ],
        examples: vec![
            (
                json!({"restaurant_id": "r1", "date": "2026-12-01", "party_size": 4, "contact_phone": "+33 1 23"}),
                true,
                true,
                None,
            ),
            (
                json!({"restaurant_id": "r1", "date": "2026-12-01", "party_size": 4, "contact_phone": "+33 1 23",
                    "seating": "outdoor", "notes": null, "budget": 40.0,
                    "delivery_address": {"street": "1 rue de la Paix", "city": "Paris"}}),
                true,
                true,
                None,
            ),
            (
                json!({"restaurant_id": "r1", "date": "2026-12-01", "party_size": 4}),
                false,
                false,
                None,
            ),
            (
                json!({"restaurant_id": "r1", "date": "2026-12-01", "party_size": 4, "contact_phone": null}),
                true,
                false,
                Some("/properties/contact_phone/anyOf/1"),
            ),
            (
                json!({"restaurant_id": "r1", "date": "2026-12-01", "party_size": 4, "contact_phone": "1", "vip": true}),
                true,
                false,
                Some("/additionalProperties"),
            ),
            (
                json!({"restaurant_id": "r1", "date": "tomorrow", "party_size": 4, "contact_phone": "1"}),
                false,
                true,
                Some("/properties/date/pattern"),
            ),
            (
                json!({"restaurant_id": "r1", "date": "2026-12-01", "party_size": 4, "contact_phone": "1", "delivery_address": {}}),
                false,
                true,
                Some("/$defs/Address/required"),
            ),
        ],
    });
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

/// `count` properties that all name one definition with `keywords` keywords
/// a template cannot express (and a type).
fn fan_out(count: usize, keywords: usize) -> Value {
    let mut definition: serde_json::Map<String, Value> = (0..keywords)
        .map(|k| (format!("x-rule-{k}"), json!(k)))
        .collect();
    definition.insert("type".into(), json!("string"));
    let properties: serde_json::Map<String, Value> = (0..count)
        .map(|p| (format!("field_{p}"), json!({"$ref": "#/$defs/Shared"})))
        .collect();
    json!({"type": "object", "properties": properties, "additionalProperties": false,
           "$defs": {"Shared": definition}})
}

/// A definition shared by many properties is reported once, at its own
/// pointer: a 2,000-property schema naming one definition with 50
/// unexpressible keywords gives 50 reports, not 100,000.
#[test]
fn a_shared_definition_is_reported_once_however_many_properties_name_it() {
    let imported = from_json_schema(&fan_out(2_000, 50), "s", "x").unwrap();
    assert_eq!(imported.template.keys.len(), 2_000);
    assert_eq!(imported.unsupported.len(), 50);
    let mut paths: Vec<&str> = imported.unsupported.iter().map(|i| i.path()).collect();
    paths.sort_unstable();
    let mut expected: Vec<String> = (0..50)
        .map(|k| format!("/$defs/Shared/x-rule-{k}"))
        .collect();
    expected.sort_unstable();
    assert_eq!(paths, expected);
    // The message says the report stands for every property that refers here.
    assert_eq!(
        imported.unsupported[0].message(),
        "\"x-rule-0\" has no template equivalent: every key whose type is read through here (the first, property \"field_0\") takes any string"
    );
}

/// However many differences a schema has, an import lists at most 1,000
/// (and at most 1 MiB of paths and messages), then one issue at the root
/// counting the rest.
#[test]
fn an_import_lists_a_bounded_number_of_differences() {
    let properties: serde_json::Map<String, Value> = (0..1_500)
        .map(|p| {
            (
                format!("field_{p}"),
                json!({"type": "string", "minLength": 1}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    let imported = from_json_schema(&schema, "s", "x").unwrap();
    assert_eq!(imported.template.keys.len(), 1_500);
    assert_eq!(imported.unsupported.len(), 1_001);
    let last = imported.unsupported.last().unwrap();
    assert_eq!((last.code().as_str(), last.path()), ("not_expressible", ""));
    assert_eq!(
        last.message(),
        "500 more differences are not listed: an import lists at most 1000, in at most 1 MiB of paths and messages"
    );

    // A long property name is in the path of every report about it: the
    // bytes bound the list too.
    let name = "n".repeat(100_000);
    let mut property: serde_json::Map<String, Value> = (0..100)
        .map(|k| (format!("x-rule-{k}"), json!(k)))
        .collect();
    property.insert("type".into(), json!("string"));
    let schema =
        json!({"type": "object", "properties": {name: property}, "additionalProperties": false});
    let imported = from_json_schema(&schema, "s", "x").unwrap();
    let bytes: usize = imported
        .unsupported
        .iter()
        .map(|i| i.path().len() + i.message().len())
        .sum();
    assert!(bytes < 1_200_000, "{bytes} bytes");
    assert!(imported.unsupported.len() < 20);
    assert!(
        imported
            .unsupported
            .last()
            .unwrap()
            .message()
            .contains("more differences are not listed")
    );
}

/// A property whose type cannot be read through its references is reported
/// at the property, and the message says where the chain broke.
#[test]
fn a_broken_chain_is_reported_at_the_property_saying_where() {
    let schema = json!({"type": "object", "additionalProperties": false,
    "properties": {
        "looping": {"$ref": "#/$defs/A"},
        "dangling": {"$ref": "#/$defs/Broken"},
        "untyped": {"$ref": "#/$defs/Anything"},
        "deep": {"$ref": "#/$defs/D0"}
    },
    "$defs": {
        "A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"},
        "Broken": {"anyOf": [{"$ref": "#/$defs/Gone"}, {"type": "null"}]},
        "Anything": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "D0": {"$ref": "#/$defs/D1"}, "D1": {"$ref": "#/$defs/D2"}, "D2": {"$ref": "#/$defs/D3"},
        "D3": {"$ref": "#/$defs/D4"}, "D4": {"$ref": "#/$defs/D5"}, "D5": {"$ref": "#/$defs/D6"},
        "D6": {"$ref": "#/$defs/D7"}, "D7": {"$ref": "#/$defs/D8"}, "D8": {"$ref": "#/$defs/D9"},
        "D9": {"$ref": "#/$defs/DA"}, "DA": {"$ref": "#/$defs/DB"}, "DB": {"$ref": "#/$defs/DC"},
        "DC": {"$ref": "#/$defs/DD"}, "DD": {"$ref": "#/$defs/DE"}, "DE": {"$ref": "#/$defs/DF"},
        "DF": {"type": "string"}
    }});
    let imported = from_json_schema(&schema, "s", "x").unwrap();
    assert!(imported.template.keys.is_empty());
    let mut reports: Vec<(&str, String)> = imported
        .unsupported
        .iter()
        .map(|i| (i.path(), i.message().into_owned()))
        .collect();
    reports.sort();
    assert_eq!(
        reports,
        [
            (
                "/properties/dangling",
                "property \"dangling\": the $ref at /$defs/Broken/anyOf/0/$ref, \"#/$defs/Gone\", names no schema object in this document: left out".to_owned()
            ),
            (
                "/properties/deep",
                "property \"deep\": from /properties/deep, the type is more than 16 references or unions deep: left out".to_owned()
            ),
            (
                "/properties/looping",
                "property \"looping\": the $ref at /$defs/B/$ref leads back to /$defs/A: the references loop: left out".to_owned()
            ),
            (
                "/properties/untyped",
                "property \"untyped\" has no type (a union of schemas, not one type, at /$defs/Anything): left out".to_owned()
            ),
        ]
    );
}
