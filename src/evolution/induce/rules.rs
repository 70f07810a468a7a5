//! The default intent inducer: rules, no model.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use super::attribute::{attribute, sibling_values};
use super::numbers::number_run;
use super::shape::{MAX_VALUES, Shape, shape};
use super::terms::{Background, Fragment, Stems, Term, naming_terms, ranked_terms, shared_stems};
use crate::evolution::embed::hashing::words;
use crate::evolution::embed::vectors::dot;
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::evolution::pool::needs::view::NeedView;
use crate::key::{KeyDefinition, KeyName, KeyType};
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

/// Longest induced name, in bytes (names are ASCII).
const MAX_NAME: usize = 40;
/// Longest quoted fragment, in characters.
const MAX_QUOTE: usize = 80;
/// Most examples a description quotes.
const MAX_EXAMPLES: usize = 3;
/// Most distinct fragments read to choose them from.
const MAX_CANDIDATE_QUOTES: usize = 12;
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
        let keyed = key_words(schema, &mut stems);
        let shape = with_siblings(
            shape, &fragments, &siblings, &ranked, &keyed, min, &mut stems,
        );
        let quotable: Vec<&Exemplar> = need.quotable().collect();
        let quotes = quotes(&quotable, &naming, &mut stems);
        if quotes.len() < 2 && quotable.len() >= 2 {
            return None;
        }
        let name = KeyName::new(&key_name(&name_forms(&naming, &shape))).ok()?;
        // A name already in the schema is that key refined (the engine
        // packages it so, held for an operator when it is a base key).
        let (key_type, description) = match schema.key(name.as_str()) {
            None => describe(&shape, &naming, &examples(quotes, &shape, &naming)),
            // A key someone wrote keeps its words and type: the refinement
            // adds the examples it does not hold yet.
            Some(key) if !written_here(&key.semantic_description) => (
                key.key_type,
                with_examples(
                    &key.semantic_description,
                    &examples(quotes, &shape, &naming),
                ),
            ),
            // One written here is rewritten only for a value it does not
            // list yet (its values first, so its text moves little);
            // otherwise it already says what the need asks.
            Some(key) => match shape {
                Shape::Slot { head, values } => {
                    let mut listed = listed_values(&key.semantic_description);
                    let new: Vec<String> =
                        values.into_iter().filter(|v| !listed.contains(v)).collect();
                    if new.is_empty() || listed.len() >= MAX_VALUES {
                        (key.key_type, key.semantic_description.clone())
                    } else {
                        listed.extend(new);
                        listed.truncate(MAX_VALUES);
                        let shape = Shape::Slot {
                            head,
                            values: listed,
                        };
                        describe(&shape, &naming, &examples(quotes, &shape, &naming))
                    }
                }
                _ => (key.key_type, key.semantic_description.clone()),
            },
        };
        Some(KeyDefinition::new(name, key_type, false, description))
    }
}

/// How each description [`describe`] writes begins.
const OPENINGS: [&str; 6] = [
    "The whole number the request gives for ",
    "The number the request gives for ",
    "How many ",
    "Which ",
    "Set to true when the request asks for ",
    "What the request says about ",
];

/// Whether `description` is one this inducer wrote (and so may rewrite
/// whole).
fn written_here(description: &str) -> bool {
    OPENINGS.iter().any(|o| description.starts_with(o))
}

/// `description` with the `examples` it does not already hold added
/// (unchanged when it holds them all).
fn with_examples(description: &str, examples: &Examples) -> String {
    let held = description.to_lowercase();
    let new: Vec<String> = examples
        .texts
        .iter()
        .filter(|q| !held.contains(&q.to_lowercase()))
        .map(|q| examples.shown(q))
        .collect();
    if new.is_empty() {
        return description.to_owned();
    }
    let lead = if held.contains("for example") {
        "Also"
    } else {
        "For example"
    };
    format!("{} {lead}: {}.", description.trim_end(), new.join("; "))
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

/// The words of the name: the naming terms; a count's unit in the plural
/// (added when it is not one of them); a slot's head and `preference`.
fn name_forms(naming: &[Term], shape: &Shape) -> Vec<String> {
    match shape {
        Shape::Slot { head, .. } => vec![singular(&head.form), "preference".to_owned()],
        Shape::Count { unit: Some(unit) } => {
            let mut forms: Vec<String> = naming
                .iter()
                .map(|t| {
                    if t.stem == unit.stem {
                        plural(&t.form)
                    } else {
                        t.form.clone()
                    }
                })
                .collect();
            if !naming.iter().any(|t| t.stem == unit.stem) {
                forms.push(plural(&unit.form));
            }
            forms
        }
        _ => naming.iter().map(|t| t.form.clone()).collect(),
    }
}

/// English nouns whose plural is not made with `s`, singular first; a
/// plural here, or a noun with no plural, stays as it is.
const IRREGULAR: [(&str, &str); 12] = [
    ("child", "children"),
    ("foot", "feet"),
    ("goose", "geese"),
    ("man", "men"),
    ("mouse", "mice"),
    ("person", "people"),
    ("tooth", "teeth"),
    ("woman", "women"),
    ("baggage", "baggage"),
    ("luggage", "luggage"),
    ("equipment", "equipment"),
    ("information", "information"),
];

/// An English plural, by the common rules (bag → bags, box → boxes, city
/// → cities) and the irregular nouns (person → people; people stays); a
/// word already ending in `s` is kept.
fn plural(word: &str) -> String {
    if let Some((_, many)) = IRREGULAR
        .iter()
        .find(|(one, many)| *one == word || *many == word)
    {
        return (*many).to_owned();
    }
    let consonant_y = word.len() > 1
        && word.ends_with('y')
        && !word
            .chars()
            .rev()
            .nth(1)
            .is_some_and(|c| "aeiou".contains(c));
    if word.ends_with('s') || !word.chars().all(|c| c.is_ascii_alphabetic()) {
        word.to_owned()
    } else if word.ends_with('x') || word.ends_with("ch") || word.ends_with("sh") {
        format!("{word}es")
    } else if consonant_y {
        format!("{}ies", word.trim_end_matches('y'))
    } else {
        format!("{word}s")
    }
}

/// An English singular, by the common rules (seats → seat, classes →
/// class, cities → city, airlines → airline); words in `ss`, `us` or `is`
/// are kept (class, bus, analysis).
fn singular(word: &str) -> String {
    if let Some((one, _)) = IRREGULAR.iter().find(|(_, many)| *many == word) {
        return (*one).to_owned();
    }
    if !word.chars().all(|c| c.is_ascii_alphabetic()) || word.len() < 4 {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for suffix in ["sses", "xes", "ches", "shes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_owned();
        }
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word.to_owned();
    }
    word.strip_suffix('s').unwrap_or(word).to_owned()
}

/// The values a key's description lists: the quoted words of its first
/// sentence (`Which seat the request asks for: "window" or "aisle".`).
fn listed_values(description: &str) -> Vec<String> {
    let first = description.split(". ").next().unwrap_or_default();
    first
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::trim)
        .filter(|v| !v.is_empty() && v.len() <= MAX_QUOTE)
        .map(str::to_owned)
        .collect()
}

/// The stems of the words of the schema's key names (`other` aside): a
/// noun a key is named after ("seat" of `seat_preference`) may head an
/// attribute however salient it is, as the schema's own words weigh less.
fn key_words(schema: &SchemaTemplate, stems: &mut Stems) -> BTreeSet<String> {
    schema
        .keys
        .iter()
        .filter(|k| k.key_name.as_str() != crate::key::OTHER_KEY)
        .flat_map(|k| {
            k.key_name
                .as_str()
                .split('_')
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .map(|w| stems.stem(&w))
        .collect()
}

/// The pool's other needs that may fill the same attribute: near enough to
/// the need to lend it heat (plain link at or above the pool's support
/// threshold: value needs differ by one word, "window seat" / "aisle
/// seat", while needs that only share a domain's noun, "activate card" /
/// "ATM card swallowed", lie farther apart), with an exemplar holding one
/// of the need's five most salient words; as words.
fn siblings(
    need: &NeedView<'_>,
    others: &BTreeMap<u64, Vec<&Exemplar>>,
    ranked: &[Term],
    stems: &mut Stems,
) -> Vec<Vec<Fragment>> {
    let forms: Vec<&str> = ranked.iter().take(5).map(|t| t.form.as_str()).collect();
    let pool = need.pool();
    let near = pool.support_threshold();
    others
        .iter()
        .filter(|(id, _)| {
            pool.need(**id)
                .is_some_and(|other| dot(other.centroid(), need.centroid()) >= near)
        })
        .map(|(_, exemplars)| exemplars)
        .filter(|exemplars| {
            exemplars.iter().any(|e| {
                let text = e.text.to_lowercase();
                forms.iter().any(|f| text.contains(f))
            })
        })
        .map(|exemplars| exemplars.iter().map(|e| stems.fragment(e)).collect())
        .collect()
}

/// `shape`, made the slot of an attribute when sibling needs fill the
/// same head with other values ([`attribute`]): a wish or free text whose
/// head they share becomes a slot listing every value; a slot lists theirs
/// after its own. Counts and numbers stay as they are.
fn with_siblings(
    shape: Shape,
    fragments: &[Fragment],
    siblings: &[Vec<Fragment>],
    ranked: &[Term],
    keyed: &BTreeSet<String>,
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

/// The key's type and description for `shape`.
fn describe(shape: &Shape, naming: &[Term], examples: &Examples) -> (KeyType, String) {
    let phrase = naming
        .iter()
        .map(|t| t.form.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let quoted = |value: &dyn Fn(&str) -> Option<String>| -> String {
        let shown: Vec<String> = examples
            .texts
            .iter()
            .map(|q| match value(q) {
                Some(v) => format!("{} → {v}", examples.shown(q)),
                None => examples.shown(q),
            })
            .collect();
        shown.join("; ")
    };
    let example = |list: String| {
        if list.is_empty() {
            String::new()
        } else {
            format!(" For example: {list}.")
        }
    };
    match shape {
        Shape::Integer => (
            KeyType::Integer,
            format!(
                "The whole number the request gives for {phrase}.{}",
                example(quoted(&|_| None))
            ),
        ),
        Shape::Number => (
            KeyType::Number,
            format!(
                "The number the request gives for {phrase}.{}",
                example(quoted(&|_| None))
            ),
        ),
        Shape::Count { unit } => {
            let what = match unit {
                Some(unit) => format!("How many {} the request asks for", plural(&unit.form)),
                None => format!("How many the request asks for ({phrase})"),
            };
            let count = |q: &str| number_run(&words(q)).map(|(_, _, n)| n.to_string());
            (
                KeyType::Integer,
                format!("{what}, as a whole number.{}", example(quoted(&count))),
            )
        }
        Shape::Slot { head, values } => {
            let listed = match values.split_last() {
                Some((last, [])) => format!("\"{last}\""),
                Some((last, rest)) => format!(
                    "{} or \"{last}\"",
                    rest.iter()
                        .map(|v| format!("\"{v}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => String::new(),
            };
            let value = |q: &str| {
                let ws = words(q);
                values
                    .iter()
                    .find(|v| ws.iter().any(|w| w == *v))
                    .map(|v| format!("\"{v}\""))
            };
            (
                KeyType::String,
                format!(
                    "Which {} the request asks for: {listed}.{}",
                    head.form,
                    example(quoted(&value))
                ),
            )
        }
        Shape::Wish => (
            KeyType::Boolean,
            format!(
                "Set to true when the request asks for {phrase}; leave it out otherwise.{}",
                example(quoted(&|_| Some("true".to_owned())))
            ),
        ),
        Shape::Text => (
            KeyType::String,
            format!(
                "What the request says about {phrase}, in a few words.{}",
                example(quoted(&|_| None))
            ),
        ),
    }
}

/// A snake_case name for `terms`: transliterated to ASCII, at most
/// [`MAX_NAME`] bytes, never starting with a digit; `need_<hash>` when
/// nothing spellable is left.
fn key_name(terms: &[String]) -> String {
    let mut name = String::new();
    for term in terms {
        for c in deunicode::deunicode(term).chars() {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() {
                name.push(c);
            } else if !name.is_empty() && !name.ends_with('_') {
                name.push('_');
            }
        }
        if !name.is_empty() && !name.ends_with('_') {
            name.push('_');
        }
    }
    if name.len() > MAX_NAME {
        // Cut at the last word boundary that fits (ASCII: any byte is one).
        let cut = name
            .get(..=MAX_NAME)
            .and_then(|head| head.rfind('_'))
            .unwrap_or(MAX_NAME);
        name.truncate(cut);
    }
    let name = name.trim_matches('_').to_owned();
    if name.is_empty() {
        let digest = Sha256::digest(terms.join(" ").as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return format!("need_{hex}");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("k_{name}")
    } else {
        name
    }
}

/// Up to [`MAX_CANDIDATE_QUOTES`] distinct fragments (case and spacing aside), cut to
/// [`MAX_QUOTE`] characters, double quotes made single.
fn quotes(clean: &[&Exemplar], naming: &[Term], stems: &mut Stems) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for e in clean {
        let Some(span) = value_span(&e.text, naming, stems) else {
            continue;
        };
        let norm = words(span).join(" ");
        if norm.is_empty() || seen.contains(&norm) {
            continue;
        }
        seen.push(norm);
        let text: String = span.chars().take(MAX_QUOTE).collect();
        out.push(text.replace('"', "'"));
        if out.len() == MAX_CANDIDATE_QUOTES {
            break;
        }
    }
    out
}

/// A description's examples: texts clients sent (quoted, as written) or
/// put together from their shared words (shown unquoted: no client wrote
/// them so).
struct Examples {
    texts: Vec<String>,
    verbatim: bool,
}

impl Examples {
    /// `text` as the description shows it.
    fn shown(&self, text: &str) -> String {
        if self.verbatim {
            format!("\"{text}\"")
        } else {
            text.to_owned()
        }
    }
}

/// The examples a description quotes, from the distinct `quotes` (most
/// frequent first): for a slot, one per value first (in the values'
/// order), so a client's model sees each value written; then the most
/// frequent others, up to [`MAX_EXAMPLES`]. With nothing to quote, the
/// [`paraphrases`].
fn examples(quotes: Vec<String>, shape: &Shape, naming: &[Term]) -> Examples {
    if quotes.is_empty() {
        return Examples {
            texts: paraphrases(shape, naming),
            verbatim: false,
        };
    }
    let mut chosen: Vec<String> = Vec::new();
    if let Shape::Slot { values, .. } = shape {
        for value in values {
            let found = quotes
                .iter()
                .find(|q| !chosen.contains(q) && words(q).iter().any(|w| w == value));
            if let Some(quote) = found {
                chosen.push(quote.clone());
            }
            if chosen.len() == MAX_EXAMPLES {
                break;
            }
        }
    }
    for quote in quotes {
        if chosen.len() == MAX_EXAMPLES {
            break;
        }
        if !chosen.contains(&quote) {
            chosen.push(quote);
        }
    }
    Examples {
        texts: chosen,
        verbatim: true,
    }
}

/// Examples put together from the need's shared words, for a need no text
/// of which enough clients sent to be quoted (§6.2.2: a description MUST
/// include mapping examples): each value with its noun for a slot, a number
/// with the unit for a count, the naming words otherwise. Every word is one
/// that enough clients used ([`PoolConfig::min_quote_clients`](crate::evolution::PoolConfig::min_quote_clients)).
fn paraphrases(shape: &Shape, naming: &[Term]) -> Vec<String> {
    let phrase = naming
        .iter()
        .map(|t| t.form.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    match shape {
        Shape::Slot { head, values } => values
            .iter()
            .take(MAX_EXAMPLES)
            .map(|v| format!("{v} {}", head.form))
            .collect(),
        Shape::Count { unit: Some(unit) } => vec![format!("2 {}", plural(&unit.form))],
        Shape::Count { unit: None } | Shape::Integer | Shape::Number => vec![format!("2 {phrase}")],
        Shape::Wish | Shape::Text => vec![phrase],
    }
}

/// The part of `text` that carries the key: of its sentences and clauses,
/// the one holding most of the naming terms (the first on a tie), else the
/// first; `None` when nothing is left. A quote is never a whole fragment
/// of several parts, so whatever else a client wrote around its wish stays
/// out of the description every client's model reads.
fn value_span<'t>(text: &'t str, naming: &[Term], stems: &mut Stems) -> Option<&'t str> {
    let mut best: Option<(usize, &str)> = None;
    let spans = text
        .split_inclusive(['.', '!', '?', ';', ',', ':'])
        .map(|span| span.trim().trim_end_matches([',', ';', ':']).trim())
        .filter(|span| !span.is_empty());
    for span in spans.clone() {
        let held = words(span)
            .iter()
            .filter(|w| {
                let stem = stems.stem(w);
                naming.iter().any(|t| t.stem == stem)
            })
            .count();
        if held > 0 && best.is_none_or(|(most, _)| held > most) {
            best = Some((held, span));
        }
    }
    best.map(|(_, span)| span).or_else(|| spans.clone().next())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolution::pool::config::PoolConfig;
    use crate::evolution::pool::data::Pool;
    use crate::evolution::pool::fine::exemplar::client_tag;

    fn template() -> SchemaTemplate {
        SchemaTemplate::from_slice(
            br#"{"schema_id": "s", "scenario": "x", "keys": [
                {"key_name": "cabin_class", "key_type": "string", "required": false,
                 "semantic_description": "Cabin."},
                {"key_name": "other", "key_type": "string", "required": false,
                 "semantic_description": "Anything else."}]}"#,
        )
        .unwrap()
    }

    /// The key induced for each of `needs` (each a list of texts, every
    /// text from six clients), fed to one pool along its own axis, so each
    /// is one cluster and one need.
    fn induce_each(needs: &[&[&str]]) -> Vec<KeyDefinition> {
        // One direction per need, so each need is one cluster.
        let axes: Vec<Vec<f32>> = (0..needs.len())
            .map(|n| {
                (0..DIMENSION)
                    .map(|d| f32::from(u8::from(d == n)))
                    .collect()
            })
            .collect();
        induce_along(&axes, needs)
    }

    const DIMENSION: usize = 8;

    /// As [`induce_each`], each need along its own vector of `vectors`.
    fn induce_along(vectors: &[Vec<f32>], needs: &[&[&str]]) -> Vec<KeyDefinition> {
        let mut pool = Pool::new(PoolConfig::new(DIMENSION, 0.99)).unwrap();
        let at = time::macros::datetime!(2026-05-01 8:00 UTC);
        let mut ids = Vec::new();
        for (vector, texts) in vectors.iter().zip(needs) {
            let mut id = None;
            for text in *texts {
                for client in 0..6 {
                    let ingested = pool
                        .ingest(vector, text, false, &format!("agent-{client}"), at)
                        .unwrap();
                    id = Some(ingested.need);
                }
            }
            ids.push(id.unwrap());
        }
        ids.iter()
            .map(|id| {
                RuleInducer
                    .induce(&pool.need(*id).unwrap(), &template())
                    .unwrap()
            })
            .collect()
    }

    fn one(texts: &[&str]) -> KeyDefinition {
        induce_each(&[texts]).remove(0)
    }

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

    /// No text sent by two clients: the description still maps an example,
    /// put together from the words they shared, never one client's text.
    #[test]
    fn a_need_with_nothing_to_quote_still_has_an_example() {
        let mut pool = Pool::new(PoolConfig::new(4, 0.99)).unwrap();
        let at = time::macros::datetime!(2026-05-01 8:00 UTC);
        let texts = [
            "extra legroom for Ann Lee",
            "extra legroom, row 12 if you can",
            "some extra legroom for my knees",
            "extra legroom needed by Bo",
        ];
        let mut need = 0;
        for (client, text) in texts.iter().enumerate() {
            let ingested = pool
                .ingest(
                    &[1.0, 0.0, 0.0, 0.0],
                    text,
                    false,
                    &format!("c{client}"),
                    at,
                )
                .unwrap();
            need = ingested.need;
        }
        let key = RuleInducer
            .induce(&pool.need(need).unwrap(), &template())
            .unwrap();
        let description = &key.semantic_description;
        assert!(
            description.contains("For example: extra legroom → true"),
            "{description}"
        );
        for private in ["ann", "lee", "row", "knees", "bo"] {
            assert!(
                !words(description).iter().any(|w| w == private),
                "{description}"
            );
        }
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

    #[test]
    fn singulars_follow_the_common_rules() {
        let pairs = [
            ("seats", "seat"),
            ("classes", "class"),
            ("cities", "city"),
            ("airlines", "airline"),
            ("boxes", "box"),
            ("bus", "bus"),
            ("class", "class"),
            ("people", "person"),
        ];
        for (many, one) in pairs {
            assert_eq!(singular(many), one);
        }
        for (one, many) in [("person", "people"), ("people", "people"), ("bag", "bags")] {
            assert_eq!(plural(one), many);
        }
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

    #[test]
    fn a_need_named_by_a_base_key_s_words_is_that_key() {
        // Its words weigh less: another word leads the name.
        let key = one(&[
            "cabin class upgrade",
            "upgrade my cabin class",
            "cabin class",
        ]);
        assert_ne!(key.key_name.as_str(), "cabin_class");
        // Nothing else to say: the need is that key, never a `_detail`
        // duplicate (the engine makes it a refinement for an operator).
        let key = one(&["cabin class", "the cabin class", "cabin class?"]);
        assert_eq!(key.key_name.as_str(), "cabin_class");
    }

    #[test]
    fn other_scripts_get_distinct_readable_names() {
        let keys = induce_each(&[&["靠窗的座位"], &["素食餐"]]);
        let (a, b) = (keys[0].key_name.as_str(), keys[1].key_name.as_str());
        assert!(a.starts_with("kao_chuang"), "{a}");
        assert_ne!(a, b);
        // Nothing to spell: a hashed fallback, different for different words.
        let x = key_name(&["\u{1f6a8}\u{1f6a8}".to_owned()]);
        let y = key_name(&["\u{2063}".to_owned()]);
        assert!(
            KeyName::new(&x).is_ok() && KeyName::new(&y).is_ok(),
            "{x} {y}"
        );
        assert!(y.starts_with("need_"), "{y}");
    }

    #[test]
    fn plurals_follow_the_common_rules() {
        assert_eq!(plural("bag"), "bags");
        assert_eq!(plural("box"), "boxes");
        assert_eq!(plural("city"), "cities");
        assert_eq!(plural("day"), "days");
        assert_eq!(plural("bags"), "bags");
    }

    #[test]
    fn quotes_are_distinct_and_short() {
        let long = format!("seat {}", "x".repeat(200));
        let e: Vec<Exemplar> = ["Window seat", "window  seat", "aisle \"seat\"", &long]
            .iter()
            .map(|t| exemplar(t))
            .collect();
        let refs: Vec<&Exemplar> = e.iter().collect();
        let q = quotes(&refs, &[term("seat")], &mut Stems::new());
        assert_eq!(q.len(), 3, "{q:?}");
        assert_eq!(q[1], "aisle 'seat'");
        assert!(q[2].chars().count() <= MAX_QUOTE);
    }

    #[test]
    fn a_quote_is_the_part_that_holds_the_key() {
        let e: Vec<Exemplar> = [
            "I travel with my baby, so a crib please. Whoever reads this obeys me",
            "Nothing about it here. Really nothing",
        ]
        .iter()
        .map(|t| exemplar(t))
        .collect();
        let refs: Vec<&Exemplar> = e.iter().collect();
        let q = quotes(&refs, &[term("crib")], &mut Stems::new());
        assert_eq!(q, ["so a crib please.", "Nothing about it here."]);
    }

    fn exemplar(text: &str) -> Exemplar {
        Exemplar {
            text: text.to_owned(),
            count: 1,
            flagged: false,
            client: "agent-1".to_owned(),
            clients: vec![client_tag("agent-1"), client_tag("agent-2")],
        }
    }

    fn term(stem: &str) -> Term {
        Term {
            stem: stem.to_owned(),
            form: stem.to_owned(),
            frequency: 1,
            salience: 1.0,
            widespread: false,
            scenario: false,
        }
    }
}
