use sdsi::Template;

#[derive(serde::Deserialize, Template)]
enum Never {}

fn main() {}
