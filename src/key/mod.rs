//! Key names, key types and key definitions: the building blocks of a template.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

mod sensitivity;

pub use sensitivity::{SENSITIVE_MEMBER, Sensitivity};

/// The name of the key the draft reserves in every template (§4.3).
pub const OTHER_KEY: &str = "other";

/// The wire flag of a patch key on trial: `"experimental": true`.
pub const EXPERIMENTAL_MEMBER: &str = "experimental";

/// The wire flag of a deprecated key: `"deprecated": true`.
pub const DEPRECATED_MEMBER: &str = "deprecated";

/// A key name: snake_case, `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
///
/// Deserialization goes through the same check, so an invalid name cannot
/// exist in a typed value.
///
/// ```
/// use sdsi::KeyName;
/// assert_eq!(KeyName::new("cabin_class")?.as_str(), "cabin_class");
/// assert!(KeyName::new("CabinClass").is_err());
/// # Ok::<(), sdsi::key::InvalidKeyName>(())
/// ```
// Shared, not boxed: a template is copied into every schema compiled from
// it and into every patch stack's layers, and each compiled key keeps its
// name, so a clone should not allocate.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyName(Arc<str>);

/// The error for a string that is not a snake_case key name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key name {name:?} is not snake_case (lowercase ascii words joined by single underscores)")]
#[non_exhaustive]
pub struct InvalidKeyName {
    /// The rejected name.
    pub name: String,
}

impl KeyName {
    /// Checks `name` and wraps it.
    pub fn new(name: &str) -> Result<Self, InvalidKeyName> {
        name.parse()
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name, shared with this value (no copy).
    pub(crate) fn shared(&self) -> Arc<str> {
        Arc::clone(&self.0)
    }

    /// Whether this is the reserved `other` key.
    pub fn is_other(&self) -> bool {
        &*self.0 == OTHER_KEY
    }
}

/// Whether `name` matches `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
pub(crate) fn is_snake_case(name: &str) -> bool {
    let bytes = name.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    let mut previous_underscore = false;
    for &b in bytes {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => previous_underscore = false,
            b'_' if !previous_underscore => previous_underscore = true,
            _ => return false,
        }
    }
    !previous_underscore
}

/// `bookTitle` → `book_title`, `URLPath` → `url_path`, `review-chunk` →
/// `review_chunk`; `None` for names with non-ascii letters, or that do not
/// start with a letter once separators are dropped.
#[cfg(feature = "export")]
pub(crate) fn snake_case(name: &str) -> Option<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() {
                let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
                let next = chars.get(i + 1).copied();
                let boundary = match previous {
                    Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                    Some(p) if p.is_ascii_uppercase() => {
                        next.is_some_and(|n| n.is_ascii_lowercase())
                    }
                    _ => false,
                };
                if boundary && !out.ends_with('_') && !out.is_empty() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        } else if c.is_ascii() {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        } else {
            return None;
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    is_snake_case(&out).then_some(out)
}

impl FromStr for KeyName {
    type Err = InvalidKeyName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        if is_snake_case(name) {
            Ok(Self(name.into()))
        } else {
            Err(InvalidKeyName {
                name: name.to_owned(),
            })
        }
    }
}

impl fmt::Display for KeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.0)
    }
}

impl fmt::Debug for KeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl AsRef<str> for KeyName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Serialize for KeyName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// A key's value type: the JSON Schema 2020-12 type names, with their semantics.
///
/// `integer` accepts any number with a zero fractional part (`2.0`), `number`
/// accepts integers, and `boolean` is never a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyType {
    /// A JSON string.
    String,
    /// A JSON number with a zero fractional part.
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
    /// The JSON `null`.
    Null,
}

/// The error for a `key_type` that is not a JSON Schema type name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown key type {name:?}{}", .hint.map(|h| format!(" (did you mean {:?}?)", h.as_str())).unwrap_or_default())]
#[non_exhaustive]
pub struct UnknownKeyType {
    /// The rejected name.
    pub name: String,
    /// The type name the author most likely meant.
    pub hint: Option<KeyType>,
}

impl KeyType {
    /// Every key type, in declaration order.
    pub const ALL: [KeyType; 7] = [
        KeyType::String,
        KeyType::Integer,
        KeyType::Number,
        KeyType::Boolean,
        KeyType::Array,
        KeyType::Object,
        KeyType::Null,
    ];

    /// The JSON Schema name of the type.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyType::String => "string",
            KeyType::Integer => "integer",
            KeyType::Number => "number",
            KeyType::Boolean => "boolean",
            KeyType::Array => "array",
            KeyType::Object => "object",
            KeyType::Null => "null",
        }
    }

    /// Whether `value` is an instance of this type under JSON Schema 2020-12 rules.
    pub fn matches(self, value: &Value) -> bool {
        self.accepts(JsonKind::of(value))
    }

    /// Whether a value of JSON type `kind` is an instance of this type.
    pub fn accepts(self, kind: JsonKind) -> bool {
        matches!(
            (self, kind),
            (KeyType::String, JsonKind::String)
                | (KeyType::Integer, JsonKind::Integer)
                | (KeyType::Number, JsonKind::Integer | JsonKind::Number)
                | (KeyType::Boolean, JsonKind::Boolean)
                | (KeyType::Array, JsonKind::Array)
                | (KeyType::Object, JsonKind::Object)
                | (KeyType::Null, JsonKind::Null)
        )
    }

    /// The type name a template author most likely meant by `name`.
    fn hint_for(name: &str) -> Option<KeyType> {
        let lower = name.trim().to_ascii_lowercase();
        if let Some(exact) = KeyType::ALL.into_iter().find(|t| t.as_str() == lower) {
            return Some(exact);
        }
        Some(match lower.as_str() {
            "str" | "text" | "char" | "date" | "datetime" | "uuid" => KeyType::String,
            "int" | "long" | "short" | "i32" | "i64" | "u32" | "u64" | "uint" => KeyType::Integer,
            "float" | "double" | "decimal" | "real" | "f32" | "f64" | "numeric" => KeyType::Number,
            "bool" => KeyType::Boolean,
            "list" | "vec" | "tuple" | "set" => KeyType::Array,
            "dict" | "map" | "struct" | "record" | "hash" => KeyType::Object,
            "none" | "nil" => KeyType::Null,
            _ => return None,
        })
    }
}

impl FromStr for KeyType {
    type Err = UnknownKeyType;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        KeyType::ALL
            .into_iter()
            .find(|t| t.as_str() == name)
            .ok_or_else(|| UnknownKeyType {
                name: name.to_owned(),
                hint: KeyType::hint_for(name),
            })
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One key of a schema template (§4.1).
///
/// `default_value` keeps the wire's distinction between an absent member and an
/// explicit `null`: `Some(Value::Null)` is an explicit `"default_value": null`,
/// which means "no default", as in the draft's Figure 2.
///
/// Deserializing checks every member as a template's keys are checked, and
/// reports every problem (the `Deserialize` impl lives in `template.rs`,
/// beside those checks). [`KeyDefinition::sensitivity`] reads the §7 marker.
#[derive(Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct KeyDefinition {
    /// The key's snake_case name.
    pub key_name: KeyName,
    /// The key's value type.
    pub key_type: KeyType,
    /// Whether the key must be present in every payload.
    pub required: bool,
    /// The value applied when an optional key is omitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_value: Option<Value>,
    /// The business meaning of the key, its accepted values and mapping examples.
    pub semantic_description: String,
    /// Members this crate does not know, kept so that a round trip loses nothing.
    #[serde(flatten, serialize_with = "key_extra")]
    pub extra: IndexMap<String, Value>,
}

// By hand: most keys have no extra members, and cloning an empty `IndexMap`
// still costs a hash table's worth of work (a tenth of copying a template).
impl Clone for KeyDefinition {
    fn clone(&self) -> Self {
        Self {
            key_name: self.key_name.clone(),
            key_type: self.key_type,
            required: self.required,
            default_value: self.default_value.clone(),
            semantic_description: self.semantic_description.clone(),
            extra: if self.extra.is_empty() {
                IndexMap::with_hasher(self.extra.hasher().clone())
            } else {
                self.extra.clone()
            },
        }
    }
}

/// A whole-number float (`2.0`, `-0.0`, `1e19`) as the integer it is, when
/// an `i64` or `u64` holds it exactly; `None` for anything else (an integer
/// already, a fraction, or a whole number beyond 64 bits). JSON Schema calls
/// `2.0` an integer; a Rust reader of the normalized payload wants
/// `as_i64()` to work on it.
pub(crate) fn whole_number(value: &Value) -> Option<Value> {
    let Value::Number(number) = value else {
        return None;
    };
    if number.is_i64() || number.is_u64() {
        return None;
    }
    number.as_f64().and_then(float_as_integer)
}

/// A whole `float` as the `i64` or `u64` holding it exactly; `None` for a
/// fraction or a whole number beyond 64 bits.
pub(crate) fn float_as_integer(float: f64) -> Option<Value> {
    if float.fract() != 0.0 {
        return None;
    }
    // The bounds are powers of two, so these comparisons are exact.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&float) {
        Some(Value::from(float as i64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        Some(Value::from(float as u64))
    } else {
        None
    }
}

/// A key's extra members, less any named like a real one (refused by the
/// template check as `shadowed_member`).
fn key_extra<S: serde::Serializer>(
    extra: &IndexMap<String, Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    crate::template::unshadowed(extra, &crate::template::KEY_MEMBERS, serializer)
}

impl KeyDefinition {
    /// A key definition with no default and no extra members.
    pub fn new(
        key_name: KeyName,
        key_type: KeyType,
        required: bool,
        semantic_description: impl Into<String>,
    ) -> Self {
        Self {
            key_name,
            key_type,
            required,
            default_value: None,
            semantic_description: semantic_description.into(),
            extra: IndexMap::new(),
        }
    }

    /// Sets the default value.
    pub fn with_default(mut self, value: Value) -> Self {
        self.default_value = Some(value);
        self
    }

    /// Whether the key carries `"experimental": true` (a patch key on trial, §6.2.3).
    pub fn is_experimental(&self) -> bool {
        self.extra.get(EXPERIMENTAL_MEMBER) == Some(&Value::Bool(true))
    }

    /// Whether the key carries `"deprecated": true` (accepted with a warning).
    pub fn is_deprecated(&self) -> bool {
        self.extra.get(DEPRECATED_MEMBER) == Some(&Value::Bool(true))
    }

    /// The default that applies: `None` when absent or an explicit `null`.
    pub fn effective_default(&self) -> Option<&Value> {
        self.default_value.as_ref().filter(|v| !v.is_null())
    }
}

/// The JSON type of a value, as named in messages and in a
/// `type_mismatch` issue's [`found`](crate::Issue::found).
///
/// A number with a zero fractional part (`2.0`) is an `Integer`, as in JSON
/// Schema 2020-12.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number with a zero fractional part.
    Integer,
    /// A number with a fractional part.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonKind {
    /// The kind of a parsed value.
    pub fn of(value: &Value) -> Self {
        match value {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Boolean,
            Value::Number(n) if n.is_i64() || n.is_u64() => JsonKind::Integer,
            Value::Number(n) => Self::of_float(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }

    /// A float is an integer when its fractional part is zero (JSON Schema 2020-12).
    pub(crate) fn of_float(f: f64) -> Self {
        if f.fract() == 0.0 {
            JsonKind::Integer
        } else {
            JsonKind::Number
        }
    }

    /// The name used in messages: `null`, `boolean`, `integer`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            JsonKind::Null => "null",
            JsonKind::Boolean => "boolean",
            JsonKind::Integer => "integer",
            JsonKind::Number => "number",
            JsonKind::String => "string",
            JsonKind::Array => "array",
            JsonKind::Object => "object",
        }
    }
}

impl fmt::Display for JsonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn snake_case_rule() {
        for good in [
            "a",
            "origin",
            "cabin_class",
            "a1",
            "x_1_y",
            "eye_size_scale",
        ] {
            assert!(is_snake_case(good), "{good}");
        }
        for bad in [
            "",
            "A",
            "_a",
            "a_",
            "a__b",
            "1a",
            "cabinClass",
            "a-b",
            "a b",
            "é",
        ] {
            assert!(!is_snake_case(bad), "{bad}");
        }
    }

    #[test]
    fn key_name_error_text() {
        let err = KeyName::new("Bad").unwrap_err();
        assert_eq!(
            err.to_string(),
            "key name \"Bad\" is not snake_case (lowercase ascii words joined by single underscores)"
        );
    }

    #[test]
    fn key_name_deserialize_checks() {
        assert!(serde_json::from_value::<KeyName>(json!("ok_name")).is_ok());
        assert!(serde_json::from_value::<KeyName>(json!("NotOk")).is_err());
    }

    #[test]
    fn type_hints() {
        let err = "float".parse::<KeyType>().unwrap_err();
        assert_eq!(err.hint, Some(KeyType::Number));
        assert_eq!(
            err.to_string(),
            "unknown key type \"float\" (did you mean \"number\"?)"
        );
        assert_eq!(
            "String".parse::<KeyType>().unwrap_err().hint,
            Some(KeyType::String)
        );
        assert_eq!("widget".parse::<KeyType>().unwrap_err().hint, None);
        assert_eq!(
            "widget".parse::<KeyType>().unwrap_err().to_string(),
            "unknown key type \"widget\""
        );
    }

    #[test]
    fn json_schema_type_semantics() {
        assert!(KeyType::Integer.matches(&json!(2.0)));
        assert!(KeyType::Integer.matches(&json!(-7)));
        assert!(!KeyType::Integer.matches(&json!(2.5)));
        assert!(KeyType::Number.matches(&json!(3)));
        assert!(!KeyType::Number.matches(&json!(true)));
        assert!(!KeyType::Integer.matches(&json!("1")));
        assert!(KeyType::Null.matches(&Value::Null));
        assert!(!KeyType::String.matches(&Value::Null));
    }
}
