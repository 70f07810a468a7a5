use sdsi::Template;
use sdsi::derive::Other;

#[derive(serde::Deserialize, Template)]
struct Booking {
    /// Departure airport.
    origin: String,
    /// What no key covers, but required.
    other: Other,
}

fn main() {}
