//! `KeyName`: a snake_case key name, and the name the draft reserves.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The name of the key the draft reserves in every template (§4.3).
pub const OTHER_KEY: &str = "other";

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
#[error(
    "key name {} is not snake_case (lowercase ascii words joined by single underscores)",
    crate::issue::quote::quote_short(.name)
)]
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
