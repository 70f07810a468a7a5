//! Validation straight into the caller's own type: JSON text is validated in
//! one pass, then its payload is deserialized into `T` with the defaults
//! supplied as it goes, so no `serde_json::Value` is built.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::probe::Name;
use crate::issue::Issue;
use crate::validate::core::edits::{AddedDefaults, Edits};
use crate::validate::core::schema::{CompiledSchema, SchemaCore};
use crate::validate::report::Report;

/// A message accepted by [`CompiledSchema::deserialize_slice`]: its
/// normalized payload as the caller's type, and the warnings validation gave.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Accepted<T> {
    /// The normalized payload, deserialized.
    pub payload: T,
    /// Every warning, ordered by path.
    pub warnings: Vec<Issue>,
}

/// Why [`CompiledSchema::deserialize_slice`] gave no value.
#[derive(Debug)]
#[non_exhaustive]
pub enum Refusal {
    /// The message is not valid for the schema: the full report (boxed:
    /// it is large beside the other variant).
    Invalid(Box<Report<'static>>),
    /// The message is valid, but the caller's type refused its payload
    /// (a field the type requires that the schema leaves optional, say).
    Mismatch(serde_json::Error),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Invalid(report) => {
                write!(f, "invalid message: {} error(s)", report.errors().len())?;
                if let Some(first) = report.errors().first() {
                    write!(f, ", first: {first}")?;
                }
                Ok(())
            }
            Refusal::Mismatch(error) => {
                write!(
                    f,
                    "valid message, but its payload does not fit the type: {error}"
                )
            }
        }
    }
}

impl std::error::Error for Refusal {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Refusal::Invalid(_) => None,
            Refusal::Mismatch(error) => Some(error),
        }
    }
}

impl CompiledSchema {
    /// Validates a message given as JSON bytes and, when it is valid,
    /// deserializes its normalized payload (defaults applied) into `T`.
    ///
    /// The text is read twice and no `Value` is built: once to validate
    /// (as [`CompiledSchema::is_valid_slice`] does), once into `T`, with
    /// each default handed to `T` as if the message had carried it. A
    /// message whose normalizing removes or rewrites members (a `null`
    /// optional value, `2.0` in an `integer` key) goes through the
    /// normalized map instead, with the same result.
    ///
    /// ```
    /// use sdsi::validate::Refusal;
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
    /// let text = br#"{"schema_id": "coffee_v1", "payload": {"size": "large"}}"#;
    /// let coffee = schema.deserialize_slice::<Coffee>(text)?.payload;
    /// assert_eq!((coffee.size.as_str(), coffee.shots), ("large", 1));
    ///
    /// let bad = br#"{"schema_id": "coffee_v1", "payload": {"size": 3}}"#;
    /// let Err(Refusal::Invalid(report)) = schema.deserialize_slice::<Coffee>(bad) else {
    ///     panic!("a number is not a size");
    /// };
    /// assert_eq!(report.errors()[0].path(), "/payload/size");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn deserialize_slice<T: DeserializeOwned>(
        &self,
        bytes: &[u8],
    ) -> Result<Accepted<T>, Refusal> {
        let report = self.validate_slice(bytes);
        if !report.is_valid() {
            return Err(Refusal::Invalid(Box::new(report.into_owned())));
        }
        let (problems, normalized) = report.into_parts();
        let warnings = problems.warnings().to_vec();
        let payload = match normalized {
            Some(normalized) => match normalized.text_plan() {
                Some(plan) => from_text(bytes, &self.core, plan),
                None => normalized.deserialize(),
            },
            None => Err(de::Error::custom("the valid message has no payload")),
        };
        payload
            .map(|payload| Accepted { payload, warnings })
            .map_err(Refusal::Mismatch)
    }
}

/// `T` from the `payload` member of validated text, defaults added.
fn from_text<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &SchemaCore,
    plan: &Edits,
) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let payload = de::Deserializer::deserialize_map(
        &mut de,
        FindPayload {
            schema,
            plan,
            marker: PhantomData,
        },
    )?;
    de.end()?;
    payload.ok_or_else(|| de::Error::custom("the valid message has no payload"))
}

/// Visits the message object and deserializes `T` from its `payload`.
struct FindPayload<'s, T> {
    schema: &'s SchemaCore,
    plan: &'s Edits,
    marker: PhantomData<T>,
}

impl<'de, T: DeserializeOwned> Visitor<'de> for FindPayload<'_, T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a structured payload message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut payload = None;
        while let Some(name) = map.next_key::<Name<'de>>()? {
            if name.0 == "payload" && payload.is_none() {
                payload = Some(map.next_value_seed(WithDefaults {
                    schema: self.schema,
                    plan: self.plan,
                    marker: PhantomData::<T>,
                })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(payload)
    }
}

/// Deserializes `T` from a payload object, handing it the defaults after
/// the members the text carries.
struct WithDefaults<'s, T> {
    schema: &'s SchemaCore,
    plan: &'s Edits,
    marker: PhantomData<T>,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for WithDefaults<'_, T> {
    type Value = T;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(PayloadDeserializer {
            inner: deserializer,
            schema: self.schema,
            plan: self.plan,
        })
    }
}

/// The payload object, seen by `T` as one map: the text's members, then the defaults.
struct PayloadDeserializer<'s, D> {
    inner: D,
    schema: &'s SchemaCore,
    plan: &'s Edits,
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for PayloadDeserializer<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(MembersThenDefaults {
            visitor,
            schema: self.schema,
            plan: self.plan,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct MembersThenDefaults<'s, V> {
    visitor: V,
    schema: &'s SchemaCore,
    plan: &'s Edits,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for MembersThenDefaults<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(DefaultsAfter {
            members: map,
            members_done: false,
            defaults: self.plan.added_defaults(self.schema),
            pending: None,
        })
    }
}

/// A payload's members, then one member per default the payload needs.
struct DefaultsAfter<'s, A> {
    members: A,
    members_done: bool,
    defaults: AddedDefaults<'s>,
    /// The default whose name was just handed out.
    pending: Option<&'s serde_json::Value>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for DefaultsAfter<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if !self.members_done {
            match self.members.next_key::<Name<'de>>()? {
                Some(name) => {
                    return seed
                        .deserialize(de::value::StrDeserializer::<A::Error>::new(&name.0))
                        .map(Some);
                }
                None => self.members_done = true,
            }
        }
        match self.defaults.next() {
            Some((name, default)) => {
                self.pending = Some(default);
                seed.deserialize(de::value::StrDeserializer::<A::Error>::new(name))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match self.pending.take() {
            Some(default) => seed
                .deserialize(default.clone())
                .map_err(<A::Error as de::Error>::custom),
            None => self.members.next_value_seed(seed),
        }
    }
}
