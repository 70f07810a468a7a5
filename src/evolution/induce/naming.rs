//! A key's name from a need's naming words: snake_case ASCII, a count's
//! unit in the plural, an attribute's noun in the singular with
//! `preference`, a hash when nothing is left to spell.

use sha2::{Digest, Sha256};

use super::shape::Shape;
use super::terms::Term;
use super::words::ATTRIBUTE_SUFFIX;

/// Longest induced name, in bytes (names are ASCII).
const MAX_NAME: usize = 40;

/// The words of the name: the naming terms; a count's unit in the plural
/// (added when it is not one of them; `number_of_` before it when it is
/// all the name has); a slot's head and `preference`.
pub(super) fn name_forms(naming: &[Term], shape: &Shape) -> Vec<String> {
    match shape {
        Shape::Slot { head, .. } => vec![singular(&head.form), ATTRIBUTE_SUFFIX.to_owned()],
        // A count of the unit alone: "number_of_people" (the scenario's
        // words are left out of `naming` before).
        Shape::Count { unit: Some(unit) } if naming.iter().all(|t| t.stem == unit.stem) => {
            vec!["number".to_owned(), "of".to_owned(), plural(&unit.form)]
        }
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
pub(super) fn plural(word: &str) -> String {
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

/// A snake_case name for `terms`: transliterated to ASCII, at most
/// [`MAX_NAME`] bytes, never starting with a digit; `need_<hash>` when
/// nothing spellable is left.
pub(super) fn key_name(terms: &[String]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolution::induce::testing::induce_each;
    use crate::key::KeyName;

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
    fn plurals_follow_the_common_rules() {
        assert_eq!(plural("bag"), "bags");
        assert_eq!(plural("box"), "boxes");
        assert_eq!(plural("city"), "cities");
        assert_eq!(plural("day"), "days");
        assert_eq!(plural("bags"), "bags");
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
}
