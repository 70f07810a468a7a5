//! What a message's keys already carry is not part of its `other` need. A
//! client that puts a whole request in `other` ("book a table for 4 in
//! Boston with parking", with `city: "Boston"` and `party_size: 4` filled)
//! repeats values the schema holds; left in, those values (a city, a name)
//! decide what the fragment is about and name its key. Each is taken out
//! once, so what `other` adds is what the pool clusters.

use std::borrow::Cow;

use serde_json::Value;

use crate::key::OTHER_KEY;

/// Longest value taken out, in bytes (a longer one is a text of its own,
/// not a value written inside a request).
const MAX_VALUE: usize = 200;

/// The values a payload's keys other than `other` carry, as text: strings
/// and numbers, and those inside arrays, at most [`MAX_VALUE`] bytes, with a
/// letter or digit.
pub(in crate::evolution) fn mapped_values(payload: Option<&Value>) -> Vec<String> {
    let Some(Value::Object(members)) = payload else {
        return Vec::new();
    };
    let mut values = Vec::new();
    for (name, value) in members {
        if name == OTHER_KEY {
            continue;
        }
        let items: &[Value] = match value {
            Value::Array(items) => items,
            one => std::slice::from_ref(one),
        };
        for item in items {
            let text = match item {
                Value::String(s) => s.trim().to_owned(),
                Value::Number(n) => n.to_string(),
                _ => continue,
            };
            if text.len() <= MAX_VALUE && text.chars().any(char::is_alphanumeric) {
                values.push(text);
            }
        }
    }
    // Longest first, so "New York City" goes before "York".
    values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    values
}

/// `fragment` with one occurrence of each of `values` taken out, as a whole
/// word or words (the one written as the value is, else the first in any
/// case), spaces closed up; borrowed when none occurs.
pub(in crate::evolution) fn without_mapped<'f>(
    fragment: &'f str,
    values: &[String],
) -> Cow<'f, str> {
    let mut text = Cow::Borrowed(fragment);
    for value in values {
        let at = whole_word(&text, value, false).or_else(|| whole_word(&text, value, true));
        if let Some((start, end)) = at {
            let (Some(head), Some(tail)) = (text.get(..start), text.get(end..)) else {
                continue;
            };
            text = Cow::Owned(format!("{head} {tail}"));
        }
    }
    match text {
        Cow::Borrowed(_) => text,
        Cow::Owned(cut) => Cow::Owned(cut.split_whitespace().collect::<Vec<_>>().join(" ")),
    }
}

/// The byte range of the first occurrence of `value` in `text` that stands
/// as whole words (no letter or digit touching it), compared ignoring case
/// when `fold` (ASCII and Unicode lowercase, when that keeps byte offsets).
fn whole_word(text: &str, value: &str, fold: bool) -> Option<(usize, usize)> {
    let (haystack, needle) = if fold {
        let (h, n) = (text.to_lowercase(), value.to_lowercase());
        // Lowercasing that changes lengths would misplace the cut.
        if h.len() != text.len() || n.len() != value.len() {
            return None;
        }
        (h, n)
    } else {
        (text.to_owned(), value.to_owned())
    };
    let mut from = 0;
    while let Some(found) = haystack.get(from..).and_then(|rest| rest.find(&needle)) {
        let start = from + found;
        let end = start + needle.len();
        let before = haystack.get(..start).and_then(|h| h.chars().next_back());
        let after = haystack.get(end..).and_then(|t| t.chars().next());
        let touches = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        if !touches(before) && !touches(after) {
            return Some((start, end));
        }
        from = start + haystack.get(start..)?.chars().next()?.len_utf8();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(payload: Value) -> Vec<String> {
        mapped_values(Some(&payload))
    }

    #[test]
    fn what_the_keys_carry_is_taken_out_once() {
        let v = values(json!({
            "city": "Boston", "party_size": 4, "other": "ignored", "open": true
        }));
        assert_eq!(v, ["Boston", "4"]);
        assert_eq!(
            without_mapped("book a table for 4 in Boston with parking", &v),
            "book a table for in with parking"
        );
        // Once: a second "4" is the request's own.
        assert_eq!(without_mapped("4 people at 4 pm", &v), "people at 4 pm");
    }

    #[test]
    fn only_whole_words_and_the_value_s_own_case_first() {
        let v = values(json!({"state": "IN", "name": "Ann"}));
        // "IN" as written, not the preposition; "Ann" not inside "Annapolis".
        assert_eq!(
            without_mapped("a table in IN near Annapolis", &v),
            "a table in near Annapolis"
        );
        let v = values(json!({"city": "new york"}));
        assert_eq!(without_mapped("a cab in New York", &v), "a cab in");
        assert_eq!(without_mapped("nothing here", &v), "nothing here");
    }

    #[test]
    fn no_payload_or_odd_values_take_nothing_out() {
        assert!(mapped_values(None).is_empty());
        assert!(mapped_values(Some(&json!("text"))).is_empty());
        let v = values(json!({"tags": ["aisle", 2, null], "x": "---", "long": "y".repeat(300)}));
        assert_eq!(v, ["aisle", "2"]);
        assert_eq!(without_mapped("İstanbul aisle", &v), "İstanbul");
    }
}
