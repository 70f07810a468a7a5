use sdsi::Template;

#[derive(serde::Deserialize, Template)]
#[serde(transparent)]
struct Code {
    /// The code.
    code: String,
}

fn main() {}
