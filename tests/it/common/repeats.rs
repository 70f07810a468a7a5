//! JSON text that repeats member names at any depth: the message, its
//! payload, a key's value, an object inside an array. serde_json keeps the
//! last occurrence of a repeated name, and each decoy is written just
//! before the member it repeats, so the text parses back to the value it
//! was written from (member order included) while a reader of the text
//! meets every decoy on its way.

use proptest::prelude::*;
use serde_json::Value;

use super::json_value;

/// Where to plant decoys: each a member number (taken modulo the number of
/// members in the value, counted depth first) and the decoy's value.
pub type Plants = Vec<(usize, Value)>;

/// Up to three decoys, often nested past any depth limit the tests use
/// (the default is 32 levels).
pub fn plants() -> impl Strategy<Value = Plants> {
    let decoy = prop_oneof![
        json_value(),
        (0..40usize).prop_map(nested),
        (0..40usize).prop_map(|depth| serde_json::json!({"n": nested(depth)})),
    ];
    prop::collection::vec((any::<usize>(), decoy), 0..4)
}

/// `depth` arrays, one inside the other, around `1`.
pub fn nested(depth: usize) -> Value {
    (0..depth).fold(Value::from(1), |inner, _| Value::Array(vec![inner]))
}

/// `value` as compact JSON text with the decoys of `plants` written in.
pub fn text_with_repeats(value: &Value, plants: &[(usize, Value)]) -> String {
    let members = count_members(value);
    let mut writer = Writer {
        out: String::new(),
        next: 0,
        plants: plants
            .iter()
            .filter(|_| members > 0)
            .map(|(at, decoy)| (at % members.max(1), decoy))
            .collect(),
    };
    writer.value(value);
    writer.out
}

/// The number `text_with_repeats` gives the first member of the object
/// that is `value`'s member `name`, if that is a non-empty object.
pub fn first_member_of(value: &Value, name: &str) -> Option<usize> {
    let mut number = 0;
    for (member, inner) in value.as_object()? {
        if member == name {
            return inner
                .as_object()
                .filter(|o| !o.is_empty())
                .map(|_| number + 1);
        }
        number += 1 + count_members(inner);
    }
    None
}

/// How many members `value` has, nested ones included.
fn count_members(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.iter().map(count_members).sum(),
        Value::Object(map) => map.len() + map.values().map(count_members).sum::<usize>(),
        _ => 0,
    }
}

struct Writer<'p> {
    out: String,
    /// The number of the next member written.
    next: usize,
    plants: Vec<(usize, &'p Value)>,
}

impl Writer<'_> {
    fn value(&mut self, value: &Value) {
        match value {
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                self.out.push(']');
            }
            Value::Object(map) => {
                self.out.push('{');
                for (i, (name, member)) in map.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let name = serde_json::to_string(name).unwrap();
                    let number = self.next;
                    self.next += 1;
                    for (_, decoy) in self.plants.iter().filter(|(at, _)| *at == number) {
                        self.out.push_str(&format!("{name}:{decoy},"));
                    }
                    self.out.push_str(&name);
                    self.out.push(':');
                    self.value(member);
                }
                self.out.push('}');
            }
            scalar => self.out.push_str(&scalar.to_string()),
        }
    }
}
