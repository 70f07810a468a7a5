//! Compatibility between template versions: the data-driven cases of
//! `tests/cases/compat.json` (`{description, history, new, cases: [{mode,
//! compatible, changes: [[code, path, direction]]}]}`), and the property that
//! gives the check its meaning: when it says a version reads what another
//! wrote, the validator agrees on every payload.

use crate::common::{self, Extras, cases, message_for, template};
use proptest::prelude::*;
use sdsi::compat::{Direction, Mode, check};
use sdsi::{CompiledSchema, KeyDefinition, KeyName, SchemaTemplate};
use serde_json::{Value, json};

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
    /// the writing version accepts, the reading version accepts.
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
        // Payloads carry the reader's schema id: ids differ between versions.
        let as_for = |message: &Value, id: &str| {
            let mut message = message.clone();
            if let Some(object) = message.as_object_mut() {
                object.insert("schema_id".into(), json!(id));
            }
            message
        };
        if !breaks(Direction::Backward) {
            for m in &old_messages {
                if old_schema.is_valid(m) {
                    prop_assert!(new_schema.is_valid(&as_for(m, &new.schema_id)), "backward: {}", m);
                }
            }
        }
        if !breaks(Direction::Forward) {
            for m in &new_messages {
                if new_schema.is_valid(m) {
                    prop_assert!(old_schema.is_valid(&as_for(m, &old.schema_id)), "forward: {}", m);
                }
            }
        }
        // And a version always reads itself.
        prop_assert!(check(std::slice::from_ref(&old), &old, Mode::FullTransitive).is_compatible());
    }
}
