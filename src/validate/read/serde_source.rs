//! Validation from any serde source (`is_valid_from`, `problems_from`):
//! the message read member by member through seeds that classify names as
//! they arrive and reduce values to shapes, building no `Value`. The bytes
//! path uses the same seeds when the scanner is unsure.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::probe::{Probe, UnknownValue};
use super::skip::{Skip, drain_seq};
use super::stream::{Payload, STOPPED, Stream};
use crate::validate::core::edits::Checked;
use crate::validate::core::outcome::{Collect, Outcome, Verdict, finish_problems};
use crate::validate::core::pass::{Pass, Source, ValueOrShape, check_schema_id};
use crate::validate::core::schema::CompiledSchema;

impl CompiledSchema {
    /// Whether a message read from any serde [`Deserializer`](de::Deserializer)
    /// is valid: one pass, no `Value` built. For messages held in another
    /// form than JSON text (another language's objects, a binary format),
    /// read through the deserializer that form has. Equal to
    /// [`CompiledSchema::is_valid`] on the same message as a `Value`
    /// (`tests/it/properties.rs` checks it with `&Value` as the source), where
    /// a repeated member counts once, its last occurrence.
    ///
    /// `Ok(None)` when one pass cannot settle it: a member repeated, more
    /// payload members than [`Limits::max_keys`](crate::validate::Limits::max_keys),
    /// or a payload member's value nested deeper than
    /// [`Limits::max_depth`](crate::validate::Limits::max_depth) (its depth
    /// counts every occurrence of a name repeated inside it, where a `Value`
    /// keeps the last one only, so only the parsed value can tell).
    /// Read the message into a `Value` and call `is_valid` then. The
    /// deserializer's own errors are returned as they are.
    ///
    /// Only the text of the message's and the payload's member names and of
    /// `schema_id` is read: of a string inside a payload member's value (a
    /// member name in there included) only its being a string counts, so a
    /// deserializer whose strings are costly to read may hand `""` there
    /// (a property test checks that blanking them changes no answer).
    ///
    /// A deserializer that hands numbers over as maps (serde_json's own,
    /// built with its `arbitrary_precision` feature) is not such a source:
    /// use [`CompiledSchema::is_valid_slice`] for JSON text.
    pub fn is_valid_from<'de, D: de::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Option<bool>, D::Error> {
        self.verdict_from(deserializer, false)
    }

    /// [`CompiledSchema::is_valid_from`] for a source whose objects cannot
    /// repeat a member name (a map type: another language's dict, a
    /// `Value`): it stops reading at the first error, as nothing later can
    /// undo it. So the rest of the message is not read (a deserializer
    /// error further on is not seen), and over a source that does repeat a
    /// member after its first error, the answer is that of the first
    /// occurrence, which a later one could have replaced: such a source
    /// needs `is_valid_from`. For the same reason a value nested deeper than
    /// the limit is an error at once, not left to the `Value` path (no
    /// repeated name inside it can have made it look deeper).
    pub fn is_valid_from_unique<'de, D: de::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Option<bool>, D::Error> {
        self.verdict_from(deserializer, true)
    }

    fn verdict_from<'de, D: de::Deserializer<'de>>(
        &self,
        deserializer: D,
        stop_early: bool,
    ) -> Result<Option<bool>, D::Error> {
        // A verdict that fails fast makes the pass return `Break` at the
        // first error, which ends the read (see `stop`).
        let verdict = Verdict {
            valid: true,
            fail_fast: stop_early,
        };
        // A source that promises unique names is taken at its word.
        let source = if stop_early {
            Source::UniqueNames
        } else {
            Source::Text
        };
        let mut stream = Stream::new(&self.core, verdict, source);
        match MessageSeed(&mut stream).deserialize(deserializer) {
            Err(_) if stream.stopped => return Ok(Some(false)),
            Err(error) => return Err(error),
            Ok(()) => {}
        }
        if stream.fallback {
            return Ok(None);
        }
        stream.conclude();
        Ok(Some(stream.out.valid))
    }

    /// Every problem of a message read from any serde
    /// [`Deserializer`](de::Deserializer), in one pass, building no `Value`:
    /// the errors and warnings [`CompiledSchema::validate`] reports, sorted
    /// by path, and for a valid message the [`Edits`](crate::validate::Edits) that normalize its
    /// payload, for a caller that keeps the payload in its own form. Same
    /// contract as [`CompiledSchema::is_valid_from`] (`Ok(None)`: use the
    /// `Value` path).
    pub fn problems_from<'de, D: de::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Option<Checked>, D::Error> {
        let mut stream = Stream::new(&self.core, Collect::default(), Source::Text);
        MessageSeed(&mut stream).deserialize(deserializer)?;
        if stream.fallback {
            return Ok(None);
        }
        let edits = stream.conclude();
        let (problems, edits) = finish_problems(stream.out, edits);
        Ok(Some(Checked { problems, edits }))
    }
}

/// A member name of the message, classified as it is read: no copy of it
/// is made, whatever the deserializer hands over.
enum MessageMemberName {
    SchemaId,
    Payload,
    Other,
}

struct MessageMemberNameSeed;

impl<'de> DeserializeSeed<'de> for MessageMemberNameSeed {
    type Value = MessageMemberName;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<MessageMemberName, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for MessageMemberNameSeed {
    type Value = MessageMemberName;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<MessageMemberName, E> {
        Ok(match v {
            "schema_id" => MessageMemberName::SchemaId,
            "payload" => MessageMemberName::Payload,
            _ => MessageMemberName::Other,
        })
    }
}

/// A payload member's name, looked up as it is read: a known key is its
/// index (no copy of the name); only an unknown one keeps its name, for
/// the issue, borrowed from the input when the deserializer allows.
enum PayloadMemberName<'de> {
    Known(usize),
    Unknown(Cow<'de, str>),
}

struct PayloadMemberNameSeed<'a, 's>(&'a mut Pass<'s>);

impl<'de> DeserializeSeed<'de> for PayloadMemberNameSeed<'_, '_> {
    type Value = PayloadMemberName<'de>;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<PayloadMemberName<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for PayloadMemberNameSeed<'_, '_> {
    type Value = PayloadMemberName<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(match self.0.find(v.as_bytes()) {
            Some(index) => PayloadMemberName::Known(index),
            None => PayloadMemberName::Unknown(Cow::Borrowed(v)),
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(match self.0.find(v.as_bytes()) {
            Some(index) => PayloadMemberName::Known(index),
            None => PayloadMemberName::Unknown(Cow::Owned(v.to_owned())),
        })
    }
}

/// The message's `schema_id`: `None` when it is the expected one (compared
/// without copying it), else the value found, for the issue.
struct SchemaIdSeed<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for SchemaIdSeed<'_> {
    type Value = Option<Value>;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<Value>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SchemaIdSeed<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a schema id")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((v != self.0).then(|| Value::from(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Some(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let value = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(Some(value))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let value = Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(Some(value))
    }
}

/// Implements every non-object `visit_*` of a visitor as "not an object".
macro_rules! not_an_object_visits {
    ($on_other:ident) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(self.$on_other())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(self.$on_other())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(self.$on_other())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(self.$on_other())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(self.$on_other())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(self.$on_other())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok(self.$on_other())
        }
    };
}

/// The whole message.
pub(crate) struct MessageSeed<'a, 's, O>(pub(crate) &'a mut Stream<'s, O>);

impl<'de, O: Outcome> DeserializeSeed<'de> for MessageSeed<'_, '_, O> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, O: Outcome> Visitor<'de> for MessageSeed<'_, '_, O> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a structured payload message")
    }

    not_an_object_visits!(not_object);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let stream = self.0;
        stream.is_object = true;
        let mut seen_payload = false;
        while let Some(member) = map.next_key_seed(MessageMemberNameSeed)? {
            match member {
                _ if stream.fallback => {
                    map.next_value::<Skip>()?;
                }
                MessageMemberName::SchemaId => {
                    let found = map.next_value_seed(SchemaIdSeed(&stream.schema.schema_id))?;
                    stream.fallback |= stream.seen_schema_id;
                    stream.seen_schema_id = true;
                    if let Some(value) = found {
                        let flow = check_schema_id(stream.schema, Some(&value), &mut stream.out);
                        if stream.stop(flow) {
                            return Err(de::Error::custom(STOPPED));
                        }
                    }
                }
                MessageMemberName::Payload => {
                    if seen_payload {
                        stream.fallback = true;
                        map.next_value::<Skip>()?;
                    } else {
                        seen_payload = true;
                        stream.payload = map.next_value_seed(PayloadSeed(stream))?;
                    }
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(())
    }
}

impl<O> MessageSeed<'_, '_, O> {
    fn not_object(self) {}
}

/// The `payload` member.
struct PayloadSeed<'a, 's, O>(&'a mut Stream<'s, O>);

impl<'de, O: Outcome> DeserializeSeed<'de> for PayloadSeed<'_, '_, O> {
    type Value = Payload;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Payload, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, O: Outcome> Visitor<'de> for PayloadSeed<'_, '_, O> {
    type Value = Payload;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a payload object")
    }

    not_an_object_visits!(not_object);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Payload, A::Error> {
        let stream = self.0;
        let schema = stream.schema;
        let mut pass = Pass::new(schema, stream.source);
        let mut count = 0usize;
        while let Some(member) = map.next_key_seed(PayloadMemberNameSeed(&mut pass))? {
            count += 1;
            if stream.fallback || count > schema.options.limits.max_keys {
                // Member counts and repeats are settled exactly by the `Value` path.
                stream.fallback = true;
                map.next_value::<Skip>()?;
                continue;
            }
            let flow = match member {
                PayloadMemberName::Known(index) => {
                    let shape = map.next_value_seed(Probe::for_key(schema, index))?;
                    pass.known(index, ValueOrShape::Shape(shape), &mut stream.out)
                }
                PayloadMemberName::Unknown(name) => {
                    let shape = map.next_value_seed(UnknownValue(schema))?;
                    pass.unknown(&name, shape, &mut stream.out)
                }
            };
            // Once unsettled, the rest of the payload is only read.
            stream.fallback |= pass.unsettled();
            if stream.stop(flow) {
                return Err(de::Error::custom(STOPPED));
            }
        }
        if stream.fallback {
            return Ok(Payload::Missing);
        }
        let _ = pass.finish(&mut stream.out);
        Ok(Payload::Object(pass.into_edits()))
    }
}

impl<O> PayloadSeed<'_, '_, O> {
    fn not_object(self) -> Payload {
        Payload::NotObject
    }
}
