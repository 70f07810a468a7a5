//! What a message echoes of text from the other side: a remote card or
//! part, an imported schema, a tool result, a client's payload. A long
//! hostile name or value is quoted at most 24 characters long (then its
//! length), never whole, at every place that quotes one.

use crate::common::flight_template;
use sdsi::a2a::{Direction, FieldDefinition, SCHEMA_CONTRACT_URI, SchemaContractExtension};
use sdsi::envelope::Envelope;
use sdsi::import::from_json_schema;
use sdsi::{CompiledSchema, Issue, SchemaTemplate, StructuredPayload};
use serde_json::{Value, json};

/// The hostile text: long, and not snake_case.
fn hostile() -> String {
    "A".repeat(10_000)
}

/// The message of the issue at `path` (the place must report).
fn at(issues: &[Issue], path: &str) -> String {
    issues
        .iter()
        .find(|i| i.path() == path)
        .unwrap_or_else(|| panic!("nothing at {}", path.get(..60).unwrap_or(path)))
        .message()
        .into_owned()
}

fn contract_card(contracts: Value) -> Vec<Issue> {
    let card = json!({"capabilities": {"extensions": [{"uri": SCHEMA_CONTRACT_URI,
        "params": {"catalog": {"inline": {"contracts": contracts}}}}]}});
    SchemaContractExtension::find(&card)
        .unwrap_err()
        .errors()
        .to_vec()
}

#[test]
fn a_long_hostile_text_is_not_echoed() {
    let long = hostile();
    let none = json!({"presence": "none"});
    let contracts = "/capabilities/extensions/0/params/catalog/inline/contracts";
    let identity = format!(
        "/metadata/{}",
        SCHEMA_CONTRACT_URI.replace('~', "~0").replace('/', "~1")
    );
    let schema = CompiledSchema::new(&flight_template()).unwrap();
    let message = StructuredPayload::new("flight_booking_v1")
        .with("origin", "PEK")
        .with("destination", "SHA")
        .with("departure_date", "2026-05-04");
    let contract_part =
        |contract_id: &str| schema.a2a_contract_part(&message, contract_id, Direction::Input);

    let mut sites: Vec<(&str, String)> = Vec::new();

    // A2A Schema Contract: a remote card's member names, contract ids, skill ids.
    let mut odd = json!({"id": "urn:x:1", "input": none, "output": none});
    odd[long.as_str()] = json!(1);
    let issues = contract_card(json!([odd]));
    sites.push(("card member", at(&issues, &format!("{contracts}/0/{long}"))));
    let twice = json!({"id": format!("urn:x:{long}"), "input": none, "output": none});
    let issues = contract_card(json!([twice, twice]));
    sites.push(("contract id", at(&issues, &format!("{contracts}/1/id"))));
    let skills = json!({"id": "urn:x:1", "skillIds": [long, long], "input": none, "output": none});
    let issues = contract_card(json!([skills]));
    sites.push((
        "skill id",
        at(&issues, &format!("{contracts}/0/skillIds/1")),
    ));

    // A remote part: its contract id, media types, metadata schema id.
    let part = contract_part(&format!("urn:x:{long}"));
    let report = schema.validate_a2a_contract_part(
        &part,
        "https://airline.example/contracts/1",
        Direction::Input,
    );
    sites.push((
        "part contractId",
        at(report.errors(), &format!("{identity}/contractId")),
    ));
    let mut part = contract_part("https://airline.example/contracts/1");
    part["mediaType"] = json!(format!("application/json; p={long}"));
    part["metadata"]["mediaType"] = json!(format!("application/vnd.{long}+json"));
    part["metadata"]["schema"]["properties"]["schema_id"]["const"] = json!(long);
    let report = schema.validate_a2a_data_part(&part);
    sites.push(("part mediaType", at(report.errors(), "/metadata/mediaType")));
    sites.push((
        "part schema id",
        at(
            report.errors(),
            "/metadata/schema/properties/schema_id/const",
        ),
    ));

    // #813 fields from a remote card: a name, media types, extra members.
    let mut field = json!({"name": long, "kind": "file", "mimeTypes": [long]});
    field[format!("x-{long}")] = json!(1);
    let fields: Vec<FieldDefinition> = serde_json::from_value(json!([field])).unwrap();
    let conversion = sdsi::a2a::template_from_fields("x_v1", "x", &fields);
    sites.push(("field name", at(&conversion.warnings, "/0/name")));
    sites.push((
        "field media types",
        at(&conversion.warnings, "/0/mimeTypes"),
    ));
    sites.push(("field members", at(&conversion.warnings, "/0")));

    // A template read from a remote card: its key name and key type.
    let template = json!({"schema_id": "x_v1", "scenario": "x", "keys": [
        {"key_name": long, "key_type": long, "required": true, "semantic_description": "x"}]});
    let error = SchemaTemplate::from_value(&template).unwrap_err();
    sites.push(("template key name", at(error.errors(), "/keys/0/key_name")));
    sites.push(("template key type", at(error.errors(), "/keys/0/key_type")));

    // An imported schema: a $ref, required entries, a property's name, a
    // keyword, a type name.
    let mut keyword = json!({"type": "string"});
    keyword[long.as_str()] = json!(1);
    let imported = from_json_schema(
        &json!({"type": "object", "additionalProperties": false,
            "properties": {"r": {"$ref": format!("#/{long}")}, "k": keyword,
                           "t": {"type": long}, long.as_str(): {"type": "string"}},
            "required": [format!("z{long}"), {"deep": long}]}),
        "s",
        "x",
    )
    .unwrap();
    let reports = &imported.unsupported;
    sites.push(("import $ref", at(reports, "/properties/r")));
    sites.push(("import required name", at(reports, "/required/0")));
    sites.push(("import required entry", at(reports, "/required/1")));
    sites.push((
        "import property name",
        at(reports, &format!("/properties/{long}")),
    ));
    sites.push((
        "import keyword",
        at(reports, &format!("/properties/k/{long}")),
    ));
    sites.push(("import type", at(reports, "/properties/t/type")));

    // An MCP tool result, a client's envelope and message.
    let result = json!({"resultType": long, "structuredContent": {}});
    let report = schema.validate_mcp_tool_result(&result);
    sites.push(("mcp resultType", at(report.errors(), "/resultType")));
    let envelope = json!({"id": "550e8400-e29b-41d4-a716-446655440000", "protocol_version": "0.1",
        "timestamp": "2025-11-21T20:45:00Z", "agent_id": "diana", "target_agent": "hairvault",
        "message_type": "inventory_query", "payload": {long.as_str(): 1}});
    let report = Envelope::parse(&envelope);
    sites.push((
        "envelope payload key",
        at(report.warnings(), &format!("/payload/{long}")),
    ));
    let wrong_id = json!({"schema_id": long, "payload": {}});
    let report = schema.validate(&wrong_id);
    sites.push(("message schema_id", at(report.errors(), "/schema_id")));

    let echoed = "A".repeat(25);
    let echoing: Vec<&str> = sites
        .iter()
        .filter(|(_, message)| message.contains(&echoed) || message.len() >= 600)
        .map(|(site, _)| *site)
        .collect();
    assert!(echoing.is_empty(), "these echo the text: {echoing:?}");
    assert_eq!(sites.len(), 20);
}
