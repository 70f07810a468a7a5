use sdsi::Template;

#[derive(serde::Deserialize, Template)]
struct Booking {
    /// Departure airport.
    origin: String,
    /// Also read as `origin`.
    #[serde(rename = "origin")]
    from: String,
}

fn main() {}
