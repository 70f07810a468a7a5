//! `Scalars`: the scalar values a key takes as they are, read from a
//! value's tag alone.

use serde_json::Value;

use super::check::Check;
use crate::key::JsonKind;

/// The scalar kinds a key takes with nothing more to check, one bit per
/// kind: the verdict and the full pass decide those from the value's tag
/// and leave the rest (containers, which have a depth; a float in an
/// `integer` key, which may be whole or past 64 bits; anything refused) to
/// [`Shape`](super::shape::Shape) and the full decision. Same answers, less
/// work on the usual flat payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scalars(u8);

/// The kinds a tag tells apart. A number no 64-bit integer holds counts as
/// a `Number` here, whole or not: only the full decision tells `2.0` from
/// `2.5`, so an `integer` key leaves every such number to it.
const TAG_KINDS: [JsonKind; 5] = [
    JsonKind::Null,
    JsonKind::Boolean,
    JsonKind::Integer,
    JsonKind::Number,
    JsonKind::String,
];

impl Scalars {
    /// What a verdict on a key checked by `check` settles from the tag:
    /// an optional key also takes `null` (as not given).
    pub(crate) fn verdict(check: Check, required: bool) -> Self {
        let of_type = Self::of_type(check);
        if required {
            of_type
        } else {
            Self(of_type.0 | bit(JsonKind::Null))
        }
    }

    /// What the full pass keeps as it is, with no warning and nothing for
    /// the normalized payload to do: the key's own type, but no `null` for
    /// an optional key (it is dropped), and nothing for a deprecated or
    /// withdrawn key (each warns).
    pub(crate) fn kept(check: Check, required: bool, active: bool) -> Self {
        match (active, required) {
            (false, _) => Self(0),
            (true, true) => Self::of_type(check),
            (true, false) => Self(Self::of_type(check).0 & !bit(JsonKind::Null)),
        }
    }

    /// The tag kinds the key's type accepts, by the rule the full decision
    /// applies ([`KeyType::accepts`](crate::KeyType::accepts); `other`
    /// takes a string).
    fn of_type(check: Check) -> Self {
        let accepts = |kind: JsonKind| match check {
            Check::Type(ty) => ty.accepts(kind),
            Check::Other => kind == JsonKind::String,
        };
        Self(
            TAG_KINDS
                .into_iter()
                .filter(|&kind| accepts(kind))
                .fold(0, |bits, kind| bits | bit(kind)),
        )
    }

    /// Whether `value` is one of these scalars; `false` means "ask the
    /// full decision", not "refused".
    #[inline(always)]
    pub(crate) fn take(self, value: &Value) -> bool {
        let kind = match value {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Boolean,
            Value::Number(number) if number.is_i64() || number.is_u64() => JsonKind::Integer,
            Value::Number(_) => JsonKind::Number,
            Value::String(_) => JsonKind::String,
            Value::Array(_) | Value::Object(_) => return false,
        };
        self.0 & bit(kind) != 0
    }
}

/// The bit of a tag kind (containers have none).
#[inline(always)]
fn bit(kind: JsonKind) -> u8 {
    match kind {
        JsonKind::Null => 1,
        JsonKind::Boolean => 1 << 1,
        JsonKind::Integer => 1 << 2,
        JsonKind::Number => 1 << 3,
        JsonKind::String => 1 << 4,
        JsonKind::Array | JsonKind::Object => 0,
    }
}
