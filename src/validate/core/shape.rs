//! `Shape`: the few facts about a value that validation decides on.
//!
//! Both the `Value` path and the streaming bytes path reduce a member's value
//! to a `Shape` and decide through the same function, which is what makes
//! their reports equal.

use serde_json::Value;

use crate::key::{JsonKind, float_as_integer};

/// The JSON type of a value, how deep it nests (capped just past the limit),
/// for arrays the index of the first element that is not a string, and
/// whether it is a whole number beyond 64 bits (`1e20`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) kind: JsonKind,
    pub(crate) depth: usize,
    pub(crate) first_non_string: Option<usize>,
    pub(crate) beyond_64_bits: bool,
    /// A float with no fraction (`2.0`): an integer written as a float.
    pub(crate) whole_float: bool,
}

impl Shape {
    /// The shape of a scalar of type `kind`.
    pub(crate) fn scalar(kind: JsonKind) -> Self {
        Self {
            kind,
            depth: 0,
            first_non_string: None,
            beyond_64_bits: false,
            whole_float: false,
        }
    }

    /// The shape of a float: an integer when whole, flagged when no 64-bit
    /// integer holds it.
    pub(crate) fn float(value: f64) -> Self {
        let kind = JsonKind::of_float(value);
        Self {
            beyond_64_bits: kind == JsonKind::Integer && float_as_integer(value).is_none(),
            whole_float: kind == JsonKind::Integer,
            ..Self::scalar(kind)
        }
    }

    /// The shape of `value`, looking no deeper than `max_depth + 1` levels.
    /// `track_strings`: whether to look for the first non-string element of
    /// an array (only `other` needs it; `None` otherwise).
    #[inline]
    pub(crate) fn of(value: &Value, max_depth: usize, track_strings: bool) -> Self {
        // One match on the tag: scalars, the usual case, return at once.
        let (kind, first_non_string) = match value {
            Value::Null => return Self::scalar(JsonKind::Null),
            Value::Bool(_) => return Self::scalar(JsonKind::Boolean),
            Value::String(_) => return Self::scalar(JsonKind::String),
            Value::Number(number) if number.is_i64() || number.is_u64() => {
                return Self::scalar(JsonKind::Integer);
            }
            Value::Number(number) => {
                return number
                    .as_f64()
                    .map_or(Self::scalar(JsonKind::Number), Self::float);
            }
            Value::Array(items) => (
                JsonKind::Array,
                if track_strings {
                    items.iter().position(|v| !v.is_string())
                } else {
                    None
                },
            ),
            Value::Object(_) => (JsonKind::Object, None),
        };
        Self {
            kind,
            depth: capped_depth(value, max_depth.saturating_add(1)),
            first_non_string,
            beyond_64_bits: false,
            whole_float: false,
        }
    }
}

/// A container's shape built from its children's as a text reader meets
/// them: the one rule the bytes scanner and the serde probe share, so the
/// two text readers cannot disagree on depth or on `other`'s elements.
pub(crate) struct ContainerShape {
    shape: Shape,
    /// Index of the next element (arrays).
    next: usize,
    /// Whether to note the first element that is not a string.
    track_strings: bool,
}

impl ContainerShape {
    /// An array; `track_strings` when its first non-string element matters.
    pub(crate) fn array(track_strings: bool) -> Self {
        Self::new(JsonKind::Array, track_strings)
    }

    /// An object.
    pub(crate) fn object() -> Self {
        Self::new(JsonKind::Object, false)
    }

    fn new(kind: JsonKind, track_strings: bool) -> Self {
        Self {
            shape: Shape {
                depth: 1,
                ..Shape::scalar(kind)
            },
            next: 0,
            track_strings,
        }
    }

    /// Takes in the next element's (or member value's) shape.
    #[inline]
    pub(crate) fn child(&mut self, child: &Shape) {
        if self.track_strings
            && self.shape.first_non_string.is_none()
            && child.kind != JsonKind::String
        {
            self.shape.first_non_string = Some(self.next);
        }
        self.shape.depth = self.shape.depth.max(child.depth.saturating_add(1));
        self.next = self.next.saturating_add(1);
    }

    /// The container's shape, its depth capped at `cap` (the limit plus one).
    pub(crate) fn finish(self, cap: usize) -> Shape {
        Shape {
            depth: self.shape.depth.min(cap.max(1)),
            ..self.shape
        }
    }
}

/// Nesting depth of `value` (scalar 0, `[]` 1), or `cap` if it is at least `cap`.
/// Recursion is bounded by `cap`, whatever the input.
fn capped_depth(value: &Value, cap: usize) -> usize {
    match value {
        Value::Array(items) => deepest_child(items.iter(), cap),
        Value::Object(map) => deepest_child(map.values(), cap),
        _ => 0,
    }
}

/// `1 + ` the deepest child's depth, capped at `cap` (at least 1: the container itself).
fn deepest_child<'a>(children: impl Iterator<Item = &'a Value>, cap: usize) -> usize {
    if cap <= 1 {
        return cap;
    }
    let mut deepest = 0;
    // Scalars add no depth: only containers are followed (no call per scalar).
    for child in children.filter(|c| matches!(c, Value::Array(_) | Value::Object(_))) {
        deepest = deepest.max(capped_depth(child, cap - 1));
        if deepest + 1 >= cap {
            return cap;
        }
    }
    deepest + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_is_capped() {
        let v = json!([[[[1]]]]);
        assert_eq!(Shape::of(&v, 10, false).depth, 4);
        assert_eq!(Shape::of(&v, 2, false).depth, 3);
        assert_eq!(Shape::of(&json!(1), 0, false).depth, 0);
        assert_eq!(Shape::of(&json!({}), 5, false).depth, 1);
        assert_eq!(Shape::of(&json!({"a": [1, {"b": []}]}), 5, false).depth, 4);
    }

    #[test]
    fn first_non_string_only_when_asked() {
        assert_eq!(Shape::of(&json!(["a", 1]), 5, false).first_non_string, None);
    }

    #[test]
    fn first_non_string() {
        assert_eq!(
            Shape::of(&json!(["a", 1, "b"]), 5, true).first_non_string,
            Some(1)
        );
        assert_eq!(Shape::of(&json!(["a"]), 5, true).first_non_string, None);
    }
}
