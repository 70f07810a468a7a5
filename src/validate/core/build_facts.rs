//! What the serde_json built into this program does, asked at run time:
//! any crate in the dependency tree can turn on its features, so the
//! validator cannot know them when it is compiled.

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// Whether serde_json's `Map` sorts its members (no `preserve_order`).
pub(crate) fn maps_are_sorted() -> bool {
    let mut map = serde_json::Map::new();
    map.insert("b".into(), Value::Null);
    map.insert("a".into(), Value::Null);
    map.keys().next().is_some_and(|first| first == "a")
}

/// Whether serde_json hands a number to `deserialize_any` visitors as a map
/// (`arbitrary_precision`) rather than through `visit_i64` / `visit_u64` /
/// `visit_f64` (it does so for every number that is not a 64-bit integer).
/// Asked on a three-byte document.
pub(crate) fn numbers_arrive_as_maps() -> bool {
    struct Asks;
    impl<'de> Visitor<'de> for Asks {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number")
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            while map.next_key::<IgnoredAny>()?.is_some() {
                map.next_value::<IgnoredAny>()?;
            }
            Ok(true)
        }
    }
    let mut de = serde_json::Deserializer::from_str("0.5");
    de::Deserializer::deserialize_any(&mut de, Asks).unwrap_or(true)
}
