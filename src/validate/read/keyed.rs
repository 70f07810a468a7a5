//! Validation of a payload held in another language's objects (a Python
//! dict, a JavaScript object), member by member, without a serde reader for
//! the whole message: the caller hands each member's value over, by key
//! number (`key`, after asking its dict for each of
//! [`CompiledSchema::key_names`], so the crate reads no name) or by name as
//! it walks the payload (`member`); the crate decides, as its other readers
//! do.

use std::ops::ControlFlow;

use serde::de::{self, DeserializeSeed};

use super::probe::{Probe, UnknownValue};
use crate::validate::core::edits::Checked;
use crate::validate::core::options::UnknownKeys;
use crate::validate::core::outcome::{Collect, Outcome, Verdict, finish_problems};
use crate::validate::core::pass::{Pass, Source, ValueOrShape};
use crate::validate::core::schema::{CompiledSchema, SchemaCore};

impl CompiledSchema {
    /// The names of the keys this schema accepts, in the order
    /// [`KeyedVerdict::key`] and [`KeyedProblems::key`] number them: the
    /// template's keys, `other` if the template leaves it out, then the
    /// withdrawn keys still accepted. A caller that asks its payloads for
    /// these names often prepares them once per schema.
    pub fn key_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.core.keys.iter().map(|key| &*key.name)
    }

    /// Starts the verdict on a payload of `members` members that the
    /// caller looks up key by key ([`KeyedVerdict`]); `None` when
    /// `members` is past [`Limits::max_keys`](crate::validate::Limits::max_keys).
    ///
    /// It settles the payload only: for a message whose `schema_id` is this
    /// schema's and whose `payload` is an object, the verdict is
    /// [`CompiledSchema::is_valid`]'s on the same message. Any other
    /// message goes through [`CompiledSchema::is_valid_from`].
    ///
    /// Each value is read as one whose objects cannot repeat a member name
    /// (a dict's, a `Value`'s): a value nested deeper than
    /// [`Limits::max_depth`](crate::validate::Limits::max_depth) is an error,
    /// every member inside it counted. JSON text, where a name repeated
    /// inside a value can make it look deeper than it parses, goes through
    /// [`CompiledSchema::validate_slice`] instead.
    pub fn keyed_verdict(&self, members: usize) -> Option<KeyedVerdict<'_>> {
        Keyed::new(&self.core, members, Verdict::fail_fast()).map(KeyedVerdict)
    }

    /// Starts the report on a payload of `members` members that the caller
    /// looks up key by key ([`KeyedProblems`]); `None` when `members` is
    /// past [`Limits::max_keys`](crate::validate::Limits::max_keys). Same contract as
    /// [`CompiledSchema::keyed_verdict`], for [`CompiledSchema::problems_from`].
    pub fn keyed_problems(&self, members: usize) -> Option<KeyedProblems<'_>> {
        Keyed::new(&self.core, members, Collect::default()).map(KeyedProblems)
    }
}

/// A payload's verdict, fed key by key: for each of
/// [`CompiledSchema::key_names`] the payload has, in any order,
/// [`KeyedVerdict::key`] with its value; then [`KeyedVerdict::finish`].
///
/// ```
/// use sdsi::{CompiledSchema, SchemaTemplate};
/// use serde_json::{Value, json};
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "coffee_v1", "scenario": "coffee_order",
///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
///               "semantic_description": "Cup size: small, medium, large."}]
/// }))?;
/// let schema = CompiledSchema::new(&template)?;
/// let payload = json!({"size": "large"});
/// let payload = payload.as_object().unwrap();
///
/// let mut verdict = schema.keyed_verdict(payload.len()).unwrap();
/// for (index, name) in schema.key_names().enumerate() {
///     if let Some(value) = payload.get(name) {
///         if !verdict.key(index, value)? {
///             break; // invalid: nothing later can change that
///         }
///     }
/// }
/// assert_eq!(verdict.finish(), Some(true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct KeyedVerdict<'s>(Keyed<'s, Verdict>);

impl KeyedVerdict<'_> {
    /// Checks the payload's value for key number `index` (of
    /// [`CompiledSchema::key_names`]). `Ok(false)`: the payload is invalid
    /// whatever else it holds; stop asking ([`KeyedVerdict::finish`] then
    /// says `Some(false)`, unless a key was given twice). An index past the
    /// key names is not a key: the member counts as one the schema does not
    /// define, and is not read. The value's own read errors are returned as
    /// they are.
    pub fn key<'de, D: de::Deserializer<'de>>(
        &mut self,
        index: usize,
        value: D,
    ) -> Result<bool, D::Error> {
        self.0.key(index, value).map(|flow| flow.is_continue())
    }

    /// Checks a member found by its name, for a caller that walks its
    /// payload: the crate looks the name up (quickest when members come in
    /// the template's order). A name that is no key is handled as the other
    /// readers handle it: its value read (and under [`UnknownKeys::Warn`]
    /// held to the depth limit), then `unknown_key`. `Ok(false)`: invalid,
    /// stop. `name` is not used once the value's read has begun (an unknown
    /// one is copied first), so a caller whose name lives in a container the
    /// value's read could change need keep it only that long.
    pub fn member<'de, D: de::Deserializer<'de>>(
        &mut self,
        name: &str,
        value: D,
    ) -> Result<bool, D::Error> {
        self.0.member(name, value).map(|flow| flow.is_continue())
    }

    /// Says the payload has no member for key number `index`: `false` when
    /// that alone makes it invalid (a required key), so the caller can stop
    /// asking. Optional: [`KeyedVerdict::finish`] finds missing keys anyway.
    pub fn absent(&mut self, index: usize) -> bool {
        let required = self
            .0
            .pass
            .schema
            .keys
            .get(index)
            .is_some_and(|k| k.required);
        if required {
            self.0.out.valid = false;
        }
        !required
    }

    /// The verdict. `None` when it needs members it was not given: more
    /// members than were handed over (some not keys, given to neither `key`
    /// nor `member`), the keys given found no error, and
    /// [`UnknownKeys::Warn`] keeps such members, so their depth counts. Also
    /// `None` when a key was given twice, or more members were handed over
    /// than the payload has. Then ask [`CompiledSchema::is_valid_from`].
    pub fn finish(mut self) -> Option<bool> {
        let unknown = self.0.unknown()?;
        if !self.0.out.valid {
            return Some(false);
        }
        if unknown {
            // Under `Reject`, a member that is no key is an error by itself.
            return match self.0.pass.schema.options.unknown_keys {
                UnknownKeys::Reject => Some(false),
                UnknownKeys::Warn => None,
            };
        }
        let _ = self.0.pass.finish(&mut self.0.out);
        Some(self.0.out.valid)
    }
}

/// A payload's problems, fed key by key, as [`KeyedVerdict`] but for every
/// issue and the [`Edits`](crate::validate::Edits) that normalize a valid payload.
pub struct KeyedProblems<'s>(Keyed<'s, Collect>);

impl KeyedProblems<'_> {
    /// Checks the payload's value for key number `index` (of
    /// [`CompiledSchema::key_names`]); an index past them is not a key.
    /// The value's own read errors are returned as they are.
    pub fn key<'de, D: de::Deserializer<'de>>(
        &mut self,
        index: usize,
        value: D,
    ) -> Result<(), D::Error> {
        self.0.key(index, value).map(|_| ())
    }

    /// Checks a member found by its name (see [`KeyedVerdict::member`]).
    pub fn member<'de, D: de::Deserializer<'de>>(
        &mut self,
        name: &str,
        value: D,
    ) -> Result<(), D::Error> {
        self.0.member(name, value).map(|_| ())
    }

    /// Every problem of the payload, as [`CompiledSchema::problems_from`]
    /// reports them for the whole message, and for a valid payload its
    /// [`Edits`](crate::validate::Edits). `None` when the payload has members that were not handed
    /// over (members that are not keys, given to neither `key` nor
    /// `member`: their issues name them), a key was given twice, or more
    /// members were handed over than the payload has: ask
    /// [`CompiledSchema::problems_from`].
    pub fn finish(mut self) -> Option<Checked> {
        if self.0.unknown()? {
            return None;
        }
        let _ = self.0.pass.finish(&mut self.0.out);
        let (problems, plan) = finish_problems(self.0.out, Some(self.0.pass.into_edits()));
        Some(Checked {
            problems,
            edits: plan,
        })
    }
}

/// The state both keyed checks share.
struct Keyed<'s, O> {
    pass: Pass<'s>,
    out: O,
    /// The payload's member count, as the caller gave it.
    members: usize,
    /// How many of them were keys.
    found: usize,
}

impl<'s, O: Outcome> Keyed<'s, O> {
    fn new(schema: &'s SchemaCore, members: usize, out: O) -> Option<Self> {
        (members <= schema.options.limits.max_keys).then(|| Keyed {
            pass: Pass::new(schema, Source::Map),
            out,
            members,
            found: 0,
        })
    }

    fn key<'de, D: de::Deserializer<'de>>(
        &mut self,
        index: usize,
        value: D,
    ) -> Result<ControlFlow<()>, D::Error> {
        if index >= self.pass.schema.keys.len() {
            return Ok(ControlFlow::Continue(()));
        }
        self.found = self.found.saturating_add(1);
        let shape = Probe::for_key(self.pass.schema, index).deserialize(value)?;
        Ok(self
            .pass
            .known(index, ValueOrShape::Shape(shape), &mut self.out))
    }

    fn member<'de, D: de::Deserializer<'de>>(
        &mut self,
        name: &str,
        value: D,
    ) -> Result<ControlFlow<()>, D::Error> {
        if let Some(index) = self.pass.find(name.as_bytes()) {
            return self.key(index, value);
        }
        // Copied before the value's read, as `member` promises.
        let name: Box<str> = name.into();
        self.found = self.found.saturating_add(1);
        let shape = UnknownValue(self.pass.schema).deserialize(value)?;
        Ok(self.pass.unknown(&name, shape, &mut self.out))
    }

    /// Whether the payload has members that are not keys; `None` when the
    /// count cannot be trusted (more keys given than members, or one twice).
    fn unknown(&self) -> Option<bool> {
        if self.pass.duplicate || self.found > self.members {
            return None;
        }
        Some(self.found < self.members)
    }
}
