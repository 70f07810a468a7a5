//! What a need's fragments carry, and so the key's type: a number, a count
//! with its unit, one of a few alternatives in one slot (window / aisle),
//! a wish present or absent, or free text.

use std::collections::{BTreeMap, BTreeSet};

use super::numbers::{number, number_run};
use super::terms::{Fragment, Term, together};

/// The share of the fragments' weight that must carry exactly one number
/// (digits, or a run of number words: "twenty five") for the need to be a
/// count.
const COUNT_SHARE: f64 = 2.0 / 3.0;
/// The share of the weight the top term must hold for the need to be one
/// wish (a flag); below it the fragments say too many things for a yes/no.
const WISH_SHARE: f64 = 0.5;
/// Each alternative of a slot holds at least this share of the head's
/// weight...
const SLOT_SHARE: f64 = 0.2;
/// ...and the alternatives together at least this share: a slot the
/// requests nearly always fill (window / aisle), not words that happen to
/// stand next to a common noun (a "new" card, a "physical" card).
pub(super) const SLOT_FILLED: f64 = 0.7;
/// Most values a slot or an attribute lists (the commonest first).
pub(super) const MAX_VALUES: usize = 8;

/// What the fragments carry.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    /// Every fragment is a whole number.
    Integer,
    /// Every fragment is a number.
    Number,
    /// A count: most fragments carry exactly one number, `unit` the word
    /// that mostly follows it ("2 extra bags" → `bags`).
    Count { unit: Option<Term> },
    /// One of a few alternatives next to `head` ("window seat", "aisle
    /// seat" → `seat`: window, aisle).
    Slot { head: Term, values: Vec<String> },
    /// A wish, present or absent.
    Wish,
    /// Free text.
    Text,
}

/// The shape of a need's clean `fragments`; `texts` are their trimmed,
/// lowercase texts; `ranked` its terms, most salient first; `shared` the
/// stems enough clients used.
pub(super) fn shape(
    fragments: &[Fragment],
    texts: &[String],
    ranked: &[Term],
    shared: &BTreeSet<String>,
    min_clients: usize,
) -> Shape {
    if texts.is_empty() {
        return Shape::Text;
    }
    if texts.iter().all(|t| t.parse::<i64>().is_ok()) {
        return Shape::Integer;
    }
    if texts
        .iter()
        .all(|t| t.parse::<f64>().is_ok_and(f64::is_finite))
    {
        return Shape::Number;
    }
    let total = fragments
        .iter()
        .fold(0u64, |n, f| n.saturating_add(f.count))
        .max(1) as f64;
    if let Some(count) = count(fragments, ranked, shared, total) {
        return count;
    }
    // A slot's head is what the need is about, so, like a wish's word, it
    // is in half of the requests: "white wine" / "rice wine" in a few
    // requests of a recipe need is a side topic, not the need's slot.
    if let Some(slot) = ranked
        .iter()
        .take(3)
        .filter(|head| head.frequency as f64 >= WISH_SHARE * total)
        .find_map(|head| slot(fragments, head, min_clients, total))
    {
        return slot;
    }
    match ranked.first() {
        Some(first) if first.frequency as f64 >= WISH_SHARE * total => Shape::Wish,
        _ => Shape::Text,
    }
}

/// A count, when most of the weight carries exactly one number.
fn count(
    fragments: &[Fragment],
    ranked: &[Term],
    shared: &BTreeSet<String>,
    total: f64,
) -> Option<Shape> {
    let mut counted = 0u64;
    let mut units: BTreeMap<&str, u64> = BTreeMap::new();
    for fragment in fragments {
        let Some((_, end, _)) = number_run(&fragment.all) else {
            continue;
        };
        counted = counted.saturating_add(fragment.count);
        // The unit: the last word of the run of content words right after
        // the number ("2 extra bags please", "twenty five extra bags" → bags).
        let content: BTreeMap<&str, &str> = fragment
            .words
            .iter()
            .map(|w| (w.form.as_str(), w.stem.as_str()))
            .collect();
        let unit = fragment
            .all
            .iter()
            .skip(end)
            .map_while(|w| content.get(w.as_str()).filter(|_| number(w).is_none()))
            .last();
        if let Some(unit) = unit {
            *units.entry(unit).or_default() += fragment.count;
        }
    }
    if (counted as f64) < COUNT_SHARE * total {
        return None;
    }
    let unit = units
        .into_iter()
        .filter(|(stem, _)| shared.contains(*stem))
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .and_then(|(stem, _)| ranked.iter().find(|t| t.stem == stem).cloned());
    Some(Shape::Count { unit })
}

/// A slot before `head`: its modifier ([`modifier`]) takes two or more
/// values, each from at least
/// `min_clients` clients and [`SLOT_SHARE`] of the head's weight, together
/// [`SLOT_FILLED`] of it and of all the fragments' weight (`total`: a slot
/// the need's requests fill, not words before a noun some of them use,
/// "money back" / "call back" in a refund need), the two commonest rarely
/// in one fragment.
fn slot(fragments: &[Fragment], head: &Term, min_clients: usize, total: f64) -> Option<Shape> {
    let mut values: BTreeMap<&str, (u64, BTreeSet<u64>, &str)> = BTreeMap::new();
    for fragment in fragments {
        let Some(modifier) = modifier(fragment, &head.stem) else {
            continue;
        };
        let entry = values.entry(modifier.stem.as_str()).or_insert((
            0,
            BTreeSet::new(),
            modifier.form.as_str(),
        ));
        entry.0 = entry.0.saturating_add(fragment.count);
        entry.1.extend(fragment.clients.iter().copied());
    }
    let floor = SLOT_SHARE * head.frequency as f64;
    let mut kept: Vec<(&str, u64, &str)> = values
        .into_iter()
        .filter(|(_, (weight, clients, _))| *weight as f64 >= floor && clients.len() >= min_clients)
        .map(|(stem, (weight, _, form))| (stem, weight, form))
        .collect();
    kept.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    kept.truncate(MAX_VALUES);
    let [(a, wa, _), (b, wb, _), ..] = kept.as_slice() else {
        return None;
    };
    let covered: u64 = kept.iter().fold(0, |n, v| n.saturating_add(v.1));
    // Alternatives: the two commonest rarely come in one fragment.
    let apart = together(fragments, a, b).saturating_mul(10) < (*wa).min(*wb);
    let filled = SLOT_FILLED * total;
    if (covered as f64) < filled || !apart {
        return None;
    }
    Some(Shape::Slot {
        head: head.clone(),
        values: kept.iter().map(|v| v.2.to_owned()).collect(),
    })
}

/// The content word written right before the head, with nothing but a
/// space between ("aisle seat"; not "use my card", "seat by the window",
/// "amazing, olly"): a modifier.
fn modifier<'f>(fragment: &'f Fragment, head: &str) -> Option<&'f super::terms::Word> {
    let at = fragment.words.iter().position(|w| w.stem == head)?;
    let word = fragment.words.get(at.checked_sub(1)?)?;
    let head_form = &fragment.words.get(at)?.form;
    let adjacent = fragment
        .text
        .contains(&format!("{} {head_form}", word.form));
    (adjacent && word.nameable).then_some(word)
}
