//! A walk through the protocol, both sides in one process:
//! negotiation → client payload → server validation → report → execution result,
//! the payload and the result each in a Universal Schema envelope.
//!
//! Run with `cargo run --example tour`.

use std::collections::HashMap;
use std::error::Error;
use std::time::SystemTime;

use sdsi::{
    CompiledSchema, Envelope, ExecutionResult, KeyDefinition, KeyName, KeyType, MessageId,
    ProtocolMessage, SchemaRequest, SchemaTemplate, SchemaUpdateSuggestion, StructuredPayload,
    Timestamp,
};
use serde_json::json;

/// The server agent: its published templates, compiled once at start-up.
struct Server {
    templates: HashMap<String, (SchemaTemplate, CompiledSchema)>,
}

impl Server {
    fn new(templates: Vec<SchemaTemplate>) -> Result<Self, Box<dyn Error>> {
        let mut by_scenario = HashMap::new();
        for template in templates {
            let compiled = CompiledSchema::new(&template)?;
            by_scenario.insert(template.scenario.clone(), (template, compiled));
        }
        Ok(Self {
            templates: by_scenario,
        })
    }

    /// Step 3: answer `get_schema_template` with the scenario's template.
    fn negotiate(&self, request: &[u8]) -> Result<Vec<u8>, Box<dyn Error>> {
        let request: SchemaRequest = serde_json::from_slice(request)?;
        if !request.is_get_schema_template() {
            return Err(format!("unsupported method {}", request.method).into());
        }
        let (template, _) = self
            .templates
            .get(&request.params.scenario)
            .ok_or_else(|| format!("no template for scenario {}", request.params.scenario))?;
        Ok(serde_json::to_vec(template)?)
    }

    /// Steps 5-6: validate the raw bytes, then execute or refuse.
    fn execute(&self, scenario: &str, message: &[u8]) -> Result<serde_json::Value, Box<dyn Error>> {
        let (_, schema) = self.templates.get(scenario).ok_or("unknown scenario")?;
        let report = schema.validate_slice(message);
        println!(
            "   server's validation report:\n{}",
            indent(&serde_json::to_string_pretty(&report)?)
        );
        let Some(normalized) = report.into_normalized() else {
            return Ok(json!({"status": "rejected"}));
        };
        // A real server would book the flight from `normalized` here.
        let mut result = ExecutionResult::default();
        result.result.insert("status".into(), json!("confirmed"));
        result
            .result
            .insert("flight_number".into(), json!("CA1234"));
        let cabin = normalized.get("cabin_class").cloned().unwrap_or_default();
        result.result.insert("cabin".into(), cabin);
        if normalized.contains_key("other") {
            // The `other` fragment shows a coverage gap; suggest a key for it.
            let seat = KeyDefinition::new(
                KeyName::new("seat_preference")?,
                KeyType::String,
                false,
                "Seat preference. Acceptable values: window, aisle, none. Example: 'window seat please' -> 'window'.",
            )
            .with_default(json!("none"));
            result.schema_update_suggestion = Some(SchemaUpdateSuggestion {
                new_keys: Some(vec![seat]),
                ..Default::default()
            });
        }
        Ok(serde_json::to_value(result)?)
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("      {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn flight_template() -> Result<SchemaTemplate, Box<dyn Error>> {
    Ok(SchemaTemplate::from_value(&json!({
        "schema_id": "flight_booking_v1",
        "scenario": "flight_booking",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true,
             "semantic_description": "Departure city or IATA airport code. Example: 'from Beijing' -> 'PEK'."},
            {"key_name": "destination", "key_type": "string", "required": true,
             "semantic_description": "Arrival city or IATA airport code. Example: 'to Shanghai' -> 'SHA'."},
            {"key_name": "departure_date", "key_type": "string", "required": true,
             "semantic_description": "ISO 8601 date (YYYY-MM-DD). Example: 'next Monday' -> '2026-05-04'."},
            {"key_name": "cabin_class", "key_type": "string", "required": false, "default_value": "economy",
             "semantic_description": "One of economy, premium_economy, business, first."},
            {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1,
             "semantic_description": "Number of passengers, 1-9. Example: 'two people' -> 2."},
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Requests no other key covers. Example: 'window seat please' -> 'window seat'."}
        ]
    }))?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let server = Server::new(vec![flight_template()?])?;
    let utterance = "Book me a flight from Beijing to Shanghai next Monday, business class, and I prefer a window seat.";
    println!("1. the user asks the client agent: {utterance:?}");

    println!("2. the client picks the airline agent and the scenario `flight_booking`");
    let request = serde_json::to_vec(&SchemaRequest::new("flight_booking", Some("en-US".into())))?;
    println!("3. client → server: {}", String::from_utf8_lossy(&request));
    let response = server.negotiate(&request)?;
    let template = SchemaTemplate::from_slice(&response)?;
    println!(
        "   server → client: template {} with {} keys:",
        template.schema_id,
        template.keys.len()
    );
    for key in &template.keys {
        let required = if key.required { "required" } else { "optional" };
        println!("      {:<16} {:<8} {required}", key.key_name, key.key_type);
    }

    // Step 4: the client's LLM maps the utterance onto the keys; a fixed mapping stands in for it.
    let payload = StructuredPayload::new(&template.schema_id)
        .with("origin", "PEK")
        .with("destination", "SHA")
        .with("departure_date", "2026-05-04")
        .with("cabin_class", "business")
        .with("other", "window seat");
    let message = serde_json::to_vec(&payload)?;
    println!("4. client → server: {}", String::from_utf8_lossy(&message));
    // Between agents the message travels in a Universal Schema envelope; the
    // server checks the envelope and the payload inside in one call. The
    // crate has no clock or RNG: the time and the id's random bytes come in.
    let envelope = Envelope::structured(
        MessageId::from_random_bytes(*b"tour:request:001"),
        Timestamp::try_from(SystemTime::now())?,
        "travel_assistant",
        "airline_agent",
        &payload,
    )
    .with_capabilities(["flight.book"]);
    let (_, schema) = server
        .templates
        .get("flight_booking")
        .ok_or("unknown scenario")?;
    let checked = schema.validate_envelope(&envelope.to_value());
    println!(
        "   in an envelope {} ({} → {}): valid {}, {} warning(s)",
        envelope.id,
        envelope.agent_id,
        envelope.target_agent,
        checked.is_valid(),
        checked.warnings().len()
    );
    let result = server.execute("flight_booking", &message)?;
    println!(
        "5. server → client, execution result with a schema update suggestion:\n{}",
        indent(&serde_json::to_string_pretty(&result)?)
    );
    let reply = envelope.reply(
        MessageId::from_random_bytes(*b"tour:result:0002"),
        Timestamp::try_from(SystemTime::now())?,
        ProtocolMessage::ExecutionResult.as_str(),
        result.as_object().cloned().unwrap_or_default(),
    )?;
    println!(
        "   in an envelope {} ({} → {}, message_type {})",
        reply.id, reply.agent_id, reply.target_agent, reply.message_type
    );

    let sloppy = br#"{"schema_id": "flight_booking_v1",
                      "payload": {"origin": "PEK", "passenger_count": "two", "seat": "12A", "other": ["aisle", 1]}}"#;
    println!(
        "6. a sloppy client sends: {}",
        String::from_utf8_lossy(sloppy)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
    let result = server.execute("flight_booking", sloppy)?;
    println!("   server → client: {result}");
    Ok(())
}
