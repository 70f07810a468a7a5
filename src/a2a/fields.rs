//! A2A issue #813's field definitions and their mapping to and from schema
//! templates.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::issue::{Issue, IssueCode, pointer, quote_list, quote_short};
use crate::key::{KeyDefinition, KeyName, KeyType, is_snake_case, snake_case};
use crate::template::{SchemaTemplate, is_other_value};

/// The media type of a data part carrying a structured payload.
pub const JSON_MEDIA_TYPE: &str = "application/json";

/// A field's content kind (#813): `text`, `file` or `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldKind {
    /// Text content.
    Text,
    /// A file.
    File,
    /// Structured (JSON) data.
    Data,
}

/// An expected input or output field, exactly as proposed in A2A issue #813;
/// every member is optional, and the wire names are camelCase.
///
/// ```
/// use sdsi::a2a::{FieldDefinition, FieldKind};
/// let field: FieldDefinition = serde_json::from_str(
///     r#"{"name": "bookTitle", "kind": "text", "description": "The title of the book"}"#)?;
/// assert_eq!(field.kind, Some(FieldKind::Text));
/// assert!(!field.is_optional());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FieldDefinition {
    /// The field's name: a member of a data part's `data`, or a part's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The content kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FieldKind>,
    /// Accepted media types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_types: Option<Vec<String>>,
    /// A JSON Schema of the field's value (for data fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Map<String, Value>>,
    /// What the field means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the field may be left out (absent means `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
    /// Members #813 does not define, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl FieldDefinition {
    /// Whether the field may be left out.
    pub fn is_optional(&self) -> bool {
        self.optional.unwrap_or(false)
    }

    /// The field for one template key: `name` is the key name, `kind` is
    /// `text` for a string key and `data` otherwise (for `other`: `text` when
    /// declared a string, `data` when an array), `schema` is the value's JSON
    /// Schema type plus the default, `description` the semantic description,
    /// `optional: true` for an optional key.
    pub fn from_key(key: &KeyDefinition) -> Self {
        let mut schema = Map::new();
        if key.key_name.is_other() {
            schema.insert("type".into(), json!(["string", "array"]));
            schema.insert("items".into(), json!({"type": "string"}));
        } else {
            schema.insert("type".into(), key.key_type.as_str().into());
        }
        if let Some(default) = key.effective_default() {
            schema.insert("default".into(), default.clone());
        }
        Self {
            name: Some(key.key_name.to_string()),
            kind: Some(if key.key_type == KeyType::String {
                FieldKind::Text
            } else {
                FieldKind::Data
            }),
            mime_types: None,
            schema: Some(schema),
            description: Some(key.semantic_description.clone()),
            optional: (!key.required).then_some(true),
            extra: IndexMap::new(),
        }
    }
}

/// The input fields for `template`, one per declared key in order (see
/// [`FieldDefinition::from_key`]). `other` is listed only when the template
/// declares it, though a data part may always carry it.
///
/// Lossless where the models overlap: [`template_from_fields`] gives back
/// the same keys, except that an explicit `"default_value": null` comes back
/// absent, and the keys' extra members are not carried. The template's
/// `schema_id`, `scenario` and extra members have no place in a field list.
pub fn fields_from_template(template: &SchemaTemplate) -> Vec<FieldDefinition> {
    template
        .keys
        .iter()
        .map(FieldDefinition::from_key)
        .collect()
}

/// A template made from A2A input fields, and what the mapping lost.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FieldsConversion {
    /// The template; always valid.
    pub template: SchemaTemplate,
    /// One warning per loss, with a JSON Pointer into the field list (`/2/schema`):
    /// [`IssueCode::FieldRenamed`], [`IssueCode::LossyMapping`],
    /// [`IssueCode::NotExpressible`] (a field left out).
    pub warnings: Vec<Issue>,
}

/// Builds a template from A2A input fields (the inverse of
/// [`fields_from_template`]), reporting every loss as a warning:
///
/// - a field without a name, or whose name cannot be made snake_case, or
///   that maps onto a key already made, is left out (`not_expressible`);
/// - a name that is not snake_case is renamed: `bookTitle` → `book_title`,
///   `review-chunk` → `review_chunk` (`field_renamed`);
/// - the key type comes from `schema.type` (`["T", "null"]` is `T`), else
///   from the kind: `text` → string, `data` → object; a `file` field becomes
///   an object key; the rest of the schema (`enum`, `format`, bounds...),
///   media types, a default that does not fit the type and unknown members
///   are dropped (`lossy_mapping`).
///
/// ```
/// use sdsi::a2a::{FieldDefinition, template_from_fields};
/// let fields: Vec<FieldDefinition> = serde_json::from_str(r#"[
///     {"name": "bookTitle", "kind": "text", "description": "The title of the book"},
///     {"name": "authorName", "kind": "text", "description": "The author's full name"}
/// ]"#)?;
/// let conversion = template_from_fields("book_review_v1", "book_review", &fields);
/// assert_eq!(conversion.template.keys[0].key_name.as_str(), "book_title");
/// assert_eq!(conversion.warnings[0].code().as_str(), "field_renamed");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn template_from_fields(
    schema_id: impl Into<String>,
    scenario: impl Into<String>,
    fields: &[FieldDefinition],
) -> FieldsConversion {
    let converted = convert(fields);
    FieldsConversion {
        template: SchemaTemplate::new(schema_id, scenario, converted.keys),
        warnings: converted.warnings,
    }
}

pub(super) struct Converted {
    pub(super) keys: Vec<KeyDefinition>,
    pub(super) warnings: Vec<Issue>,
    /// (field name, key name, whether the field is of kind text), per key.
    pub(super) names: Vec<(String, String, bool)>,
}

fn lossy(path: String, message: String) -> Issue {
    Issue::owned(IssueCode::LossyMapping, path, message)
}

pub(super) fn convert(fields: &[FieldDefinition]) -> Converted {
    let mut out = Converted {
        keys: Vec::new(),
        warnings: Vec::new(),
        names: Vec::new(),
    };
    let mut used: HashMap<String, usize> = HashMap::new();
    for (index, field) in fields.iter().enumerate() {
        let path = format!("/{index}");
        let Some(name) = field.name.as_deref() else {
            out.warnings.push(Issue::owned(
                IssueCode::NotExpressible,
                path,
                "field has no name, so it cannot become a key".to_owned(),
            ));
            continue;
        };
        let key_name = if is_snake_case(name) {
            KeyName::new(name).ok()
        } else {
            snake_case(name).and_then(|s| KeyName::new(&s).ok())
        };
        let Some(key_name) = key_name else {
            out.warnings.push(Issue::owned(
                IssueCode::NotExpressible,
                pointer(&path, "name"),
                format!(
                    "field name {} cannot be made a snake_case key name",
                    quote_short(name)
                ),
            ));
            continue;
        };
        if let Some(first) = used.get(key_name.as_str()) {
            out.warnings.push(Issue::owned(
                IssueCode::NotExpressible,
                pointer(&path, "name"),
                format!(
                    "field {} maps onto key {}, already made from /{first}",
                    quote_short(name),
                    quote_short(key_name.as_str())
                ),
            ));
            continue;
        }
        used.insert(key_name.to_string(), index);
        if key_name.as_str() != name {
            out.warnings.push(Issue::owned(
                IssueCode::FieldRenamed,
                pointer(&path, "name"),
                format!(
                    "field name {} is not snake_case: the key is {}",
                    quote_short(name),
                    quote_short(key_name.as_str())
                ),
            ));
        }
        let key = convert_field(field, key_name, &path, &mut out.warnings);
        out.names.push((
            name.to_owned(),
            key.key_name.to_string(),
            field.kind == Some(FieldKind::Text),
        ));
        out.keys.push(key);
    }
    out
}

/// The key type a `schema.type` names, and whether it allowed `null`.
fn schema_type(schema: &Map<String, Value>) -> (Option<Vec<KeyType>>, bool) {
    let names: Vec<&str> = match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => return (None, false),
    };
    let nullable = names.len() > 1 && names.contains(&"null");
    let types: Option<Vec<KeyType>> = names
        .iter()
        .filter(|n| !(nullable && **n == "null"))
        .map(|n| n.parse::<KeyType>().ok())
        .collect();
    (types, nullable)
}

fn convert_field(
    field: &FieldDefinition,
    key_name: KeyName,
    path: &str,
    warnings: &mut Vec<Issue>,
) -> KeyDefinition {
    let is_other = key_name.is_other();
    let empty = Map::new();
    let schema = field.schema.as_ref().unwrap_or(&empty);
    let schema_path = pointer(path, "schema");
    let (types, nullable) = schema_type(schema);
    let mut required = !field.is_optional();
    if nullable && required {
        warnings.push(lossy(
            pointer(&schema_path, "type"),
            "the field is required and nullable; a required key does not accept null".to_owned(),
        ));
    }
    let single = match types.as_deref() {
        Some([ty]) => Some(*ty),
        _ => None,
    };
    let key_type = if is_other {
        if required {
            warnings.push(lossy(
                pointer(path, "optional"),
                "\"other\" is always optional".to_owned(),
            ));
            required = false;
        }
        match (single, field.kind) {
            (Some(ty @ (KeyType::String | KeyType::Array)), _) => ty,
            (_, Some(FieldKind::Data)) => KeyType::Array,
            (_, Some(FieldKind::File)) => {
                warnings.push(lossy(
                    pointer(path, "kind"),
                    "\"other\" cannot hold a file: it is a string key".to_owned(),
                ));
                KeyType::String
            }
            _ => KeyType::String,
        }
    } else if field.kind == Some(FieldKind::File) {
        warnings.push(lossy(
            pointer(path, "kind"),
            "a file field becomes an object key: its value is taken as the file part's json"
                .to_owned(),
        ));
        KeyType::Object
    } else if let Some(ty) = single {
        ty
    } else {
        if types.is_some() || schema.contains_key("type") {
            warnings.push(lossy(
                pointer(&schema_path, "type"),
                "schema type is not one json type: the key type comes from the kind".to_owned(),
            ));
        }
        match field.kind {
            Some(FieldKind::Data) => {
                if !schema.contains_key("type") {
                    warnings.push(lossy(
                        path.to_owned(),
                        "data field without a schema type: taken as an object".to_owned(),
                    ));
                }
                KeyType::Object
            }
            _ => KeyType::String,
        }
    };

    let default_value = match schema.get("default") {
        None | Some(Value::Null) => None,
        Some(default) => {
            let fits = if is_other {
                is_other_value(default)
            } else {
                key_type.matches(default)
            };
            if fits {
                Some(default.clone())
            } else {
                warnings.push(lossy(
                    pointer(&schema_path, "default"),
                    format!("default does not match the key type {key_type}: dropped"),
                ));
                None
            }
        }
    };

    let mut dropped: Vec<&str> = schema
        .iter()
        .filter(|(keyword, value)| match keyword.as_str() {
            "type" | "default" | "description" => false,
            "items" => !(is_other && **value == json!({"type": "string"})),
            _ => true,
        })
        .map(|(keyword, _)| keyword.as_str())
        .collect();
    dropped.sort_unstable();
    if !dropped.is_empty() {
        warnings.push(lossy(
            schema_path.clone(),
            format!("schema keywords not kept: {}", quote_list(dropped)),
        ));
    }

    let schema_description = schema.get("description").and_then(Value::as_str);
    let semantic_description = match (&field.description, schema_description) {
        (Some(description), Some(other)) if description != other => {
            warnings.push(lossy(
                pointer(&schema_path, "description"),
                "the schema's description differs from the field's: the field's is kept".to_owned(),
            ));
            description.clone()
        }
        (Some(description), _) => description.clone(),
        (None, Some(description)) => description.to_owned(),
        (None, None) => String::new(),
    };

    if let Some(types) = &field.mime_types {
        let plain = match field.kind {
            Some(FieldKind::Data) => types.len() == 1 && types.iter().all(|t| t == JSON_MEDIA_TYPE),
            Some(FieldKind::Text) | None => {
                types.len() == 1 && types.iter().all(|t| t == "text/plain")
            }
            Some(FieldKind::File) => false,
        };
        if !plain && !types.is_empty() {
            warnings.push(lossy(
                pointer(path, "mimeTypes"),
                format!(
                    "media types not kept: {}",
                    quote_list(types.iter().map(String::as_str))
                ),
            ));
        }
    }
    if !field.extra.is_empty() {
        let names: Vec<&str> = field.extra.keys().map(String::as_str).collect();
        warnings.push(lossy(
            path.to_owned(),
            format!("members not kept: {}", quote_list(names)),
        ));
    }

    KeyDefinition {
        key_name,
        key_type,
        required,
        default_value,
        semantic_description,
        extra: IndexMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_names() {
        for (name, expected) in [
            ("bookTitle", Some("book_title")),
            ("review-chunk", Some("review_chunk")),
            ("publicationDate", Some("publication_date")),
            ("URLPath", Some("url_path")),
            ("line2Text", Some("line2_text")),
            ("HTTP", Some("http")),
            ("a  b", Some("a_b")),
            ("_x_", Some("x")),
            ("2fast", None),
            ("", None),
            ("--", None),
            ("café", None),
        ] {
            assert_eq!(snake_case(name).as_deref(), expected, "{name}");
        }
    }
}
