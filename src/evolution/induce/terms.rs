//! The words of a need: stemmed so inflections meet (bag/bags,
//! travel/travelling), kept only when several clients used them, weighed
//! against the pool's other needs and the template's own words by
//! class-based TF-IDF (as BERTopic labels topics), and put in the order
//! people write them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rust_stemmers::{Algorithm, Stemmer};

use super::words::{ATTRIBUTE_SUFFIX, nameable};
use crate::evolution::embed::hashing::{is_stopword, words};
use crate::evolution::intake::Redaction;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::template::SchemaTemplate;

/// How salient, against the first, the second word of a name must be to
/// join it for its salience alone (a word many needs use, "card", joins
/// only as the head noun of a modifier; see [`naming_terms`]).
const SECOND_SALIENCE: f64 = 0.5;

/// Other needs a pool must hold before a word can be told to be the
/// scenario's (used by more than half of them) rather than the need's.
const MIN_NEEDS_TO_TELL: f64 = 4.0;

/// A word of a fragment: its stem (what is compared) and its form (what is
/// written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    pub stem: String,
    pub form: String,
    /// Whether it may name a key or fill a slot ([`nameable`]).
    pub nameable: bool,
}

/// One clean exemplar, as words.
#[derive(Debug, Clone)]
pub(super) struct Fragment {
    /// Its content words (no stopwords, no bare numbers, no placeholder),
    /// in order, repeats kept.
    pub words: Vec<Word>,
    /// Every word in order, stopwords and numbers included (for counts).
    pub all: Vec<String>,
    /// The text, lower case, placeholders out (to see what stands next to
    /// what, punctuation included).
    pub text: String,
    pub count: u64,
    pub clients: Vec<u64>,
}

/// Stems words (Snowball English for words in Latin letters; others as
/// they are), remembering what it has stemmed.
pub(super) struct Stems {
    stemmer: Stemmer,
    memo: HashMap<String, String>,
}

impl Stems {
    pub fn new() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            memo: HashMap::new(),
        }
    }

    pub fn stem(&mut self, word: &str) -> String {
        if let Some(stem) = self.memo.get(word) {
            return stem.clone();
        }
        let stem = if word.chars().all(|c| c.is_ascii_alphabetic()) {
            self.stemmer.stem(word).into_owned()
        } else {
            word.to_owned()
        };
        self.memo.insert(word.to_owned(), stem.clone());
        stem
    }

    /// The content words of `text`, in order.
    pub fn content(&mut self, text: &str) -> Vec<Word> {
        words(&Redaction::strip(text))
            .into_iter()
            .filter(|w| !is_stopword(w) && !w.chars().all(|c| c.is_ascii_digit()))
            .map(|form| {
                let stem = self.stem(&form);
                let nameable = nameable(&form, &stem);
                Word {
                    stem,
                    form,
                    nameable,
                }
            })
            .collect()
    }

    pub fn fragment(&mut self, exemplar: &Exemplar) -> Fragment {
        let text = Redaction::strip(&exemplar.text).to_lowercase();
        Fragment {
            words: self.content(&exemplar.text),
            all: words(&text),
            text,
            count: exemplar.count.max(1),
            clients: exemplar.client_tags(),
        }
    }
}

/// The stems of nameable words ([`Word::nameable`]) that at least `min`
/// distinct clients used and, when there are two fragments or more, two of
/// them hold (one wording repeated by many clients is how that wording
/// runs, not what the need is). If no stem passes, the client rule alone.
pub(super) fn shared_stems(fragments: &[Fragment], min: usize) -> BTreeSet<String> {
    let mut clients: BTreeMap<&str, (BTreeSet<u64>, usize)> = BTreeMap::new();
    for fragment in fragments {
        let mut seen = BTreeSet::new();
        for word in &fragment.words {
            if !word.nameable {
                continue;
            }
            let entry = clients.entry(word.stem.as_str()).or_default();
            entry.0.extend(fragment.clients.iter().copied());
            if seen.insert(word.stem.as_str()) {
                entry.1 += 1;
            }
        }
    }
    let texts = if fragments.len() >= 2 { 2 } else { 1 };
    let kept: BTreeSet<String> = clients
        .iter()
        .filter(|(_, (c, n))| c.len() >= min && *n >= texts)
        .map(|(stem, _)| (*stem).to_owned())
        .collect();
    if !kept.is_empty() {
        return kept;
    }
    clients
        .into_iter()
        .filter(|(_, (c, _))| c.len() >= min)
        .map(|(stem, _)| stem.to_owned())
        .collect()
}

/// A candidate term of the need.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Term {
    pub stem: String,
    /// Its most frequent form in the need.
    pub form: String,
    /// The weight of the need's fragments that hold it.
    pub frequency: u64,
    /// Its class-based TF-IDF weight.
    pub salience: f64,
    /// Whether more than half of the pool's other needs use it: the
    /// scenario's word ("flight" in a flight booking), not the need's.
    pub widespread: bool,
    /// Whether it is known to be the scenario's word: widespread, in a pool
    /// with enough other needs to tell (with too few, `widespread` holds
    /// for every word and this for none).
    pub scenario: bool,
}

/// How often each stem of `wanted` occurs across the pool's other needs and
/// the template's key names, and the mean weight of a need's words: the
/// "classes" c-TF-IDF compares the need with.
pub(super) struct Background {
    frequency: HashMap<String, f64>,
    mean_class_weight: f64,
    /// How many other needs use each stem, and how many there are (each
    /// scaled as `frequency` is).
    needs_using: HashMap<String, f64>,
    other_needs: f64,
}

impl Background {
    /// `others`: each other need's exemplars, each standing for `scale`
    /// needs (a sample of a large pool). The template counts as one
    /// class of the mean weight for every stem its key names use (`other`
    /// aside), so a word a key already names weighs less.
    pub fn new<'a>(
        stems: &mut Stems,
        need: &[Fragment],
        others: impl Iterator<Item = Vec<&'a Exemplar>>,
        scale: f64,
        template: &SchemaTemplate,
        wanted: &BTreeSet<String>,
    ) -> Self {
        let mut frequency: HashMap<String, f64> = HashMap::new();
        let mut needs_using: HashMap<String, f64> = HashMap::new();
        let mut classes = 1u64;
        let mut total: f64 = need
            .iter()
            .map(|f| (f.count as f64) * f.words.len() as f64)
            .sum();
        for exemplars in others {
            classes += 1;
            let mut in_need = BTreeSet::new();
            for exemplar in exemplars {
                let count = exemplar.count.max(1) as f64;
                let words = stems.content(&exemplar.text);
                total += count * words.len() as f64;
                let mut seen = BTreeSet::new();
                for word in words {
                    if wanted.contains(&word.stem) && seen.insert(word.stem.clone()) {
                        in_need.insert(word.stem.clone());
                        *frequency.entry(word.stem).or_default() += count * scale;
                    }
                }
            }
            for stem in in_need {
                *needs_using.entry(stem).or_default() += scale;
            }
        }
        let mean_class_weight = (total / classes as f64).max(1.0);
        // The schema's own words (its keys' names, its scenario and id:
        // "book_restaurant", "flight_booking_v1") say what every request of
        // the scenario is about, not what one need adds.
        let mut named = key_name_stems(template, stems);
        named.extend(scenario_stems(template, stems));
        for stem in named.into_iter().filter(|s| wanted.contains(s)) {
            *frequency.entry(stem).or_default() += mean_class_weight;
        }
        Self {
            frequency,
            mean_class_weight,
            needs_using,
            other_needs: (classes - 1) as f64 * scale,
        }
    }

    /// Whether more than half of the other needs use `stem`; with fewer
    /// than [`MIN_NEEDS_TO_TELL`] other needs there is no telling the
    /// scenario's words from the need's, and every word counts as widespread.
    fn widespread(&self, stem: &str) -> bool {
        self.other_needs < MIN_NEEDS_TO_TELL || self.scenario(stem)
    }

    /// Whether more than half of the other needs, at least
    /// [`MIN_NEEDS_TO_TELL`] of them, use `stem`.
    fn scenario(&self, stem: &str) -> bool {
        let using = self.needs_using.get(stem).copied().unwrap_or(0.0);
        self.other_needs >= MIN_NEEDS_TO_TELL && using * 2.0 > self.other_needs
    }

    /// c-TF-IDF: `tf × ln(1 + A / f)`, `f` counting the need's own use too.
    fn salience(&self, stem: &str, tf: u64) -> f64 {
        let elsewhere = self.frequency.get(stem).copied().unwrap_or(0.0);
        let f = (tf as f64 + elsewhere).max(1.0);
        tf as f64 * (1.0 + self.mean_class_weight / f).ln()
    }
}

/// The stems of the words of the template's key names (`other` aside).
pub(super) fn key_name_stems(template: &SchemaTemplate, stems: &mut Stems) -> BTreeSet<String> {
    let names = template
        .keys
        .iter()
        .filter(|k| k.key_name.as_str() != crate::key::OTHER_KEY)
        .map(|k| k.key_name.as_str());
    stems_of(names, stems)
}

/// The words the template's keys are named after (`other` aside), as
/// stems, each with the string key whose noun it is, if one is: the
/// attribute a need that fills that noun is about. A key's noun is the
/// last word of its name (`cabin_class`: "class"; `restaurant_name`:
/// "name", not "restaurant"), or the word before `_preference`, as this
/// inducer names an attribute (`seat_preference`: "seat").
pub(super) struct KeyWords {
    stems: BTreeMap<String, Option<String>>,
}

impl KeyWords {
    pub fn of(template: &SchemaTemplate, stems: &mut Stems) -> Self {
        let mut out: BTreeMap<String, Option<String>> = BTreeMap::new();
        for key in template
            .keys
            .iter()
            .filter(|k| k.key_name.as_str() != crate::key::OTHER_KEY)
        {
            let name = key.key_name.as_str();
            for stem in stems_of(std::iter::once(name), stems) {
                out.entry(stem).or_default();
            }
            if key.key_type != crate::key::KeyType::String || key.is_deprecated() {
                continue;
            }
            let mut words = name.rsplit('_');
            let noun = match (words.next(), words.next()) {
                (Some(ATTRIBUTE_SUFFIX), Some(noun)) => noun,
                (Some(last), _) => last,
                _ => continue,
            };
            let named = out.entry(stems.stem(noun)).or_default();
            if named.is_none() {
                *named = Some(name.to_owned());
            }
        }
        Self { stems: out }
    }

    /// Whether a key is named after `stem`.
    pub fn contains(&self, stem: &str) -> bool {
        self.stems.contains_key(stem)
    }

    /// The string key named after `stem`, if any (the first in the
    /// template's order).
    pub fn attribute(&self, stem: &str) -> Option<&str> {
        self.stems.get(stem)?.as_deref()
    }
}

/// The stems of the words of the template's scenario and schema id
/// ("book_restaurant", "flight_booking_v1"): what every request is about.
pub(super) fn scenario_stems(template: &SchemaTemplate, stems: &mut Stems) -> BTreeSet<String> {
    let names = [template.scenario.as_str(), template.schema_id.as_str()];
    stems_of(names.into_iter(), stems)
}

/// The stems of the words of `names` (split at anything not a letter or
/// digit, lowercase).
fn stems_of<'n>(names: impl Iterator<Item = &'n str>, stems: &mut Stems) -> BTreeSet<String> {
    names
        .flat_map(|name| name.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(|w| stems.stem(&w.to_lowercase()))
        .collect()
}

/// The need's terms among `shared`, most salient first (ties by stem).
pub(super) fn ranked_terms(
    fragments: &[Fragment],
    shared: &BTreeSet<String>,
    background: &Background,
) -> Vec<Term> {
    let mut frequency: BTreeMap<&str, u64> = BTreeMap::new();
    let mut forms: BTreeMap<&str, BTreeMap<&str, u64>> = BTreeMap::new();
    for fragment in fragments {
        let mut seen = BTreeSet::new();
        // Only nameable forms: a stem one form brought in ("saying") is
        // not written or counted in a form that names nothing ("says").
        let named = fragment
            .words
            .iter()
            .filter(|w| w.nameable && shared.contains(&w.stem));
        for word in named {
            *forms
                .entry(word.stem.as_str())
                .or_default()
                .entry(word.form.as_str())
                .or_default() += fragment.count;
            if seen.insert(word.stem.as_str()) {
                let n = frequency.entry(word.stem.as_str()).or_default();
                *n = n.saturating_add(fragment.count);
            }
        }
    }
    let mut terms: Vec<Term> = frequency
        .into_iter()
        .map(|(stem, tf)| Term {
            stem: stem.to_owned(),
            form: most_common(forms.get(stem)).unwrap_or(stem).to_owned(),
            frequency: tf,
            salience: background.salience(stem, tf),
            widespread: background.widespread(stem),
            scenario: background.scenario(stem),
        })
        .collect();
    terms.sort_by(|a, b| {
        b.salience
            .total_cmp(&a.salience)
            .then_with(|| a.stem.cmp(&b.stem))
    });
    terms
}

/// The most frequent form (ties alphabetically).
fn most_common<'a>(forms: Option<&BTreeMap<&'a str, u64>>) -> Option<&'a str> {
    forms?
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(form, _)| *form)
}

/// The weight of the fragments holding both stems.
pub(super) fn together(fragments: &[Fragment], a: &str, b: &str) -> u64 {
    fragments
        .iter()
        .filter(|f| f.words.iter().any(|w| w.stem == a) && f.words.iter().any(|w| w.stem == b))
        .fold(0u64, |n, f| n.saturating_add(f.count))
}

/// The one or two terms that name the need: the most salient, and the most
/// salient of the others that comes with it in at least a third of its
/// fragments' weight and is at least [`SECOND_SALIENCE`] as salient; failing
/// that, the most frequent of the others that comes with it in at least
/// half of its fragments' weight and is not the scenario's (used by more
/// than half of the pool's other needs), so that the head noun a salient
/// modifier needs joins it ("virtual" → `virtual_card`) while "flight" in
/// a flight booking does not. In the order the fragments mostly put them.
pub(super) fn naming_terms(fragments: &[Fragment], ranked: &[Term]) -> Vec<Term> {
    let Some(first) = ranked.first() else {
        return Vec::new();
    };
    let with_first = |t: &Term| together(fragments, &first.stem, &t.stem);
    let salient = ranked.iter().skip(1).find(|t| {
        t.salience >= SECOND_SALIENCE * first.salience
            && with_first(t).saturating_mul(3) >= first.frequency
    });
    let second = salient.or_else(|| {
        ranked
            .iter()
            .skip(1)
            .filter(|t| !t.widespread && with_first(t).saturating_mul(2) >= first.frequency)
            .max_by(|a, b| {
                a.frequency
                    .cmp(&b.frequency)
                    .then_with(|| b.stem.cmp(&a.stem))
            })
    });
    let Some(second) = second else {
        return vec![first.clone()];
    };
    if comes_first(fragments, &second.stem, &first.stem) {
        vec![second.clone(), first.clone()]
    } else {
        vec![first.clone(), second.clone()]
    }
}

/// Whether, by the fragments' weight, `a` mostly comes before `b`.
pub(super) fn comes_first(fragments: &[Fragment], a: &str, b: &str) -> bool {
    let (mut before, mut after) = (0u64, 0u64);
    for fragment in fragments {
        let position = |s: &str| fragment.words.iter().position(|w| w.stem == s);
        if let (Some(x), Some(y)) = (position(a), position(b)) {
            if x < y {
                before = before.saturating_add(fragment.count);
            } else {
                after = after.saturating_add(fragment.count);
            }
        }
    }
    before > after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_share_a_stem() {
        let mut stems = Stems::new();
        assert_eq!(stems.stem("bags"), stems.stem("bag"));
        assert_eq!(stems.stem("travelling"), stems.stem("travel"));
        assert_eq!(stems.stem("dogs"), stems.stem("dog"));
        assert_eq!(stems.stem("靠窗"), "靠窗");
    }

    #[test]
    fn inflections_of_closed_class_words_name_nothing() {
        let mut stems = Stems::new();
        let words = stems.content("getting wants needed thinks two hundred seats lights off plugs");
        let nameable: Vec<(&str, bool)> = words
            .iter()
            .map(|w| (w.form.as_str(), w.nameable))
            .collect();
        assert_eq!(
            nameable,
            [
                ("getting", false),
                ("wants", false),
                ("needed", false),
                ("thinks", false),
                ("two", false),
                ("hundred", false),
                ("seats", true),
                ("lights", true),
                ("off", true),
                ("plugs", true),
            ]
        );
    }

    #[test]
    fn the_closed_stems_are_the_lists_stemmed() {
        use super::super::words::{CLOSED_STEMS, PARTICLES};
        let mut stems = Stems::new();
        let mut built: Vec<String> = crate::evolution::embed::hashing::stopwords()
            .iter()
            .chain(stop_words::get(stop_words::LANGUAGE::English).iter())
            .filter(|w| !PARTICLES.contains(w))
            .map(|w| stems.stem(w))
            .collect();
        built.sort();
        built.dedup();
        assert_eq!(built, CLOSED_STEMS);
    }
}
