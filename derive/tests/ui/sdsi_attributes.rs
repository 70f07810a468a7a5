use sdsi::Template;

#[derive(serde::Deserialize, Template)]
#[sdsi(schema_id = "", version = "1")]
struct Booking {
    /// Departure airport.
    #[sdsi(key_type = "text")]
    origin: String,
}

fn main() {}
