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

use super::shape::{MAX_VALUES, SLOT_FILLED};
use super::terms::{Fragment, Term, together};

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
/// sibling completes. `ranked` are the need's terms, most salient first
/// (a head is one of the first [`HEAD_RANK`], or a stem of `keyed`, the
/// words of the schema's key names); `min_clients` distinct clients must
/// use each value.
pub(super) fn attribute(
    need: &[Fragment],
    siblings: &[Vec<Fragment>],
    ranked: &[Term],
    keyed: &BTreeSet<String>,
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
        if alternatives || values.len() > before {
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
