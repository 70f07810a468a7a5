//! Templates from the schemas agents already publish: a JSON Schema object
//! (draft 2020-12 or 07) or an MCP tool's `inputSchema`. Each top-level
//! property becomes a key (`type`, `required`, `default`, `description`);
//! an `Optional[T]` as pydantic and schemars write it (`anyOf` / `oneOf`
//! with a `null` branch, `"type": [T, "null"]`) is an optional `T` key, and
//! a local `$ref` (`#/$defs/Size`) is followed. Every difference between
//! what the schema accepts and what the template accepts is listed with its
//! JSON Pointer, never silently dropped: keywords a template cannot express
//! (patterns, bounds, formats, enums, nested schemas ...), an open object
//! made closed, a `required` name with no property.
//!
//! ```
//! use sdsi::import::from_json_schema;
//! use serde_json::json;
//!
//! let imported = from_json_schema(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "description": "City name.", "minLength": 2},
//!         "days": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }), "weather_v1", "weather")?;
//! assert_eq!(imported.template.keys[0].key_name.as_str(), "city");
//! assert!(imported.template.keys[0].required);
//! assert!(!imported.template.keys[1].required); // an optional integer
//! assert_eq!(imported.unsupported[0].path(), "/properties/city/minLength");
//! # Ok::<(), sdsi::TemplateError>(())
//! ```

mod importer;
mod object;
mod property;
mod shape;

use serde_json::Value;

use crate::issue::{Issue, IssueCode, Problems};
use crate::template::{SchemaTemplate, TemplateError};
use importer::{Importer, refuse};
use shape::Document;

/// A template imported from a schema, and what it could not carry over.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Imported {
    /// The template: one key per top-level property, in the schema's order.
    pub template: SchemaTemplate,
    /// Each place where the template accepts other payloads than the schema
    /// does, as [`IssueCode::NotExpressible`] with a JSON Pointer into the
    /// schema, in document order: a keyword the template cannot express
    /// (`/properties/city/pattern`), an open object made closed (at its
    /// `additionalProperties`, present or not), a `required` name with no
    /// property (`/required/2`), a property left out. A schema reached
    /// from many properties (a shared `$defs` entry) is reported once. At
    /// most 1,000 issues (and 1 MiB of paths and messages) are listed; past
    /// that, one last issue at the root counts the rest.
    pub unsupported: Vec<Issue>,
}

/// Imports a JSON Schema object. `schema` may describe the payload object
/// itself, or a whole message `{"schema_id": {"const": ...}, "payload":
/// {...}}` as [`CompiledSchema::json_schema`](crate::CompiledSchema::json_schema)
/// writes it (the id then comes from the `const`, and pointers stay into
/// the whole schema). Property names that are not snake_case are converted
/// (`bookTitle` → `book_title`) and reported. `$ref`s resolve in `schema`.
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
    let document = Document::new(schema, "");
    let mut import = Importer::default();
    let (payload, at, schema_id) = match message_parts(schema) {
        Some((payload, id)) => (
            payload,
            "/properties/payload".to_owned(),
            id.unwrap_or(schema_id),
        ),
        None => (schema, String::new(), schema_id),
    };
    import.object(document, payload, &at)?;
    finish(import, schema_id, scenario)
}

/// Imports an MCP tool (`{"name", "description", "inputSchema"}`): its
/// `inputSchema` as [`from_json_schema`], the tool's name as schema id and
/// scenario. Pointers are into the tool (`/inputSchema/properties/q`);
/// `$ref`s resolve in the `inputSchema`.
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
    let mut import = Importer::default();
    import.object(Document::new(input, "/inputSchema"), input, "/inputSchema")?;
    finish(import, name, name)
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

/// The template of the keys made, if it passes the template rules.
fn finish(import: Importer, schema_id: &str, scenario: &str) -> Result<Imported, TemplateError> {
    let (keys, unsupported) = import.into_parts();
    let template = SchemaTemplate::new(schema_id, scenario, keys);
    let (errors, _) = template.check().into_parts();
    if !errors.is_empty() {
        return Err(TemplateError::from(Problems::new(errors, Vec::new())));
    }
    Ok(Imported {
        template,
        unsupported,
    })
}
