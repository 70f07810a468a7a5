//! `Normalized`: the payload a valid message stands for, with defaults
//! applied, `null` optional members left out and whole-number floats in
//! `integer` keys read as integers; built without copying the input.
//!
//! The validation pass records what normalizing would change (a [`Edits`]:
//! usually nothing, or a default or two). The `Normalized` a report holds
//! then reads through to the caller's message (the `Value` path) or
//! parses the validated text on first use (the bytes path), and copies
//! only when asked for an owned map. A message passed by value is
//! normalized in place.

use std::fmt;
use std::sync::OnceLock;

use serde::de::value::MapDeserializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::validate::core::edits::{AddedDefaults, Edits};
use crate::validate::core::schema::SchemaCore;

/// The normalized payload of a valid message: a read-only map of member
/// names to values.
///
/// [`CompiledSchema::validate`](crate::CompiledSchema::validate) hands one
/// that reads through to the message it was given (nothing is copied; the
/// few values normalizing adds or changes are held beside it), and
/// [`CompiledSchema::validate_slice`](crate::CompiledSchema::validate_slice)
/// one that parses the validated text the first time it is read. Read it
/// with [`get`](Normalized::get), [`iter`](Normalized::iter) or
/// `normalized["key"]` (a missing key reads as `null`), deserialize your own
/// type from it with [`deserialize`](Normalized::deserialize), or take an
/// owned [`Map`] with [`to_map`](Normalized::to_map) /
/// [`into_map`](Normalized::into_map).
///
/// Iteration gives the message's members in the message's order, then the
/// defaults added, in the template's order; serialization gives the order a
/// [`Map`] built from it would have. Two are equal when they hold the same
/// members, whatever their order.
#[derive(Clone)]
pub struct Normalized<'a> {
    repr: Repr<'a>,
}

#[derive(Clone)]
enum Repr<'a> {
    /// Reads through to a payload the caller owns.
    Borrowed {
        payload: &'a Map<String, Value>,
        schema: &'a SchemaCore,
        plan: Edits,
    },
    /// Validated JSON text, parsed on first read.
    Text {
        bytes: &'a [u8],
        schema: &'a SchemaCore,
        plan: Edits,
        parsed: OnceLock<Map<String, Value>>,
    },
    Owned(Map<String, Value>),
}

/// The value of a missing key, for `normalized["missing"]`.
static NULL: Value = Value::Null;

impl<'a> Normalized<'a> {
    pub(crate) fn borrowed(
        payload: &'a Map<String, Value>,
        schema: &'a SchemaCore,
        mut plan: Edits,
    ) -> Self {
        plan.read_integers(schema, payload);
        Self {
            repr: Repr::Borrowed {
                payload,
                schema,
                plan,
            },
        }
    }

    pub(crate) fn text(bytes: &'a [u8], schema: &'a SchemaCore, plan: Edits) -> Self {
        Self {
            repr: Repr::Text {
                bytes,
                schema,
                plan,
                parsed: OnceLock::new(),
            },
        }
    }

    pub(crate) fn owned(map: Map<String, Value>) -> Normalized<'static> {
        Normalized {
            repr: Repr::Owned(map),
        }
    }

    /// The value of member `name`, if the normalized payload has it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match &self.repr {
            Repr::Borrowed {
                payload,
                schema,
                plan,
            } => {
                let Some(index) = schema.lookup(name) else {
                    // Not a key of the schema: an unknown member kept under `Warn`.
                    return payload.get(name);
                };
                if let Some(integer) = plan.integer_of(index) {
                    return Some(integer);
                }
                if plan.adds_default(index) {
                    return schema.default_of(index).map(|(_, default)| default);
                }
                payload.get(name)
            }
            Repr::Text { .. } | Repr::Owned(_) => self.map().and_then(|map| map.get(name)),
        }
    }

    /// Whether the normalized payload has member `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// How many members the normalized payload has.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Borrowed {
                payload,
                schema,
                plan,
            } => {
                let dropped = plan.dropped_count();
                payload
                    .len()
                    .saturating_sub(dropped)
                    .saturating_add(plan.added_defaults(schema).count())
            }
            Repr::Text { .. } | Repr::Owned(_) => self.map().map_or(0, Map::len),
        }
    }

    /// Whether the normalized payload has no member.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every member: the message's, in its order, then the defaults added,
    /// in the template's order.
    pub fn iter(&self) -> Members<'_> {
        match &self.repr {
            Repr::Borrowed {
                payload,
                schema,
                plan,
            } => Members {
                inner: MembersInner::Borrowed {
                    payload: payload.iter(),
                    schema,
                    plan,
                    defaults: plan.added_defaults(schema),
                },
            },
            Repr::Text { .. } | Repr::Owned(_) => Members {
                inner: MembersInner::Map(self.map().map(Map::iter)),
            },
        }
    }

    /// An owned copy as a [`Map`].
    pub fn to_map(&self) -> Map<String, Value> {
        match &self.repr {
            Repr::Owned(map) => map.clone(),
            Repr::Text { .. } => self.map().cloned().unwrap_or_default(),
            Repr::Borrowed { .. } => self
                .iter()
                .map(|(name, value)| (name.to_owned(), value.clone()))
                .collect(),
        }
    }

    /// The normalized payload as an owned [`Map`], copied only if it reads
    /// through to a message the caller owns.
    pub fn into_map(self) -> Map<String, Value> {
        match self.repr {
            Repr::Owned(map) => map,
            Repr::Text { parsed, .. } if parsed.get().is_some() => {
                parsed.into_inner().unwrap_or_default()
            }
            Repr::Text {
                bytes,
                schema,
                plan,
                ..
            } => parse_text(bytes, schema, &plan),
            Repr::Borrowed { .. } => self.to_map(),
        }
    }

    /// An owned normalized payload, independent of the input.
    pub fn into_owned(self) -> Normalized<'static> {
        Normalized::owned(self.into_map())
    }

    /// Deserializes `T` from the normalized payload (a struct whose fields
    /// are the keys, a `HashMap`, ...), without building a `Value` first.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Coffee { size: String, shots: u8 }
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [
    ///         {"key_name": "size", "key_type": "string", "required": true,
    ///          "semantic_description": "Cup size: small, medium, large."},
    ///         {"key_name": "shots", "key_type": "integer", "required": false,
    ///          "default_value": 1, "semantic_description": "Espresso shots."}
    ///     ]
    /// }))?;
    /// let schema = CompiledSchema::new(&template)?;
    /// let message = json!({"schema_id": "coffee_v1", "payload": {"size": "large"}});
    /// let report = schema.validate(&message);
    /// let coffee: Coffee = report.normalized().ok_or("invalid")?.deserialize()?;
    /// assert_eq!((coffee.size.as_str(), coffee.shots), ("large", 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn deserialize<'de, T: Deserialize<'de>>(&'de self) -> Result<T, serde_json::Error> {
        T::deserialize(MapDeserializer::<_, serde_json::Error>::new(self.iter()))
    }

    /// The plan of a `Text` form not yet parsed whose normalizing only adds
    /// defaults: `T` can then be read straight from the text.
    pub(crate) fn text_plan(&self) -> Option<&Edits> {
        match &self.repr {
            Repr::Text { plan, parsed, .. }
                if parsed.get().is_none() && plan.only_adds_defaults() =>
            {
                Some(plan)
            }
            _ => None,
        }
    }

    /// The map behind a `Text` (parsed now if not yet) or `Owned` form.
    fn map(&self) -> Option<&Map<String, Value>> {
        match &self.repr {
            Repr::Owned(map) => Some(map),
            Repr::Text {
                bytes,
                schema,
                plan,
                parsed,
            } => Some(parsed.get_or_init(|| parse_text(bytes, schema, plan))),
            Repr::Borrowed { .. } => None,
        }
    }

    /// Whether serialization must sort the members (serde_json's maps are
    /// sorted unless its `preserve_order` feature is on).
    fn sorts(&self) -> bool {
        match &self.repr {
            Repr::Borrowed { schema, .. } => schema.maps_are_sorted(),
            Repr::Text { .. } | Repr::Owned(_) => false,
        }
    }
}

/// The normalized payload of validated text: the text's `payload` member,
/// normalized by `plan`. The text was validated, so it parses; were it not,
/// the result would be empty rather than a panic.
fn parse_text(bytes: &[u8], schema: &SchemaCore, plan: &Edits) -> Map<String, Value> {
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(bytes) else {
        return Map::new();
    };
    let Some(Value::Object(mut payload)) = message.remove("payload") else {
        return Map::new();
    };
    plan.apply(schema, &mut payload);
    payload
}

/// The members of a [`Normalized`], from [`Normalized::iter`].
pub struct Members<'n> {
    inner: MembersInner<'n>,
}

enum MembersInner<'n> {
    Borrowed {
        payload: serde_json::map::Iter<'n>,
        schema: &'n SchemaCore,
        plan: &'n Edits,
        defaults: AddedDefaults<'n>,
    },
    Map(Option<serde_json::map::Iter<'n>>),
}

impl<'n> Iterator for Members<'n> {
    type Item = (&'n str, &'n Value);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            MembersInner::Map(members) => members
                .as_mut()?
                .next()
                .map(|(name, value)| (name.as_str(), value)),
            MembersInner::Borrowed {
                payload,
                schema,
                plan,
                defaults,
            } => {
                let changes = !plan.only_adds_defaults();
                for (name, value) in payload.by_ref() {
                    if !changes {
                        return Some((name, value));
                    }
                    let Some(index) = schema.lookup(name) else {
                        return Some((name, value));
                    };
                    if plan.is_dropped(index) {
                        continue;
                    }
                    return Some((name, plan.integer_of(index).unwrap_or(value)));
                }
                defaults.next()
            }
        }
    }
}

impl std::ops::Index<&str> for Normalized<'_> {
    type Output = Value;

    /// The member's value, or `null` when there is none (never a panic).
    fn index(&self, name: &str) -> &Value {
        self.get(name).unwrap_or(&NULL)
    }
}

impl PartialEq for Normalized<'_> {
    fn eq(&self, other: &Normalized<'_>) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(name, value)| other.get(name) == Some(value))
    }
}

impl PartialEq<Map<String, Value>> for Normalized<'_> {
    fn eq(&self, other: &Map<String, Value>) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(name, value)| other.get(name) == Some(value))
    }
}

impl fmt::Debug for Normalized<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Normalized<'_> {
    /// A JSON object, members in the order a [`Map`] of them would hold.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.sorts() {
            let mut members: Vec<(&str, &Value)> = self.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            serializer.collect_map(members)
        } else {
            serializer.collect_map(self.iter())
        }
    }
}

impl<'a> IntoIterator for &'a Normalized<'_> {
    type Item = (&'a str, &'a Value);
    type IntoIter = Members<'a>;

    fn into_iter(self) -> Members<'a> {
        self.iter()
    }
}
