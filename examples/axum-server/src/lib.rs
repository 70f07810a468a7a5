//! An axum server for the table bookings of a restaurant agent: the request
//! type derives its sdsi template, `GET /template` publishes it, and
//! `POST /bookings` validates the structured payload message before the
//! handler sees a `TableBooking`, answering 422 with the validator's report
//! when the message is not valid.
//!
//! `cargo run -p sdsi-axum-example` serves on 127.0.0.1:3000;
//! `tests/http.rs` drives the router in process with `tower`'s `oneshot`.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use sdsi::derive::Other;
use sdsi::validate::Refusal;
use sdsi::{CompiledSchema, Template, TemplateError};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Where the party sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Template)]
#[serde(rename_all = "snake_case")]
pub enum Seating {
    /// the dining room
    #[default]
    Indoor,
    /// the terrace, weather permitting
    Terrace,
    /// the counter facing the kitchen
    Bar,
}

/// A table booking: the request the server reads, and so its template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Template)]
#[sdsi(schema_id = "table_booking_v1", scenario = "table_booking")]
pub struct TableBooking {
    /// Date of the booking, ISO 8601 (YYYY-MM-DD). Example: 'next Friday' -> '2026-05-08'.
    pub date: String,
    /// Number of guests, 1-12. Example: 'four of us' -> 4.
    pub party_size: u8,
    /// Where the party sits. Example: 'outside if possible' -> 'terrace'.
    #[serde(default)]
    pub seating: Seating,
    /// What the guest asked for that no key covers, in their words.
    pub other: Option<Other>,
}

/// The router: `GET /template` and `POST /bookings`, sharing one compiled
/// schema (an `Arc` inside: cloning it per request costs a count).
pub fn app() -> Result<Router, TemplateError> {
    let schema = CompiledSchema::from_template(TableBooking::template())?;
    Ok(Router::new()
        .route("/template", get(template))
        .route("/bookings", post(book))
        .with_state(schema))
}

/// The template a client agent maps its user's request onto.
async fn template(State(schema): State<CompiledSchema>) -> Json<sdsi::SchemaTemplate> {
    Json(schema.template().clone())
}

/// Reads the body as a structured payload message: 201 with the booking
/// when it is valid; 422 with the report (every problem, each with its code
/// and JSON Pointer) when it is not; 422 with the reason when the message is
/// valid but the type still refuses it (see docs/derive.md).
async fn book(State(schema): State<CompiledSchema>, body: Bytes) -> Response {
    match schema.deserialize_slice::<TableBooking>(&body) {
        Ok(accepted) => (
            StatusCode::CREATED,
            Json(json!({"booking": accepted.payload, "warnings": accepted.warnings})),
        )
            .into_response(),
        Err(Refusal::Invalid(report)) => {
            (StatusCode::UNPROCESSABLE_ENTITY, Json(report)).into_response()
        }
        // A valid message the type refuses (`Refusal::Mismatch`), or any
        // refusal a later sdsi adds: the reason in words.
        Err(refusal) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"valid": false, "mismatch": refusal.to_string()})),
        )
            .into_response(),
    }
}
