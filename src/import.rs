//! Templates from the schemas agents already publish: a JSON Schema object
//! (draft 2020-12 or 07) or an MCP tool's `inputSchema`. Each top-level
//! property becomes a key (`type`, `required`, `default`, `description`);
//! whatever a template cannot express (patterns, bounds, formats, enums,
//! nested schemas, `$ref` ...) is listed with its JSON Pointer, never
//! silently dropped.
//!
//! ```
//! use sdsi::import::from_json_schema;
//! use serde_json::json;
//!
//! let imported = from_json_schema(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "description": "City name.", "minLength": 2},
//!         "days": {"type": "integer", "default": 3}
//!     },
//!     "required": ["city"]
//! }), "weather_v1", "weather")?;
//! assert_eq!(imported.template.keys[0].key_name.as_str(), "city");
//! assert!(imported.template.keys[0].required);
//! assert_eq!(imported.unsupported[0].path(), "/properties/city/minLength");
//! # Ok::<(), sdsi::TemplateError>(())
//! ```

use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode, Problems, pointer};
use crate::key::{KeyDefinition, KeyName, KeyType, OTHER_KEY, is_snake_case, snake_case};
use crate::template::{SchemaTemplate, TemplateError};

/// Keywords that describe rather than constrain: read or safely ignored.
const ANNOTATIONS: [&str; 8] = [
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "examples",
    "readOnly",
    "writeOnly",
];

/// A template imported from a schema, and what it could not carry over.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Imported {
    /// The template: one key per top-level property, in the schema's order.
    pub template: SchemaTemplate,
    /// Each construct the template cannot express, as
    /// [`IssueCode::NotExpressible`] with a JSON Pointer into the schema
    /// (`/properties/city/pattern`), in document order.
    pub unsupported: Vec<Issue>,
}

/// Imports a JSON Schema object. `schema` may describe the payload object
/// itself, or a whole message `{"schema_id": {"const": ...}, "payload":
/// {...}}` as [`CompiledSchema::json_schema`](crate::CompiledSchema::json_schema)
/// writes it (the id then comes from the `const`, and pointers stay into
/// the whole schema). Property names that are not snake_case are converted
/// (`bookTitle` → `book_title`) and reported.
///
/// # Errors
/// [`TemplateError`] when no template can be made: `schema` is not an
/// object schema, or the keys it yields break the template rules (two names
/// converting to the same key, say); every problem is listed.
pub fn from_json_schema(
    schema: &Value,
    schema_id: &str,
    scenario: &str,
) -> Result<Imported, TemplateError> {
    let mut import = Import::default();
    let (payload, at, schema_id) = match message_parts(schema) {
        Some((payload, id)) => (
            payload,
            "/properties/payload".to_owned(),
            id.unwrap_or(schema_id),
        ),
        None => (schema, String::new(), schema_id),
    };
    import.object(payload, &at)?;
    import.finish(schema_id, scenario)
}

/// Imports an MCP tool (`{"name", "description", "inputSchema"}`): its
/// `inputSchema` as [`from_json_schema`], the tool's name as schema id and
/// scenario. Pointers are into the tool (`/inputSchema/properties/q`).
///
/// # Errors
/// As [`from_json_schema`]; also when the tool has no `name` or
/// `inputSchema`.
pub fn from_mcp_tool(tool: &Value) -> Result<Imported, TemplateError> {
    let name = tool.get("name").and_then(Value::as_str);
    let input = tool.get("inputSchema");
    let (Some(name), Some(input)) = (name, input) else {
        let path = if name.is_none() {
            "/name"
        } else {
            "/inputSchema"
        };
        return Err(refuse(
            IssueCode::MissingMember,
            path,
            "an mcp tool needs a name and an inputSchema",
        ));
    };
    let mut import = Import::default();
    import.object(input, "/inputSchema")?;
    import.finish(name, name)
}

/// The payload schema and `schema_id` const of a whole-message schema.
fn message_parts(schema: &Value) -> Option<(&Value, Option<&str>)> {
    let properties = schema.get("properties")?.as_object()?;
    let payload = properties.get("payload")?;
    let id = properties.get("schema_id")?;
    let only_these = properties
        .keys()
        .all(|k| k == "payload" || k == "schema_id");
    (only_these && payload.get("properties").is_some())
        .then(|| (payload, id.get("const").and_then(Value::as_str)))
}

fn refuse(code: IssueCode, path: &str, message: &str) -> TemplateError {
    TemplateError::from(Problems::error(Issue::owned(
        code,
        path.to_owned(),
        message.to_owned(),
    )))
}

#[derive(Default)]
struct Import {
    keys: Vec<KeyDefinition>,
    unsupported: Vec<Issue>,
}

impl Import {
    fn report(&mut self, path: String, message: String) {
        self.unsupported
            .push(Issue::owned(IssueCode::NotExpressible, path, message));
    }

    /// Reads the payload object's schema at `at`.
    fn object(&mut self, schema: &Value, at: &str) -> Result<(), TemplateError> {
        let Some(object) = schema.as_object() else {
            return Err(refuse(
                IssueCode::NotAnObject,
                at,
                "a schema must be a JSON object",
            ));
        };
        if let Some(kind) = object.get("type") {
            if kind != "object" {
                return Err(refuse(
                    IssueCode::InvalidMember,
                    &format!("{at}/type"),
                    "the payload's schema must be of type object",
                ));
            }
        }
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (keyword, value) in object {
            let path = pointer(at, keyword);
            match keyword.as_str() {
                "type" | "properties" | "required" => {}
                // A closed payload is the template's own rule.
                "additionalProperties" if value == &Value::Bool(false) => {}
                k if ANNOTATIONS.contains(&k) => {}
                other => self.report(
                    path,
                    format!("{other:?} on the payload object has no template equivalent (keys are closed, unbounded in number)"),
                ),
            }
        }
        let properties = object.get("properties").and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            let path = pointer(&pointer(at, "properties"), name);
            self.property(name, property, required.contains(&name.as_str()), &path);
        }
        Ok(())
    }

    /// One property → one key, or a report when it has no single type.
    fn property(&mut self, name: &str, property: &Value, required: bool, at: &str) {
        let Some(schema) = property.as_object() else {
            self.report(
                at.to_owned(),
                format!(
                    "property {name:?} is not a schema object (true/false schemas have no type)"
                ),
            );
            return;
        };
        let key_name = if is_snake_case(name) {
            KeyName::new(name).ok()
        } else {
            let converted = snake_case(name).and_then(|s| KeyName::new(&s).ok());
            if let Some(converted) = &converted {
                self.report(
                    at.to_owned(),
                    format!("property {name:?} is key {converted:?}: key names are snake_case"),
                );
            }
            converted
        };
        let Some(key_name) = key_name else {
            self.report(
                at.to_owned(),
                format!("property {name:?} has no snake_case form: left out"),
            );
            return;
        };
        let is_other = key_name.as_str() == OTHER_KEY;
        let Some(key_type) = self.key_type(name, schema, required, is_other, at) else {
            return;
        };
        let description = schema
            .get("description")
            .or_else(|| schema.get("title"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut key = KeyDefinition::new(key_name, key_type, required && !is_other, description);
        if let Some(default) = schema.get("default") {
            if required {
                self.report(
                    pointer(at, "default"),
                    format!("the default of required property {name:?} never applies: left out"),
                );
            } else {
                key.default_value = Some(default.clone());
            }
        }
        if schema.get("deprecated") == Some(&Value::Bool(true)) {
            key.extra.insert("deprecated".to_owned(), Value::Bool(true));
        }
        for (keyword, _) in schema {
            let known = matches!(keyword.as_str(), "type" | "default" | "deprecated")
                || ANNOTATIONS.contains(&keyword.as_str())
                // `other`'s items, as the export writes them.
                || (is_other && keyword == "items");
            if !known {
                self.report(
                    pointer(at, keyword),
                    format!("{keyword:?} on property {name:?} has no template equivalent: the key takes any {key_type}"),
                );
            }
        }
        self.keys.push(key);
    }

    /// The key type of a property's `type`: one type, or one type and
    /// `null` (an optional key already takes `null` as "not given").
    fn key_type(
        &mut self,
        name: &str,
        schema: &Map<String, Value>,
        required: bool,
        is_other: bool,
        at: &str,
    ) -> Option<KeyType> {
        if is_other {
            // `other` takes a string or strings, whatever its schema says.
            return Some(KeyType::String);
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut concrete = types.iter().filter(|t| **t != "null");
        let parse = |t: &str| t.parse::<KeyType>().ok();
        match (concrete.next(), concrete.next()) {
            (None, _) if types.contains(&"null") => Some(KeyType::Null),
            (None, _) => {
                self.report(
                    at.to_owned(),
                    format!("property {name:?} has no type (any value): left out"),
                );
                None
            }
            (Some(t), None) => {
                let ty = parse(t);
                if ty.is_none() {
                    self.report(
                        pointer(at, "type"),
                        format!("property {name:?} has unknown type {t:?}: left out"),
                    );
                } else if required && types.contains(&"null") {
                    self.report(pointer(at, "type"), format!("required property {name:?} also takes null, which a required key does not"));
                }
                ty
            }
            (Some(first), Some(_)) => {
                self.report(
                    pointer(at, "type"),
                    format!(
                        "property {name:?} takes several types; the key keeps the first, {first}"
                    ),
                );
                parse(first)
            }
        }
    }

    fn finish(self, schema_id: &str, scenario: &str) -> Result<Imported, TemplateError> {
        let template = SchemaTemplate::new(schema_id, scenario, self.keys);
        let (errors, _) = template.check().into_parts();
        if !errors.is_empty() {
            return Err(TemplateError::from(Problems::new(errors, Vec::new())));
        }
        Ok(Imported {
            template,
            unsupported: self.unsupported,
        })
    }
}
