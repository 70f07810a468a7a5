//! Compatibility between template versions: the data-driven cases of
//! `tests/cases/compat.json` (`{description, history, new, cases: [{mode,
//! compatible, changes: [[code, path, direction]]}]}`), and the property that
//! gives the check its meaning: when it says a version reads what another
//! wrote, the validator agrees on every payload. Then a table of Confluent
//! Schema Registry's JSON Schema rules for a closed content model, checked
//! under every mode, and the edges the table names: a `null` key made
//! optional, a default's direction, `schema_id` left out.

use crate::common::{self, Extras, cases, message_for, template};
use proptest::prelude::*;
use sdsi::compat::{Direction, Mode, check};
use sdsi::{CompiledSchema, KeyDefinition, KeyName, KeyType, SchemaTemplate};
use serde_json::{Map, Value, json};

#[test]
fn compat_cases() {
    let groups = cases("compat.json");
    let mut count = 0;
    for group in groups {
        let description = group["description"].as_str().unwrap();
        let history: Vec<SchemaTemplate> = group["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| SchemaTemplate::from_value(t).unwrap())
            .collect();
        let new = SchemaTemplate::from_value(&group["new"]).unwrap();
        for case in group["cases"].as_array().unwrap() {
            let mode: Mode = case["mode"].as_str().unwrap().parse().unwrap();
            let report = check(&history, &new, mode);
            let got: Vec<Value> = report
                .changes
                .iter()
                .map(|c| json!([c.code.as_str(), c.path, c.direction]))
                .collect();
            assert_eq!(
                got,
                case["changes"].as_array().unwrap().clone(),
                "{description} ({mode})"
            );
            assert_eq!(
                report.is_compatible(),
                case["compatible"],
                "{description} ({mode})"
            );
            count += 1;
        }
    }
    assert!(count >= 20, "{count} cases");
}

#[test]
fn mode_names_parse_in_any_spelling() {
    for mode in Mode::ALL.iter().copied() {
        assert_eq!(mode.as_str().parse::<Mode>().unwrap(), mode);
        assert_eq!(
            mode.as_str()
                .to_uppercase()
                .replace('_', "-")
                .parse::<Mode>()
                .unwrap(),
            mode
        );
    }
    assert!("sideways".parse::<Mode>().is_err());
}

/// A related version: keys dropped, added, retyped or made (not) required.
fn evolve(template: &SchemaTemplate) -> BoxedStrategy<SchemaTemplate> {
    let template = template.clone();
    let edits = prop::collection::vec(
        (
            0..4u8,
            any::<prop::sample::Index>(),
            common::key_type(),
            any::<bool>(),
        ),
        0..4,
    );
    edits
        .prop_map(move |edits| {
            let mut new = template.clone();
            for (edit, at, ty, flag) in edits {
                let keys: Vec<usize> = (0..new.keys.len())
                    .filter(|&i| !new.keys[i].key_name.is_other())
                    .collect();
                let target = (!keys.is_empty()).then(|| keys[at.index(keys.len())]);
                match (edit, target) {
                    (0, Some(i)) => {
                        new.keys.remove(i);
                    }
                    (1, Some(i)) => {
                        new.keys[i].key_type = ty;
                        new.keys[i].default_value = None;
                    }
                    (2, Some(i)) => {
                        new.keys[i].required = flag;
                        if flag {
                            new.keys[i].default_value = None;
                        }
                    }
                    _ => {
                        let name = format!("added_{}", new.keys.len());
                        if new.key(&name).is_none() {
                            new.keys.push(KeyDefinition::new(
                                KeyName::new(&name).unwrap(),
                                ty,
                                flag,
                                "Added.",
                            ));
                        }
                    }
                }
            }
            new
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// When the check finds no breaking change in a direction, every payload
    /// the writing version accepts, the reading version accepts (`null`
    /// keys made optional of another type included).
    #[test]
    fn a_compatible_verdict_holds_for_every_payload(
        (old, new, old_messages, new_messages) in template(Extras::None)
            .prop_flat_map(|t| (Just(t.clone()), evolve(&t)))
            .prop_flat_map(|(old, new)| {
                let a = prop::collection::vec(message_for(&old), 8);
                let b = prop::collection::vec(message_for(&new), 8);
                (Just(old), Just(new), a, b)
            })
    ) {
        prop_assume!(new.check().is_valid());
        let (old_schema, new_schema) = (CompiledSchema::new(&old).unwrap(), CompiledSchema::new(&new).unwrap());
        let report = check(std::slice::from_ref(&old), &new, Mode::Full);
        let breaks = |direction: Direction| report.breaking().iter().any(|c| c.direction == direction);
        // A version reads a payload, whatever `schema_id` the message around
        // it names: the check does not compare ids.
        let payloads = |messages: &[Value]| -> Vec<Map<String, Value>> {
            messages.iter().filter_map(|m| m.get("payload")?.as_object().cloned()).collect()
        };
        if !breaks(Direction::Backward) {
            for p in payloads(&old_messages) {
                if old_schema.is_valid_payload(&p) {
                    prop_assert!(new_schema.is_valid_payload(&p), "backward: {:?}", p);
                }
            }
        }
        if !breaks(Direction::Forward) {
            for p in payloads(&new_messages) {
                if new_schema.is_valid_payload(&p) {
                    prop_assert!(old_schema.is_valid_payload(&p), "forward: {:?}", p);
                }
            }
        }
        // And a version always reads itself.
        prop_assert!(check(std::slice::from_ref(&old), &old, Mode::FullTransitive).is_compatible());
    }
}

// ---------------------------------------------------------------------------
// Confluent Schema Registry's JSON Schema rules for a closed content model
// ---------------------------------------------------------------------------

/// A key definition as a template writes it.
fn key(name: &str, ty: &str, required: bool) -> Value {
    json!({"key_name": name, "key_type": ty, "required": required,
           "semantic_description": format!("The {name}.")})
}

/// `key` with a default value.
fn key_with_default(name: &str, ty: &str, required: bool, default: Value) -> Value {
    let mut key = key(name, ty, required);
    key["default_value"] = default;
    key
}

/// A coffee template with the required `size` key, then `keys`.
fn coffee(id: &str, keys: &[Value]) -> SchemaTemplate {
    let mut all = vec![key("size", "string", true)];
    all.extend_from_slice(keys);
    SchemaTemplate::from_value(&json!({"schema_id": id, "scenario": "coffee", "keys": all}))
        .unwrap()
}

/// Whether `mode` passes when the backward check gives `backward` and the
/// forward one `forward` (`Mode` is `#[non_exhaustive]`: read its name).
fn passes(mode: Mode, (backward, forward): (bool, bool)) -> bool {
    let name = mode.as_str();
    if name.starts_with("backward") {
        backward
    } else if name.starts_with("forward") {
        forward
    } else if name.starts_with("full") {
        backward && forward
    } else {
        assert_eq!(mode, Mode::None);
        true
    }
}

/// One rule of Confluent's JSON Schema compatibility check
/// (`json-schema-provider/.../diff/ObjectSchemaDiff.java` and the
/// `COMPATIBLE_CHANGES` set of `SchemaDiff.java` in confluentinc/schema-registry;
/// FORWARD runs the same diff with the versions swapped), as it applies to a
/// closed content model (`"additionalProperties": false`, which is what a
/// template is under the default `UnknownKeys::Reject`).
struct Rule {
    /// The change, in the registry's words.
    change: &'static str,
    /// The `milk` key (or keys) in the old and new versions.
    old: Vec<Value>,
    new: Vec<Value>,
    /// The registry's verdict: (backward, forward).
    confluent: (bool, bool),
    /// Where sdsi's verdict differs, and why (docs/interop.md §8).
    differs: Option<((bool, bool), &'static str)>,
    /// What `check` lists under `Mode::Full`: (code, direction).
    changes: &'static [(&'static str, &'static str)],
}

fn confluent_rules() -> Vec<Rule> {
    let milk = |required| key("milk", "string", required);
    let shots = |ty| key("shots", ty, false);
    let sugar = |default| key_with_default("sugar", "integer", false, json!(default));
    vec![
        Rule {
            change: "optional property added (OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL; forward: PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL)",
            old: vec![],
            new: vec![milk(false)],
            confluent: (true, false),
            differs: None,
            changes: &[("key_added", "forward")],
        },
        Rule {
            change: "required property added (REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL)",
            old: vec![],
            new: vec![milk(true)],
            confluent: (false, false),
            differs: None,
            changes: &[
                ("required_key_added", "backward"),
                ("required_key_added", "forward"),
            ],
        },
        Rule {
            change: "required property with a default added (REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL)",
            old: vec![],
            new: vec![key_with_default("milk", "string", true, json!("whole"))],
            confluent: (true, false),
            differs: Some(((false, false), "a required key's default is never applied")),
            changes: &[
                ("required_key_added", "backward"),
                ("required_key_added", "forward"),
            ],
        },
        Rule {
            change: "optional property removed (PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL; forward: OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL)",
            old: vec![milk(false)],
            new: vec![],
            confluent: (false, true),
            differs: None,
            changes: &[("key_removed", "backward")],
        },
        Rule {
            change: "required property removed (PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL; forward: REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL)",
            old: vec![milk(true)],
            new: vec![],
            confluent: (false, false),
            differs: None,
            changes: &[("key_removed", "backward"), ("key_removed", "forward")],
        },
        Rule {
            change: "property made required (REQUIRED_ATTRIBUTE_ADDED; forward: REQUIRED_ATTRIBUTE_REMOVED)",
            old: vec![milk(false)],
            new: vec![milk(true)],
            confluent: (false, true),
            differs: None,
            changes: &[("key_made_required", "backward")],
        },
        Rule {
            change: "property with a default made required (REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED)",
            old: vec![key_with_default("milk", "string", false, json!("whole"))],
            new: vec![key_with_default("milk", "string", true, json!("whole"))],
            confluent: (true, true),
            differs: Some(((false, true), "a required key's default is never applied")),
            changes: &[("key_made_required", "backward")],
        },
        Rule {
            change: "property made optional (REQUIRED_ATTRIBUTE_REMOVED; forward: REQUIRED_ATTRIBUTE_ADDED)",
            old: vec![milk(true)],
            new: vec![milk(false)],
            confluent: (true, false),
            differs: None,
            changes: &[("key_made_optional", "forward")],
        },
        Rule {
            change: "integer widened to number (TYPE_EXTENDED; forward: TYPE_NARROWED)",
            old: vec![shots("integer")],
            new: vec![shots("number")],
            confluent: (true, false),
            differs: None,
            changes: &[("type_changed", "forward")],
        },
        Rule {
            change: "number narrowed to integer (TYPE_NARROWED; forward: TYPE_EXTENDED)",
            old: vec![shots("number")],
            new: vec![shots("integer")],
            confluent: (false, true),
            differs: None,
            changes: &[("type_changed", "backward")],
        },
        Rule {
            change: "type changed (TYPE_CHANGED)",
            old: vec![shots("string")],
            new: vec![shots("integer")],
            confluent: (false, false),
            differs: None,
            changes: &[("type_changed", "backward"), ("type_changed", "forward")],
        },
        Rule {
            // The export writes an optional key as `["string", "null"]`: a
            // union holding the old type.
            change: "null type extended to an optional key's [T, null] (SUM_TYPE_EXTENDED; forward: TYPE_CHANGED)",
            old: vec![key("milk", "null", false)],
            new: vec![milk(false)],
            confluent: (true, false),
            differs: None,
            changes: &[("type_changed", "forward")],
        },
        Rule {
            change: "default changed (DEFAULT_CHANGED)",
            old: vec![sugar(1)],
            new: vec![sugar(2)],
            confluent: (true, true),
            differs: None,
            changes: &[
                ("default_changed", "backward"),
                ("default_changed", "forward"),
            ],
        },
        Rule {
            change: "description changed (DESCRIPTION_CHANGED)",
            old: vec![milk(false)],
            new: vec![
                json!({"key_name": "milk", "key_type": "string", "required": false,
                             "semantic_description": "Milk, if any: whole, skim or oat."}),
            ],
            confluent: (true, true),
            differs: None,
            changes: &[],
        },
        Rule {
            // Every row bumps `schema_id` too: the template's `$id`.
            change: "id changed (ID_CHANGED)",
            old: vec![milk(false)],
            new: vec![milk(false)],
            confluent: (true, true),
            differs: None,
            changes: &[],
        },
    ]
}

#[test]
fn confluent_closed_content_rules_under_every_mode() {
    for rule in confluent_rules() {
        let (old, new) = (
            coffee("coffee_v1", &rule.old),
            coffee("coffee_v2", &rule.new),
        );
        let verdict = rule.differs.map_or(rule.confluent, |(sdsi, why)| {
            assert_ne!(sdsi, rule.confluent, "{}: {why}", rule.change);
            sdsi
        });
        for mode in Mode::ALL.iter().copied() {
            let report = check(std::slice::from_ref(&old), &new, mode);
            assert_eq!(
                report.is_compatible(),
                passes(mode, verdict),
                "{} ({mode})",
                rule.change
            );
            let got: Vec<(&str, Direction)> = report
                .changes
                .iter()
                .map(|c| (c.code.as_str(), c.direction))
                .collect();
            let want: Vec<(&str, Direction)> = rule
                .changes
                .iter()
                .map(|&(code, direction)| {
                    let direction = if direction == "backward" {
                        Direction::Backward
                    } else {
                        Direction::Forward
                    };
                    (code, direction)
                })
                .filter(|&(_, direction)| match direction {
                    Direction::Backward => {
                        passes(mode, (false, true)) != passes(mode, (true, true))
                    }
                    Direction::Forward => passes(mode, (true, false)) != passes(mode, (true, true)),
                })
                .collect();
            assert_eq!(got, want, "{} ({mode})", rule.change);
        }
    }
}

#[test]
fn a_null_key_made_optional_of_any_type_is_backward_compatible() {
    for old_required in [true, false] {
        let old = coffee("coffee_v1", &[key("milk", "null", old_required)]);
        for ty in KeyType::ALL.iter().copied() {
            let new = coffee("coffee_v2", &[key("milk", ty.as_str(), false)]);
            let report = check(std::slice::from_ref(&old), &new, Mode::Backward);
            assert!(
                report.is_compatible(),
                "null (required: {old_required}) to optional {ty}: {report:?}"
            );
            // The validator agrees: an old payload's null is "not given" to an optional key.
            let schema = CompiledSchema::new(&new).unwrap();
            for payload in [
                json!({"size": "tall", "milk": null}),
                json!({"size": "tall"}),
            ] {
                let Value::Object(payload) = payload else {
                    unreachable!()
                };
                if old_required && !payload.contains_key("milk") {
                    continue;
                }
                assert!(
                    schema.is_valid_payload(&payload),
                    "optional {ty} reads {payload:?}"
                );
            }
            // A required key takes null only when its type is null.
            let required = coffee("coffee_v2", &[key("milk", ty.as_str(), true)]);
            let report = check(std::slice::from_ref(&old), &required, Mode::Backward);
            let codes: Vec<&str> = report.changes.iter().map(|c| c.code.as_str()).collect();
            let mut want = Vec::new();
            if !old_required {
                want.push("key_made_required");
            }
            if ty != KeyType::Null {
                want.push("type_changed");
            }
            assert_eq!(
                codes, want,
                "null (required: {old_required}) to required {ty}"
            );
        }
    }
}

#[test]
fn a_changed_default_is_reported_in_each_direction_checked() {
    let sugar = |required, default| key_with_default("sugar", "integer", required, json!(default));
    let (old, new) = (
        coffee("coffee_v1", &[sugar(false, 1)]),
        coffee("coffee_v2", &[sugar(false, 2)]),
    );
    for mode in Mode::ALL.iter().copied() {
        let report = check(std::slice::from_ref(&old), &new, mode);
        assert!(report.is_compatible());
        let got: Vec<Direction> = report.changes.iter().map(|c| c.direction).collect();
        let mut want = Vec::new();
        if passes(mode, (false, true)) != passes(mode, (true, true)) {
            want.push(Direction::Backward);
        }
        if passes(mode, (true, false)) != passes(mode, (true, true)) {
            want.push(Direction::Forward);
        }
        assert_eq!(got, want, "{mode}");
        assert!(
            report
                .changes
                .iter()
                .all(|c| c.code.as_str() == "default_changed")
        );
    }
    // A required key's default is never applied: changing it changes nothing.
    let (old, new) = (
        coffee("coffee_v1", &[sugar(true, 1)]),
        coffee("coffee_v2", &[sugar(true, 2)]),
    );
    assert_eq!(
        check(std::slice::from_ref(&old), &new, Mode::Full).changes,
        []
    );
}

#[test]
fn schema_id_is_not_compared() {
    let milk = key("milk", "string", false);
    let (old, new) = (
        coffee("coffee_v1", std::slice::from_ref(&milk)),
        coffee("coffee_v2", &[milk]),
    );
    for mode in Mode::ALL.iter().copied() {
        let report = check(std::slice::from_ref(&old), &new, mode);
        assert!(
            report.is_compatible() && report.changes.is_empty(),
            "{mode}: {report:?}"
        );
    }
    // What the check compares is the payload: the new version reads the old
    // one's. The message's `schema_id` names the version it was written for
    // (routing, not reading), so the whole old message is not the new
    // version's.
    let schema = CompiledSchema::new(&new).unwrap();
    let payload = json!({"size": "tall", "milk": "oat"});
    assert!(schema.is_valid_payload(payload.as_object().unwrap()));
    assert!(!schema.is_valid(&json!({"schema_id": "coffee_v1", "payload": payload})));
}
