//! How the lifecycle's maps are written: in a fixed order, so one state
//! always gives the same bytes.

// The helpers are `pub(crate)` inside modules only the lifecycle can name,
// so they reach no further; `pub(in crate::patch::lifecycle)` would name
// the lifecycle's facade and tie this file to it in the module graph
// (scripts/check-module-cycles.py).

/// Hash maps written in key order: a hash map iterates in an order that
/// depends on its history, and one state must always give the same bytes
/// (a saved store read back and saved again is byte-identical).
pub(super) mod sorted {
    use std::collections::BTreeMap;

    use rustc_hash::FxHashMap;
    use serde::{Serialize, Serializer};

    pub(crate) fn map<K: Ord + Serialize, V: Serialize, S: Serializer>(
        map: &FxHashMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        map.iter().collect::<BTreeMap<_, _>>().serialize(serializer)
    }

    pub(crate) fn nested<K, L, V, S>(
        map: &FxHashMap<K, FxHashMap<L, V>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error>
    where
        K: Ord + Serialize,
        L: Ord + Serialize,
        V: Serialize,
        S: Serializer,
    {
        map.iter()
            .map(|(k, inner)| (k, inner.iter().collect::<BTreeMap<_, _>>()))
            .collect::<BTreeMap<_, _>>()
            .serialize(serializer)
    }
}

/// `FxHashMap<PatchScope, Vec<usize>>` as a list of `[scope, indexes]` pairs.
pub(super) mod scope_pairs {
    use rustc_hash::FxHashMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::patch::schema_patch::PatchScope;

    pub(crate) fn serialize<S: Serializer>(
        map: &FxHashMap<PatchScope, Vec<usize>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        // Sorted, so one state always serializes the same way.
        let mut pairs: Vec<(&PatchScope, &Vec<usize>)> = map.iter().collect();
        pairs.sort_by(|a, b| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)));
        pairs.serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<FxHashMap<PatchScope, Vec<usize>>, D::Error> {
        let pairs = Vec::<(PatchScope, Vec<usize>)>::deserialize(deserializer)?;
        Ok(pairs.into_iter().collect())
    }
}
