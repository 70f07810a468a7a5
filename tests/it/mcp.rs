//! MCP by protocol revision: the elicitation a server sends under 2025-11-25
//! (its own `elicitation/create` request) and under 2026-07-28 (inside an
//! `InputRequiredResult`), each read back by MCP's Rust SDK (`rmcp`), and
//! the user's answer checked as a payload.

use crate::common::{flight_template, pairs};
use sdsi::CompiledSchema;
use sdsi::mcp::McpVersion;
use serde_json::{Value, json};

fn schema() -> CompiledSchema {
    CompiledSchema::new(&flight_template()).unwrap()
}

#[test]
fn the_2026_elicitation_is_an_input_required_result_rmcp_reads() {
    let schema = schema();
    let ask = schema.mcp_elicitation_request("Tell us about your trip", McpVersion::V2026_07_28);
    assert_eq!(ask.warnings, schema.mcp_elicitation_schema().warnings);
    let typed: rmcp::model::InputRequiredResult =
        serde_json::from_value(ask.schema.clone().into_value()).unwrap();
    let requests = typed.input_requests.as_ref().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), [schema.schema_id()]);
    let Some(rmcp::model::InputRequest::Elicitation(request)) = requests.get(schema.schema_id())
    else {
        panic!("not an elicitation: {:?}", requests)
    };
    let rmcp::model::ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = &request.params
    else {
        panic!("not a form: {:?}", request.params)
    };
    assert_eq!(message, "Tell us about your trip");
    assert_eq!(
        serde_json::to_value(requested_schema).unwrap(),
        schema.mcp_elicitation_schema().schema
    );
    // The form inside keeps the template's key order.
    assert!(
        ask.schema
            .to_string()
            .contains(&schema.mcp_elicitation_schema().schema.to_string())
    );
    // Written back by the SDK, nothing was refused or dropped.
    assert_eq!(serde_json::to_value(&typed).unwrap(), ask.schema);
}

#[test]
fn the_2025_elicitation_is_a_request_of_its_own() {
    let schema = schema();
    let ask = schema.mcp_elicitation_request("Tell us", McpVersion::V2025_11_25);
    assert!(ask.schema.get("resultType").is_none());
    let typed: rmcp::model::ElicitRequest =
        serde_json::from_value(ask.schema.clone().into_value()).unwrap();
    let wire = serde_json::to_value(&typed).unwrap();
    assert_eq!(wire["method"], "elicitation/create");
    assert_eq!(wire["params"], ask.schema["params"]);
}

#[test]
fn the_users_answer_is_checked_as_the_payload() {
    // Every required key can be asked for, so an answer can be valid.
    let template = sdsi::SchemaTemplate::from_value(&json!({
        "schema_id": "seat_v1", "scenario": "seat_choice",
        "keys": [
            {"key_name": "seat", "key_type": "string", "required": true, "semantic_description": "Window or aisle."},
            {"key_name": "bags", "key_type": "integer", "required": true, "semantic_description": "Checked bags."},
            {"key_name": "tags", "key_type": "array", "required": false, "semantic_description": "Labels."}
        ]
    }))
    .unwrap();
    let schema = CompiledSchema::new(&template).unwrap();
    let form = schema.mcp_elicitation_schema().schema;
    // Fill every required key the form asks for with a value of its type.
    let mut content = serde_json::Map::new();
    for name in form["required"].as_array().unwrap() {
        let name = name.as_str().unwrap();
        let value = match form["properties"][name]["type"].as_str().unwrap() {
            "string" => json!("x"),
            "integer" => json!(1),
            "number" => json!(1.5),
            _ => json!(true),
        };
        content.insert(name.to_owned(), value);
    }
    let accepted = serde_json::to_value(
        rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
            .with_content(Value::Object(content.clone())),
    )
    .unwrap();
    let report = schema.validate_mcp_elicit_result(&accepted);
    assert!(report.is_valid(), "{:?}", report.errors());

    let first = form["required"][0].as_str().unwrap().to_owned();
    content.insert(first.clone(), json!([1, 2]));
    let wrong = json!({"action": "accept", "content": content});
    assert_eq!(
        pairs(schema.validate_mcp_elicit_result(&wrong).errors()),
        [("type_mismatch", format!("/content/{first}"))]
    );
    let declined = serde_json::to_value(rmcp::model::ElicitResult::new(
        rmcp::model::ElicitationAction::Decline,
    ))
    .unwrap();
    assert_eq!(
        pairs(schema.validate_mcp_elicit_result(&declined).errors()),
        [("missing_payload", "/action".to_owned())]
    );
    for odd in [
        json!({"action": "maybe"}),
        json!([]),
        json!({"action": "accept"}),
    ] {
        assert!(!schema.validate_mcp_elicit_result(&odd).is_valid(), "{odd}");
    }
    let listed = json!({"action": "accept", "content": ["x"]});
    let report = schema.validate_mcp_elicit_result(&listed);
    assert_eq!(
        pairs(report.errors()),
        [("not_an_object", "/content".to_owned())]
    );
}

#[test]
fn revisions_read_as_mcp_writes_them() {
    for version in McpVersion::ALL.iter().copied() {
        assert_eq!(version.as_str().parse::<McpVersion>(), Ok(version));
        assert_eq!(
            rmcp::model::ProtocolVersion::known_up_to(&rmcp::model::ProtocolVersion::V_2026_07_28)
                .iter()
                .filter(|known| known.as_str() == version.as_str())
                .count(),
            1,
            "rmcp does not know {version}"
        );
    }
    assert_eq!(McpVersion::default(), McpVersion::LATEST);
    let error = "2024-01-01".parse::<McpVersion>().unwrap_err();
    assert!(error.to_string().contains("2026-07-28"));
}

#[test]
fn the_2026_tool_schemas_name_their_dialect() {
    let schema = schema();
    let newest = schema.mcp_input_schema();
    assert_eq!(newest["$schema"], sdsi::export::JSON_SCHEMA_DIALECT);
    assert_eq!(newest, schema.mcp_input_schema_for(McpVersion::V2026_07_28));
    let older = schema.mcp_input_schema_for(McpVersion::V2025_11_25);
    assert!(older.get("$schema").is_none());
    let mut without = newest.clone().into_value();
    without.as_object_mut().unwrap().remove("$schema");
    assert_eq!(without, older.clone().into_value());
    for version in McpVersion::ALL.iter().copied() {
        assert_eq!(
            schema.mcp_output_schema_for(version),
            schema.mcp_input_schema_for(version)
        );
    }
    // MCP's Rust SDK reads a tool carrying either and writes it back whole.
    for input in [newest, older] {
        let tool = json!({"name": "book", "inputSchema": input.into_value(),
                          "outputSchema": schema.mcp_output_schema().into_value()});
        let typed: rmcp::model::Tool = serde_json::from_value(tool.clone()).unwrap();
        let back = serde_json::to_value(&typed).unwrap();
        assert_eq!(back["inputSchema"], tool["inputSchema"]);
        assert_eq!(back["outputSchema"], tool["outputSchema"]);
    }
}
