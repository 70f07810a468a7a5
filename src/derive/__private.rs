//! What the output of `#[derive(Template)]` calls. Not an API: hidden from
//! the docs, and free to change in any release along with the derive.

use serde::Serialize;
use serde_json::Value;

use super::other::Other;
use crate::key::{KeyDefinition, KeyName, KeyType, OTHER_KEY};
use crate::template::is_other_value;

/// The description of an `other` key the struct does not declare, in the
/// words of the draft's Figure 2.
const OTHER_DESCRIPTION: &str = "Escape valve for unstructured semantic fragments that cannot be mapped to existing keys: a string, or an array of strings for several.";

/// One key of a derived template: `doc` is the field's doc comment, `more`
/// what its type adds (an enum's values, a struct's members).
///
/// A default is kept only on an optional key, and only when its JSON fits
/// the key type, so the key is always valid; `None` is the JSON `null`
/// ("no default"). Gives `None` for a name that is not snake_case, which the
/// derive refuses when it expands, so that never happens.
pub fn key(
    name: &str,
    key_type: KeyType,
    required: bool,
    doc: &str,
    more: Option<String>,
    default: Option<Value>,
) -> Option<KeyDefinition> {
    let key_name = KeyName::new(name).ok()?;
    let description = match more {
        Some(more) => format!("{doc} {more}"),
        None => doc.to_owned(),
    };
    let is_other = key_name.is_other();
    let mut key = KeyDefinition::new(key_name, key_type, required, description);
    key.default_value = default.filter(|default| {
        let fits = if is_other {
            is_other_value(default)
        } else {
            key_type.matches(default)
        };
        !required && !default.is_null() && fits
    });
    Some(key)
}

/// The reserved `other` key: optional, a string (the validator takes an
/// array of strings as well), described by the field's doc comment when the
/// struct declares one, by the draft's words otherwise.
pub fn other_key(doc: Option<&str>) -> Option<KeyDefinition> {
    let name = KeyName::new(OTHER_KEY).ok()?;
    Some(KeyDefinition::new(
        name,
        KeyType::String,
        false,
        doc.unwrap_or(OTHER_DESCRIPTION),
    ))
}

/// A default's JSON, or `None` when serde_json cannot write it (a map with
/// keys that are not strings, say): the key is then optional with no default.
pub fn default_value<T: Serialize + ?Sized>(value: &T) -> Option<Value> {
    serde_json::to_value(value).ok()
}

/// What a nested struct adds to its key's description: its members, each
/// with its key type, as the payload must give them.
pub fn members(members: &[(&str, KeyType, bool)]) -> String {
    if members.is_empty() {
        return "An object with no members.".to_owned();
    }
    let listed: Vec<String> = members
        .iter()
        .map(|(name, key_type, required)| {
            if *required {
                format!("{name} ({key_type})")
            } else {
                format!("{name} ({key_type}, optional)")
            }
        })
        .collect();
    format!("An object with members: {}.", listed.join(", "))
}

/// What a unit-only enum adds to its key's description: the values, as
/// JSON strings, each with its variant's doc comment when it has one; and,
/// when a `#[serde(other)]` variant takes every other name (`other` is its
/// doc comment, maybe empty), that any other value is accepted.
pub fn values(values: &[(&str, &str)], other: Option<&str>) -> String {
    let listed: Vec<String> = values
        .iter()
        .map(|(value, doc)| with_doc(Value::from(*value).to_string(), doc))
        .collect();
    let mut text = format!("One of: {}.", listed.join(", "));
    if let Some(doc) = other {
        text.push(' ');
        text.push_str(&with_doc("Any other value is accepted".to_owned(), doc));
        text.push('.');
    }
    text
}

/// `text`, followed by `doc` in parentheses when there is one.
fn with_doc(text: String, doc: &str) -> String {
    if doc.is_empty() {
        text
    } else {
        format!("{text} ({doc})")
    }
}

/// The type of a struct's `other` field with a serde default.
#[diagnostic::on_unimplemented(
    message = "the reserved key `other` takes a string or an array of strings: declare the field as `sdsi::derive::Other`, not `{Self}`",
    label = "not `Other` or `Option<Other>`"
)]
pub trait OtherField {}
impl OtherField for Other {}
impl OtherField for Option<Other> {}

/// The type of a struct's `other` field without a serde default.
#[diagnostic::on_unimplemented(
    message = "the reserved key `other` is optional and takes a string or an array of strings: declare the field as `Option<sdsi::derive::Other>`, not `{Self}`",
    label = "not `Option<Other>`",
    note = "or as `sdsi::derive::Other` with `#[serde(default)]`"
)]
pub trait OptionalOther {}
impl OptionalOther for Option<Other> {}

/// Compiles only for an `other` field's type with a default.
pub const fn assert_other<T: OtherField + ?Sized>() {}

/// Compiles only for an `other` field's type without a default.
pub const fn assert_optional_other<T: OptionalOther + ?Sized>() {}
