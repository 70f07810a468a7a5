//! What comes back: the draft's execution result (Figure 9) against a
//! response template, MCP tool results' `structuredContent` (built with the
//! `rmcp` SDK's own `CallToolResult`), and the response template's check.

use crate::common::{figure, pairs};
use sdsi::{CompiledSchema, SchemaTemplate};
use serde_json::{Value, json};

fn response_schema() -> CompiledSchema {
    let template = SchemaTemplate::from_value(&figure("response_template_booking")).unwrap();
    assert!(template.check_as_response().is_valid());
    CompiledSchema::new(&template).unwrap()
}

fn figure_9() -> Value {
    serde_json::from_value(figure("fig09_execution_result")).unwrap()
}

/// Figure 9's members as a tool's `structuredContent` (no suggestion).
fn structured_content() -> Value {
    let mut content = figure_9();
    content
        .as_object_mut()
        .unwrap()
        .remove("schema_update_suggestion");
    content
}

#[test]
fn the_drafts_execution_result_follows_its_response_template() {
    let schema = response_schema();
    let report = schema.validate_execution_result(&figure_9());
    assert!(report.is_valid(), "{:?}", report.errors());
    let normalized = report.normalized().unwrap();
    assert_eq!(normalized["seat"], "12A");
    assert!(normalized.get("schema_update_suggestion").is_none());

    let mut wrong = figure_9();
    wrong["seat"] = json!(12);
    wrong.as_object_mut().unwrap().remove("booking_id");
    wrong["schema_update_suggestion"] = json!({"new_keys": "not a list"});
    wrong["surprise"] = json!(true);
    assert_eq!(
        pairs(schema.validate_execution_result(&wrong).errors()),
        [
            ("missing_required_key", "/booking_id".to_owned()),
            ("invalid_member", "/schema_update_suggestion".to_owned()),
            ("type_mismatch", "/seat".to_owned()),
            ("unknown_key", "/surprise".to_owned()),
        ]
    );
    assert_eq!(
        pairs(schema.validate_execution_result(&json!([1])).errors()),
        [("not_an_object", String::new())]
    );
}

/// A `null` suggestion is no suggestion, to the validator as to the typed
/// `ExecutionResult`; the issue for a bad one is the same from both.
#[test]
fn the_validator_and_the_typed_result_read_a_suggestion_alike() {
    let schema = response_schema();
    let mut none = figure_9();
    none["schema_update_suggestion"] = Value::Null;
    assert!(schema.validate_execution_result(&none).is_valid());
    let typed: sdsi::negotiate::ExecutionResult = serde_json::from_value(none).unwrap();
    assert!(typed.schema_update_suggestion.is_none() && typed.rejected_suggestion.is_none());

    let mut bad = figure_9();
    bad["schema_update_suggestion"] = json!({"new_keys": "not a list"});
    let report = schema.validate_execution_result(&bad);
    let typed: sdsi::negotiate::ExecutionResult = serde_json::from_value(bad).unwrap();
    assert_eq!(
        Some(&report.errors()[0]),
        typed.rejected_suggestion.as_ref().map(|r| &r.issue)
    );
}

#[test]
fn mcp_structured_content_is_checked_against_the_output_schema() {
    let schema = response_schema();
    let mut content = structured_content();
    // Built and written by MCP's Rust SDK.
    let result = rmcp::model::CallToolResult::structured(content.clone());
    let wire = serde_json::to_value(&result).unwrap();
    assert!(schema.validate_mcp_tool_result(&wire).is_valid());
    assert!(schema.validate_structured_content(&content).is_valid());

    content["departure_time"] = json!(null);
    let wire = serde_json::to_value(rmcp::model::CallToolResult::structured(content)).unwrap();
    assert_eq!(
        pairs(schema.validate_mcp_tool_result(&wire).errors()),
        [(
            "type_mismatch",
            "/structuredContent/departure_time".to_owned()
        )]
    );
    let error = serde_json::to_value(rmcp::model::CallToolResult::structured_error(
        json!({"reason": "sold out"}),
    ))
    .unwrap();
    assert_eq!(
        pairs(schema.validate_mcp_tool_result(&error).errors()),
        [("missing_payload", "/isError".to_owned())]
    );
    assert_eq!(
        pairs(
            schema
                .validate_mcp_tool_result(&json!({"content": []}))
                .errors()
        ),
        [("missing_payload", "/structuredContent".to_owned())]
    );
    // The outputSchema a tool publishes reads as rmcp's Tool.
    let tool = json!({"name": "book", "inputSchema": {"type": "object"}, "outputSchema": schema.mcp_output_schema()});
    let typed: rmcp::model::Tool = serde_json::from_value(tool).unwrap();
    assert!(typed.output_schema.is_some());
}

/// MCP 2026-07-28: results carry `resultType`, an interim
/// `InputRequiredResult` (as rmcp writes it) has nothing to check yet, and
/// `structuredContent` may be any JSON value, which a response template
/// (an object) then rejects by its kind. Revision 2025-11-25 has no
/// `resultType`, so the member is not read there.
#[test]
fn mcp_2026_results_are_read_by_their_result_type() {
    use sdsi::mcp::McpVersion;
    let schema = response_schema();
    let content = structured_content();
    let complete = serde_json::to_value(rmcp::model::CallToolResult::structured(content)).unwrap();
    assert_eq!(complete["resultType"], "complete");
    assert!(schema.validate_mcp_tool_result(&complete).is_valid());

    let interim = serde_json::to_value(rmcp::model::InputRequiredResult::from_request_state(
        "opaque",
    ))
    .unwrap();
    assert_eq!(
        pairs(schema.validate_mcp_tool_result(&interim).errors()),
        [("missing_payload", "/resultType".to_owned())]
    );
    let mut odd = complete.clone();
    odd["resultType"] = json!("partial");
    let report = schema.validate_mcp_tool_result(&odd);
    assert_eq!(
        pairs(report.errors()),
        [("invalid_member", "/resultType".to_owned())]
    );
    assert!(report.errors()[0].message().contains("\"partial\""));
    // A long value is not echoed back.
    odd["resultType"] = json!("x".repeat(500));
    let report = schema.validate_mcp_tool_result(&odd);
    assert!(!report.errors()[0].message().contains(&"x".repeat(50)));
    // The older revision knows no resultType.
    assert!(
        schema
            .validate_mcp_tool_result_for(&odd, McpVersion::V2025_11_25)
            .is_valid()
    );

    // Any JSON value may travel; an object template names what came.
    let listed = serde_json::to_value(rmcp::model::CallToolResult::structured(json!([
        {"seat": "12A"}
    ])))
    .unwrap();
    let report = schema.validate_mcp_tool_result(&listed);
    assert_eq!(
        pairs(report.errors()),
        [("not_an_object", "/structuredContent".to_owned())]
    );
    assert!(
        report.errors()[0].message().contains("an array"),
        "{}",
        report.errors()[0].message()
    );
}

#[test]
fn a_response_template_cannot_declare_the_suggestion_member() {
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "r", "scenario": "x",
        "keys": [
            {"key_name": "schema_update_suggestion", "key_type": "object", "required": false, "semantic_description": "No."},
            {"key_name": "other", "key_type": "string", "required": false, "semantic_description": "Free text."}
        ]
    }))
    .unwrap();
    let problems = template.check_as_response();
    assert_eq!(
        pairs(problems.errors()),
        [("invalid_member", "/keys/0/key_name".to_owned())]
    );
    assert_eq!(
        pairs(problems.warnings()),
        [("invalid_member", "/keys/1/key_name".to_owned())]
    );
}
