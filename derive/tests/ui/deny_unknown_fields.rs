use sdsi::Template;

#[derive(serde::Deserialize, Template)]
#[serde(deny_unknown_fields)]
struct Booking {
    /// Departure airport.
    origin: String,
}

fn main() {}
