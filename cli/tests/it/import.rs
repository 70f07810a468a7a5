//! `sdsi import`: from the JSON Schema `sdsi export` writes back to the
//! template, from an MCP tool with what it cannot carry listed, and the exit
//! statuses.

use crate::common::json_object;
use serde_json::{Value, json};

#[test]
fn export_then_import_gives_the_template_back() {
    let figure = format!(
        "{}/../tests/figures/fig02_flight_template.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, exported) = json_object(
        &["export", "--format", "json-schema", "--schema", &figure],
        b"",
    );
    assert_eq!(code, 0);
    let schema = exported["export"].to_string();
    let (code, imported) = json_object(
        &["import", "--scenario", "flight_booking", "-"],
        schema.as_bytes(),
    );
    assert_eq!(code, 0, "{imported}");
    assert_eq!(imported["warnings"], json!([]));
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&figure).unwrap()).unwrap();
    let template = &imported["template"];
    assert_eq!(template["schema_id"], original["schema_id"]);
    assert_eq!(template["scenario"], original["scenario"]);
    let names = |t: &Value| {
        let mut names: Vec<String> = t["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["key_name"].as_str().unwrap().to_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(template), names(&original));
}

#[test]
fn an_mcp_tool_imports_with_its_losses_listed() {
    let tool = json!({"name": "search_flights", "inputSchema": {"type": "object",
        "properties": {"from": {"type": "string", "pattern": "^[A-Z]{3}$"}, "seats": {"type": "integer", "maximum": 9}},
        "required": ["from"]}});
    let (code, out) = json_object(&["import", "-"], tool.to_string().as_bytes());
    assert_eq!(code, 0);
    assert_eq!(out["template"]["schema_id"], "search_flights");
    let paths: Vec<&str> = out["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    // rmcp and most MCP servers write no `additionalProperties`: the tool
    // takes members the template refuses.
    assert_eq!(
        paths,
        [
            "/inputSchema/additionalProperties",
            "/inputSchema/properties/from/pattern",
            "/inputSchema/properties/seats/maximum"
        ]
    );
}

#[test]
fn exit_statuses() {
    assert_eq!(json_object(&["import", "-"], b"not json").0, 2);
    assert_eq!(
        json_object(&["import", "/nonexistent/schema.json"], b"").0,
        2
    );
    let (code, out) = json_object(&["import", "-"], br#"{"type": "array"}"#);
    assert_eq!(code, 1);
    assert_eq!(out["valid"], false);
}
