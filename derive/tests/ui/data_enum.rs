use sdsi::Template;

#[derive(serde::Deserialize, Template)]
enum Payment {
    Cash,
    Card { number: String },
}

fn main() {}
