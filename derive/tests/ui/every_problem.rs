use sdsi::Template;

// Every problem at once, each at its own field.
#[derive(serde::Deserialize, Template)]
struct Booking {
    origin: String,
    #[serde(rename = "Destination")]
    /// Arrival airport.
    destination: String,
    /// Read twice.
    #[serde(rename = "origin")]
    from: String,
}

fn main() {}
