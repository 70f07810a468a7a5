//! The README's first example, whole: a serde struct as the template, a
//! message validated from bytes and read into the struct.
//! `cargo run --example derive`. A test (`tests/it/derive.rs`) checks that
//! the README's block is this file's, line for line.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let message_bytes: &[u8] =
        br#"{"schema_id": "flight_booking_v1", "payload": {"origin": "PEK", "other": "window seat"}}"#;
    // README: start
    use sdsi::{CompiledSchema, SchemaTemplate, Template};

    /// A flight booking: each field is a key, each doc comment its semantic description.
    #[derive(serde::Deserialize, Template)]
    #[sdsi(schema_id = "flight_booking_v1", scenario = "flight_booking")]
    struct Booking {
        /// Departure airport, an IATA code. Example: 'from Beijing' -> 'PEK'.
        origin: String,
        /// Number of passengers, 1-9. Example: 'two people' -> 2.
        passenger_count: Option<u8>,
    }

    let template = Booking::template(); // or SchemaTemplate::from_slice(json)?
    let schema = CompiledSchema::new(&template)?; // compile once
    let report = schema.validate_slice(message_bytes); // validate many, straight from bytes
    let booking: Booking = schema.deserialize_slice(message_bytes)?.payload; // or into the struct
    // README: end

    // The template a client receives, a JSON copy kept for those who read one.
    let published = serde_json::to_string_pretty(&template)?;
    assert_eq!(SchemaTemplate::from_json(&published)?, template);
    println!("{published}");
    println!("valid: {}", report.is_valid());
    println!(
        "origin {}, passengers {:?}",
        booking.origin, booking.passenger_count
    );
    Ok(())
}
