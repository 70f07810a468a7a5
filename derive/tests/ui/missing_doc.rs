use sdsi::Template;

#[derive(serde::Deserialize, Template)]
struct Booking {
    /// Departure airport.
    origin: String,
    destination: String,
}

fn main() {}
