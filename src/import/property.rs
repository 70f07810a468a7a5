//! One property → one key: its name made snake_case, its type read where
//! it is written (see `shape`), its default, deprecation and description,
//! and every keyword on the way that the template cannot express.

use serde_json::{Map, Value};

use super::importer::{Importer, is_annotation};
use super::shape::{Document, Shape, shape};
use crate::issue::pointer;
use crate::key::{KeyDefinition, KeyName, KeyType, is_snake_case, snake_case};
use crate::template::is_other_value;

impl Importer {
    /// Makes the key of property `name` (schema `property` at `at`), or
    /// reports why there is none. `required` is the pointer of its entry in
    /// `required`, if listed there.
    pub(super) fn property(
        &mut self,
        document: Document<'_>,
        name: &str,
        property: &Value,
        required: Option<&str>,
        at: &str,
    ) {
        let Some(schema) = property.as_object() else {
            self.report(
                at.to_owned(),
                format!(
                    "property {name:?} is not a schema object (true/false schemas have no type)"
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
        let shape = match shape(document, schema, at) {
            Ok(shape) => shape,
            Err((path, message)) => {
                self.report(path, format!("property {name:?}: {message}"));
                return;
            }
        };
        let Some(key_type) = self.key_type(name, &shape, required.is_some()) else {
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
        let last = shape.hops.len().saturating_sub(1);
        for (index, hop) in shape.hops.iter().enumerate() {
            for (keyword, _) in hop.schema {
                let known = is_annotation(keyword)
                    || hop.followed == Some(keyword.as_str())
                    || (index == last && keyword == "type")
                    || (index == 0 && matches!(keyword.as_str(), "default" | "deprecated"));
                if !known {
                    self.report(
                        pointer(&hop.at, keyword),
                        format!("{keyword:?} on property {name:?} has no template equivalent: the key takes any {key_type}"),
                    );
                }
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
            Some(converted) => {
                format!("property {name:?} is key {converted:?}: key names are snake_case")
            }
            None => format!("property {name:?} has no snake_case form: left out"),
        };
        self.report(at.to_owned(), message);
        converted
    }

    /// The key type written at the end of `shape`: one type, or one type
    /// and `null` (an optional key already takes `null` as "not given").
    fn key_type(&mut self, name: &str, shape: &Shape<'_>, required: bool) -> Option<KeyType> {
        let hop = shape.typed()?;
        let type_at = pointer(&hop.at, "type");
        let types: Vec<&str> = match hop.schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut concrete = types.iter().filter(|t| **t != "null");
        let key_type = match (concrete.next(), concrete.next()) {
            (None, _) if types.contains(&"null") => return Some(KeyType::Null),
            (None, _) => {
                let union = ["anyOf", "oneOf", "allOf"]
                    .iter()
                    .any(|k| hop.schema.contains_key(*k));
                let why = if union {
                    "a union of schemas, not one type"
                } else {
                    "any value"
                };
                self.report(
                    hop.at.clone(),
                    format!("property {name:?} has no type ({why}): left out"),
                );
                return None;
            }
            (Some(t), None) => {
                let Ok(key_type) = t.parse::<KeyType>() else {
                    self.report(
                        type_at,
                        format!("property {name:?} has unknown type {t:?}: left out"),
                    );
                    return None;
                };
                key_type
            }
            (Some(first), Some(_)) => {
                let Ok(key_type) = first.parse::<KeyType>() else {
                    self.report(
                        type_at,
                        format!(
                            "property {name:?} takes several types, the first unknown: left out"
                        ),
                    );
                    return None;
                };
                self.report(
                    type_at.clone(),
                    format!(
                        "property {name:?} takes several types; the key keeps the first, {first}"
                    ),
                );
                key_type
            }
        };
        let null_at = shape
            .null_branch
            .clone()
            .or_else(|| types.contains(&"null").then_some(type_at));
        if let (true, Some(null_at)) = (required, null_at) {
            self.report(
                null_at,
                format!("required property {name:?} also takes null, which a required key does not (null is a missing key)"),
            );
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
                format!("the default of required property {name:?} never applies: left out"),
            );
            return None;
        }
        if !fits(default) {
            self.report(
                at,
                format!("the default of property {name:?} does not fit its key's type: left out"),
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
                    format!("{keyword:?} on \"other\" has no template equivalent: the reserved key takes a string or an array of strings"),
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
        .hops
        .iter()
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
