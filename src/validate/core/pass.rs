//! The decisions of one validation pass over a payload's members, which
//! every reader (`read/`) drives member by member: the one place a key's
//! value is judged, so the readers' reports agree.

use std::collections::HashSet;
use std::ops::ControlFlow;

use serde_json::Value;

use super::check::Check;
use super::compiled_key::{CompiledKey, KeyStatus};
use super::edits::Edits;
use super::key_index::{Cursor, same_name};
use super::options::{BigIntegers, UnknownKeys};
use super::outcome::Outcome;
use super::schema::SchemaCore;
use super::shape::Shape;
use crate::issue::{Issue, IssueCode, IssuePath, quote_short};
use crate::key::{JsonKind, KeyType};

/// Where a pass's members come from, which decides what it must leave to
/// the `Value` path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A parsed map, or values a caller hands over key by key (`keyed.rs`):
    /// no name repeats, so none is looked for.
    Map,
    /// A serde source that promises unique member names
    /// (`is_valid_from_unique`): a repeated payload member is still
    /// noticed, and a value too deep is too deep.
    UniqueNames,
    /// JSON text, or a serde source that may repeat a name at any depth.
    /// Besides a repeated payload member, a value deeper than the limit is
    /// left to the `Value` path: its depth is measured over every
    /// occurrence of a name repeated inside it, where serde_json keeps the
    /// last one only, so a value too deep here may be within the limit
    /// there. Depth is the only fact a reader takes from inside a member's
    /// value (its type and `other`'s elements are the value's own), so no
    /// other answer can differ.
    Text,
}

/// One validation pass over a payload's members, shared by both paths.
pub(crate) struct Pass<'s> {
    pub(crate) schema: &'s SchemaCore,
    /// The keys seen and what normalizing will change.
    plan: Edits,
    required_seen: usize,
    /// Set when a key appears twice (only the bytes path can see that).
    pub(crate) duplicate: bool,
    /// Set when a value from a [`Source::Text`] is deeper than the limit.
    deep: bool,
    /// Where the members come from.
    source: Source,
    /// The unknown names seen: a set, so that checking a name against the
    /// earlier ones costs the same however many came before. The standard
    /// hasher's random keys keep names chosen to collide from making it
    /// quadratic again. Made at the first unknown name: seeding the hasher
    /// is work most messages, which have none, should not pay.
    unknown_seen: Option<HashSet<Box<str>>>,
    /// Where [`Pass::find`] expects the next member.
    cursor: Cursor,
}

/// What a member's value is, as far as the pass needs to know.
pub(crate) enum ValueOrShape<'v> {
    /// The parsed value (kept for the normalized payload).
    Value(&'v Value),
    /// Only its shape (the verdict-only bytes path).
    Shape(Shape),
}

impl<'s> Pass<'s> {
    /// A pass over members from `source`.
    pub(crate) fn new(schema: &'s SchemaCore, source: Source) -> Self {
        Self {
            schema,
            plan: Edits::new(schema.keys.len()),
            required_seen: 0,
            duplicate: false,
            deep: false,
            source,
            unknown_seen: None,
            cursor: Cursor::default(),
        }
    }

    /// Whether the pass cannot settle the payload, which the `Value` path
    /// then does: a member repeated, or a value from [`Source::Text`]
    /// deeper than the limit.
    #[inline]
    pub(crate) fn unsettled(&self) -> bool {
        self.duplicate || self.deep
    }

    /// For a value found too deep: whether to leave it to the `Value` path
    /// (noted in `deep`) rather than report it. Asked on that rare branch
    /// only, so the usual member pays nothing for it.
    fn defer_too_deep(&mut self) -> bool {
        if self.source == Source::Text {
            self.deep = true;
        }
        self.deep
    }

    /// Checks one payload member; `Break` when the outcome wants no more
    /// (a verdict after its first error). What normalizing the member
    /// changes goes into the pass's plan.
    #[inline(always)]
    pub(crate) fn member<O: Outcome>(
        &mut self,
        name: &str,
        member: ValueOrShape<'_>,
        out: &mut O,
    ) -> ControlFlow<()> {
        match self.find(name.as_bytes()) {
            Some(index) => self.known(index, member, out),
            None => {
                // Only a kept unknown member (`Warn`) needs its shape.
                let shape =
                    (self.schema.options.unknown_keys == UnknownKeys::Warn).then(|| match member {
                        ValueOrShape::Value(value) => {
                            Shape::of(value, self.schema.options.limits.max_depth, false)
                        }
                        ValueOrShape::Shape(shape) => shape,
                    });
                self.unknown(name, shape, out)
            }
        }
    }

    /// The index of the key `name`, if the schema has one.
    #[inline]
    pub(crate) fn find(&mut self, name: &[u8]) -> Option<usize> {
        self.schema.lookup_from(&mut self.cursor, name)
    }

    /// Checks the member of the schema's key number `index`.
    #[inline(always)]
    pub(crate) fn known<O: Outcome>(
        &mut self,
        index: usize,
        member: ValueOrShape<'_>,
        out: &mut O,
    ) -> ControlFlow<()> {
        if self.plan.seen.insert(index) {
            self.duplicate = true;
        }
        let Some(key) = self.schema.keys.get(index) else {
            return ControlFlow::Continue(());
        };
        if key.required {
            self.required_seen += 1;
        }
        let max_depth = self.schema.options.limits.max_depth;
        let shape = match member {
            // The usual member: a scalar of the key's type, kept as it is.
            ValueOrShape::Value(value) if key.kept_scalars.take(value) => {
                return ControlFlow::Continue(());
            }
            ValueOrShape::Value(value) => Shape::of(value, max_depth, key.check == Check::Other),
            ValueOrShape::Shape(shape) => shape,
        };
        match fit(key, &shape, self.schema) {
            Fit::Fits { rewrite } => {
                if rewrite {
                    self.plan.rewrite_member(index);
                }
            }
            Fit::NotGiven => {
                self.plan.drop_member(index);
                return ControlFlow::Continue(());
            }
            Fit::WrongType => {
                out.error(|| match key.check {
                    Check::Type(ty) => {
                        Issue::type_mismatch(self.schema.path(index), ty, shape.kind)
                    }
                    Check::Other => match shape.first_non_string {
                        Some(i) => Issue::fixed(
                            IssueCode::InvalidOther,
                            IssuePath::element(self.schema.path(index).as_str(), i),
                            "every element of \"other\" must be a string",
                        ),
                        None => Issue::fixed(
                            IssueCode::InvalidOther,
                            self.schema.path(index),
                            "\"other\" must be a string or an array of strings",
                        ),
                    },
                })?;
                return ControlFlow::Continue(());
            }
            Fit::TooDeep => {
                if self.defer_too_deep() {
                    return ControlFlow::Continue(());
                }
                out.error(|| {
                    Issue::limit(self.schema.path(index), "nesting depth", max_depth as u64)
                })?;
                return ControlFlow::Continue(());
            }
            Fit::BeyondRange => {
                out.error(|| {
                    Issue::fixed(
                        IssueCode::IntegerOutOfRange,
                        self.schema.path(index),
                        "integer beyond 64 bits: no i64 or u64 holds it",
                    )
                })?;
                return ControlFlow::Continue(());
            }
        }
        match key.status {
            KeyStatus::Active => {}
            KeyStatus::Deprecated => out.warning(|| {
                Issue::fixed(IssueCode::DeprecatedKey, self.schema.path(index), "key is deprecated and will be withdrawn")
            }),
            KeyStatus::Withdrawn => out.warning(|| {
                Issue::fixed(
                    IssueCode::WithdrawnKey,
                    self.schema.path(index),
                    "key is withdrawn; it is accepted only until its backward-compatibility window ends",
                )
            }),
        }
        ControlFlow::Continue(())
    }

    /// Checks a member the schema does not define. Under
    /// [`UnknownKeys::Warn`] it is kept, so its `shape` is held to the depth
    /// limit like a known key's (`None`: not needed, the key is refused).
    pub(crate) fn unknown<O: Outcome>(
        &mut self,
        name: &str,
        shape: Option<Shape>,
        out: &mut O,
    ) -> ControlFlow<()> {
        if self.source != Source::Map {
            // One hash per name; only a repeat, which ends the single pass,
            // copies a name it did not need.
            let seen = self.unknown_seen.get_or_insert_with(HashSet::new);
            if !seen.insert(name.into()) {
                self.duplicate = true;
            }
        }
        match self.schema.options.unknown_keys {
            UnknownKeys::Reject => {
                out.error(|| unknown_key(name))?;
                ControlFlow::Continue(())
            }
            UnknownKeys::Warn => {
                if shape.is_some_and(|s| too_deep(self.schema, &s)) {
                    if self.defer_too_deep() {
                        return ControlFlow::Continue(());
                    }
                    out.error(|| {
                        Issue::limit(
                            IssuePath::member("/payload", name),
                            "nesting depth",
                            self.schema.options.limits.max_depth as u64,
                        )
                    })?;
                    return ControlFlow::Continue(());
                }
                out.warning(|| unknown_key(name));
                ControlFlow::Continue(())
            }
        }
    }

    /// What normalizing the payload will change (meaningful once the pass is over).
    pub(crate) fn into_edits(self) -> Edits {
        self.plan
    }

    /// Reports missing required keys.
    pub(crate) fn finish<O: Outcome>(&mut self, out: &mut O) -> ControlFlow<()> {
        if self.required_seen < self.schema.required_count {
            for (index, key) in self.schema.keys.iter().enumerate() {
                if key.required && !self.plan.seen.contains(index) {
                    out.error(|| {
                        Issue::fixed(
                            IssueCode::MissingRequiredKey,
                            self.schema.path(index),
                            "required key is missing",
                        )
                    })?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// What a key's rule makes of a member's value: the one decision the full
/// pass and the verdict-only loop (`value.rs`) both take.
pub(crate) enum Fit {
    /// Accepted; `rewrite` when normalizing reads a whole-number float as an integer.
    Fits { rewrite: bool },
    /// `null` on an optional key: "not given", dropped (or replaced by the default).
    NotGiven,
    /// Not of the key's type (for `other`: not a string or array of strings).
    WrongType,
    /// Nested deeper than `Limits::max_depth`.
    TooDeep,
    /// A whole number beyond 64 bits in an `integer` key under `BigIntegers::Reject`.
    BeyondRange,
}

/// Decides what `key` makes of a value of shape `shape`.
#[inline(always)]
pub(crate) fn fit(key: &CompiledKey, shape: &Shape, schema: &SchemaCore) -> Fit {
    if !key.required && shape.kind == JsonKind::Null {
        return Fit::NotGiven;
    }
    let of_type = match key.check {
        Check::Type(ty) => ty.accepts(shape.kind),
        Check::Other => match shape.kind {
            JsonKind::String => true,
            JsonKind::Array => shape.first_non_string.is_none(),
            _ => false,
        },
    };
    if !of_type {
        return Fit::WrongType;
    }
    if too_deep(schema, shape) {
        return Fit::TooDeep;
    }
    let integer = key.check == Check::Type(KeyType::Integer);
    if shape.beyond_64_bits && integer && schema.options.big_integers == BigIntegers::Reject {
        return Fit::BeyondRange;
    }
    Fit::Fits {
        // `2.0` is an integer to JSON Schema; a Rust reader wants `2`.
        rewrite: shape.whole_float && !shape.beyond_64_bits && integer,
    }
}

/// Whether a value of shape `shape` nests deeper than the schema allows.
#[inline(always)]
pub(crate) fn too_deep(schema: &SchemaCore, shape: &Shape) -> bool {
    shape.depth > schema.options.limits.max_depth
}

fn unknown_key(name: &str) -> Issue {
    Issue::fixed(
        IssueCode::UnknownKey,
        IssuePath::member("/payload", name),
        "key is not defined by the schema",
    )
}

/// Whether a message's `schema_id` member is `schema`'s id.
#[inline]
pub(crate) fn is_schema_id_of(schema: &SchemaCore, schema_id: Option<&Value>) -> bool {
    matches!(schema_id, Some(Value::String(id)) if same_name(id, &schema.schema_id))
}

/// Checks the message's `schema_id` member.
pub(crate) fn check_schema_id<O: Outcome>(
    schema: &SchemaCore,
    schema_id: Option<&Value>,
    out: &mut O,
) -> ControlFlow<()> {
    if is_schema_id_of(schema, schema_id) {
        return ControlFlow::Continue(());
    }
    match schema_id {
        None => out.error(|| {
            Issue::fixed(
                IssueCode::MissingSchemaId,
                "/schema_id",
                "message has no schema_id",
            )
        }),
        Some(Value::String(id)) => out.error(|| {
            Issue::owned(
                IssueCode::SchemaIdMismatch,
                "/schema_id",
                format!(
                    "expected schema_id {:?}, found {}",
                    &*schema.schema_id,
                    quote_short(id)
                ),
            )
        }),
        Some(other) => out.error(|| {
            Issue::type_mismatch(
                "/schema_id",
                crate::key::KeyType::String,
                JsonKind::of(other),
            )
        }),
    }
}

pub(crate) fn payload_not_object<O: Outcome>(out: &mut O) -> ControlFlow<()> {
    out.error(|| {
        Issue::fixed(
            IssueCode::NotAnObject,
            "/payload",
            "payload must be a JSON object",
        )
    })
}

pub(crate) fn missing_payload<O: Outcome>(out: &mut O) -> ControlFlow<()> {
    out.error(|| {
        Issue::fixed(
            IssueCode::MissingPayload,
            "/payload",
            "message has no payload",
        )
    })
}

pub(crate) fn message_not_object<O: Outcome>(out: &mut O) -> ControlFlow<()> {
    out.error(|| Issue::fixed(IssueCode::NotAnObject, "", "message must be a JSON object"))
}

pub(crate) fn too_many_keys<O: Outcome>(schema: &SchemaCore, out: &mut O) -> ControlFlow<()> {
    out.error(|| {
        Issue::limit(
            "/payload",
            "member count",
            schema.options.limits.max_keys as u64,
        )
    })
}
