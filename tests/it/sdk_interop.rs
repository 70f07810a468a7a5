//! The exports and bridges, read by the protocols' own Rust SDKs: MCP's
//! `rmcp` (`Tool`, `ElicitationSchema`) and A2A's `a2a-lf` (`AgentSkill`,
//! `AgentCard`, `Part`). Each output deserializes into the SDK's type, and
//! serializing that type again gives back the same JSON, so the SDK neither
//! refused nor silently dropped anything.

use crate::common::{Extras, figure, figure_templates as figures, template};
use proptest::prelude::*;
use sdsi::a2a::{AgentExtension, AgentSkill};
use sdsi::{CompiledSchema, SchemaTemplate, StructuredPayload};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// `value` read as the SDK's `T`, and `T` written back: equal JSON.
fn through<T: DeserializeOwned + Serialize>(value: &Value) -> Result<T, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("{e}: {value}"))?;
    let again = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    if same(&again, value) {
        Ok(typed)
    } else {
        Err(format!("changed by the SDK:\n{value}\n{again}"))
    }
}

/// Equal JSON, numbers compared by value (an SDK may write `224463` as
/// `224463.0` when its type is a float).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn mcp_tool(schema: &CompiledSchema) -> Value {
    let template = schema.template();
    json!({
        "name": template.schema_id,
        "description": format!("Scenario {}", template.scenario),
        "inputSchema": schema.mcp_input_schema(),
    })
}

fn check_mcp(schema: &CompiledSchema) -> Result<(), String> {
    through::<rmcp::model::Tool>(&mcp_tool(schema))?;
    through::<rmcp::model::ElicitationSchema>(&schema.mcp_elicitation_schema().schema)?;
    Ok(())
}

/// A whole v1.0 AgentCard around our skill and extension entry.
fn agent_card(templates: &[SchemaTemplate]) -> Value {
    let skills: Vec<Value> = templates
        .iter()
        .map(|t| {
            let skill = AgentSkill::new(
                t.schema_id.clone(),
                t.scenario.clone(),
                "Structured requests",
            )
            .with_input_template(t);
            serde_json::to_value(skill).unwrap()
        })
        .collect();
    json!({
        "name": "travel agent",
        "description": "Books flights and edits photos",
        "version": "1.0.0",
        "supportedInterfaces": [{
            "url": "http://127.0.0.1:9/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"
        }],
        "capabilities": {"extensions": [AgentExtension::for_templates(templates, false)]},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": skills,
    })
}

#[test]
fn mcp_reads_the_figures_exports() {
    for template in figures() {
        let schema = CompiledSchema::new(&template).unwrap();
        check_mcp(&schema).unwrap();
    }
}

#[test]
fn a2a_reads_the_skill_the_card_and_the_extension() {
    let templates = figures();
    let card = agent_card(&templates);
    let typed: a2a::AgentCard = serde_json::from_value(card.clone()).unwrap();
    assert_eq!(typed.skills.len(), 2);
    assert_eq!(typed.skills[0].id, templates[0].schema_id);
    assert_eq!(
        typed.skills[0].input_modes.as_deref(),
        Some(&["application/json".to_owned()][..])
    );
    // a2a-lf has no #813 fields; it keeps the rest of the skill intact.
    let skill = serde_json::to_value(&typed.skills[0]).unwrap();
    assert_eq!(skill["name"], card["skills"][0]["name"]);
    // Our extension entry survives the SDK and still yields the templates.
    let written = serde_json::to_value(&typed).unwrap();
    let entry = AgentExtension::find(&written).expect("the extension entry");
    assert_eq!(entry.templates().unwrap(), templates);
    through::<a2a::AgentExtension>(&card["capabilities"]["extensions"][0]).unwrap();
}

#[test]
fn a2a_reads_the_data_part() {
    let template = &figures()[0];
    let schema = CompiledSchema::new(template).unwrap();
    let message: StructuredPayload =
        serde_json::from_value(figure("fig04_flight_payload")).unwrap();
    let part = schema.a2a_data_part(&message);
    let typed: a2a::Part = serde_json::from_value(part.clone()).unwrap();
    assert_eq!(typed.media_type.as_deref(), Some("application/json"));
    match &typed.content {
        a2a::PartContent::Data(data) => assert_eq!(data, &message.to_value()),
        other => panic!("not a data part: {other:?}"),
    }
    // What the SDK writes, the bridge validates.
    let written = serde_json::to_value(&typed).unwrap();
    assert!(schema.validate_a2a_data_part(&written).is_valid());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Generated templates: every MCP export reads as rmcp's types, and the
    /// card, skill and extension as a2a-lf's.
    #[test]
    fn sdks_read_exports_of_generated_templates(template in template(Extras::None)) {
        let schema = CompiledSchema::new(&template).unwrap();
        if let Err(message) = check_mcp(&schema) {
            prop_assert!(false, "{}", message);
        }
        let card = agent_card(std::slice::from_ref(&template));
        let typed = serde_json::from_value::<a2a::AgentCard>(card.clone());
        prop_assert!(typed.is_ok(), "{:?}: {}", typed.err(), card);
    }
}
