//! Serde readers of single values that every serde-driven path shares:
//! `Probe` reduces a value to its `Shape` as it streams past,
//! `UnknownValue` reads the value of a member the schema does not define,
//! and `Name` reads a member name without copying it when it can.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::skip::Skip;
use crate::key::JsonKind;
use crate::validate::core::check::Check;
use crate::validate::core::options::UnknownKeys;
use crate::validate::core::schema::SchemaCore;
use crate::validate::core::shape::{ContainerShape, Shape};

/// A member name, borrowed from the input when it has no escapes.
pub(crate) struct Name<'de>(pub(crate) Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Name<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Name(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Name(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Name(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// Reduces a value to its [`Shape`] while it streams past, allocating nothing.
#[derive(Clone, Copy)]
pub(crate) struct Probe {
    /// Depth beyond which nesting is not followed (the limit plus one).
    pub(crate) cap: usize,
    /// Whether to find the first non-string element of an array (only `other` needs it).
    pub(crate) track_strings: bool,
}

/// The value of a member the schema does not define: read either way (what
/// `serde_json::Value` refuses, this refuses), and under
/// [`UnknownKeys::Warn`], which keeps the member, reduced to its shape, so
/// it is held to the depth limit like a key's value.
pub(crate) struct UnknownValue<'s>(pub(crate) &'s SchemaCore);

impl<'de> DeserializeSeed<'de> for UnknownValue<'_> {
    type Value = Option<Shape>;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<Shape>, D::Error> {
        match self.0.options.unknown_keys {
            UnknownKeys::Warn => Probe {
                cap: self.0.options.limits.max_depth.saturating_add(1),
                track_strings: false,
            }
            .deserialize(deserializer)
            .map(Some),
            UnknownKeys::Reject => Skip::deserialize(deserializer).map(|_| None),
        }
    }
}

impl Probe {
    /// The probe for the value of the schema's key number `index`.
    pub(crate) fn for_key(schema: &SchemaCore, index: usize) -> Self {
        Probe {
            cap: schema.options.limits.max_depth.saturating_add(1),
            track_strings: schema
                .keys
                .get(index)
                .is_some_and(|k| k.check == Check::Other),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Probe {
    type Value = Shape;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Shape, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Probe {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::scalar(JsonKind::Boolean))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::scalar(JsonKind::Integer))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::scalar(JsonKind::Integer))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Shape, E> {
        Ok(Shape::float(v))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::scalar(JsonKind::String))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::scalar(JsonKind::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut shape = ContainerShape::array(self.track_strings);
        let child = Probe {
            cap: self.cap.saturating_sub(1),
            track_strings: false,
        };
        loop {
            let element = if self.cap > 1 || self.track_strings {
                seq.next_element_seed(child)?
            } else {
                seq.next_element::<Skip>()?
                    .map(|_| Shape::scalar(JsonKind::Null))
            };
            let Some(element) = element else { break };
            shape.child(&element);
        }
        Ok(shape.finish(self.cap))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut shape = ContainerShape::object();
        let child = Probe {
            cap: self.cap.saturating_sub(1),
            track_strings: false,
        };
        while map.next_key::<Skip>()?.is_some() {
            let value = if self.cap > 1 {
                map.next_value_seed(child)?
            } else {
                map.next_value::<Skip>()
                    .map(|_| Shape::scalar(JsonKind::Null))?
            };
            shape.child(&value);
        }
        Ok(shape.finish(self.cap))
    }
}
