use sdsi::Template;

#[derive(serde::Deserialize, Template)]
struct Booking {
    /// Departure airport.
    origin: String,
    /// What no key covers: a string only, so an array would be refused.
    other: Option<String>,
}

fn main() {}
