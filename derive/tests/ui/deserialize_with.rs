use sdsi::Template;

fn from_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

#[derive(serde::Deserialize, Template)]
struct Stamp {
    /// Seconds since the epoch, as text.
    #[serde(deserialize_with = "from_text")]
    at: u64,
}

fn main() {}
