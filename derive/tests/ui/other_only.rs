use sdsi::Template;

#[derive(serde::Deserialize, Template)]
enum Colour {
    #[serde(skip)]
    #[allow(dead_code)]
    Internal,
    #[serde(other)]
    Unlisted,
}

fn main() {}
