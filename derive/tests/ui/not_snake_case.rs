use sdsi::Template;

#[derive(serde::Deserialize, Template)]
#[serde(rename_all = "camelCase")]
struct Booking {
    /// One word: still snake_case.
    origin: String,
    /// Two words: camelCase gives `departureDate`.
    departure_date: String,
    /// Renamed by hand to a name that is not a key name.
    #[serde(rename = "Cabin")]
    cabin: String,
}

fn main() {}
