//! Helpers shared by the integration tests' modules: proptest generators
//! (key names and types, JSON values, values of a key type, key
//! definitions, valid templates, messages near a template and validation
//! options), the draft's figure templates, JSON text that repeats member
//! names at any depth ([`repeats`]), and the planted-burst streams
//! ([`planted`], also compiled into sdsi-model's tests).

// With every feature, an unused helper is an error; without some, the
// modules that use it are not compiled.
#![cfg_attr(
    not(all(
        feature = "export",
        feature = "envelope",
        feature = "a2a",
        feature = "patch",
        feature = "evolution"
    )),
    allow(
        dead_code,
        reason = "the modules that use some helpers need features this build lacks"
    )
)]

#[cfg(feature = "evolution")]
pub mod planted;
pub mod repeats;

use std::collections::HashSet;
use std::path::Path;

use indexmap::IndexMap;
use proptest::prelude::*;
use sdsi::validate::{Limits, UnknownKeys, ValidateOptions};
use sdsi::{Issue, KeyDefinition, KeyName, KeyType, SchemaTemplate};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

// ---------------------------------------------------------------------------
// Fixtures: the draft's figures and the data-driven cases
// ---------------------------------------------------------------------------

/// Reads and parses `tests/<dir>/<file>`.
fn fixture(dir: &str, file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir)
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `tests/figures/<name>.json`: one of the draft's figures, or a template
/// kept beside them.
pub fn figure(name: &str) -> Value {
    fixture("figures", &format!("{name}.json"))
}

/// `tests/fixtures/import/<name>.json`: a schema or MCP tool written by a
/// real generator (pydantic, rmcp), for the import's round trips.
pub fn import_fixture(name: &str) -> Value {
    fixture("fixtures/import", &format!("{name}.json"))
}

/// The draft's Figure 2, the flight booking template (`flight_booking_v1`).
pub fn flight_template() -> SchemaTemplate {
    SchemaTemplate::from_value(&figure("fig02_flight_template")).unwrap()
}

/// The draft's two templates (Figure 2, flight; Figure 10, photo editing).
pub fn figure_templates() -> Vec<SchemaTemplate> {
    ["fig02_flight_template", "fig10_photo_template"]
        .into_iter()
        .map(|name| SchemaTemplate::from_value(&figure(name)).unwrap())
        .collect()
}

/// The groups of a data-driven case file, `tests/cases/<name>` (a JSON array;
/// tests/cases/README.md describes each file's form).
pub fn cases(name: &str) -> Vec<Value> {
    match fixture("cases", name) {
        Value::Array(groups) => groups,
        other => panic!("tests/cases/{name}: not an array but {other}"),
    }
}

// ---------------------------------------------------------------------------
// Issues
// ---------------------------------------------------------------------------

/// Each issue as its code and path, in order: what most assertions compare.
pub fn pairs(issues: &[Issue]) -> Vec<(&'static str, String)> {
    issues
        .iter()
        .map(|i| (i.code().as_str(), i.path().to_owned()))
        .collect()
}

/// The `[[code, path], ...]` list a case gives under `member` (none when
/// the member is absent), in the form [`pairs`] gives.
pub fn expected<'a>(case: &'a Value, member: &str) -> Vec<(&'a str, String)> {
    let Some(list) = case.get(member) else {
        return Vec::new();
    };
    list.as_array()
        .unwrap_or_else(|| panic!("{member}: not an array in {case}"))
        .iter()
        .map(|pair| {
            (
                pair[0].as_str().unwrap(),
                pair[1].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Compiles only if `T` may be sent to and shared between threads.
pub fn assert_send_sync<T: Send + Sync>() {}

/// A unit vector in 24 dimensions with squared weights `parts` on the given
/// axes: two such vectors have cosine `Σ √(wᵢ wⱼ)` over shared axes.
#[cfg(feature = "evolution")]
pub fn weighted(parts: &[(usize, f32)]) -> Vec<f32> {
    let mut v = vec![0.0f32; 24];
    for &(axis, w) in parts {
        v[axis] = w.sqrt();
    }
    v
}

// ---------------------------------------------------------------------------
// Patches, stores and messages of the flight example
// ---------------------------------------------------------------------------

/// The patch and store tests' epoch: midnight, 1 May 2026.
pub const MIDNIGHT: OffsetDateTime = datetime!(2026-05-01 0:00 UTC);

/// The evolution tests' epoch: 8:00 on 1 May 2026, when traffic starts.
pub const MORNING: OffsetDateTime = datetime!(2026-05-01 8:00 UTC);

/// An optional key `name` of type `ty`, described as "`name` description".
pub fn key(name: &str, ty: KeyType) -> KeyDefinition {
    KeyDefinition::new(
        KeyName::new(name).unwrap(),
        ty,
        false,
        format!("{name} description"),
    )
}

/// A global patch `id` of `flight_booking_v1`, in force for `days` from
/// `at`, adding `new_keys`.
#[cfg(feature = "patch")]
pub fn patch(
    id: &str,
    at: OffsetDateTime,
    days: i64,
    new_keys: Vec<KeyDefinition>,
) -> sdsi::patch::SchemaPatch {
    let mut p =
        sdsi::patch::SchemaPatch::new(id, "flight_booking_v1", at, at + time::Duration::days(days));
    p.new_keys = new_keys;
    p
}

/// A `flight_booking_v1` message carrying `payload`.
pub fn flight_message(payload: Value) -> Value {
    json!({"schema_id": "flight_booking_v1", "payload": payload})
}

/// A complete `flight_booking_v1` booking (PEK to SHA on 4 May 2026) with
/// `other` as its free text: what the evolution engine learns from.
pub fn flight_with_other(other: &str) -> Value {
    flight_message(json!({
        "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04", "other": other}))
}

/// A store over Figure 2's flight template with the default lifecycle policy.
#[cfg(feature = "patch")]
pub fn flight_store() -> sdsi::SchemaStore {
    sdsi::SchemaStore::new(flight_template(), sdsi::patch::LifecyclePolicy::default()).unwrap()
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

/// Whether `&Value`, as its Deserializer, hands a float to visitors as a map
/// (serde_json built with `arbitrary_precision`).
pub fn numbers_arrive_as_maps() -> bool {
    serde::Deserializer::deserialize_any(&Value::from(0.5), IsMap).unwrap()
}

/// Whether serde_json's text reader hands a number to visitors as a map
/// (serde_json built with `arbitrary_precision`, whatever `&Value` does):
/// then it is no source for `is_valid_from`, as documented.
pub fn text_numbers_arrive_as_maps() -> bool {
    let mut text = serde_json::Deserializer::from_str("0.5");
    serde::Deserializer::deserialize_any(&mut text, IsMap).unwrap()
}

/// Says whether a number arrived as a map.
struct IsMap;

impl<'de> serde::de::Visitor<'de> for IsMap {
    type Value = bool;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a number")
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, _: A) -> Result<bool, A::Error> {
        Ok(true)
    }
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

// ---------------------------------------------------------------------------
// Card numbers (Luhn)
// ---------------------------------------------------------------------------

/// The Luhn check digit that follows `payload`.
pub fn luhn_check_digit(payload: &[u8]) -> u8 {
    let sum: u32 = payload
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            match (i % 2, d * 2) {
                (0, doubled) if doubled > 9 => doubled - 9,
                (0, doubled) => doubled,
                _ => d,
            }
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

/// Whether `digits` end in their Luhn check digit.
pub fn luhn_ok(digits: &[u8]) -> bool {
    digits
        .split_last()
        .is_some_and(|(&last, payload)| luhn_check_digit(payload) == last)
}

/// A Luhn-valid number of `len` digits that starts with `prefix` (cut, or
/// padded with zeros, to `len - 1` digits).
pub fn luhn_number(mut prefix: Vec<u8>, len: usize) -> Vec<u8> {
    prefix.resize(len - 1, 0);
    let check = luhn_check_digit(&prefix);
    prefix.push(check);
    prefix
}

/// `digits` as text in groups of `sizes` (repeated as needed), the groups
/// joined by `separator`.
pub fn grouped(digits: &[u8], sizes: &[usize], separator: char) -> String {
    let mut out = String::new();
    let mut rest = digits;
    for &n in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let take = n.min(rest.len());
        if !out.is_empty() {
            out.push(separator);
        }
        out.extend(rest[..take].iter().map(|d| char::from(b'0' + d)));
        rest = &rest[take..];
    }
    out
}

/// The digits of a valid (Luhn) 16-digit card number starting with 4,
/// different for every seed: what redaction must catch.
pub fn card_digits(seed: u64) -> Vec<u8> {
    let mut payload: Vec<u8> = (0..15)
        .map(|i| ((seed * 7919 + i * 104_729) % 10) as u8)
        .collect();
    payload[0] = 4;
    luhn_number(payload, 16)
}

/// [`card_digits`] as one run of 16 digits.
pub fn card_number(seed: u64) -> String {
    grouped(&card_digits(seed), &[16], ' ')
}
