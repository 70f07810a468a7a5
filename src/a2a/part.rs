//! Data parts: a structured payload in an A2A v1.0 message part, and input
//! fields compiled to validate a part's `data`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::issue::{Issue, IssueCode, pointer};
use crate::key::OTHER_KEY;
use crate::payload::message::StructuredPayload;
use crate::template::{SchemaTemplate, TemplateError};
use crate::validate::core::outcome::Collect;
use crate::validate::core::schema::CompiledSchema;
use crate::validate::normalized::Normalized;
use crate::validate::report::{Report, finish_report};

use super::fields::{FieldDefinition, JSON_MEDIA_TYPE, convert};
use super::part_metadata::{data_part_metadata, is_json_media_type, metadata_issues};

/// The schema id of the template built from input fields by [`CompiledFields`].
pub const FIELDS_SCHEMA_ID: &str = "a2a_input_fields";

/// Input fields compiled for validating data parts: compile once, validate
/// many.
///
/// A data part's `data` object has one member per field, named as the field
/// (`bookTitle`, not `book_title`); its values are plain JSON values of the
/// key's type. For a `text` field, a text part object (`{"kind": "text",
/// "text": ...}` as in #813's example, or v1.0's `{"text": ...}`) stands for
/// its text. `other` is accepted whether or not a field declares it.
///
/// ```
/// use sdsi::a2a::{CompiledFields, FieldDefinition};
/// use serde_json::json;
///
/// let fields: Vec<FieldDefinition> = serde_json::from_value(json!([
///     {"name": "bookTitle", "kind": "text", "description": "The title of the book"},
///     {"name": "authorName", "kind": "text", "description": "The author's full name"}
/// ]))?;
/// let compiled = CompiledFields::new(&fields)?;
/// let report = compiled.validate_data(&json!({
///     "bookTitle": {"kind": "text", "text": "Charlotte's Web"},
///     "authorName": 7
/// }));
/// let codes: Vec<_> = report.errors().iter().map(|e| (e.code().as_str(), e.path())).collect();
/// assert_eq!(codes, [("type_mismatch", "/authorName")]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct CompiledFields {
    schema: CompiledSchema,
    /// Data member name → (key name, whether the field is of kind text).
    by_field: HashMap<String, (String, bool)>,
    /// Key name → data member name.
    by_key: HashMap<String, String>,
    warnings: Vec<Issue>,
}

impl CompiledFields {
    /// Converts `fields` ([`template_from_fields`](crate::a2a::template_from_fields)) and compiles the template.
    /// The conversion always gives a valid template; the error is there
    /// only so that nothing can panic.
    pub fn new(fields: &[FieldDefinition]) -> Result<Self, TemplateError> {
        let converted = convert(fields);
        let template = SchemaTemplate::new(FIELDS_SCHEMA_ID, "a2a_input_fields", converted.keys);
        let schema = CompiledSchema::new(&template)?;
        let by_field = converted
            .names
            .iter()
            .map(|(field, key, text)| (field.clone(), (key.clone(), *text)))
            .collect();
        let by_key = converted
            .names
            .into_iter()
            .map(|(field, key, _)| (key, field))
            .collect();
        Ok(Self {
            schema,
            by_field,
            by_key,
            warnings: converted.warnings,
        })
    }

    /// The compiled template (keys named in snake_case).
    pub fn schema(&self) -> &CompiledSchema {
        &self.schema
    }

    /// What the conversion from fields lost (see [`template_from_fields`](crate::a2a::template_from_fields)).
    pub fn warnings(&self) -> &[Issue] {
        &self.warnings
    }

    /// Validates a data part's `data` object with the core validator. Paths
    /// are relative to `data` and use the field names (`/bookTitle`); the
    /// normalized payload, when valid, is keyed by field names too.
    pub fn validate_data(&self, data: &Value) -> Report<'static> {
        let Some(object) = data.as_object() else {
            return Report::single(Issue::fixed(
                IssueCode::NotAnObject,
                "",
                "data must be a JSON object",
            ));
        };
        let max_keys = self.schema.options().limits.max_keys;
        if object.len() > max_keys {
            return Report::single(Issue::limit("", "member count", max_keys as u64));
        }
        let mut out = Collect::default();
        let mut payload = Map::new();
        for (name, value) in object {
            if let Some((key, text)) = self.by_field.get(name) {
                let value = if *text {
                    unwrap_text_part(value)
                } else {
                    value.clone()
                };
                payload.insert(key.clone(), value);
            } else if name == OTHER_KEY {
                payload.insert(OTHER_KEY.to_owned(), value.clone());
            } else {
                out.errors.push(Issue::fixed(
                    IssueCode::UnknownKey,
                    pointer("", name),
                    "member is not one of the input fields",
                ));
            }
        }
        let message = json!({"schema_id": FIELDS_SCHEMA_ID, "payload": payload});
        let report = self.schema.validate_owned(message);
        out.errors
            .extend(report.errors().iter().map(|i| self.to_data_path(i)));
        out.warnings
            .extend(report.warnings().iter().map(|i| self.to_data_path(i)));
        let normalized = report.into_normalized().map(|payload| {
            Normalized::owned(
                payload
                    .into_iter()
                    .map(|(key, value)| {
                        let name = self.by_key.get(&key).cloned().unwrap_or(key);
                        (name, value)
                    })
                    .collect(),
            )
        });
        finish_report(out, normalized)
    }

    /// `/payload/book_title/0` → `/bookTitle/0`.
    fn to_data_path(&self, issue: &Issue) -> Issue {
        let path = issue.path();
        let new_path = match path.strip_prefix("/payload") {
            Some(rest) => match rest.strip_prefix('/') {
                Some(rest) => {
                    let (segment, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                    match self.by_key.get(segment) {
                        Some(field) => format!("{}{tail}", pointer("", field)),
                        None => format!("/{rest}"),
                    }
                }
                None => rest.to_owned(),
            },
            None => path.to_owned(),
        };
        repath(issue, new_path)
    }
}

/// `issue` at `path`, with the same code, message and limit.
fn repath(issue: &Issue, path: String) -> Issue {
    if let Some(limit) = issue.limit_value() {
        let message = issue.message();
        for what in ["nesting depth", "member count", "input size in bytes"] {
            if message.starts_with(what) {
                return Issue::limit(path, what, limit);
            }
        }
    }
    Issue::new(issue.code(), path, issue.message())
}

/// The text of a text part object (`{"kind": "text", "text": ...}` or
/// `{"text": ...}`, optionally with `metadata`); any other value unchanged.
fn unwrap_text_part(value: &Value) -> Value {
    if let Value::Object(part) = value {
        let only_part_members = part
            .keys()
            .all(|k| matches!(k.as_str(), "kind" | "text" | "metadata"));
        let kind_ok = part.get("kind").is_none_or(|k| k == "text");
        if let (true, true, Some(Value::String(text))) =
            (only_part_members, kind_ok, part.get("text"))
        {
            return Value::String(text.clone());
        }
    }
    value.clone()
}

impl CompiledSchema {
    /// An A2A v1.0 data part carrying `message` (`{"schema_id", "payload"}`)
    /// as its `data`, with `mediaType` `application/json`, and in its
    /// `metadata` the `mediaType` and `schema` of A2A v1.0 §6.8: the media
    /// type again and the message's JSON Schema
    /// ([`CompiledSchema::json_schema`]).
    pub fn a2a_data_part(&self, message: &StructuredPayload) -> Value {
        json!({
            "data": message.to_value(),
            "mediaType": JSON_MEDIA_TYPE,
            "metadata": data_part_metadata(self),
        })
    }

    /// Validates an A2A part carrying a structured payload message: a data
    /// part (`{"data": {"schema_id", "payload"}}`), or a v1.0 text part
    /// whose `mediaType` is JSON (`application/json`, or any `+json` type)
    /// and whose `text` is the message serialized, which is read through the
    /// bytes path under the schema's [`Limits`](crate::validate::Limits).
    /// Paths are from the part's root (`/data/payload/origin`; for a text
    /// part, `/text` followed by the path inside the parsed text).
    ///
    /// What the part says about itself must agree with the schema (A2A v1.0
    /// §6.8): a data part's `mediaType`, when given, is JSON; a
    /// `metadata.mediaType` is JSON and the same type as the part's; a
    /// `metadata.schema` that names a schema id (in
    /// `properties.schema_id.const`, as [`CompiledSchema::json_schema`]
    /// writes it) names this schema's, else `schema_id_mismatch` at
    /// `/metadata/schema/properties/schema_id/const`. Other media type
    /// problems are `invalid_member` at the member's path. A v0.x `kind`
    /// member is not checked.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
    ///               "semantic_description": "Cup size."}]
    /// }))?;
    /// let schema = CompiledSchema::new(&template)?;
    /// let part = json!({
    ///     "text": r#"{"schema_id": "coffee_v1", "payload": {"size": 2}}"#,
    ///     "mediaType": "application/json"
    /// });
    /// let report = schema.validate_a2a_data_part(&part);
    /// assert_eq!(report.errors()[0].path(), "/text/payload/size");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate_a2a_data_part<'a>(&'a self, part: &'a Value) -> Report<'a> {
        let Some(object) = part.as_object() else {
            return Report::single(Issue::fixed(
                IssueCode::NotAnObject,
                "",
                "a part must be a JSON object",
            ));
        };
        let data_part = object.contains_key("data");
        let (report, prefix) = match (object.get("data"), object.get("text")) {
            (Some(data), _) => (self.validate(data), "/data"),
            (None, Some(Value::String(text))) if is_json_media_type(object.get("mediaType")) => {
                (self.validate_slice(text.as_bytes()), "/text")
            }
            (None, Some(_)) => {
                return Report::single(Issue::fixed(
                    IssueCode::MissingPayload,
                    "/mediaType",
                    "a text part carries a structured payload only as a string with mediaType application/json",
                ));
            }
            (None, None) => {
                return Report::single(Issue::fixed(
                    IssueCode::MissingPayload,
                    "/data",
                    "part has neither data nor a JSON text",
                ));
            }
        };
        let mut errors: Vec<Issue> = report.errors().iter().map(|i| i.prefixed(prefix)).collect();
        errors.extend(metadata_issues(object, data_part, self));
        let out = Collect {
            errors,
            warnings: report
                .warnings()
                .iter()
                .map(|i| i.prefixed(prefix))
                .collect(),
        };
        finish_report(out, report.into_parts().1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_parts_unwrap() {
        assert_eq!(
            unwrap_text_part(&json!({"kind": "text", "text": "x"})),
            json!("x")
        );
        assert_eq!(unwrap_text_part(&json!({"text": "x"})), json!("x"));
        assert_eq!(
            unwrap_text_part(&json!({"kind": "data", "text": "x"})),
            json!({"kind": "data", "text": "x"})
        );
        assert_eq!(
            unwrap_text_part(&json!({"text": "x", "y": 1})),
            json!({"text": "x", "y": 1})
        );
    }

    #[test]
    fn limits_keep_their_value_when_re_rooted() {
        let issue = Issue::limit("/payload/a_b", "nesting depth", 3);
        let moved = repath(&issue, "/aB".into());
        assert_eq!(moved.limit_value(), Some(3));
        assert_eq!(moved.message(), issue.message());
    }
}
