//! Text from the other side (a remote card or part, a tool result, an
//! imported schema, a client's payload) quoted into an issue's message with
//! a bound: a peer that sends a megabyte-long name must not get a megabyte
//! back in every message about it, nor make one report cost gigabytes.

use serde_json::Value;

/// The most characters of a text quoted whole.
const SHORT: usize = 24;

/// `text` quoted for a message: whole (as Rust's `{:?}` writes it, so
/// control characters are escaped) when it has at most 24 characters;
/// otherwise its first 24 and its length, `"abc…"… (300 characters)`.
pub(crate) fn quote_short(text: &str) -> String {
    match text.char_indices().nth(SHORT) {
        None => format!("{text:?}"),
        Some((cut, _)) => {
            let head = text.get(..cut).unwrap_or_default();
            format!("{head:?}… ({} characters)", text.chars().count())
        }
    }
}

/// The most names [`quote_list`] writes.
#[cfg(feature = "a2a")]
const LISTED: usize = 8;

/// Names for a message, joined by commas: the first eight, each through
/// [`quote_short`], then how many more there are.
#[cfg(feature = "a2a")]
pub(crate) fn quote_list<'t>(names: impl IntoIterator<Item = &'t str>) -> String {
    let mut names = names.into_iter();
    let mut list: Vec<String> = names.by_ref().take(LISTED).map(quote_short).collect();
    let more = names.count();
    if more > 0 {
        list.push(format!("{more} more"));
    }
    list.join(", ")
}

/// A JSON value for a message: a string through [`quote_short`], any other
/// value by its kind (`a number`, `an object`), never its content.
pub(crate) fn describe_short(value: &Value) -> String {
    match value {
        Value::String(text) => quote_short(text),
        other => json_kind(other).to_owned(),
    }
}

/// What kind of JSON value `value` is, with its article (`a string`).
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_text_is_quoted_whole_and_long_text_cut() {
        assert_eq!(quote_short("origin"), "\"origin\"");
        assert_eq!(quote_short("a\nb"), "\"a\\nb\"");
        let exact = "x".repeat(SHORT);
        assert_eq!(quote_short(&exact), format!("{exact:?}"));
        let long = "é".repeat(1000);
        assert_eq!(
            quote_short(&long),
            format!("{:?}… (1000 characters)", "é".repeat(SHORT))
        );
    }

    #[cfg(feature = "a2a")]
    #[test]
    fn lists_stop_after_eight() {
        assert_eq!(quote_list(["a", "b"]), "\"a\", \"b\"");
        let many: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        assert_eq!(
            quote_list(many.iter().map(String::as_str)),
            "\"0\", \"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", 12 more"
        );
    }

    #[test]
    fn values_show_their_kind_only() {
        assert_eq!(describe_short(&json!("ab")), "\"ab\"");
        assert_eq!(describe_short(&json!({"a": [1, 2]})), "an object");
        assert_eq!(describe_short(&json!(7)), "a number");
        assert_eq!(describe_short(&json!(null)), "null");
    }
}
