//! The Universal Schema envelope: data-driven cases from
//! `tests/cases/envelope*.json`, serde round trips, and no panics on any input.
//!
//! Case groups: `{description, schema?, tests: [{description, data, valid,
//! errors: [[code, path]], warnings: [[code, path]]}]}`. Every case runs
//! through `Envelope::parse`, `parse_slice`, `from_value` and serde; a group
//! with a `schema` (a template) also runs `CompiledSchema::validate_envelope`
//! and its bytes form, which must give the listed issues.

use crate::common::{assert_send_sync, cases, expected, flight_template, pairs};
use proptest::prelude::*;
use sdsi::envelope::{BROADCAST, MessageId, ProtocolMessage, ProtocolVersion, Timestamp};
use sdsi::{CompiledSchema, Envelope, SchemaTemplate, StructuredPayload};
use serde_json::{Map, Value, json};

/// Runs every case of `name`; returns how many there were.
fn run(name: &str) -> usize {
    let mut count = 0;
    for group in cases(name) {
        let gdesc = group["description"].as_str().unwrap();
        let schema = group.get("schema").map(|t| {
            let template = SchemaTemplate::from_value(t).unwrap();
            CompiledSchema::new(&template).unwrap()
        });
        for case in group["tests"].as_array().unwrap() {
            let desc = format!("{gdesc} / {}", case["description"].as_str().unwrap());
            let data = &case["data"];
            let valid = case["valid"].as_bool().unwrap();
            let text = serde_json::to_vec(data).unwrap();
            let report = match &schema {
                None => Envelope::parse(data),
                Some(schema) => schema.validate_envelope(data),
            };
            assert_eq!(report.is_valid(), valid, "{desc}: {:?}", report.errors());
            assert_eq!(
                pairs(report.errors()),
                expected(case, "errors"),
                "{desc}: errors"
            );
            assert_eq!(
                pairs(report.warnings()),
                expected(case, "warnings"),
                "{desc}: warnings"
            );
            for issue in report.errors().iter().chain(report.warnings()) {
                let message = issue.message();
                assert!(
                    !message.is_empty() && !message.ends_with('.'),
                    "{desc}: {message}"
                );
            }
            let from_bytes = match &schema {
                None => Envelope::parse_slice(&text),
                Some(schema) => schema.validate_envelope_slice(&text),
            };
            assert_eq!(from_bytes, report, "{desc}: bytes");
            assert_eq!(report.envelope().is_some(), valid, "{desc}: typed envelope");
            if schema.is_none() {
                check_typed(&desc, data, valid, &report);
            } else {
                // The envelope layer alone: the structured payload's issues are
                // exactly the ones under /payload/ that `parse` does not report.
                let alone = Envelope::parse(data);
                for issue in alone.errors() {
                    assert!(report.errors().contains(issue), "{desc}: {issue}");
                }
                assert_eq!(report.normalized().is_some(), valid, "{desc}: normalized");
            }
            count += 1;
        }
    }
    count
}

fn check_typed(desc: &str, data: &Value, valid: bool, report: &sdsi::envelope::EnvelopeReport) {
    let parsed = Envelope::from_value(data);
    let via_serde = serde_json::from_value::<Envelope>(data.clone());
    assert_eq!(parsed.is_ok(), valid, "{desc}: from_value");
    assert_eq!(via_serde.is_ok(), valid, "{desc}: serde");
    match parsed {
        Ok(envelope) => {
            assert_eq!(Some(&envelope), report.envelope(), "{desc}");
            assert_eq!(envelope.warnings(), report.warnings(), "{desc}: warnings()");
            let back = envelope.to_value();
            // Equal in meaning: the id in lowercase, the timestamp re-written.
            let again = Envelope::from_value(&back).unwrap();
            assert_eq!(again, envelope, "{desc}: round trip");
            if data["id"] == back["id"] && data["timestamp"] == back["timestamp"] {
                assert_eq!(&back, data, "{desc}: written back as read");
            }
        }
        Err(error) => {
            assert_eq!(error.errors(), report.errors(), "{desc}: from_value errors");
            assert!(
                error.to_string().starts_with("invalid envelope ("),
                "{desc}"
            );
        }
    }
}

#[test]
fn envelope_cases() {
    assert!(run("envelope.json") >= 60);
}

#[test]
fn envelope_structured_cases() {
    assert!(run("envelope_structured.json") >= 7);
}

#[test]
fn every_envelope_code_and_warning_has_a_case() {
    let mut seen = std::collections::BTreeSet::new();
    for name in ["envelope.json", "envelope_structured.json"] {
        for group in cases(name) {
            for case in group["tests"].as_array().unwrap() {
                for member in ["errors", "warnings"] {
                    for pair in case[member].as_array().unwrap() {
                        seen.insert(pair[0].as_str().unwrap().to_owned());
                    }
                }
            }
        }
    }
    for code in [
        "missing_field",
        "wrong_type",
        "invalid_uuid",
        "invalid_timestamp",
        "payload_not_object",
        "capabilities_not_strings",
        "unsupported_version",
        "non_utc_timestamp",
        "payload_key_not_snake_case",
        "payload_too_deep",
        "not_an_object",
    ] {
        assert!(seen.contains(code), "no case for {code}");
    }
}

#[test]
fn not_json_is_invalid_json() {
    let report = Envelope::parse_str("{\"id\": ");
    assert_eq!(pairs(report.errors()), [("invalid_json", String::new())]);
    assert_eq!(
        serde_json::to_value(&report).unwrap(),
        json!({"valid": false, "errors": [{"code": "invalid_json", "path": "",
            "message": report.errors()[0].message()}], "warnings": []})
    );
    assert!(Envelope::from_slice(b"[").is_err());
}

#[test]
fn structured_envelopes_round_trip_through_the_validator() {
    let template = flight_template();
    let schema = CompiledSchema::new(&template).unwrap();
    let message = StructuredPayload::new("flight_booking_v1")
        .with("origin", "PEK")
        .with("destination", "SHA")
        .with("departure_date", "2026-05-04");
    let envelope = Envelope::structured(
        MessageId::from_random_bytes([9; 16]),
        "2026-04-30T08:00:00+08:00".parse().unwrap(),
        "travel_assistant",
        "airline_agent",
        &message,
    );
    assert_eq!(
        envelope.protocol_message(),
        Some(ProtocolMessage::StructuredPayload)
    );
    assert_eq!(envelope.timestamp.to_string(), "2026-04-30T00:00:00Z");
    let report = schema.validate_envelope(&envelope.to_value());
    assert!(report.is_valid(), "{:?}", report.errors());
    assert_eq!(report.normalized().unwrap()["passenger_count"], 1);
    assert_eq!(
        serde_json::to_value(&report).unwrap()["normalized"]["cabin_class"],
        "economy"
    );
    // Over the size limit: one limit_exceeded at the root, nothing parsed.
    let options = sdsi::validate::ValidateOptions::default()
        .limits(sdsi::validate::Limits::default().with_max_bytes(16));
    let small = CompiledSchema::with_options(&template, options).unwrap();
    let report = small.validate_envelope_slice(&serde_json::to_vec(&envelope).unwrap());
    assert_eq!(pairs(report.errors()), [("limit_exceeded", String::new())]);
    assert_eq!(report.errors()[0].limit_value(), Some(16));
}

#[test]
fn protocol_message_names() {
    let names: Vec<_> = ProtocolMessage::ALL.iter().map(|m| m.as_str()).collect();
    assert_eq!(
        names,
        [
            "schema_request",
            "schema_template",
            "structured_payload",
            "execution_result",
            "schema_update"
        ]
    );
    for m in ProtocolMessage::ALL.iter().copied() {
        assert_eq!(ProtocolMessage::from_message_type(m.as_str()), Some(m));
    }
    assert_eq!(ProtocolMessage::from_message_type("inventory_query"), None);
}

#[test]
fn public_types_are_send_and_sync() {
    assert_send_sync::<Envelope>();
    assert_send_sync::<sdsi::envelope::EnvelopeReport>();
    assert_send_sync::<sdsi::envelope::EnvelopeError>();
    assert_send_sync::<MessageId>();
    assert_send_sync::<ProtocolVersion>();
    assert_send_sync::<Timestamp>();
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

fn message_id() -> impl Strategy<Value = MessageId> {
    any::<[u8; 16]>().prop_map(MessageId::from_random_bytes)
}

fn version() -> impl Strategy<Value = ProtocolVersion> {
    (0..50u64, proptest::option::of(0..50u64)).prop_map(|(minor, patch)| {
        let text = match patch {
            Some(p) => format!("0.{minor}.{p}"),
            None => format!("0.{minor}"),
        };
        text.parse().unwrap()
    })
}

/// Any instant of years 0001-9998, at an offset of whole minutes within ±18 h.
fn timestamp() -> impl Strategy<Value = Timestamp> {
    (
        -62_135_596_800i64..253_370_764_800,
        0..1_000_000_000u32,
        -1080i32..=1080,
        any::<bool>(),
    )
        .prop_map(|(secs, nanos, minutes, utc)| {
            let instant = time::OffsetDateTime::from_unix_timestamp(secs)
                .unwrap()
                .replace_nanosecond(nanos)
                .unwrap();
            let offset = if utc {
                time::UtcOffset::UTC
            } else {
                time::UtcOffset::from_whole_seconds(minutes * 60).unwrap()
            };
            Timestamp::new(instant.to_offset(offset)).unwrap()
        })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z ]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z_/~-]{1,6}", inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn envelope() -> impl Strategy<Value = Envelope> {
    (
        message_id(),
        version(),
        timestamp(),
        "[a-z_]{0,8}",
        prop_oneof![Just(BROADCAST.to_owned()), "[a-z_]{1,8}"],
        "[a-z_]{1,12}",
        prop::collection::vec("[a-z.]{0,10}", 0..3),
        prop::collection::vec(("[a-zA-Z_]{1,6}", json_value()), 0..4),
        prop::collection::vec(("x_[a-z]{1,5}", json_value()), 0..2),
    )
        .prop_map(
            |(id, v, t, agent, target, message_type, caps, payload, extra)| {
                let mut e = Envelope::new(
                    id,
                    t,
                    agent,
                    target,
                    message_type,
                    payload.into_iter().collect(),
                )
                .with_capabilities(caps);
                e.protocol_version = v;
                e.timestamp = t; // keep the generated offset
                e.extra = extra.into_iter().collect();
                e
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn envelopes_round_trip(envelope in envelope()) {
        let value = serde_json::to_value(&envelope).unwrap();
        let report = Envelope::parse(&value);
        prop_assert!(report.is_valid(), "{:?}", report.errors());
        prop_assert_eq!(report.envelope(), Some(&envelope));
        let warnings = envelope.warnings();
        prop_assert_eq!(report.warnings(), warnings.as_slice());
        let back: Envelope = serde_json::from_value(value.clone()).unwrap();
        prop_assert_eq!(&back, &envelope);
        prop_assert_eq!(serde_json::to_value(&back).unwrap(), value);
        let text = serde_json::to_vec(&envelope).unwrap();
        prop_assert_eq!(Envelope::from_slice(&text).unwrap(), envelope);
    }

    #[test]
    fn field_types_round_trip(id in message_id(), v in version(), t in timestamp()) {
        prop_assert_eq!(id.to_string().parse::<MessageId>().unwrap(), id);
        prop_assert_eq!(id.to_string().to_uppercase().parse::<MessageId>().unwrap(), id);
        prop_assert_eq!(serde_json::from_value::<MessageId>(serde_json::to_value(id).unwrap()).unwrap(), id);
        prop_assert_eq!(MessageId::new(id.as_uuid()).unwrap(), id);
        prop_assert_eq!(v.to_string().parse::<ProtocolVersion>().unwrap(), v);
        prop_assert_eq!(serde_json::from_value::<ProtocolVersion>(serde_json::to_value(v).unwrap()).unwrap(), v);
        prop_assert_eq!(t.to_string().parse::<Timestamp>().unwrap(), t);
        prop_assert_eq!(serde_json::from_value::<Timestamp>(serde_json::to_value(t).unwrap()).unwrap(), t);
        prop_assert!(t.to_utc().is_utc());
        prop_assert_eq!(t.to_utc().as_offset_date_time(), t.as_offset_date_time());
    }

    #[test]
    fn replies_are_valid_envelopes(envelope in envelope(), id in message_id(), now in timestamp()) {
        let reply = envelope.reply_as("responder", id, now, "answer", Map::new());
        prop_assert_eq!(&reply.target_agent, &envelope.agent_id);
        prop_assert!(reply.timestamp.is_utc());
        prop_assert!(Envelope::parse(&reply.to_value()).is_valid());
        match envelope.reply(id, now, "answer", Map::new()) {
            Ok(reply) => {
                prop_assert!(!envelope.is_broadcast());
                prop_assert_eq!(&reply.agent_id, &envelope.target_agent);
                prop_assert_eq!(&reply.capabilities, &envelope.capabilities);
            }
            Err(_) => prop_assert!(envelope.is_broadcast()),
        }
    }

    #[test]
    fn any_json_gives_a_report_not_a_panic(value in json_value(), id in json_value(), ts in json_value()) {
        let report = Envelope::parse(&value);
        prop_assert_eq!(report.envelope().is_some(), report.is_valid());
        let _ = serde_json::to_string(&report).unwrap();
        // Near misses: the document's example with fields replaced by anything.
        let mut near = json!({
            "id": "550e8400-e29b-41d4-a716-446655440000", "protocol_version": "0.1",
            "timestamp": "2025-11-21T20:45:00Z", "agent_id": "diana", "target_agent": "hairvault",
            "message_type": "inventory_query", "capabilities": ["inventory.read"], "payload": value
        });
        near["id"] = id;
        near["timestamp"] = ts;
        let report = Envelope::parse(&near);
        prop_assert_eq!(Envelope::parse_slice(&serde_json::to_vec(&near).unwrap()), report.clone());
        for issue in report.errors().iter().chain(report.warnings()) {
            prop_assert!(issue.path().is_empty() || issue.path().starts_with('/'));
        }
    }

    #[test]
    fn any_bytes_give_a_report_not_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let report = Envelope::parse_slice(&bytes);
        prop_assert_eq!(Envelope::from_slice(&bytes).is_ok(), report.is_valid());
    }
}

/// A valid envelope around `payload`, with `capabilities` and `agent_id`.
fn envelope_with(capabilities: Value, agent_id: &str, payload: Value) -> Value {
    json!({
        "id": "550e8400-e29b-41d4-a716-446655440000", "protocol_version": "0.1",
        "timestamp": "2026-05-04T09:00:00Z", "agent_id": agent_id, "target_agent": "b",
        "message_type": "query", "capabilities": capabilities, "payload": payload
    })
}

fn nested(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = json!([value]);
    }
    value
}

#[test]
fn hostile_envelopes_are_refused_by_their_limits() {
    use sdsi::envelope::EnvelopeLimits;
    // 500,000 capabilities: one error, not one per entry, and no copy.
    let many: Vec<String> = (0..500_000).map(|i| format!("cap.{i}")).collect();
    let report = Envelope::parse(&envelope_with(json!(many), "a", json!({})));
    assert_eq!(
        pairs(report.errors()),
        [("limit_exceeded", "/capabilities".to_owned())]
    );
    assert_eq!(report.errors()[0].limit_value(), Some(256));
    assert!(serde_json::to_string(&report).unwrap().len() < 1_000);

    let long = "x".repeat(1025);
    let report = Envelope::parse(&envelope_with(json!([long.clone()]), &long, json!({})));
    assert_eq!(
        pairs(report.errors()),
        [
            ("limit_exceeded", "/agent_id".to_owned()),
            ("limit_exceeded", "/capabilities/0".to_owned()),
        ]
    );

    // Depth counts arrays and objects inside one payload member, as the
    // payload's own limit does: 32 levels pass, 33 do not.
    let ok = Envelope::parse(&envelope_with(json!([]), "a", json!({"deep": nested(32)})));
    assert!(ok.errors().is_empty(), "{:?}", ok.errors());
    let deep = Envelope::parse(&envelope_with(json!([]), "a", json!({"deep": nested(33)})));
    assert_eq!(deep.errors()[0].code().as_str(), "limit_exceeded");
    assert!(deep.errors()[0].path().starts_with("/payload/deep"));

    // Text over the byte limit is refused before it is parsed.
    let limits = EnvelopeLimits::default().with_max_bytes(1 << 20);
    let big = vec![b' '; (1 << 20) + 1];
    let report = Envelope::parse_slice_with(&big, &limits);
    assert_eq!(pairs(report.errors()), [("limit_exceeded", String::new())]);
    let over_default = vec![b'['; (4 << 20) + 1];
    assert_eq!(
        Envelope::parse_slice(&over_default).errors()[0]
            .code()
            .as_str(),
        "limit_exceeded"
    );
    assert!(Envelope::from_slice(&over_default).is_err());

    // Tighter limits of the caller's own.
    let tight = EnvelopeLimits::default()
        .with_max_capabilities(1)
        .with_max_string_bytes(4)
        .with_max_depth(0);
    let report = Envelope::parse_with(
        &envelope_with(json!(["a", "b"]), "agent", json!({"x": [1]})),
        &tight,
    );
    let paths: Vec<String> = report
        .errors()
        .iter()
        .map(|e| e.path().to_owned())
        .collect();
    assert_eq!(
        paths,
        ["/agent_id", "/capabilities", "/message_type", "/payload/x"]
    );
}

#[test]
fn a_schema_applies_its_own_byte_and_depth_limits_to_the_envelope() {
    use sdsi::validate::{Limits, ValidateOptions};
    let template = SchemaTemplate::from_value(&json!({
        "schema_id": "s", "scenario": "x",
        "keys": [{"key_name": "v", "key_type": "array", "required": false, "semantic_description": "Any."}]
    }))
    .unwrap();
    let options =
        ValidateOptions::default().limits(Limits::default().with_max_depth(2).with_max_bytes(400));
    let schema = CompiledSchema::with_options(&template, options).unwrap();
    let message = envelope_with(
        json!([]),
        "a",
        json!({"schema_id": "s", "payload": {"v": nested(3)}}),
    );
    let report = schema.validate_envelope(&message);
    assert!(
        report
            .errors()
            .iter()
            .any(|e| e.code().as_str() == "limit_exceeded")
    );
    let bytes =
        serde_json::to_vec(&envelope_with(json!(["x".repeat(500)]), "a", json!({}))).unwrap();
    let report = schema.validate_envelope_slice(&bytes);
    assert_eq!(pairs(report.errors()), [("limit_exceeded", String::new())]);
}
