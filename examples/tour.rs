//! A walk through the whole protocol, both sides in one process, on a
//! simulated clock (the crate never reads one):
//!
//! negotiation → structured payload in an envelope → validation → execution
//! result → many clients' `other` fragments → a proposed key → the update
//! suggestion → the client adopts the key → the key's trial ends in promotion
//! → an HTML report of what evolution did, written to the temp directory.
//!
//! Run with `cargo run --example tour`.

use std::error::Error;

use sdsi::envelope::{MessageId, ProtocolMessage, Timestamp};
use sdsi::evolution::{Evolution, EvolutionEngine, EvolutionEvent};
use sdsi::negotiate::{ExecutionResult, SchemaRequest};
use sdsi::patch::{DenySensitive, LifecyclePolicy, PatchScope};
use sdsi::{Envelope, SchemaStore, SchemaTemplate, StructuredPayload};
use sdsi_report::{History, Report, render, rfc3339};
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

/// The server agent: one scenario's evolving schema and the evolution engine.
struct Server {
    store: SchemaStore,
    engine: Evolution,
    /// What evolution did, for the report at the end.
    history: History,
}

impl Server {
    /// Step 3: answer `get_schema_template` with what this client sees now.
    fn negotiate(
        &self,
        request: &[u8],
        client: &str,
        now: OffsetDateTime,
    ) -> Result<Vec<u8>, Box<dyn Error>> {
        let request: SchemaRequest = serde_json::from_slice(request)?;
        if !request.is_get_schema_template()
            || request.params.scenario != self.store.base().scenario
        {
            return Err("unsupported request".into());
        }
        Ok(serde_json::to_vec(
            &self.store.template_for(Some(client), now)?,
        )?)
    }

    /// Steps 5-7: validate the raw bytes, let evolution observe the message,
    /// execute, and attach what the client has not been told yet.
    fn execute(
        &mut self,
        message: &[u8],
        client: &str,
        now: OffsetDateTime,
    ) -> Result<Value, Box<dyn Error>> {
        let schema = self.store.compile_for(Some(client), now)?;
        let report = schema.validate_slice(message);
        if let Ok(value) = serde_json::from_slice::<Value>(message) {
            let events = self.engine.observe(&mut self.store, &value, client, now);
            for event in &events {
                print_event(event);
            }
            let pools = self.engine.pools().map(|(_, pool)| pool);
            self.history.record(now, &events, &[], &self.store, pools);
        }
        let Some(normalized) = report.normalized() else {
            return Ok(json!({"status": "rejected", "errors": report.errors()}));
        };
        // A real server would book the flight from `normalized` here.
        let mut result = ExecutionResult::default();
        result.result.insert("status".into(), json!("confirmed"));
        result
            .result
            .insert("flight_number".into(), json!("CA1234"));
        result.result.insert(
            "cabin".into(),
            normalized.get("cabin_class").cloned().unwrap_or_default(),
        );
        result.schema_update_suggestion = self.store.suggestion_for(client, now)?;
        Ok(serde_json::to_value(result)?)
    }
}

fn print_event(event: &EvolutionEvent) {
    match event {
        EvolutionEvent::Triggered {
            heat,
            occurrences,
            recent_clients,
            ..
        } => println!(
            "   evolution: a cluster's dual gate opened (heat {heat:.1}, {occurrences} fragments, ≥{recent_clients} clients)"
        ),
        EvolutionEvent::Proposed {
            patch, submission, ..
        } => {
            for key in &patch.new_keys {
                println!(
                    "   evolution: proposed key `{}` ({:?})",
                    key.key_name, submission
                );
                println!("      \"{}\"", key.semantic_description);
            }
            for key in &patch.modified_keys {
                println!(
                    "   evolution: refined key `{}` ({:?})",
                    key.key_name, submission
                );
                println!("      \"{}\"", key.semantic_description);
            }
        }
        EvolutionEvent::Covered { key_name, .. } => {
            println!("   evolution: reviewed: `{key_name}` already says what it asks");
        }
        other => println!(
            "   evolution: {}",
            serde_json::to_string(other).unwrap_or_default()
        ),
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

fn booking(extra: &[(&str, Value)]) -> Vec<u8> {
    let mut payload = StructuredPayload::new("flight_booking_v1")
        .with("origin", "PEK")
        .with("destination", "SHA")
        .with("departure_date", "2026-05-04")
        .with("cabin_class", "business");
    for (key, value) in extra {
        payload = payload.with(*key, value.clone());
    }
    serde_json::to_vec(&payload).unwrap_or_default()
}

fn main() -> Result<(), Box<dyn Error>> {
    let t0 = datetime!(2026-05-01 8:00 UTC);
    let mut server = Server {
        store: SchemaStore::new(flight_template()?, LifecyclePolicy::default())?,
        engine: Evolution::default(),
        history: History::new(),
    };
    let me = "travel_assistant";
    let utterance = "Book me a flight from Beijing to Shanghai next Monday, business class, and I prefer a window seat.";
    println!("1. the user asks the client agent: {utterance:?}");
    println!("2. the client picks the airline agent and the scenario `flight_booking`");

    let request = serde_json::to_vec(&SchemaRequest::new("flight_booking", Some("en-US".into())))?;
    println!("3. client → server: {}", String::from_utf8_lossy(&request));
    let template = SchemaTemplate::from_slice(&server.negotiate(&request, me, t0)?)?;
    println!(
        "   server → client: template {} with {} keys:",
        template.schema_id,
        template.keys.len()
    );
    for key in &template.keys {
        let required = if key.required { "required" } else { "optional" };
        println!("      {:<16} {:<8} {required}", key.key_name, key.key_type);
    }

    // Step 4: the client's LLM maps the utterance onto the keys (a fixed
    // mapping stands in for it); "window seat" fits no key, so it goes to `other`.
    let message = booking(&[("other", json!("window seat"))]);
    println!("4. client → server: {}", String::from_utf8_lossy(&message));
    let payload: StructuredPayload = serde_json::from_slice(&message)?;
    let envelope = Envelope::structured(
        MessageId::from_random_bytes(*b"tour:request:001"),
        Timestamp::try_from(t0)?,
        me,
        "airline_agent",
        &payload,
    )
    .with_capabilities(["flight.book"]);
    let checked = server
        .store
        .compile_for(Some(me), t0)?
        .validate_envelope(&envelope.to_value());
    println!(
        "   in a Universal Schema envelope {} ({} → {}): both layers valid: {}",
        envelope.id,
        envelope.agent_id,
        envelope.target_agent,
        checked.is_valid()
    );

    let result = server.execute(&message, me, t0)?;
    println!(
        "5. server → client, execution result:\n{}",
        indent(&serde_json::to_string_pretty(&result)?)
    );
    let reply = envelope.reply(
        MessageId::from_random_bytes(*b"tour:result:0002"),
        Timestamp::try_from(t0 + Duration::seconds(1))?,
        ProtocolMessage::ExecutionResult.as_str(),
        result.as_object().cloned().unwrap_or_default(),
    )?;
    println!(
        "   in an envelope {} ({} → {}, {})",
        reply.id, reply.agent_id, reply.target_agent, reply.message_type
    );

    let sloppy = br#"{"schema_id": "flight_booking_v1", "payload": {"origin": "PEK", "passenger_count": "two", "seat": "12A"}}"#;
    println!(
        "6. a sloppy client sends: {}",
        String::from_utf8_lossy(sloppy)
    );
    println!(
        "   server → client: {}",
        server.execute(sloppy, "sloppy_agent", t0)?
    );

    println!(
        "7. over the next day, eight other assistants put the same wish into `other`, \
         and four more ask for an aisle seat:"
    );
    let wishes = [
        "window seat please",
        "a seat by the window",
        "I prefer a window seat",
        "seat next to the window",
    ];
    let aisle = [
        "aisle seat please",
        "I prefer an aisle seat",
        "an aisle seat",
    ];
    let mut now = t0;
    for i in 0..144 {
        now = t0 + Duration::minutes(10 * (i + 1));
        // Two window wishes for each aisle one, from twelve assistants.
        let (client, wish) = if i % 3 == 2 {
            (8 + (i / 3) % 4, aisle.get((i / 3) as usize % aisle.len()))
        } else {
            (i % 8, wishes.get(i as usize % wishes.len()))
        };
        server.execute(
            &booking(&[("other", json!(wish))]),
            &format!("assistant-{client}"),
            now,
        )?;
    }

    println!("8. our client books again; the result now carries a schema update suggestion:");
    let result = server.execute(&booking(&[("other", json!("window seat"))]), me, now)?;
    let suggestion = result
        .get("schema_update_suggestion")
        .cloned()
        .unwrap_or(Value::Null);
    println!("{}", indent(&serde_json::to_string_pretty(&suggestion)?));
    let key = suggestion
        .pointer("/new_keys/0/key_name")
        .and_then(Value::as_str)
        .unwrap_or("window_seat")
        .to_owned();
    // The client fills the key as its type and description say.
    let value = match suggestion
        .pointer("/new_keys/0/key_type")
        .and_then(Value::as_str)
    {
        Some("boolean") => json!(true),
        Some("integer") => json!(1),
        _ => json!("window"),
    };

    println!("9. the client maps the wish to `{key}: {value}` from now on; the server accepts it:");
    let adopted = booking(&[(key.as_str(), value.clone())]);
    let mine = server.store.compile_for(Some(me), now)?;
    let report = mine.validate_slice(&adopted);
    println!(
        "   valid: {}, warnings: {}",
        report.is_valid(),
        report.warnings().len()
    );

    println!("10. a week of traffic uses the key; an audit sampler judges the mappings:");
    let digest_before = server.store.digest_for(None, now)?;
    for hour in 0..(7 * 24) {
        let at = now + Duration::hours(hour);
        for c in 0..4 {
            let extra = if c == 0 {
                vec![(key.as_str(), value.clone())]
            } else {
                Vec::new()
            };
            server.execute(&booking(&extra), &format!("assistant-{c}"), at)?;
        }
        server
            .store
            .record_alignment(&PatchScope::Global, &key, hour % 10 != 0, at);
    }
    let end = now + Duration::days(7);
    let transitions = server.store.evaluate(end, &DenySensitive).transitions;
    for t in &transitions {
        println!(
            "   lifecycle: `{}` {:?} → {:?} at {}",
            t.key_name,
            t.from,
            t.to,
            rfc3339(t.at)
        );
    }
    server.history.transitions(&transitions, &server.store);
    if let Some(m) = server
        .store
        .lifecycle()
        .metrics(&PatchScope::Global, &key, end)
    {
        println!(
            "   metrics: usage {:.0} %, alignment {:.0} %, type correctness {:.0} %",
            m.usage_frequency.unwrap_or(0.0) * 100.0,
            m.semantic_alignment_accuracy.unwrap_or(0.0) * 100.0,
            m.value_type_correctness.unwrap_or(0.0) * 100.0
        );
    }
    let digest_after = server.store.digest_for(None, end)?;
    println!(
        "   schema version (digest) {} → {}",
        &digest_before[..15],
        &digest_after[..15]
    );

    println!("11. later, other assistants ask for a middle seat: the existing key is refined:");
    let middle = [
        "middle seat please",
        "a middle seat is fine",
        "I prefer a middle seat",
    ];
    let mut end = end;
    for i in 0..96 {
        end += Duration::minutes(15);
        let wish = middle.get(i % middle.len());
        server.execute(
            &booking(&[("other", json!(wish))]),
            &format!("assistant-{}", 20 + i % 6),
            end,
        )?;
    }

    // The page a schema owner opens to see what evolution did.
    let pools = server.engine.pools().map(|(_, pool)| pool);
    let report = Report::gather(&server.store, pools, &server.history, end);
    let path = std::env::temp_dir().join("sdsi-tour-report.html");
    std::fs::write(&path, render(&report))?;
    println!("12. what evolution did, as one page for the schema owner (open it in a browser):");
    println!("   {}", path.display());
    Ok(())
}
