//! Proptest generators shared by the integration tests (`properties.rs`,
//! `export.rs`, `a2a.rs`): key names and types, JSON values, values of a
//! key type, key definitions, valid templates, messages near a template and
//! validation options.
//!
//! Each test crate that says `mod common;` compiles its own copy of this
//! module and uses only some of it, hence the `dead_code` allowance. The
//! clippy allowances of the including test file cover this module too.

#![allow(
    dead_code,
    reason = "each test crate uses only some of the shared generators"
)]

use std::collections::HashSet;

use indexmap::IndexMap;
use proptest::prelude::*;
use sdsi::validate::{Limits, UnknownKeys, ValidateOptions};
use sdsi::{KeyDefinition, KeyName, KeyType, SchemaTemplate};
use serde_json::{Map, Value, json};

/// The draft's two templates (Figure 2, flight; Figure 10, photo editing).
pub fn figure_templates() -> Vec<SchemaTemplate> {
    [
        include_bytes!("../figures/fig02_flight_template.json").as_slice(),
        include_bytes!("../figures/fig10_photo_template.json").as_slice(),
    ]
    .into_iter()
    .map(|bytes| SchemaTemplate::from_slice(bytes).unwrap())
    .collect()
}

/// Which unknown wire members (`extra`) generated keys and templates carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extras {
    /// None at all: exactly what the typed model describes (for exports,
    /// which have no place for them).
    None,
    /// On the keys only: A2A field definitions drop those without a warning,
    /// but a template's own extra members have no place in a field list.
    Keys,
    /// On the keys and on the template (lossless serde round trips).
    All,
}

/// A valid key name: snake case, with digits and up to two `_` segments.
pub fn key_name() -> impl Strategy<Value = KeyName> {
    "[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,4}){0,2}".prop_map(|s| KeyName::new(&s).unwrap())
}

/// Any of the seven key types.
pub fn key_type() -> impl Strategy<Value = KeyType> {
    proptest::sample::select(KeyType::ALL.to_vec())
}

/// Any JSON value, small and nested, with the numbers that split integer
/// from number (2.0, 1e300, -0.0) and both signed and unsigned 64-bit ones.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(json!(2.0)),
        Just(json!(-0.0)),
        Just(json!(1e300)),
        Just(json!(0.5)),
        "[a-z ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,6}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A value of type `ty`, including the integral floats (3.0, 1e300) that
/// count as integers.
pub fn value_of(ty: KeyType) -> BoxedStrategy<Value> {
    match ty {
        KeyType::String => "[a-z]{0,6}".prop_map(Value::from).boxed(),
        KeyType::Integer => prop_oneof![
            any::<i32>().prop_map(Value::from),
            Just(json!(3.0)),
            Just(json!(1e300))
        ]
        .boxed(),
        KeyType::Number => prop_oneof![
            any::<i32>().prop_map(Value::from),
            Just(json!(0.25)),
            (-1e9f64..1e9).prop_map(Value::from)
        ]
        .boxed(),
        KeyType::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        KeyType::Array => prop::collection::vec(json_value(), 0..3)
            .prop_map(Value::Array)
            .boxed(),
        KeyType::Object => prop_oneof![
            Just(json!({"k": [1, {"j": null}]})),
            prop::collection::vec(("[a-z]{1,4}", json_value()), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
        .boxed(),
        KeyType::Null => Just(Value::Null).boxed(),
    }
}

/// Unknown wire members (`x_…`), none or one.
pub fn extra_members() -> impl Strategy<Value = IndexMap<String, Value>> {
    prop::collection::vec(("x_[a-z]{1,5}", json_value()), 0..2)
        .prop_map(|kv| kv.into_iter().collect())
}

/// Extra members when `carry`, none otherwise.
fn extras_if(carry: bool) -> BoxedStrategy<IndexMap<String, Value>> {
    if carry {
        extra_members().boxed()
    } else {
        Just(IndexMap::new()).boxed()
    }
}

/// A key definition: no default, a `null` default or a well-typed one;
/// extra members as `extras` says.
pub fn key_definition(extras: Extras) -> impl Strategy<Value = KeyDefinition> {
    (
        key_name(),
        key_type(),
        any::<bool>(),
        "[ -~]{0,20}",
        0..3u8,
        extras_if(extras != Extras::None),
    )
        .prop_flat_map(|(name, ty, required, desc, default_kind, extra)| {
            let default = match default_kind {
                0 => Just(None).boxed(),
                1 => Just(Some(Value::Null)).boxed(),
                _ => value_of(ty).prop_map(Some).boxed(),
            };
            default.prop_map(move |default_value| {
                let mut key = KeyDefinition::new(name.clone(), ty, required, desc.clone());
                key.default_value = default_value;
                key.extra = extra.clone();
                key
            })
        })
}

/// A template that passes every check: unique names and `other` declared
/// not at all, as a string, as an array, or as an array with a default;
/// extra members as `extras` says.
pub fn template(extras: Extras) -> impl Strategy<Value = SchemaTemplate> {
    (
        prop::collection::vec(key_definition(extras), 0..8),
        0..4u8,
        "[a-z_]{1,10}",
        extras_if(extras == Extras::All),
    )
        .prop_map(|(keys, other, id, extra)| {
            let mut seen = HashSet::new();
            let mut keys: Vec<_> = keys
                .into_iter()
                .filter(|k| !k.key_name.is_other() && seen.insert(k.key_name.clone()))
                .collect();
            if other > 0 {
                let ty = if other == 1 {
                    KeyType::String
                } else {
                    KeyType::Array
                };
                let mut key =
                    KeyDefinition::new(KeyName::new("other").unwrap(), ty, false, "unmapped");
                if other == 3 {
                    key.default_value = Some(json!(["none"]));
                }
                keys.push(key);
            }
            let mut template = SchemaTemplate::new(id, "scenario", keys);
            template.extra = extra;
            template
        })
}

/// A message near the template: each key omitted, well typed, `null` or
/// anything; sometimes unknown keys (with `~` and `/` to escape in paths),
/// a bad `other`, a missing or wrong `schema_id`, a missing or non-object
/// payload, a non-object message or an unknown top-level member.
pub fn message_for(template: &SchemaTemplate) -> BoxedStrategy<Value> {
    let id = template.schema_id.clone();
    let members: Vec<BoxedStrategy<Option<(String, Value)>>> = template
        .keys
        .iter()
        .map(|k| {
            let name = k.key_name.to_string();
            let ty = if k.key_name.is_other() {
                KeyType::String
            } else {
                k.key_type
            };
            prop_oneof![
                2 => Just(None),
                5 => value_of(ty).prop_map(Some),
                1 => Just(Some(Value::Null)),
                2 => json_value().prop_map(Some),
            ]
            .prop_map(move |v| v.map(|v| (name.clone(), v)))
            .boxed()
        })
        .collect();
    let extras = prop::collection::vec(
        prop_oneof![
            ("[a-z~/]{1,5}", json_value()),
            json_value().prop_map(|v| ("other".to_owned(), v)),
            prop::collection::vec("[a-z]{0,3}", 0..3).prop_map(|v| ("other".to_owned(), json!(v))),
        ],
        0..2,
    );
    (members, extras, 0..12u8)
        .prop_map(move |(members, extras, shape)| {
            let payload: Map<String, Value> = members.into_iter().flatten().chain(extras).collect();
            match shape {
                0 => json!({"payload": payload}),
                1 => json!({"schema_id": "elsewhere", "payload": payload}),
                2 => json!({"schema_id": id.clone(), "payload": [payload]}),
                3 => json!({"schema_id": id.clone()}),
                4 => json!([{"schema_id": id.clone(), "payload": payload}]),
                5 => json!({"schema_id": 7, "payload": payload}),
                _ => json!({"schema_id": id.clone(), "payload": payload, "trace": 1}),
            }
        })
        .boxed()
}

/// Options that vary the unknown-key policy only, with default limits (what
/// a JSON Schema export can express: it has no nesting-depth or key-count
/// limits).
pub fn unknown_key_policy() -> impl Strategy<Value = ValidateOptions> {
    any::<bool>().prop_map(|warn| {
        ValidateOptions::default().unknown_keys(if warn {
            UnknownKeys::Warn
        } else {
            UnknownKeys::Reject
        })
    })
}

/// Options that vary the unknown-key policy and, five times in six, tight
/// depth and key-count limits (the default limits otherwise).
pub fn options_with_limits() -> impl Strategy<Value = ValidateOptions> {
    (unknown_key_policy(), 0..6usize, 0..12usize).prop_map(|(options, depth, keys)| {
        let limits = if depth == 5 {
            Limits::default()
        } else {
            Limits::default().with_max_depth(depth).with_max_keys(keys)
        };
        options.limits(limits)
    })
}

/// A valid (Luhn) 16-digit card number starting with 4, different for
/// every seed: what redaction must catch.
pub fn card_number(seed: u64) -> String {
    let mut digits: Vec<u32> = (0..15)
        .map(|i| ((seed * 7919 + i * 104_729) % 10) as u32)
        .collect();
    digits[0] = 4;
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| match (i % 2, d * 2) {
            (0, doubled) if doubled > 9 => doubled - 9,
            (0, doubled) => doubled,
            _ => d,
        })
        .sum();
    digits.push((10 - sum % 10) % 10);
    digits
        .iter()
        .map(|d| char::from_digit(*d, 10).unwrap())
        .collect()
}
