//! The router driven in process (`tower::ServiceExt::oneshot`, no socket):
//! the template it publishes is the type's, a valid message is booked with
//! its defaults, an invalid one gets 422 and the validator's report.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests: a panic is a failed test"
)]

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use sdsi::Template;
use sdsi_axum_example::{TableBooking, app};
use serde_json::{Value, json};
use tower::ServiceExt;

/// One request through a fresh router: the status and the JSON body.
async fn call(method: Method, uri: &str, body: Body) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body)
        .unwrap();
    let response = app().unwrap().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

async fn post(message: Value) -> (StatusCode, Value) {
    call(Method::POST, "/bookings", Body::from(message.to_string())).await
}

#[tokio::test]
async fn the_published_template_is_the_types() {
    let (status, body) = call(Method::GET, "/template", Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        serde_json::to_value(TableBooking::template()).unwrap()
    );
    assert_eq!(
        body["keys"][2]["semantic_description"],
        "Where the party sits. Example: 'outside if possible' -> 'terrace'. One of: \"indoor\" (the dining room), \"terrace\" (the terrace, weather permitting), \"bar\" (the counter facing the kitchen)."
    );
}

#[tokio::test]
async fn a_valid_message_is_booked_with_its_defaults() {
    let (status, body) = post(json!({
        "schema_id": "table_booking_v1",
        "payload": {"date": "2026-05-08", "party_size": 4, "other": ["quiet", "a high chair"]}
    }))
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        body,
        json!({"booking": {"date": "2026-05-08", "party_size": 4, "seating": "indoor",
                           "other": ["quiet", "a high chair"]},
               "warnings": []})
    );
}

#[tokio::test]
async fn an_invalid_message_gets_422_and_the_report() {
    let (status, body) = post(json!({
        "schema_id": "table_booking_v1",
        "payload": {"party_size": "four", "seating": "garden", "time": "20:00"}
    }))
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["valid"], false);
    let found: Vec<(&str, &str)> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["code"].as_str().unwrap(), e["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("missing_required_key", "/payload/date"),
            ("type_mismatch", "/payload/party_size"),
            ("unknown_key", "/payload/time"),
        ]
    );
}

/// `"garden"` is a string, so the template takes it; the enum does not:
/// the answer says so rather than booking a table nobody has.
#[tokio::test]
async fn a_value_the_type_refuses_gets_422_with_the_reason() {
    let (status, body) = post(json!({
        "schema_id": "table_booking_v1",
        "payload": {"date": "2026-05-08", "party_size": 2, "seating": "garden"}
    }))
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["mismatch"]
            .as_str()
            .unwrap()
            .contains("unknown variant `garden`"),
        "{body}"
    );
}

#[tokio::test]
async fn text_that_is_not_json_gets_422() {
    let (status, body) = call(Method::POST, "/bookings", Body::from("{not json")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["errors"][0]["code"], "invalid_json");
}
