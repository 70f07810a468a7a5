//! The bytes path: validation straight from JSON text in one pass, without
//! building a `serde_json::Value` for the message.
//!
//! Both the verdict and the report reduce each member to a [`Shape`] as it
//! streams past and decide through the same [`Pass`] as the `Value` path;
//! the report's normalized payload parses the validated text only when it is
//! read (`validate/normalized.rs`). JSON that repeats a member is the one case a single pass cannot
//! settle the way `serde_json::Value` does (the last one wins), so it falls
//! back to the `Value` path.

use std::borrow::Cow;
use std::fmt;
use std::ops::ControlFlow;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::UnknownKeys;
use super::compile::{Check, CompiledSchema, Inner};
use super::edits::{Checked, Edits};
use super::normalized::{Normalized, Plan};
use super::pass::{
    Member, Pass, check_schema_id, message_not_object, missing_payload, payload_not_object,
};
use super::report::{Collect, Outcome, Report, Verdict, finish_problems, finish_report};
use super::shape::Shape;
use super::skip::{Skip, drain_seq};
use crate::issue::Issue;
use crate::key::JsonKind;

impl CompiledSchema {
    /// Validates a message given as JSON bytes; same [`Report`] as
    /// [`CompiledSchema::validate`] on the parsed value, or `invalid_json`.
    ///
    /// One pass over the text decides validity and builds every issue
    /// without building a `Value`; the normalized payload of a valid message
    /// parses the text when it is first read. A server that wants its own
    /// type rather than a map calls [`CompiledSchema::deserialize_slice`].
    pub fn validate_slice<'a>(&'a self, bytes: &'a [u8]) -> Report<'a> {
        let schema = &*self.inner;
        if let Some(report) = oversized(schema, bytes) {
            return report;
        }
        if schema.numbers_arrive_as_maps() {
            return self.validate_parsed(bytes);
        }
        let mut stream = Stream::new(schema, Collect::default());
        match stream.run(bytes) {
            Err(error) => Report::invalid_json(&error),
            Ok(()) if stream.fallback => self.validate_parsed(bytes),
            Ok(()) => {
                // `finish_report` drops it again if the message is invalid.
                let normalized = stream
                    .conclude()
                    .map(|plan| Normalized::text(bytes, schema, plan));
                finish_report(stream.out, normalized)
            }
        }
    }

    /// The bytes path for what one pass cannot settle: parse, then validate.
    fn validate_parsed(&self, bytes: &[u8]) -> Report<'static> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => self.validate_owned(value),
            Err(error) => Report::invalid_json(&error),
        }
    }

    /// [`CompiledSchema::validate_slice`] on a string.
    pub fn validate_str<'a>(&'a self, text: &'a str) -> Report<'a> {
        self.validate_slice(text.as_bytes())
    }

    /// Whether JSON bytes are a valid message, without building a report or a
    /// `Value`; equal to `validate_slice(bytes).is_valid()`.
    pub fn is_valid_slice(&self, bytes: &[u8]) -> bool {
        let schema = &*self.inner;
        if bytes.len() > schema.options.limits.max_bytes {
            return false;
        }
        if schema.numbers_arrive_as_maps() {
            return serde_json::from_slice::<Value>(bytes).is_ok_and(|value| self.is_valid(&value));
        }
        let mut stream = Stream::new(
            schema,
            Verdict {
                valid: true,
                fail_fast: false,
            },
        );
        match stream.run(bytes) {
            Err(_) => false,
            Ok(()) if stream.fallback => {
                serde_json::from_slice::<Value>(bytes).is_ok_and(|value| self.is_valid(&value))
            }
            Ok(()) => {
                stream.conclude();
                stream.out.valid
            }
        }
    }

    /// [`CompiledSchema::is_valid_slice`] on a string.
    pub fn is_valid_str(&self, text: &str) -> bool {
        self.is_valid_slice(text.as_bytes())
    }
}

impl CompiledSchema {
    /// Whether a message read from any serde [`Deserializer`](de::Deserializer)
    /// is valid: one pass, no `Value` built. For messages held in another
    /// form than JSON text (another language's objects, a binary format),
    /// read through the deserializer that form has. Equal to
    /// [`CompiledSchema::is_valid`] on the same message as a `Value`
    /// (`tests/properties.rs` checks it with `&Value` as the source), where
    /// a repeated member counts once, its last occurrence.
    ///
    /// `Ok(None)` when one pass cannot settle it: a member repeated, or more
    /// payload members than [`Limits::max_keys`](super::Limits::max_keys).
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
    /// needs `is_valid_from`.
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
        let mut stream = Stream::new(&self.inner, verdict);
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
    /// by path, and for a valid message the [`Edits`] that normalize its
    /// payload, for a caller that keeps the payload in its own form. Same
    /// contract as [`CompiledSchema::is_valid_from`] (`Ok(None)`: use the
    /// `Value` path).
    pub fn problems_from<'de, D: de::Deserializer<'de>>(
        &self,
        deserializer: D,
    ) -> Result<Option<Checked>, D::Error> {
        let mut stream = Stream::new(&self.inner, Collect::default());
        MessageSeed(&mut stream).deserialize(deserializer)?;
        if stream.fallback {
            return Ok(None);
        }
        let plan = stream.conclude();
        let (problems, plan) = finish_problems(stream.out, plan);
        Ok(Some(Checked {
            problems,
            edits: plan.map(|plan| Edits { plan }),
        }))
    }
}

/// The message of the error that ends a read stopped at the first error.
const STOPPED: &str = "stopped at the first error";

/// Whether serde_json, as built into this program, hands a number to
/// `deserialize_any` visitors as a map (`arbitrary_precision`) rather than
/// through `visit_i64` / `visit_u64` / `visit_f64` (it does so for every
/// number that is not a 64-bit integer). Asked once per compiled schema, on
/// a three-byte document.
pub(crate) fn numbers_arrive_as_maps() -> bool {
    struct Asks;
    impl<'de> Visitor<'de> for Asks {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number")
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            while map.next_key::<Skip>()?.is_some() {
                map.next_value::<Skip>()?;
            }
            Ok(true)
        }
    }
    let mut de = serde_json::Deserializer::from_str("0.5");
    de::Deserializer::deserialize_any(&mut de, Asks).unwrap_or(true)
}

fn oversized(schema: &Inner, bytes: &[u8]) -> Option<Report<'static>> {
    let max = schema.options.limits.max_bytes;
    (bytes.len() > max).then(|| Report::single(Issue::limit("", "input size in bytes", max as u64)))
}

/// What the message's `payload` member turned out to be.
pub(super) enum Payload {
    Missing,
    NotObject,
    /// What normalizing the payload changes.
    Object(Plan),
}

/// The state of one streaming validation.
pub(super) struct Stream<'s, O> {
    pub(super) schema: &'s Inner,
    pub(super) out: O,
    pub(super) is_object: bool,
    pub(super) seen_schema_id: bool,
    pub(super) payload: Payload,
    /// Set when the single pass cannot decide exactly (repeated members, too many members).
    fallback: bool,
    /// Set when reading stopped at the first error (an outcome that fails
    /// fast said `Break`, and no repeated member could undo the error).
    stopped: bool,
}

impl<'s, O: Outcome> Stream<'s, O> {
    fn new(schema: &'s Inner, out: O) -> Self {
        Self {
            schema,
            out,
            is_object: false,
            seen_schema_id: false,
            payload: Payload::Missing,
            fallback: false,
            stopped: false,
        }
    }

    /// Whether to stop reading after a check that said `flow`: only when
    /// the outcome wants no more, and no repeated member seen so far could
    /// replace the offending one.
    fn stop(&mut self, flow: ControlFlow<()>, repeated: bool) -> bool {
        self.stopped = flow.is_break() && !self.fallback && !repeated;
        self.stopped
    }

    fn run(&mut self, bytes: &[u8]) -> Result<(), serde_json::Error> {
        match std::str::from_utf8(bytes) {
            // UTF-8 checked once, here: the text parser does not check every
            // string again (a fifth of the verdict path's work otherwise).
            Ok(text) => {
                // The usual message is settled by the scanner; what it is
                // unsure of is read again, from the start, by serde_json.
                let fresh = self.out.clone();
                if super::scan::message(self, text).is_ok() {
                    return Ok(());
                }
                *self = Stream::new(self.schema, fresh);
                let mut de = serde_json::Deserializer::from_str(text);
                MessageSeed(self).deserialize(&mut de)?;
                de.end()
            }
            // Not UTF-8: the slice parser finds the bad byte and says where.
            Err(_) => {
                let mut de = serde_json::Deserializer::from_slice(bytes);
                MessageSeed(self).deserialize(&mut de)?;
                de.end()
            }
        }
    }

    /// Reports what only the end of the message can tell; returns what
    /// normalizing the payload changes.
    fn conclude(&mut self) -> Option<Plan> {
        if !self.is_object {
            let _ = message_not_object(&mut self.out);
            return None;
        }
        if !self.seen_schema_id {
            let _ = check_schema_id(self.schema, None, &mut self.out);
        }
        match std::mem::replace(&mut self.payload, Payload::Missing) {
            Payload::Missing => {
                let _ = missing_payload(&mut self.out);
                None
            }
            Payload::NotObject => {
                let _ = payload_not_object(&mut self.out);
                None
            }
            Payload::Object(plan) => Some(plan),
        }
    }
}

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

/// A member name of the message, classified as it is read: no copy of it
/// is made, whatever the deserializer hands over.
enum MessageMember {
    SchemaId,
    Payload,
    Other,
}

struct MessageMemberSeed;

impl<'de> DeserializeSeed<'de> for MessageMemberSeed {
    type Value = MessageMember;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<MessageMember, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for MessageMemberSeed {
    type Value = MessageMember;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<MessageMember, E> {
        Ok(match v {
            "schema_id" => MessageMember::SchemaId,
            "payload" => MessageMember::Payload,
            _ => MessageMember::Other,
        })
    }
}

/// A payload member's name, looked up as it is read: a known key is its
/// index (no copy of the name); only an unknown one keeps its name, for
/// the issue, borrowed from the input when the deserializer allows.
enum PayloadMember<'de> {
    Known(usize),
    Unknown(Cow<'de, str>),
}

struct PayloadMemberSeed<'a, 's>(&'a mut Pass<'s>);

impl<'de> DeserializeSeed<'de> for PayloadMemberSeed<'_, '_> {
    type Value = PayloadMember<'de>;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<PayloadMember<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for PayloadMemberSeed<'_, '_> {
    type Value = PayloadMember<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(match self.0.find(v.as_bytes()) {
            Some(index) => PayloadMember::Known(index),
            None => PayloadMember::Unknown(Cow::Borrowed(v)),
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(match self.0.find(v.as_bytes()) {
            Some(index) => PayloadMember::Known(index),
            None => PayloadMember::Unknown(Cow::Owned(v.to_owned())),
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
struct MessageSeed<'a, 's, O>(&'a mut Stream<'s, O>);

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
        while let Some(member) = map.next_key_seed(MessageMemberSeed)? {
            match member {
                _ if stream.fallback => {
                    map.next_value::<Skip>()?;
                }
                MessageMember::SchemaId => {
                    let found = map.next_value_seed(SchemaIdSeed(&stream.schema.schema_id))?;
                    stream.fallback |= stream.seen_schema_id;
                    stream.seen_schema_id = true;
                    if let Some(value) = found {
                        let flow = check_schema_id(stream.schema, Some(&value), &mut stream.out);
                        if stream.stop(flow, false) {
                            return Err(de::Error::custom(STOPPED));
                        }
                    }
                }
                MessageMember::Payload => {
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
        let mut pass = Pass::new(schema, true);
        let mut count = 0usize;
        while let Some(member) = map.next_key_seed(PayloadMemberSeed(&mut pass))? {
            count += 1;
            if stream.fallback || count > schema.options.limits.max_keys {
                // Member counts and repeats are settled exactly by the `Value` path.
                stream.fallback = true;
                map.next_value::<Skip>()?;
                continue;
            }
            let flow = match member {
                PayloadMember::Known(index) => {
                    let shape = map.next_value_seed(Probe::for_key(schema, index))?;
                    pass.known(index, Member::Shape(shape), &mut stream.out)
                }
                PayloadMember::Unknown(name) => {
                    let shape = map.next_value_seed(UnknownValue(schema))?;
                    pass.unknown(&name, shape, &mut stream.out)
                }
            };
            if stream.stop(flow, pass.duplicate) {
                return Err(de::Error::custom(STOPPED));
            }
        }
        stream.fallback |= pass.duplicate;
        if stream.fallback {
            return Ok(Payload::Missing);
        }
        let _ = pass.finish(&mut stream.out);
        Ok(Payload::Object(pass.into_plan()))
    }
}

impl<O> PayloadSeed<'_, '_, O> {
    fn not_object(self) -> Payload {
        Payload::NotObject
    }
}

/// Reduces a value to its [`Shape`] while it streams past, allocating nothing.
#[derive(Clone, Copy)]
pub(super) struct Probe {
    /// Depth beyond which nesting is not followed (the limit plus one).
    pub(super) cap: usize,
    /// Whether to find the first non-string element of an array (only `other` needs it).
    pub(super) track_strings: bool,
}

/// The value of a member the schema does not define: read either way (what
/// `serde_json::Value` refuses, this refuses), and under
/// [`UnknownKeys::Warn`], which keeps the member, reduced to its shape, so
/// it is held to the depth limit like a key's value.
pub(super) struct UnknownValue<'s>(pub(super) &'s Inner);

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
    pub(super) fn for_key(schema: &Inner, index: usize) -> Self {
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
        let mut shape = Shape {
            depth: 1,
            ..Shape::scalar(JsonKind::Array)
        };
        let child = Probe {
            cap: self.cap.saturating_sub(1),
            track_strings: false,
        };
        let mut index = 0usize;
        loop {
            let element = if self.cap > 1 || self.track_strings {
                seq.next_element_seed(child)?
            } else {
                seq.next_element::<Skip>()?
                    .map(|_| Shape::scalar(JsonKind::Null))
            };
            let Some(element) = element else { break };
            if self.track_strings
                && shape.first_non_string.is_none()
                && element.kind != JsonKind::String
            {
                shape.first_non_string = Some(index);
            }
            shape.depth = shape.depth.max(element.depth + 1);
            index += 1;
        }
        shape.depth = shape.depth.min(self.cap.max(1));
        Ok(shape)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut shape = Shape {
            depth: 1,
            ..Shape::scalar(JsonKind::Object)
        };
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
            shape.depth = shape.depth.max(value.depth + 1);
        }
        shape.depth = shape.depth.min(self.cap.max(1));
        Ok(shape)
    }
}
