//! The draft's Figures 2-10 parse into the typed model and serialize back to equal JSON.

use crate::common::figure;
use sdsi::negotiate::{ExecutionResult, SchemaRequest};
use sdsi::{CompiledSchema, IssueCode, KeyDefinition, SchemaTemplate, StructuredPayload};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Parses `name` as `T` and checks the value serializes back to the same JSON.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let json = figure(name);
    let typed: T = serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(serde_json::to_value(&typed).unwrap(), json, "{name}");
    typed
}

#[test]
fn templates_figures_2_7_10() {
    for name in [
        "fig02_flight_template",
        "fig07_schema_response",
        "fig10_photo_template",
    ] {
        let template: SchemaTemplate = round_trip(name);
        assert!(template.check().is_valid(), "{name}");
        assert!(CompiledSchema::new(&template).is_ok(), "{name}");
    }
}

#[test]
fn key_definition_figure_3() {
    let key: KeyDefinition = round_trip("fig03_key_definition");
    assert_eq!(key.key_name.as_str(), "cabin_class");
    assert_eq!(key.effective_default(), Some(&Value::from("economy")));
}

#[test]
fn payloads_figures_4_5_8_validate() {
    let flight: SchemaTemplate = round_trip("fig02_flight_template");
    let photo: SchemaTemplate = round_trip("fig10_photo_template");
    for (name, template) in [
        ("fig04_flight_payload", &flight),
        ("fig05_photo_payload", &photo),
        ("fig08_client_payload", &flight),
    ] {
        let message: StructuredPayload = round_trip(name);
        let schema = CompiledSchema::new(template).unwrap();
        let report = schema.validate_owned(figure(name));
        assert!(report.is_valid(), "{name}: {:?}", report.errors());
        assert_eq!(message.schema_id, template.schema_id);
    }
}

#[test]
fn schema_request_figure_6() {
    let request: SchemaRequest = round_trip("fig06_schema_request");
    assert!(request.is_get_schema_template());
    assert_eq!(request.params.scenario, "flight_booking");
    assert_eq!(request.params.preferred_language.as_deref(), Some("en-US"));
}

#[test]
fn execution_result_figure_9() {
    let result: ExecutionResult = round_trip("fig09_execution_result");
    let suggestion = result.schema_update_suggestion.as_ref().unwrap();
    assert_eq!(
        suggestion.new_keys()[0].key_name.as_str(),
        "seat_preference"
    );
    assert!(suggestion.modified_keys().is_empty());
    assert_eq!(result.result["booking_id"], "BK-20260430-001");
}

#[test]
fn a_bad_suggestion_does_not_cost_the_result() {
    let mut sent = figure("fig09_execution_result");
    // One badly named key (not snake_case) in the suggestion.
    sent["schema_update_suggestion"]["new_keys"][0]["key_name"] = json!("Seat Preference");
    let result: ExecutionResult = serde_json::from_value(sent.clone()).unwrap();
    assert_eq!(result.result["booking_id"], "BK-20260430-001");
    assert!(result.schema_update_suggestion.is_none());
    let rejected = result.rejected_suggestion.as_ref().unwrap();
    assert_eq!(rejected.issue.code(), IssueCode::InvalidMember);
    assert_eq!(rejected.issue.path(), "/schema_update_suggestion");
    assert!(
        rejected.issue.message().contains("snake_case"),
        "{}",
        rejected.issue.message()
    );
    assert_eq!(rejected.value, sent["schema_update_suggestion"]);
    // Written back as sent: nothing is lost.
    assert_eq!(serde_json::to_value(&result).unwrap(), sent);
}
