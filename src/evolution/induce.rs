//! The default intent inducer: rules, no model.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use super::IntentInducer;
use super::cluster::Exemplar;
use super::embed::{is_stopword, words};
use super::need_view::NeedView;
use super::redact::Redaction;
use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::template::SchemaTemplate;

/// Induces a key from a need's fragments by rules:
/// - the name is the need's most frequent content word, followed or
///   preceded (as the fragments mostly put them) by the word that most often
///   comes with it, if it comes with it in at least a third of the
///   fragments: "window seat please", "a seat by the window" → `window_seat`;
///   words in other scripts are transliterated ("靠窗" → `kao_chuang`), and a
///   name with nothing left to spell is `need_` plus a hash of its words, so
///   two different needs never share a fallback name;
/// - the type is `integer` when every fragment carries exactly one whole
///   number (a count, "2 extra bags"), `number` or `boolean` when every
///   fragment reads as one, else `string`;
/// - the description says what the key holds and quotes up to three
///   distinct real, unflagged fragments; it carries no count (a count would
///   be stale as soon as the key is proposed);
/// - only what several clients sent reaches the key
///   ([`super::PoolConfig::min_quote_clients`], default 2): a fragment is
///   quoted only when that many distinct clients sent its exact text, and a
///   word names the key (or its unit) only when that many used it, so one
///   client's words (a person's name, an address) never do. A need with no
///   such word gets no key yet (the proposal is deferred); one with no such
///   fragment gets a description without examples.
///
/// Always optional, with no default: patches may only add optional keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleInducer;

/// Longest induced name, in bytes (names are ASCII).
const MAX_NAME: usize = 40;
/// Longest quoted fragment, in characters.
const MAX_QUOTE: usize = 80;

impl IntentInducer for RuleInducer {
    fn induce(&self, need: &NeedView<'_>, _schema: &SchemaTemplate) -> Option<KeyDefinition> {
        let mut clean: Vec<&Exemplar> = need.exemplars().iter().filter(|e| !e.flagged).collect();
        clean.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
        let shared = shared_words(&clean, need.min_quote_clients());
        let terms = salient_terms(&clean, &shared);
        if terms.is_empty() {
            return None;
        }
        let key_name = KeyName::new(&key_name(&terms)).ok()?;
        let (key_type, unit) = guess_type(&clean);
        let unit = unit.filter(|u| shared.contains(u));
        let quotable: Vec<&Exemplar> = need.quotable().collect();
        let quotes = quotes(&quotable);
        if quotes.len() < 2 && quotable.len() >= 2 {
            return None;
        }
        let what = match (key_type, unit) {
            (KeyType::Integer, Some(unit)) => format!("How many {unit} the request asks for"),
            (KeyType::Integer | KeyType::Number, _) => "The number the request gives".to_owned(),
            (KeyType::Boolean, _) => "Whether the request asks for it".to_owned(),
            _ => "What the request asks for, in a few words".to_owned(),
        };
        let examples = if quotes.is_empty() {
            String::new()
        } else {
            format!(", for example {}", quotes.join("; "))
        };
        let description = format!(
            "{what}: {}. Clients wrote it in free text{examples}.",
            terms.join(" "),
        );
        Some(KeyDefinition::new(key_name, key_type, false, description))
    }
}

/// A fragment's content words (no stopwords, no bare numbers, nothing of
/// a placeholder such as `<card>`), each once.
fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(&Redaction::strip(text)) {
        if !is_stopword(&w) && !w.chars().all(|c| c.is_ascii_digit()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The content words that at least `min` distinct clients used (in any of
/// the fragments they sent).
fn shared_words(clean: &[&Exemplar], min: usize) -> BTreeSet<String> {
    let mut clients: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for e in clean {
        let tags = e.client_tags();
        for w in content_words(&e.text) {
            clients.entry(w).or_default().extend(tags.iter().copied());
        }
    }
    clients
        .into_iter()
        .filter(|(_, c)| c.len() >= min)
        .map(|(w, _)| w)
        .collect()
}

/// One or two words that say what the cluster is about, in the order the
/// fragments mostly use; only words in `shared`.
fn salient_terms(clean: &[&Exemplar], shared: &BTreeSet<String>) -> Vec<String> {
    let fragments: Vec<(Vec<String>, u64)> = clean
        .iter()
        .map(|e| {
            let ws = content_words(&e.text)
                .into_iter()
                .filter(|w| shared.contains(w))
                .collect();
            (ws, e.count.max(1))
        })
        .collect();
    let mut frequency: Vec<(&str, u64)> = Vec::new();
    for (ws, weight) in &fragments {
        for w in ws {
            match frequency.iter_mut().find(|(x, _)| x == w) {
                Some(entry) => entry.1 = entry.1.saturating_add(*weight),
                None => frequency.push((w, *weight)),
            }
        }
    }
    // Most frequent first; ties alphabetically, so the name is deterministic.
    frequency.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let Some(&(first, first_weight)) = frequency.first() else {
        return Vec::new();
    };
    // The word that most often shares a fragment with the first.
    let together = |w: &str| -> u64 {
        fragments
            .iter()
            .filter(|(ws, _)| ws.iter().any(|x| x == first) && ws.iter().any(|x| x == w))
            .map(|(_, weight)| weight)
            .sum()
    };
    let second = frequency
        .iter()
        .skip(1)
        .map(|&(w, _)| (w, together(w)))
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .filter(|&(_, n)| n.saturating_mul(3) >= first_weight);
    let Some((second, _)) = second else {
        return vec![first.to_owned()];
    };
    // Which comes first, by the fragments' weight.
    let (mut before, mut after) = (0u64, 0u64);
    for (ws, weight) in &fragments {
        let position = |w: &str| ws.iter().position(|x| x == w);
        if let (Some(a), Some(b)) = (position(first), position(second)) {
            if a < b {
                before = before.saturating_add(*weight);
            } else {
                after = after.saturating_add(*weight);
            }
        }
    }
    if after > before {
        vec![second.to_owned(), first.to_owned()]
    } else {
        vec![first.to_owned(), second.to_owned()]
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

/// The key's type and, for a count, the word that follows the number
/// ("2 extra bags" → `bags`).
fn guess_type(clean: &[&Exemplar]) -> (KeyType, Option<String>) {
    let texts: Vec<String> = clean.iter().map(|e| e.text.trim().to_lowercase()).collect();
    if texts.is_empty() {
        return (KeyType::String, None);
    }
    let all = |f: &dyn Fn(&str) -> bool| texts.iter().all(|t| f(t));
    if all(&|t| t.parse::<i64>().is_ok()) {
        return (KeyType::Integer, None);
    }
    if all(&|t| t.parse::<f64>().is_ok_and(f64::is_finite)) {
        return (KeyType::Number, None);
    }
    if all(&|t| matches!(t, "yes" | "no" | "true" | "false")) {
        return (KeyType::Boolean, None);
    }
    // A count: exactly one whole number in every fragment.
    let mut units: Vec<(String, usize)> = Vec::new();
    for t in &texts {
        let ws = words(t);
        let numbers: Vec<usize> = ws
            .iter()
            .enumerate()
            .filter(|(_, w)| w.chars().all(|c| c.is_ascii_digit()) && w.parse::<i64>().is_ok())
            .map(|(i, _)| i)
            .collect();
        let [at] = numbers.as_slice() else {
            return (KeyType::String, None);
        };
        let unit = ws
            .iter()
            .skip(at.saturating_add(1))
            .find(|w| !is_stopword(w) && w.chars().all(|c| c.is_ascii_alphabetic()));
        if let Some(unit) = unit {
            match units.iter_mut().find(|(u, _)| u == unit) {
                Some(entry) => entry.1 += 1,
                None => units.push((unit.clone(), 1)),
            }
        }
    }
    units.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    (KeyType::Integer, units.into_iter().next().map(|(u, _)| u))
}

/// Up to three distinct fragments (case and spacing aside), quoted and cut
/// to [`MAX_QUOTE`] characters.
fn quotes(clean: &[&Exemplar]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for e in clean {
        let norm = words(&e.text).join(" ");
        if norm.is_empty() || seen.contains(&norm) {
            continue;
        }
        seen.push(norm);
        let text: String = e.text.trim().chars().take(MAX_QUOTE).collect();
        out.push(format!("\"{}\"", text.replace('"', "'")));
        if out.len() == 3 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolution::client_tag;

    fn exemplars(texts: &[&str]) -> Vec<Exemplar> {
        texts
            .iter()
            .map(|t| Exemplar {
                text: (*t).to_owned(),
                count: 1,
                flagged: false,
                client: "agent-1".to_owned(),
                clients: vec![client_tag("agent-1"), client_tag("agent-2")],
            })
            .collect()
    }

    fn terms(texts: &[&str]) -> Vec<String> {
        let owned = exemplars(texts);
        let refs: Vec<&Exemplar> = owned.iter().collect();
        salient_terms(&refs, &shared_words(&refs, 2))
    }

    #[test]
    fn names_take_the_order_the_fragments_use() {
        let t = terms(&[
            "window seat please",
            "I prefer a window seat",
            "a seat by the window",
        ]);
        assert_eq!(key_name(&t), "window_seat");
        let t = terms(&[
            "wheelchair assistance at the gate",
            "need wheelchair help",
            "mobility assistance with a wheelchair",
        ]);
        assert_eq!(key_name(&t), "wheelchair_assistance");
    }

    #[test]
    fn a_word_that_rarely_comes_with_the_first_is_left_out() {
        let t = terms(&[
            "vegetarian meal",
            "vegetarian",
            "vegetarian food",
            "vegetarian please",
        ]);
        assert_eq!(t, ["vegetarian"]);
    }

    #[test]
    fn other_scripts_get_distinct_readable_names() {
        let a = key_name(&terms(&["靠窗的座位", "靠窗的座位"]));
        let b = key_name(&terms(&["素食餐", "素食餐"]));
        assert!(a.starts_with("kao_chuang"), "{a}");
        assert_ne!(a, b);
        for name in [&a, &b] {
            assert!(KeyName::new(name).is_ok(), "{name}");
            assert!(name.len() <= MAX_NAME);
        }
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
    fn counts_are_integers_with_their_unit() {
        let e = exemplars(&["2 extra bags", "I need 3 bags", "one more bag, so 1 bags"]);
        let refs: Vec<&Exemplar> = e.iter().collect();
        assert_eq!(
            guess_type(&refs),
            (KeyType::Integer, Some("bags".to_owned()))
        );
        let e = exemplars(&["2 extra bags", "an extra bag"]);
        let refs: Vec<&Exemplar> = e.iter().collect();
        assert_eq!(guess_type(&refs).0, KeyType::String);
    }

    #[test]
    fn quotes_are_distinct_and_short() {
        let long = "x".repeat(200);
        let e = exemplars(&["Window seat", "window  seat", "aisle \"seat\"", &long]);
        let refs: Vec<&Exemplar> = e.iter().collect();
        let q = quotes(&refs);
        assert_eq!(q.len(), 3, "{q:?}");
        assert_eq!(q[1], "\"aisle 'seat'\"");
        assert!(q[2].chars().count() <= MAX_QUOTE + 2);
    }
}
