use sdsi::Template;

#[derive(serde::Deserialize)]
struct Route {
    origin: String,
}

#[derive(serde::Deserialize, Template)]
struct Booking {
    /// The route.
    #[serde(flatten)]
    route: Route,
}

fn main() {}
