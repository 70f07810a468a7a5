//! `KeyType`, a key's value type, and `JsonKind`, the JSON type of a value,
//! with the JSON Schema 2020-12 number rules both follow.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
#[error("unknown key type {}{}", crate::issue::quote::quote_short(.name), .hint.map(|h| format!(" (did you mean {:?}?)", h.as_str())).unwrap_or_default())]
#[non_exhaustive]
pub struct UnknownKeyType {
    /// The rejected name.
    pub name: String,
    /// The type name the author most likely meant.
    pub hint: Option<KeyType>,
}

impl KeyType {
    /// Every key type, in declaration order.
    pub const ALL: &'static [KeyType] = &[
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
        if let Some(exact) = KeyType::ALL.iter().copied().find(|t| t.as_str() == lower) {
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
            .iter()
            .copied()
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
