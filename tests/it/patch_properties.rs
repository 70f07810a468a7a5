//! Property tests for the merge rules and the lifecycle.

use crate::common::MIDNIGHT as T0;
use proptest::prelude::*;
use sdsi::patch::{EffectiveSchema, KeyState, Lifecycle, LifecyclePolicy, PatchScope, SchemaPatch};
use sdsi::{KeyDefinition, KeyName, KeyType, SchemaTemplate};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

const NAMES: [&str; 6] = ["origin", "seat", "meal", "zone", "bags", "pet"];
const TYPES: [KeyType; 3] = [KeyType::String, KeyType::Integer, KeyType::Boolean];

fn base() -> SchemaTemplate {
    SchemaTemplate::new(
        "s",
        "t",
        vec![
            KeyDefinition::new(
                KeyName::new("origin").unwrap(),
                KeyType::String,
                true,
                "from",
            ),
            KeyDefinition::new(
                KeyName::new("bags").unwrap(),
                KeyType::Integer,
                false,
                "bags",
            )
            .with_default(json!(0)),
        ],
    )
}

fn key() -> impl Strategy<Value = KeyDefinition> {
    (0..NAMES.len(), 0..TYPES.len(), "[a-z ]{1,12}").prop_map(|(n, t, d)| {
        KeyDefinition::new(KeyName::new(NAMES[n]).unwrap(), TYPES[t], false, d)
    })
}

fn patch() -> impl Strategy<Value = SchemaPatch> {
    (
        "[a-f]{1,2}",
        -3i64..3,
        1i64..10,
        prop::collection::vec(key(), 0..3),
        prop::collection::vec(key(), 0..2),
        prop_oneof![
            Just(PatchScope::Global),
            Just(PatchScope::Client("a".into()))
        ],
    )
        .prop_map(|(id, start, days, new_keys, modified_keys, scope)| {
            let at = T0 + Duration::days(start);
            let mut p = SchemaPatch::new(id, "s", at, at + Duration::days(days));
            p.new_keys = new_keys;
            p.modified_keys = modified_keys;
            p.scope = scope;
            p
        })
}

type Outcome = Result<Value, Vec<String>>;

fn merge(patches: &[&SchemaPatch], client: Option<&str>, now: OffsetDateTime) -> Outcome {
    let b = base();
    let mut m = EffectiveSchema::new(&b).patches(patches.iter().copied());
    if let Some(c) = client {
        m = m.client(c);
    }
    match m.compile(now) {
        Ok(schema) => Ok(serde_json::to_value(schema.template()).unwrap()),
        Err(e) => Err(e
            .errors()
            .iter()
            .map(|i| format!("{} {}", i.code(), i.path()))
            .collect()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn base_keys_are_never_removed_or_retyped(
        patches in prop::collection::vec(patch(), 0..5),
        day in -2i64..12,
        client in prop_oneof![Just(None), Just(Some("a"))],
    ) {
        let refs: Vec<_> = patches.iter().collect();
        let b = base();
        let mut m = EffectiveSchema::new(&b).patches(refs);
        if let Some(c) = client { m = m.client(c); }
        if let Ok(schema) = m.compile(T0 + Duration::days(day)) {
            for k in &b.keys {
                let merged = schema.template().key(k.key_name.as_str()).unwrap();
                prop_assert_eq!(merged.key_type, k.key_type);
                prop_assert_eq!(merged.required, k.required);
                prop_assert_eq!(merged.effective_default(), k.effective_default());
            }
        }
    }

    /// What `sdsi validate --patch ... --at ...` promises: patches that are
    /// each valid against the base alone never make the lenient merge fail,
    /// at any time, and a base-only message stays valid.
    #[test]
    fn individually_valid_patches_never_break_the_lenient_merge(
        patches in prop::collection::vec(patch(), 0..6),
        day in -4i64..14,
        client in prop_oneof![Just(None), Just(Some("a"))],
    ) {
        let b = base();
        let alone_ok = |p: &SchemaPatch| {
            (-4i64..14).all(|d| {
                let now = T0 + Duration::days(d);
                EffectiveSchema::new(&b).patches([p]).client("a").lenient().compile(now).is_ok()
            })
        };
        let valid: Vec<&SchemaPatch> = patches.iter().filter(|p| alone_ok(p)).collect();
        // Ids must be unique across the set, as a store or a sane caller keeps them.
        let mut ids: Vec<&str> = valid.iter().map(|p| p.patch_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assume!(ids.len() == valid.len());
        let mut m = EffectiveSchema::new(&b).patches(valid.iter().copied()).lenient();
        if let Some(c) = client { m = m.client(c); }
        let schema = m.compile(T0 + Duration::days(day));
        prop_assert!(schema.is_ok(), "{:?}", schema.err());
        let message = json!({"schema_id": "s", "payload": {"origin": "PEK"}});
        prop_assert!(schema.unwrap().is_valid(&message));
    }

    #[test]
    fn applying_a_patch_twice_equals_once(patches in prop::collection::vec(patch(), 1..4), day in 0i64..8) {
        let once: Vec<_> = patches.iter().collect();
        let mut twice = once.clone();
        twice.push(patches.last().unwrap());
        let now = T0 + Duration::days(day);
        prop_assert_eq!(merge(&once, Some("a"), now), merge(&twice, Some("a"), now));
    }

    #[test]
    fn input_order_does_not_matter_and_compile_is_deterministic(
        patches in prop::collection::vec(patch(), 0..5),
        day in 0i64..8,
    ) {
        let forward: Vec<_> = patches.iter().collect();
        let backward: Vec<_> = patches.iter().rev().collect();
        let now = T0 + Duration::days(day);
        let first = merge(&forward, Some("a"), now);
        prop_assert_eq!(&first, &merge(&backward, Some("a"), now));
        prop_assert_eq!(&first, &merge(&forward, Some("a"), now));
    }

    #[test]
    fn patches_round_trip(p in patch()) {
        let text = serde_json::to_vec(&p).unwrap();
        prop_assert_eq!(SchemaPatch::from_slice(&text).unwrap(), p);
    }

    #[test]
    fn lifecycle_states_only_move_forward(
        ops in prop::collection::vec((0u8..4, -5i64..80, 0..NAMES.len(), any::<bool>()), 1..60),
    ) {
        let mut lifecycle = Lifecycle::new(LifecyclePolicy::default());
        let mut p = SchemaPatch::new("p", "s", T0, T0 + Duration::days(365));
        p.new_keys = vec![
            KeyDefinition::new(KeyName::new("seat").unwrap(), KeyType::String, false, "d"),
            KeyDefinition::new(KeyName::new("meal").unwrap(), KeyType::String, false, "d"),
        ];
        lifecycle.track(&p, T0);
        let mut last: Vec<KeyState> = lifecycle.records().iter().map(|r| r.state).collect();
        for (op, day, n, flag) in ops {
            let now = T0 + Duration::days(day);
            match op {
                0 => {
                    let mut payload = Map::new();
                    payload.insert(NAMES[n].to_owned(), if flag { json!("x") } else { json!(1) });
                    lifecycle.record_payload(&payload, "c", now);
                }
                1 => { lifecycle.record_alignment(&PatchScope::Global, NAMES[n], flag, now); }
                _ => {
                    let forward = lifecycle.evaluated_at().is_none_or(|last| now >= last);
                    let projected: Vec<_> = ["seat", "meal"]
                        .map(|k| lifecycle.state_at(&PatchScope::Global, k, now))
                        .to_vec();
                    for t in lifecycle.evaluate(now) {
                        prop_assert!(t.to > t.from, "{:?} -> {:?}", t.from, t.to);
                    }
                    let after: Vec<_> = ["seat", "meal"]
                        .map(|k| lifecycle.state_at(&PatchScope::Global, k, now))
                        .to_vec();
                    // Reading the state at `now` does not depend on whether evaluate ran.
                    prop_assert_eq!(&projected, &after);
                    if forward && now >= T0 {
                        let recorded: Vec<_> = lifecycle.records().iter().map(|r| Some(r.state)).collect();
                        prop_assert_eq!(&recorded, &after);
                    }
                }
            }
            let states: Vec<KeyState> = lifecycle.records().iter().map(|r| r.state).collect();
            for (before, after) in last.iter().zip(&states) {
                prop_assert!(after >= before);
            }
            for metrics in ["seat", "meal"].map(|k| lifecycle.metrics(&PatchScope::Global, k, now).unwrap()) {
                for m in [metrics.usage_frequency, metrics.semantic_alignment_accuracy, metrics.value_type_correctness]
                    .into_iter()
                    .flatten()
                {
                    prop_assert!((0.0..=1.0).contains(&m));
                }
            }
            last = states;
        }
    }
}
