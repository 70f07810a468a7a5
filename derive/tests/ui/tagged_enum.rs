use sdsi::Template;

#[derive(serde::Deserialize, Template)]
#[serde(tag = "kind")]
enum Seat {
    Window,
    Aisle,
}

fn main() {}
