use sdsi::Template;

#[derive(serde::Deserialize, Template)]
struct Place {
    /// Latitude and longitude.
    position: (f64, f64),
}

fn main() {}
