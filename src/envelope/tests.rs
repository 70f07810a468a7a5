//! Unit tests of the envelope's parts, its parser and its report.

use std::time::UNIX_EPOCH;

use super::*;
use time::{OffsetDateTime, UtcOffset};

use super::parse::payload_warnings;
use crate::issue::Issue;
use serde_json::{Map, Value, json};

fn example() -> Value {
    json!({
        "id": "550e8400-e29b-41d4-a716-446655440000",
        "protocol_version": "0.1",
        "timestamp": "2025-11-21T20:45:00Z",
        "agent_id": "diana",
        "target_agent": "hairvault",
        "message_type": "inventory_query",
        "capabilities": ["inventory.read"],
        "payload": {"product": "olaplex"}
    })
}

fn codes(issues: &[Issue]) -> Vec<(&'static str, String)> {
    issues
        .iter()
        .map(|i| (i.code().as_str(), i.path().to_owned()))
        .collect()
}

#[test]
fn the_document_example_parses_and_round_trips() {
    let report = Envelope::parse(&example());
    assert!(report.is_valid(), "{:?}", report.errors());
    assert!(report.warnings().is_empty());
    let envelope = report.into_envelope().unwrap();
    assert_eq!(envelope.to_value(), example());
}

#[test]
fn every_error_is_reported_at_once() {
    let value = json!({
        "id": 7, "protocol_version": "2.0", "timestamp": "yesterday",
        "target_agent": null, "message_type": "x",
        "capabilities": ["a", 1, {}], "payload": []
    });
    let report = Envelope::parse(&value);
    assert_eq!(
        codes(report.errors()),
        vec![
            ("missing_field", "/agent_id".to_owned()),
            ("capabilities_not_strings", "/capabilities/1".to_owned()),
            ("capabilities_not_strings", "/capabilities/2".to_owned()),
            ("wrong_type", "/id".to_owned()),
            ("payload_not_object", "/payload".to_owned()),
            ("unsupported_version", "/protocol_version".to_owned()),
            ("wrong_type", "/target_agent".to_owned()),
            ("invalid_timestamp", "/timestamp".to_owned()),
        ]
    );
    assert!(report.envelope().is_none());
}

#[test]
fn messages_are_lowercase_without_period() {
    let value =
        json!({"id": "550e8400-e29b-11d4-a716-446655440000", "timestamp": "2025-11-21T20:45:00"});
    for issue in Envelope::parse(&value).errors() {
        let message = issue.message();
        assert!(!message.ends_with('.'), "{message}");
        assert!(
            message.chars().next().unwrap().is_lowercase()
                || message.starts_with('"')
                || message.starts_with("uuid"),
            "{message}"
        );
    }
    let err = "550e8400-e29b-11d4-a716-446655440000"
        .parse::<MessageId>()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "uuid 550e8400-e29b-11d4-a716-446655440000 is of version 1, not version 4"
    );
    assert_eq!(
        "1.0".parse::<ProtocolVersion>().unwrap_err().to_string(),
        "protocol version \"1.0\" has major version 1; this crate speaks major version 0"
    );
}

#[test]
fn uuid_forms() {
    assert!(
        "550E8400-E29B-41D4-A716-446655440000"
            .parse::<MessageId>()
            .is_ok()
    );
    for bad in [
        "550e8400e29b41d4a716446655440000",
        "{550e8400-e29b-41d4-a716-446655440000}",
        "urn:uuid:550e8400-e29b-41d4-a716-446655440000",
        "00000000-0000-0000-0000-000000000000",
        "550e8400-e29b-41d4-c716-446655440000",
        "",
    ] {
        assert!(bad.parse::<MessageId>().is_err(), "{bad}");
    }
    assert!(matches!(
        "550e8400-e29b-41d4-c716-446655440000".parse::<MessageId>(),
        Err(InvalidMessageId::NotRfc4122Variant { .. })
    ));
}

#[test]
fn versions() {
    for (text, ok) in [
        ("0.1", true),
        ("0.2", true),
        ("0.0", true),
        ("0.10.3", true),
        ("1.0", false),
        ("0", false),
        ("0.1.2.3", false),
        ("00.1", false),
        ("0.01", false),
        ("v0.1", false),
        ("0.1-draft", false),
        ("", false),
        ("0.", false),
    ] {
        assert_eq!(text.parse::<ProtocolVersion>().is_ok(), ok, "{text}");
        if ok {
            assert_eq!(text.parse::<ProtocolVersion>().unwrap().to_string(), text);
        }
    }
    assert!(ProtocolVersion::new(0, 7).is_ok());
    assert!(ProtocolVersion::new(3, 0).is_err());
}

#[test]
fn timestamps() {
    let t: Timestamp = "2025-11-22T04:45:00+08:00".parse().unwrap();
    assert!(!t.is_utc());
    assert_eq!(t.to_string(), "2025-11-22T04:45:00+08:00");
    assert_eq!(t.to_utc().to_string(), "2025-11-21T20:45:00Z");
    assert!(
        "2025-11-21T20:45:00-00:00"
            .parse::<Timestamp>()
            .unwrap()
            .is_utc()
    );
    assert!("2025-11-21T20:45:00".parse::<Timestamp>().is_err());
    assert!("2025-11-21".parse::<Timestamp>().is_err());
    assert_eq!(
        "0000-01-01T00:00:00+01:00".parse::<Timestamp>(),
        Err(InvalidTimestamp::OutOfRange)
    );
    let odd = OffsetDateTime::UNIX_EPOCH.to_offset(UtcOffset::from_hms(1, 0, 30).unwrap());
    assert!(matches!(
        Timestamp::new(odd),
        Err(InvalidTimestamp::OffsetSeconds { .. })
    ));
    let epoch = Timestamp::try_from(UNIX_EPOCH).unwrap();
    assert_eq!(epoch.to_string(), "1970-01-01T00:00:00Z");
    let before = UNIX_EPOCH - std::time::Duration::from_secs(86_400);
    assert_eq!(
        Timestamp::try_from(before).unwrap().to_string(),
        "1969-12-31T00:00:00Z"
    );
}

#[test]
fn warnings_for_recommendations() {
    let mut value = example();
    value["timestamp"] = json!("2025-11-22T04:45:00+08:00");
    value["payload"] = json!({
        "productName": "x",
        "a": {"b": {"c": {"d": {"e": 1}}, "ok": [{"Deep": {"x": {}}}]}}
    });
    let report = Envelope::parse(&value);
    assert!(report.is_valid());
    assert_eq!(
        codes(report.warnings()),
        vec![
            ("payload_too_deep", "/payload/a/b/c".to_owned()),
            // arrays add no level: the object in `ok` is the third
            ("payload_too_deep", "/payload/a/b/ok/0".to_owned()),
            (
                "payload_key_not_snake_case",
                "/payload/a/b/ok/0/Deep".to_owned()
            ),
            (
                "payload_key_not_snake_case",
                "/payload/productName".to_owned()
            ),
            ("non_utc_timestamp", "/timestamp".to_owned()),
        ]
    );
    let envelope = report.envelope().unwrap();
    assert_eq!(envelope.warnings(), report.warnings());
}

#[test]
fn replies_swap_sender_and_target() {
    let query = Envelope::from_value(&example()).unwrap();
    let now: Timestamp = "2025-11-21T21:45:01+01:00".parse().unwrap();
    let id = MessageId::from_random_bytes([1; 16]);
    let reply = query
        .reply(id, now, "inventory_response", Map::new())
        .unwrap();
    assert_eq!(reply.agent_id, "hairvault");
    assert_eq!(reply.target_agent, "diana");
    assert_eq!(reply.capabilities, ["inventory.read"]);
    assert_eq!(reply.timestamp.to_string(), "2025-11-21T20:45:01Z");
    assert!(Envelope::parse(&reply.to_value()).is_valid());

    let mut broadcast = query.clone();
    broadcast.target_agent = BROADCAST.to_owned();
    assert!(broadcast.is_broadcast());
    assert_eq!(
        broadcast.reply(id, now, "pong", Map::new()),
        Err(ReplyToBroadcast)
    );
    let answer = broadcast.reply_as("router_7", id, now, "pong", Map::new());
    assert_eq!(
        (answer.agent_id.as_str(), answer.target_agent.as_str()),
        ("router_7", "diana")
    );
}

#[test]
fn extra_members_are_kept_but_never_shadow_fields() {
    let mut value = example();
    value["trace"] = json!({"span": 1});
    let mut envelope = Envelope::from_value(&value).unwrap();
    assert_eq!(envelope.to_value(), value);
    envelope.extra.insert("id".into(), json!("shadow"));
    assert_eq!(envelope.to_value(), value);
}

#[test]
fn deeply_nested_payload_does_not_overflow() {
    let mut deep = json!(1);
    for _ in 0..10_000 {
        let mut object = Map::new();
        object.insert("k".to_owned(), deep);
        deep = Value::Object(object);
    }
    let mut payload = Map::new();
    payload.insert("k".into(), deep);
    let mut warnings = Vec::new();
    payload_warnings(&payload, usize::MAX, &mut warnings, &mut Vec::new());
    assert_eq!(
        codes(&warnings),
        vec![("payload_too_deep", "/payload/k/k/k".to_owned())]
    );
    // serde_json's Value drops recursively: take it apart by hand.
    let mut value = payload.remove("k");
    while let Some(Value::Object(mut object)) = value {
        value = object.remove("k");
    }
}
