//! The default intent inducer: rules, no model.

use std::collections::BTreeMap;

use super::attribute::{siblings, with_siblings};
use super::description::{key_text, quotes};
use super::naming::{key_name, name_forms};
use super::shape::{Shape, shape};
use super::terms::{
    Background, Fragment, KeyWords, Stems, Term, naming_terms, ranked_terms, scenario_stems,
    shared_stems,
};
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::evolution::pool::needs::view::NeedView;
use crate::key::{KeyDefinition, KeyName};
use crate::template::SchemaTemplate;

/// Induces a key from a need's fragments by rules, as a schema designer
/// would write it:
/// - **the name** comes from the need's most characteristic words: stemmed
///   (Snowball), so bag/bags meet; weighed against the pool's other needs
///   and the template's own words (key names, scenario, id) by class-based
///   TF-IDF, so words every need uses ("book", "flight") lose to the ones
///   this need alone uses; the most
///   salient word, followed or preceded (as the fragments mostly put them)
///   by the most salient word that comes with it in a third of its
///   fragments: "wheelchair assistance at the gate", "need wheelchair help"
///   → `wheelchair_assistance`; failing one salient enough, by the most
///   frequent word that comes with it in half of them and is not the
///   scenario's (used by more than half of the other needs): "virtual" →
///   `virtual_card`, never `legroom_flight`. Words in other scripts are
///   transliterated ("靠窗" → `kao_chuang`); a name with nothing left to spell is `need_`
///   plus a hash of its words. A name that is already a key's means the
///   need is that key: the engine packages it as a refinement (held for an
///   operator when it is a base key), and a slot keeps the values the
///   key's description lists;
/// - **the type** from what the fragments carry: `integer` with its unit
///   for counts ("2 extra bags", "three bags" → `extra_bags`, "How many
///   bags ..."); a `string` listing the values when fragments vary in one
///   slot ("window seat", "aisle seat" → `seat_preference`: window, aisle),
///   or when other needs of the pool fill the same noun with other values
///   (a "window seat" need beside an "aisle seat" need: one attribute, its
///   values apart only in the embedding);
///   `boolean` for a wish, present or absent (`wheelchair_assistance`);
///   `integer` / `number` when every fragment is one; else a `string`;
/// - **the description** says what the key means and how to fill it, for a
///   client's LLM, with up to three quoted fragments and the value each
///   gives; it carries no count (stale as soon as it is proposed);
/// - only what several clients sent reaches the key
///   ([`PoolConfig::min_quote_clients`](crate::evolution::PoolConfig::min_quote_clients), default 2): a fragment is
///   quoted only when that many distinct clients sent its exact text, and a
///   word names the key (or its unit, or a slot value) only when that many
///   used it, so one client's words (a person's name, an address) never do.
///   A need with no such word gets no key yet (the proposal is deferred);
///   one with no such fragment gets examples put together from the words
///   enough clients used, shown unquoted (a value with its noun, a count
///   with its unit: aisle seat → "aisle"), as a description must have some
///   (§6.2.2).
///   Placeholders (`<card>`) are never words.
///
/// Always optional, with no default: patches may only add optional keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleInducer;

/// Most other needs whose words are read to weigh a need's words; past it,
/// an even sample of them (`induce_rules` in docs/benchmarks.md).
const MAX_BACKGROUND_NEEDS: usize = 1_000;

impl IntentInducer for RuleInducer {
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition> {
        // Every exemplar's text is the client's own words: whatever spoke to
        // the system was dropped at intake (`intake/address.rs`).
        let mut clean: Vec<&Exemplar> = need.exemplars().iter().collect();
        clean.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
        let mut stems = Stems::new();
        let fragments: Vec<Fragment> = clean.iter().map(|e| stems.fragment(e)).collect();
        let min = need.min_quote_clients();
        let shared = shared_stems(&fragments, min);
        if shared.is_empty() {
            return None;
        }
        let others = other_needs(need);
        // Past MAX_BACKGROUND_NEEDS, every k-th need (in id order) stands
        // for k: the cost of naming stays bounded as the pool grows.
        let step = others.len().div_ceil(MAX_BACKGROUND_NEEDS).max(1);
        let background = Background::new(
            &mut stems,
            &fragments,
            others.values().cloned().step_by(step),
            step as f64,
            schema,
            &shared,
        );
        let ranked = ranked_terms(&fragments, &shared, &background);
        let naming = naming_terms(&fragments, &ranked);
        if naming.is_empty() {
            return None;
        }
        let texts: Vec<String> = clean.iter().map(|e| e.text.trim().to_lowercase()).collect();
        let shape = shape(&fragments, &texts, &ranked, &shared, min);
        let siblings = siblings(need, &others, &ranked, &mut stems);
        // A noun a key is named after ("seat" of `seat_preference`) may
        // head an attribute however salient it is: the schema's own words
        // weigh less.
        let keyed = KeyWords::of(schema, &mut stems);
        let shape = with_siblings(
            shape, &fragments, &siblings, &ranked, &keyed, min, &mut stems,
        );
        // The scenario's words ("book" in book_restaurant) are the frame
        // of every request: a count or an attribute is named without them,
        // and a wish named by them alone ("play music" in play_music)
        // restates what every request asks.
        let scenario = scenario_stems(schema, &mut stems);
        let named_by: Vec<Term> = match shape {
            Shape::Count { .. } | Shape::Slot { .. } => naming
                .iter()
                .filter(|t| !scenario.contains(&t.stem))
                .cloned()
                .collect(),
            _ if naming.iter().all(|t| scenario.contains(&t.stem)) => return None,
            _ => naming.clone(),
        };
        let named_by = if named_by.is_empty() && shape == (Shape::Count { unit: None }) {
            naming.clone()
        } else {
            named_by
        };
        let quotable: Vec<&Exemplar> = need.quotable().collect();
        let quotes = quotes(&quotable, &naming, &mut stems);
        if quotes.len() < 2 && quotable.len() >= 2 {
            return None;
        }
        // An attribute a string key is named after is that key (conflict
        // detection, §6.2.2: refined, never a second key beside it).
        let name = match &shape {
            Shape::Slot { head, .. } => keyed.attribute(&head.stem).map(str::to_owned),
            _ => None,
        }
        .unwrap_or_else(|| key_name(&name_forms(&named_by, &shape)));
        let name = KeyName::new(&name).ok()?;
        // A name already in the schema is that key refined (the engine
        // packages it so, held for an operator when it is a base key).
        let (key_type, description) = key_text(schema.key(name.as_str()), shape, &naming, quotes);
        Some(KeyDefinition::new(name, key_type, false, description))
    }
}

/// The exemplars of the pool's other needs, by need.
fn other_needs<'p>(need: &NeedView<'p>) -> BTreeMap<u64, Vec<&'p Exemplar>> {
    let id = need.id();
    let mut others: BTreeMap<u64, Vec<&'p Exemplar>> = BTreeMap::new();
    for cluster in need.pool().clusters().filter(|c| c.need() != id) {
        others
            .entry(cluster.need())
            .or_default()
            .extend(cluster.exemplars());
    }
    others
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolution::induce::testing::{DIMENSION, induce_each, induce_in, one, template};
    use crate::evolution::pool::config::PoolConfig;
    use crate::evolution::pool::data::Pool;
    use crate::key::KeyType;

    #[test]
    fn names_take_the_order_the_fragments_use() {
        let key = one(&[
            "wheelchair assistance at the gate",
            "need wheelchair help",
            "mobility assistance with a wheelchair",
        ]);
        assert_eq!(key.key_name.as_str(), "wheelchair_assistance");
        assert_eq!(key.key_type, KeyType::Boolean);
    }

    #[test]
    fn words_every_need_uses_lose_to_the_need_s_own() {
        let keys = induce_each(&[
            &[
                "book a flight with a vegetarian meal",
                "vegetarian meal on my flight",
            ],
            &[
                "book a flight with extra legroom",
                "flight with more legroom please",
            ],
            &["flight booking with a pet", "my pet on the flight"],
            &["change my flight", "flight change"],
        ]);
        let names: Vec<&str> = keys.iter().map(|k| k.key_name.as_str()).collect();
        assert!(names[0].contains("vegetarian"), "{names:?}");
        assert!(names[1].contains("legroom"), "{names:?}");
        assert!(names[2].contains("pet"), "{names:?}");
        assert!(names.iter().all(|n| !n.contains("flight")), "{names:?}");
    }

    /// A salient modifier takes the head noun it needs ("virtual" alone
    /// says little), though that noun is common in the pool; a word more
    /// than half of the other needs use (the scenario's) never does.
    #[test]
    fn a_modifier_takes_its_head_noun_unless_the_scenario_owns_it() {
        let keys = induce_each(&[
            &["virtual card please", "can I get a virtual card"],
            &["my card has not arrived", "card still not here"],
            &["card payment declined", "why was my card declined"],
            &["exchange rate for euros", "what exchange rate"],
            &["close my account", "account closure"],
            &["top up by bank transfer", "transfer to top up"],
        ]);
        assert_eq!(keys[0].key_name.as_str(), "virtual_card");
        let keys = induce_each(&[
            &["flight with extra legroom", "legroom on the flight"],
            &["vegetarian meal on the flight", "flight meal vegetarian"],
            &["my pet on the flight", "flight with a pet"],
            &["flight change", "change the flight"],
        ]);
        let names: Vec<&str> = keys.iter().map(|k| k.key_name.as_str()).collect();
        assert!(names[0].contains("legroom"), "{names:?}");
        assert!(names.iter().all(|n| !n.contains("flight")), "{names:?}");
    }

    /// Function words never name a key: "but", written in every request of
    /// a need, named it before ("deposit_but"); nor do "did not work" and
    /// "didn't work" offer "not" and "t" as values (slot values pass the
    /// same check, `Word::nameable`).
    #[test]
    fn function_words_neither_fill_a_slot_nor_name() {
        let keys = induce_each(&[
            &["my transfer did not work", "the transfer didn't work"],
            &["cancel a transfer", "transfer cancel"],
            &["transfer fees", "fees for a transfer"],
            &["transfer limit", "limit on a transfer"],
            &["deposit made but missing", "cash deposit but nothing"],
        ]);
        let work = &keys[0];
        assert!(
            !work.semantic_description.contains("\"not\""),
            "{}: {}",
            work.key_name,
            work.semantic_description
        );
        assert!(!work.key_name.as_str().contains("preference"), "{work:?}");
        let deposit = keys[4].key_name.as_str();
        assert!(!deposit.split('_').any(|w| w == "but"), "{deposit}");
    }

    /// Words every request of a need carries but that say nothing of
    /// it name nothing: a verb of saying or thinking ("I think", "it
    /// says"), an inflection of a stopword ("getting", "wants"), a number
    /// word ("two", "fifty"), though each outnumbers the need's own words.
    #[test]
    fn framing_inflected_stopwords_and_numbers_do_not_name() {
        let keys = induce_each(&[
            &[
                "i think i keep getting charged two times, it says fifty",
                "i think i am getting charged twice, it says two fees",
                "getting charged two times i think, it says fifty",
                "it says two charges, i think i keep getting them",
            ],
            &["exchange rate for euros", "what exchange rate"],
            &["close my account", "account closure"],
            &["top up by bank transfer", "transfer to top up"],
        ]);
        let name = keys[0].key_name.as_str();
        for word in ["think", "getting", "says", "two", "fifty"] {
            assert!(!name.split('_').any(|w| w == word), "{word} in {name}");
        }
        assert!(name.contains("charg"), "{name}");
    }

    /// A word of one wording, however many clients sent that wording (a
    /// typo in a canned request), does not name the need when other words
    /// run through several of its wordings.
    #[test]
    fn a_word_of_one_wording_does_not_name_the_need() {
        let keys = induce_each(&[
            &[
                "my refund is goign nowhere",
                "my refund is goign nowhere",
                "my refund is goign nowhere",
                "my refund is goign nowhere",
                "refund still pending",
                "where is my refund",
            ],
            &["exchange rate for euros", "what exchange rate"],
            &["close my account", "account closure"],
            &["top up by bank transfer", "transfer to top up"],
        ]);
        let name = keys[0].key_name.as_str();
        assert!(!name.contains("goign"), "{name}");
        assert!(name.contains("refund"), "{name}");
    }

    /// Past [`MAX_BACKGROUND_NEEDS`] other needs, a sample of them weighs
    /// the words, and a word every need uses still loses.
    #[test]
    fn a_large_pool_is_sampled_and_still_weighs_common_words_down() {
        const DIMENSION: usize = 64;
        let mut pool = Pool::new(PoolConfig::new(DIMENSION, 0.99)).unwrap();
        let at = time::macros::datetime!(2026-05-01 8:00 UTC);
        // A pseudo-random direction per filler need: nearly orthogonal.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut direction = || {
            let mut v: Vec<f32> = (0..DIMENSION)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 2001) as f32 / 1000.0 - 1.0
                })
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        };
        for i in 0..(MAX_BACKGROUND_NEEDS + 200) {
            let text = format!("flight booking number {i}");
            let client = format!("filler-{}", i % 10);
            pool.ingest(&direction(), &text, false, &client, at)
                .unwrap();
        }
        assert!(pool.need_count() > MAX_BACKGROUND_NEEDS);
        let target = direction();
        let mut id = 0;
        for text in [
            "flight with a vegetarian meal",
            "vegetarian meal on my flight",
        ] {
            for client in 0..3 {
                id = pool
                    .ingest(&target, text, false, &format!("agent-{client}"), at)
                    .unwrap()
                    .need;
            }
        }
        let key = RuleInducer
            .induce(&pool.need(id).unwrap(), &template())
            .unwrap();
        assert!(
            key.key_name.as_str().contains("vegetarian"),
            "{}",
            key.key_name
        );
        assert!(
            !key.key_name.as_str().contains("flight"),
            "{}",
            key.key_name
        );
    }

    #[test]
    fn inflections_meet_in_one_term() {
        let key = one(&[
            "my dog travels too",
            "travelling with dogs",
            "the dog is traveling with me",
        ]);
        assert!(key.key_name.as_str().contains("dog"), "{}", key.key_name);
    }

    #[test]
    fn alternatives_in_one_slot_are_a_string_that_lists_them() {
        let key = one(&[
            "window seat please",
            "aisle seat please",
            "a window seat",
            "an aisle seat",
        ]);
        assert_eq!(key.key_name.as_str(), "seat_preference");
        assert_eq!(key.key_type, KeyType::String);
        let d = &key.semantic_description;
        assert!(d.contains("\"window\"") && d.contains("\"aisle\""), "{d}");
    }

    #[test]
    fn a_side_word_s_alternatives_are_no_slot() {
        // "white wine" / "rice wine" fill a slot, but wine is not what
        // these requests are about: recipes are.
        let key = one(&[
            "a recipe for carrot soup",
            "recipe for pasta please",
            "a recipe with white wine",
            "a recipe with rice wine",
            "a beef stew recipe",
            "how do i cook a risotto",
            "a quick recipe for dinner",
            "any recipe for chicken",
        ]);
        assert!(!key.key_name.as_str().contains("wine"), "{key:?}");
        assert_eq!(key.key_type, KeyType::Boolean, "{key:?}");
    }

    #[test]
    fn counts_are_integers_named_with_their_unit() {
        let key = one(&[
            "2 extra bags",
            "I need 3 extra bags",
            "two extra bags please",
            "an extra bag",
        ]);
        assert_eq!(key.key_type, KeyType::Integer);
        assert_eq!(key.key_name.as_str(), "extra_bags");
        let d = &key.semantic_description;
        assert!(d.starts_with("How many bags"), "{d}");
        assert!(d.contains("\"2 extra bags\" → 2"), "{d}");
    }

    /// A larger spelled-out number ("twenty", past the words a count read
    /// before) is read as a count and never names the key.
    #[test]
    fn larger_number_words_neither_name_nor_break_a_count() {
        let key = one(&[
            "twenty extra bags",
            "I need 3 extra bags",
            "twenty extra bags please",
            "two extra bags",
        ]);
        assert_eq!(key.key_type, KeyType::Integer, "{key:?}");
        assert_eq!(key.key_name.as_str(), "extra_bags");
        let d = &key.semantic_description;
        assert!(d.contains("\"twenty extra bags\" → 20"), "{d}");
    }

    /// The scenario's words are every request's frame: a wish in them
    /// alone is no key, and a count among them is named by its unit.
    #[test]
    fn the_scenario_s_words_name_neither_a_wish_nor_a_count() {
        let restaurants = SchemaTemplate::from_slice(
            br#"{"schema_id": "book_restaurant_v1", "scenario": "book_restaurant",
                "keys": [{"key_name": "city", "key_type": "string", "required": false,
                          "semantic_description": "City."}]}"#,
        )
        .unwrap();
        let axis = |n: usize| {
            (0..DIMENSION)
                .map(|d| f32::from(u8::from(d == n)))
                .collect()
        };
        let axes: [Vec<f32>; 2] = [axis(0), axis(1)];
        let keys = induce_in(
            &restaurants,
            &axes,
            &[
                &[
                    "book a restaurant",
                    "book the restaurant please",
                    "restaurant booking",
                ],
                &[
                    "book for 4 people",
                    "book for 2 people please",
                    "book for six people",
                ],
            ],
        );
        assert_eq!(keys[0], None, "{keys:?}");
        let count = keys[1].as_ref().unwrap();
        assert_eq!(count.key_name.as_str(), "number_of_people", "{count:?}");
        assert_eq!(count.key_type, KeyType::Integer);
    }

    #[test]
    fn a_pronoun_one_is_no_count() {
        // "Whichever you like": no number of anything is asked for.
        let key = one(&[
            "any one is fine",
            "choose any one for me",
            "this one or that one, i do not mind",
            "any one will do",
        ]);
        assert_ne!(key.key_type, KeyType::Integer, "{key:?}");
    }
}
