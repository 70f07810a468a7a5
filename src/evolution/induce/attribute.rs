//! The attribute a need fills, seen across its sibling needs: requests
//! that name one noun with different words before it ("window seat",
//! "aisle seat"; "economy class", "business class") ask for one attribute
//! (`seat`, `class`) with several values, though the pool keeps each value
//! a need of its own (the value is what their embeddings differ by).
//!
//! One rule, on the shape of the words only: a *head* is a content word
//! that comes right after a nameable word (its *modifier*) in requests of
//! at least two clients; a need *fills* head `h` with value `v` when most
//! of its requests hold both `h` and `v` (anywhere: "a seat by the
//! window" counts for window). A need is an attribute's when it fills a
//! head with two alternatives itself, or with one and another need of the
//! pool fills the same head with another.

use std::collections::{BTreeMap, BTreeSet};

use super::shape::{MAX_VALUES, SLOT_FILLED, Shape};
use super::terms::{Fragment, KeyWords, Stems, Term, together};
use crate::evolution::embed::vectors::dot;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::evolution::pool::needs::view::NeedView;

/// The share of a need's weight that must hold the head and one of its
/// values for the need to be about that attribute (as a wish's word must
/// be in half of its requests).
const FILLED: f64 = 0.5;
/// Each value holds at least this share of the head's weight in its need.
const VALUE_SHARE: f64 = 0.2;
/// How far down the need's terms, by salience, its head may be.
const HEAD_RANK: usize = 2;

/// An attribute: the noun that names it and its values, each as written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Attribute {
    pub head: Term,
    pub values: Vec<String>,
}

/// How a group of fragments fills one head.
struct Filled<'f> {
    /// Weight of the fragments holding the head and one of the values.
    covered: u64,
    /// Weight of all the fragments.
    total: u64,
    /// The values, commonest first.
    values: Vec<Filler<'f>>,
}

/// One value of a head, as kept.
struct Filler<'f> {
    stem: &'f str,
    weight: u64,
    form: &'f str,
}

/// A value of one head in one group of fragments, as counted.
#[derive(Default)]
struct Value<'f> {
    /// Weight of the fragments holding both the head and the value.
    weight: u64,
    clients: BTreeSet<u64>,
    form: &'f str,
}

/// The attribute `need` fills when it fills a head with two alternatives
/// (values that rarely come in one request) or some of the `siblings` (the
/// pool's other needs) fill the same head with other values: the head, the
/// need's own values (commonest first), then the siblings' (each sibling
/// gives its commonest). `None` when it fills no head, or one value that no
/// sibling completes, unless a string key of the schema is named after
/// the head (the need is then that key's). `ranked` are the need's terms,
/// most salient first (a head is one of the first [`HEAD_RANK`], or a
/// word a key is named after, of `keyed`); `min_clients` distinct clients
/// must use each value.
pub(super) fn attribute(
    need: &[Fragment],
    siblings: &[Vec<Fragment>],
    ranked: &[Term],
    keyed: &KeyWords,
    min_clients: usize,
) -> Option<Attribute> {
    let heads = heads(need);
    let mut best: Option<(u64, &Term, Vec<String>)> = None;
    // The head is one of the need's two most salient words: what it is
    // about, and not a domain's noun most other needs use too ("card"); or
    // a noun a key is named after (`keyed`: "seat" of `seat_preference`),
    // which being one of the schema's words makes less salient.
    let candidates = ranked
        .iter()
        .enumerate()
        .filter(|(rank, t)| keyed.contains(&t.stem) || (*rank < HEAD_RANK && !t.scenario));
    for (_, head) in candidates.filter(|(_, t)| heads.contains(t.stem.as_str())) {
        let Some(own) = fills(need, &head.stem, min_clients) else {
            continue;
        };
        let covered = own.covered;
        if best.as_ref().is_some_and(|(most, _, _)| covered <= *most) {
            continue;
        }
        let mut seen: BTreeSet<String> = own.values.iter().map(|v| v.stem.to_owned()).collect();
        let mut values: Vec<String> = own.values.iter().map(|v| v.form.to_owned()).collect();
        // Alternatives within the need: rarely together, and in nearly
        // every request (as a slot's, `shape.rs`): "money back" and
        // "call back" in some requests of a refund need are no slot.
        let alternatives = match own.values.as_slice() {
            [a, b, ..] => {
                together(need, a.stem, b.stem).saturating_mul(10) < a.weight.min(b.weight)
                    && covered as f64 >= SLOT_FILLED * own.total as f64
            }
            _ => false,
        };
        let before = values.len();
        values.extend(sibling_values(
            siblings,
            &head.stem,
            min_clients,
            covered,
            &mut seen,
        ));
        // One value of a noun a string key is named after is that key's:
        // "business class" where `cabin_class` is the schema's.
        // ("cabin class" itself, the key's own words, is no value of it).
        let keyed_attribute = keyed.attribute(&head.stem).is_some()
            && own.values.iter().any(|v| !keyed.contains(v.stem));
        if alternatives || values.len() > before || keyed_attribute {
            best = Some((covered, head, values));
        }
    }
    let (_, head, mut values) = best?;
    values.truncate(MAX_VALUES);
    Some(Attribute {
        head: head.clone(),
        values,
    })
}

/// The values the `siblings` fill `head` with that are not in `seen`: of
/// each sibling that fills it, its commonest value (a need that mentions
/// "my new card" in passing is not the "new" value of a card attribute),
/// when it weighs at least [`VALUE_SHARE`] of `weight` (the need's own
/// requests that fill the head); the siblings with most weight first.
pub(super) fn sibling_values(
    siblings: &[Vec<Fragment>],
    head: &str,
    min_clients: usize,
    weight: u64,
    seen: &mut BTreeSet<String>,
) -> Vec<String> {
    // A value holds a share of the attribute's requests, as within a need:
    // a handful of one-off requests naming the noun is no sibling.
    let floor = VALUE_SHARE * weight as f64;
    let mut found: Vec<(u64, &str, &str)> = Vec::new();
    for sibling in siblings {
        let Some(theirs) = fills(sibling, head, min_clients) else {
            continue;
        };
        if let Some(first) = theirs.values.first().filter(|v| v.weight as f64 >= floor) {
            if seen.insert(first.stem.to_owned()) {
                found.push((first.weight, first.stem, first.form));
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    found.into_iter().map(|v| v.2.to_owned()).collect()
}

/// The stems that come right after a nameable word in some fragment,
/// written with nothing but a space between ("aisle seat"; not "use my
/// card", "amazing, olly").
fn heads(fragments: &[Fragment]) -> BTreeSet<&str> {
    let mut heads = BTreeSet::new();
    for fragment in fragments {
        for pair in fragment.words.windows(2) {
            let [modifier, head] = pair else { continue };
            if modifier.nameable
                && head.nameable
                && modifier.stem != head.stem
                && adjacent(fragment, &modifier.form, &head.form)
            {
                heads.insert(head.stem.as_str());
            }
        }
    }
    heads
}

fn adjacent(fragment: &Fragment, first: &str, second: &str) -> bool {
    fragment.text.contains(&format!("{first} {second}"))
}

/// How `fragments` fill `head`, when at least [`FILLED`] of their weight
/// does. A value is a modifier written right before the head in some
/// fragment, used by `min_clients` clients with the head and in at least
/// [`VALUE_SHARE`] of the head's weight.
fn fills<'f>(fragments: &'f [Fragment], head: &str, min_clients: usize) -> Option<Filled<'f>> {
    let mut modifiers: BTreeMap<&str, Value<'f>> = BTreeMap::new();
    let mut with_head = 0u64;
    let mut total = 0u64;
    for fragment in fragments {
        total = total.saturating_add(fragment.count);
        let Some(at) = fragment.words.iter().position(|w| w.stem == head) else {
            continue;
        };
        with_head = with_head.saturating_add(fragment.count);
        let before = at.checked_sub(1).and_then(|i| fragment.words.get(i));
        let head_form = fragment.words.get(at).map_or("", |w| w.form.as_str());
        if let Some(modifier) = before
            .filter(|m| m.nameable && m.stem != head && adjacent(fragment, &m.form, head_form))
        {
            modifiers
                .entry(modifier.stem.as_str())
                .or_insert_with(|| Value {
                    form: modifier.form.as_str(),
                    ..Value::default()
                });
        }
    }
    // Each modifier seen before the head, weighed by every fragment that
    // holds it with the head, wherever it stands.
    for fragment in fragments {
        if !fragment.words.iter().any(|w| w.stem == head) {
            continue;
        }
        let mut counted = BTreeSet::new();
        for word in &fragment.words {
            if let Some(value) = modifiers.get_mut(word.stem.as_str()) {
                if counted.insert(word.stem.as_str()) {
                    value.weight = value.weight.saturating_add(fragment.count);
                    value.clients.extend(fragment.clients.iter().copied());
                }
            }
        }
    }
    let floor = VALUE_SHARE * with_head as f64;
    let mut values: Vec<Filler<'f>> = modifiers
        .into_iter()
        .filter(|(_, v)| v.weight as f64 >= floor && v.clients.len() >= min_clients)
        .map(|(stem, v)| Filler {
            stem,
            weight: v.weight,
            form: v.form,
        })
        .collect();
    values.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| a.stem.cmp(b.stem)));
    let kept: BTreeSet<&str> = values.iter().map(|v| v.stem).collect();
    let covered = fragments
        .iter()
        .filter(|f| {
            f.words.iter().any(|w| w.stem == head)
                && f.words.iter().any(|w| kept.contains(w.stem.as_str()))
        })
        .fold(0u64, |n, f| n.saturating_add(f.count));
    ((covered as f64) >= FILLED * total.max(1) as f64 && !values.is_empty()).then_some(Filled {
        covered,
        total,
        values,
    })
}

/// The pool's other needs that may fill the same attribute: near enough to
/// the need to lend it heat (plain link at or above the pool's support
/// threshold: value needs differ by one word, "window seat" / "aisle
/// seat", while needs that only share a domain's noun, "activate card" /
/// "ATM card swallowed", lie farther apart), with an exemplar holding one
/// of the need's five most salient words; as words.
pub(super) fn siblings(
    need: &NeedView<'_>,
    others: &BTreeMap<u64, Vec<&Exemplar>>,
    ranked: &[Term],
    stems: &mut Stems,
) -> Vec<Vec<Fragment>> {
    let forms: Vec<&str> = ranked.iter().take(5).map(|t| t.form.as_str()).collect();
    let pool = need.pool();
    let near = pool.support_threshold();
    // The words first: a view of another need (its exemplars gathered)
    // is built only for the few that share one.
    others
        .iter()
        .filter(|(_, exemplars)| {
            exemplars.iter().any(|e| {
                let text = e.text.to_lowercase();
                forms.iter().any(|f| text.contains(f))
            })
        })
        .filter(|(id, _)| {
            pool.need(**id)
                .is_some_and(|other| dot(other.centroid(), need.centroid()) >= near)
        })
        .map(|(_, exemplars)| exemplars.iter().map(|e| stems.fragment(e)).collect())
        .collect()
}

/// `shape`, made the slot of an attribute when sibling needs fill the
/// same head with other values ([`attribute`]): a wish or free text whose
/// head they share becomes a slot listing every value; a slot lists theirs
/// after its own. Counts and numbers stay as they are.
pub(super) fn with_siblings(
    shape: Shape,
    fragments: &[Fragment],
    siblings: &[Vec<Fragment>],
    ranked: &[Term],
    keyed: &KeyWords,
    min: usize,
    stems: &mut Stems,
) -> Shape {
    match shape {
        Shape::Slot { head, mut values } => {
            let mut seen: BTreeSet<String> = values.iter().map(|v| stems.stem(v)).collect();
            let weight = fragments
                .iter()
                .filter(|f| f.words.iter().any(|w| w.stem == head.stem))
                .fold(0u64, |n, f| n.saturating_add(f.count));
            values.extend(sibling_values(siblings, &head.stem, min, weight, &mut seen));
            values.truncate(MAX_VALUES);
            Shape::Slot { head, values }
        }
        Shape::Wish | Shape::Text => match attribute(fragments, siblings, ranked, keyed, min) {
            Some(found) => Shape::Slot {
                head: found.head,
                values: found.values,
            },
            None => shape,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use crate::evolution::induce::description::listed_values;
    use crate::evolution::induce::inducer::IntentInducer;
    use crate::evolution::induce::rules::RuleInducer;
    use crate::evolution::induce::testing::{DIMENSION, induce_along, induce_each, one, template};
    use crate::evolution::pool::config::PoolConfig;
    use crate::evolution::pool::data::Pool;
    use crate::key::KeyType;

    /// Needs apart in the embedding only by the value they ask for are one
    /// attribute: each names it and lists every value. (Near: a cosine of
    /// 0.5, two needs under this pool's need threshold, neighbours within
    /// its support threshold.) Far apart, they stay two wishes.
    #[test]
    fn needs_that_differ_in_one_value_are_one_attribute() {
        let axis = |n: usize| -> Vec<f32> {
            (0..DIMENSION)
                .map(|d| f32::from(u8::from(d == n)))
                .collect()
        };
        let near = vec![0.5, 0.866, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let needs: [&[&str]; 4] = [
            &[
                "window seat please",
                "I prefer a window seat",
                "a seat by the window",
            ],
            &[
                "aisle seat please",
                "an aisle seat",
                "I prefer an aisle seat",
            ],
            &["vegetarian meal on board", "a vegetarian meal"],
            &["bring my dog", "travelling with my dog"],
        ];
        let far = induce_each(&needs);
        assert_eq!(far[0].key_type, KeyType::Boolean, "{:?}", far[0]);
        let keys = induce_along(&[axis(0), near, axis(2), axis(3)], &needs);
        for key in &keys[..2] {
            assert_eq!(key.key_name.as_str(), "seat_preference", "{key:?}");
            assert_eq!(key.key_type, KeyType::String);
            let listed = listed_values(&key.semantic_description);
            assert!(
                listed.contains(&"window".to_owned()) && listed.contains(&"aisle".to_owned()),
                "{key:?}"
            );
        }
        assert_ne!(keys[2].key_name.as_str(), "seat_preference");
    }

    /// A domain's noun that most needs use ("card") heads no attribute,
    /// though neighbouring needs put other words before it: activating a
    /// card, an ATM that kept it and a Visa card are three needs.
    #[test]
    fn a_domain_noun_heads_no_attribute() {
        let axis = |n: usize| -> Vec<f32> {
            (0..DIMENSION)
                .map(|d| f32::from(u8::from(d == n)))
                .collect()
        };
        let near = |n: usize| -> Vec<f32> {
            (0..DIMENSION)
                .map(|d| match d {
                    0 => 0.5,
                    d if d == n => 0.866,
                    _ => 0.0,
                })
                .collect()
        };
        let keys = induce_along(
            &[axis(0), near(1), near(2), axis(3), axis(4), axis(5)],
            &[
                &[
                    "activate my new card",
                    "how to activate card",
                    "activate card please",
                ],
                &[
                    "atm card swallowed",
                    "the atm kept my card",
                    "atm card stuck",
                ],
                &["visa card please", "apply for a visa card", "a visa card"],
                &["card payment declined", "my card was declined"],
                &["card not arrived", "where is my card"],
                &["exchange rate for euros", "what exchange rate"],
            ],
        );
        for key in &keys[..3] {
            assert!(!key.key_name.as_str().starts_with("card_"), "{key:?}");
        }
    }

    /// A value holds a share of the attribute's requests: three one-off
    /// "aisle seat" requests beside sixty window-seat ones make no slot.
    #[test]
    fn a_handful_of_requests_is_no_sibling_value() {
        let mut pool = Pool::new(PoolConfig::new(4, 0.99)).unwrap();
        let at = time::macros::datetime!(2026-05-01 8:00 UTC);
        let mut send = |axis: usize, text: &str, client: String| {
            let mut v = vec![0.0; 4];
            v[axis] = 1.0;
            pool.ingest(&v, text, false, &client, at).unwrap().need
        };
        let mut window = 0;
        for i in 0..60 {
            let text = ["window seat please", "a window seat"][i % 2];
            window = send(0, text, format!("w{}", i % 6));
        }
        for i in 0..3 {
            send(1, "aisle seat please", format!("one-off-{i}"));
        }
        let key = RuleInducer
            .induce(&pool.need(window).unwrap(), &template())
            .unwrap();
        assert_eq!(key.key_type, KeyType::Boolean, "{key:?}");
    }

    /// A need that names the same noun in passing is no value of it: "my
    /// new card" in a few requests about a card that has not come.
    #[test]
    fn a_noun_named_in_passing_makes_no_attribute() {
        let keys = induce_each(&[
            &[
                "virtual card please",
                "can I get a virtual card",
                "a virtual card",
            ],
            &[
                "my card has not arrived",
                "card still not here",
                "where is my card",
                "my new card is late",
            ],
            &["exchange rate for euros", "what exchange rate"],
            &["close my account", "account closure"],
        ]);
        assert_eq!(keys[0].key_name.as_str(), "virtual_card", "{:?}", keys[0]);
        assert_eq!(keys[0].key_type, KeyType::Boolean);
    }

    /// Two words before one noun in some requests are no slot: "money
    /// back", "call back" in a refund need that also says other things.
    #[test]
    fn words_before_a_noun_in_some_requests_are_no_slot() {
        let keys = induce_each(&[
            &[
                "I want my money back",
                "get my money back",
                "please call back",
                "my refund is not showing",
                "refund missing from my account",
            ],
            &["exchange rate for euros", "what exchange rate"],
            &["close my account", "account closure"],
            &["top up by bank transfer", "transfer to top up"],
        ]);
        assert!(
            !keys[0].key_name.as_str().ends_with("preference"),
            "{:?}",
            keys[0]
        );
    }

    /// One value of a noun a string key is named after is that key's
    /// (conflict detection, §6.2.2): "business class" refines `cabin_class`
    /// instead of opening `business_class`. A key of another type is no
    /// such attribute.
    #[test]
    fn one_value_of_a_key_s_noun_is_that_key() {
        let key = one(&[
            "business class please",
            "i want business class",
            "business class",
        ]);
        assert_eq!(key.key_name.as_str(), "cabin_class", "{key:?}");
        assert_eq!(key.key_type, KeyType::String);
        // A key someone wrote keeps its words: the refinement adds examples
        // that map to the value.
        let d = &key.semantic_description;
        assert!(d.starts_with("Cabin."), "{d}");
        assert!(d.contains("→ \"business\""), "{d}");

        let counted = crate::template::SchemaTemplate::from_slice(
            br#"{"schema_id": "s", "scenario": "x", "keys": [
                {"key_name": "class_count", "key_type": "integer", "required": false,
                 "semantic_description": "Classes."}]}"#,
        )
        .unwrap();
        let axis: Vec<f32> = (0..DIMENSION)
            .map(|d| f32::from(u8::from(d == 0)))
            .collect();
        let keys = crate::evolution::induce::testing::induce_in(
            &counted,
            &[axis],
            &[&[
                "business class please",
                "i want business class",
                "business class",
            ]],
        );
        let key = keys[0].as_ref().unwrap();
        assert_ne!(key.key_name.as_str(), "class_count", "{key:?}");
    }
}
