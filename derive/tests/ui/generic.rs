use sdsi::Template;

#[derive(serde::Deserialize, Template)]
struct Page<T> {
    /// The items.
    items: Vec<T>,
}

fn main() {}
