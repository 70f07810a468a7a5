//! Members a typed value does not know (a template's or a key's `extra`),
//! kept so that a round trip loses nothing, and kept from shadowing the
//! members the type does know.

use indexmap::IndexMap;
use serde_json::{Map, Value};

/// Serializes the `extra` members not named like one of `real`.
pub(crate) fn unshadowed<S: serde::Serializer>(
    extra: &IndexMap<String, Value>,
    real: &[&str],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(
        extra
            .iter()
            .filter(|(name, _)| !real.contains(&name.as_str())),
    )
}

/// `object`'s members not named in `known`, copied.
pub(crate) fn extra_members(
    object: &Map<String, Value>,
    known: &[&str],
) -> IndexMap<String, Value> {
    object
        .iter()
        .filter(|(k, _)| !known.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
