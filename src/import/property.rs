//! One property → one key: its name made snake_case, its type read where
//! it is written (see `shape`), its default, deprecation and description,
//! and every keyword on the way that the template cannot express.

use serde_json::{Map, Value};

use super::importer::{Importer, is_annotation};
use super::shape::{Shape, Shapes};
use crate::issue::{pointer, quote_short};
use crate::key::{KeyDefinition, KeyName, KeyType, is_snake_case, snake_case};
use crate::template::is_other_value;

impl Importer {
    /// Makes the key of property `name` (schema `property` at `at`), or
    /// reports why there is none. `required` is the pointer of its entry in
    /// `required`, if listed there.
    pub(super) fn property<'a>(
        &mut self,
        shapes: &mut Shapes<'a>,
        name: &str,
        property: &'a Value,
        required: Option<&str>,
        at: &str,
    ) {
        let Some(schema) = property.as_object() else {
            self.report(
                at.to_owned(),
                format!(
                    "property {} is not a schema object (true/false schemas have no type)",
                    quote_short(name)
                ),
            );
            return;
        };
        let Some(key_name) = self.key_name(name, at) else {
            return;
        };
        if key_name.is_other() {
            self.other(key_name, schema, required, at);
            return;
        }
        let shape = match shapes.shape(schema, at) {
            Ok(shape) => shape,
            Err(why) => {
                self.report_with(|| {
                    let message = format!("property {}: {why}: left out", quote_short(name));
                    (at.to_owned(), message)
                });
                return;
            }
        };
        let Some(key_type) = self.key_type(name, &shape, required.is_some(), at) else {
            return;
        };
        let mut key =
            KeyDefinition::new(key_name, key_type, required.is_some(), description(&shape));
        key.default_value = self.default(name, schema, required.is_some(), at, |v| {
            key_type.matches(v)
        });
        if schema.get("deprecated") == Some(&Value::Bool(true)) {
            key.extra.insert("deprecated".to_owned(), Value::Bool(true));
        }
        for (index, hop) in shape.hops().enumerate() {
            // The property's own schema is its alone; one reached through a
            // reference or a union may be reached from many properties, and
            // is reported once, for the first.
            let own = index == 0;
            if !own && !self.first_report_of(hop.schema) {
                continue;
            }
            for (keyword, _) in hop.schema {
                let known = is_annotation(keyword)
                    || hop.followed == Some(keyword.as_str())
                    || (hop.followed.is_none() && keyword == "type")
                    || (own && matches!(keyword.as_str(), "default" | "deprecated"));
                if known {
                    continue;
                }
                self.report_with(|| {
                    let (keyword_name, property) = (quote_short(keyword), quote_short(name));
                    let message = if own {
                        format!("{keyword_name} on property {property} has no template equivalent: the key takes any {key_type}")
                    } else {
                        format!("{keyword_name} has no template equivalent: every key whose type is read through here (the first, property {property}) takes any {key_type}")
                    };
                    (pointer(&hop.at, keyword), message)
                });
            }
        }
        self.push_key(key);
    }

    /// The snake_case key name of property `name`, reported when converted
    /// or when there is none.
    fn key_name(&mut self, name: &str, at: &str) -> Option<KeyName> {
        if is_snake_case(name) {
            return KeyName::new(name).ok();
        }
        let converted = snake_case(name).and_then(|s| KeyName::new(&s).ok());
        let message = match &converted {
            Some(converted) => format!(
                "property {} is key {}: key names are snake_case",
                quote_short(name),
                quote_short(converted.as_str())
            ),
            None => format!(
                "property {} has no snake_case form: left out",
                quote_short(name)
            ),
        };
        self.report(at.to_owned(), message);
        converted
    }

    /// The key type written at the end of `shape` (the property at `at`):
    /// one type, or one type and `null` (an optional key already takes
    /// `null` as "not given").
    fn key_type(
        &mut self,
        name: &str,
        shape: &Shape<'_>,
        required: bool,
        at: &str,
    ) -> Option<KeyType> {
        let (hop, typed) = shape.typed()?;
        let type_at = || pointer(&hop.at, "type");
        let key_type = match typed.first {
            None if typed.null => return Some(KeyType::Null),
            None => {
                self.report_with(|| {
                    let why = if typed.union {
                        "a union of schemas, not one type"
                    } else {
                        "any value"
                    };
                    // Said at the property, with where the type was looked
                    // for when that is elsewhere.
                    let place = if hop.at == at {
                        String::new()
                    } else {
                        format!(", at {}", hop.at)
                    };
                    let message = format!(
                        "property {} has no type ({why}{place}): left out",
                        quote_short(name)
                    );
                    (at.to_owned(), message)
                });
                return None;
            }
            Some((t, None)) if !typed.several => {
                self.report_with(|| {
                    let message = format!(
                        "property {} has unknown type {}: left out",
                        quote_short(name),
                        quote_short(t)
                    );
                    (type_at(), message)
                });
                return None;
            }
            Some((_, None)) => {
                self.report_with(|| {
                    let message = format!(
                        "property {} takes several types, the first unknown: left out",
                        quote_short(name)
                    );
                    (type_at(), message)
                });
                return None;
            }
            Some((_, Some(first))) => {
                if typed.several {
                    self.report_with(|| {
                        let message = format!(
                            "property {} takes several types; the key keeps the first, {first}",
                            quote_short(name)
                        );
                        (type_at(), message)
                    });
                }
                first
            }
        };
        if required {
            let null_at = shape
                .null_branch()
                .map(str::to_owned)
                .or_else(|| typed.null.then(type_at));
            if let Some(null_at) = null_at {
                self.report(
                    null_at,
                    format!("required property {} also takes null, which a required key does not (null is a missing key)", quote_short(name)),
                );
            }
        }
        Some(key_type)
    }

    /// The default of the property at `at`: a non-null value that `fits`,
    /// on an optional key. A `null` default is the template's "not given",
    /// so no default; anything else left out is reported.
    fn default(
        &mut self,
        name: &str,
        schema: &Map<String, Value>,
        required: bool,
        at: &str,
        fits: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let default = schema.get("default").filter(|v| !v.is_null())?;
        let at = pointer(at, "default");
        if required {
            self.report(
                at,
                format!(
                    "the default of required property {} never applies: left out",
                    quote_short(name)
                ),
            );
            return None;
        }
        if !fits(default) {
            self.report(
                at,
                format!(
                    "the default of property {} does not fit its key's type: left out",
                    quote_short(name)
                ),
            );
            return None;
        }
        Some(default.clone())
    }

    /// The reserved key `other`: always optional, and a string or strings
    /// whatever its schema says.
    fn other(
        &mut self,
        key_name: KeyName,
        schema: &Map<String, Value>,
        required: Option<&str>,
        at: &str,
    ) {
        if let Some(entry) = required {
            self.report(
                entry.to_owned(),
                "the reserved key \"other\" is always optional: not made required".to_owned(),
            );
        }
        for (keyword, value) in schema {
            let known = is_annotation(keyword)
                || matches!(keyword.as_str(), "default" | "deprecated")
                || (keyword == "type" && names_only(value, &["string", "array", "null"]))
                || (keyword == "items"
                    && value.as_object().is_some_and(|items| {
                        items.len() == 1 && items.get("type") == Some(&Value::from("string"))
                    }));
            if !known {
                self.report(
                    pointer(at, keyword),
                    format!("{} on \"other\" has no template equivalent: the reserved key takes a string or an array of strings", quote_short(keyword)),
                );
            }
        }
        let description = schema
            .get("description")
            .or_else(|| schema.get("title"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut key = KeyDefinition::new(key_name, KeyType::String, false, description);
        key.default_value = self.default("other", schema, false, at, is_other_value);
        if schema.get("deprecated") == Some(&Value::Bool(true)) {
            key.extra.insert("deprecated".to_owned(), Value::Bool(true));
        }
        self.push_key(key);
    }
}

/// The first description (or else title) along the way to the type: the
/// property's own, then a referenced schema's.
fn description<'a>(shape: &Shape<'a>) -> &'a str {
    shape
        .hops()
        .find_map(|hop| {
            let text = |k: &str| hop.schema.get(k).and_then(Value::as_str);
            text("description").or_else(|| text("title"))
        })
        .unwrap_or_default()
}

/// Whether a `type` value names only types from `allowed`.
fn names_only(value: &Value, allowed: &[&str]) -> bool {
    match value {
        Value::String(t) => allowed.contains(&t.as_str()),
        Value::Array(list) => list
            .iter()
            .all(|t| t.as_str().is_some_and(|t| allowed.contains(&t))),
        _ => false,
    }
}
