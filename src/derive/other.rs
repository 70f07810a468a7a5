//! `Other`: what a payload's reserved `other` key holds, as a struct field.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The reserved `other` key's value as a field of a derived struct: the
/// fragments a client could not map to a key.
///
/// The validator accepts `other` as one string or an array of strings,
/// whatever type the template declares for it (§4.3), so a `String` or a
/// `Vec<String>` field would refuse half of the valid messages; this type
/// reads both. It writes one fragment as a string and any other number as
/// an array.
///
/// ```
/// use sdsi::derive::Other;
///
/// let one: Other = serde_json::from_str(r#""window seat""#)?;
/// let two: Other = serde_json::from_str(r#"["window seat", "vegetarian meal"]"#)?;
/// assert_eq!(one.fragments(), ["window seat"]);
/// assert_eq!(two.fragments().len(), 2);
/// assert_eq!(serde_json::to_string(&one)?, r#""window seat""#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Other(Vec<String>);

impl Other {
    /// The fragments, in the order the payload gave them.
    pub fn fragments(&self) -> &[String] {
        &self.0
    }

    /// Takes the fragments out.
    pub fn into_fragments(self) -> Vec<String> {
        self.0
    }

    /// Whether there is no fragment.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Other {
    fn from(fragment: String) -> Self {
        Self(vec![fragment])
    }
}

impl From<&str> for Other {
    fn from(fragment: &str) -> Self {
        Self(vec![fragment.to_owned()])
    }
}

impl From<Vec<String>> for Other {
    fn from(fragments: Vec<String>) -> Self {
        Self(fragments)
    }
}

impl Serialize for Other {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => serializer.serialize_str(one),
            many => many.serialize(serializer),
        }
    }
}

/// The wire's two forms.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a string or an array of strings")]
enum Wire {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for Other {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Wire::deserialize(deserializer)? {
            Wire::One(fragment) => Self(vec![fragment]),
            Wire::Many(fragments) => Self(fragments),
        })
    }
}
