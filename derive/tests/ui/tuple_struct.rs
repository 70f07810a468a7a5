use sdsi::Template;

#[derive(serde::Deserialize, Template)]
struct Point(f64, f64);

fn main() {}
