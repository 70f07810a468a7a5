//! A2A bridges: the structured field definitions proposed in A2A issue #813
//! (`FieldDefinition`, skill-level `inputFields` / `outputFields`), their
//! mapping to and from schema templates, and the two ways structured data
//! travels in A2A v1.0, which has not adopted #813: an AgentCard extension
//! entry carrying the templates, and a data part whose `metadata.schema`
//! describes its `data`.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::issue::Problems;
use crate::issue::{Issue, IssueCode, pointer};
use crate::key::{KeyDefinition, KeyName, KeyType, OTHER_KEY, is_snake_case};
use crate::payload::StructuredPayload;
use crate::template::TemplateError;
use crate::template::{SchemaTemplate, is_other_value};
use crate::validate::CompiledSchema;
use crate::validate::{Collect, Report, finish_report};

/// The URI of this crate's A2A extension: an AgentCard entry whose
/// `params.templates` lists the agent's schema templates.
pub const SDSI_A2A_EXTENSION_URI: &str =
    "https://datatracker.ietf.org/doc/draft-zhou-structured-data-schema-interaction/";

/// The media type of a data part carrying a structured payload.
pub const JSON_MEDIA_TYPE: &str = "application/json";

/// The schema id of the template built from input fields by [`CompiledFields`].
pub const FIELDS_SCHEMA_ID: &str = "a2a_input_fields";

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
/// use sdsi::{FieldDefinition, FieldKind};
/// let field: FieldDefinition = serde_json::from_str(
///     r#"{"name": "bookTitle", "kind": "text", "description": "The title of the book"}"#)?;
/// assert_eq!(field.kind, Some(FieldKind::Text));
/// assert!(!field.is_optional());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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

/// A skill of an AgentCard as extended by #813: the skill's members plus
/// `inputFields` / `outputFields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// The skill's unique id.
    pub id: String,
    /// A human-readable name.
    pub name: String,
    /// What the skill does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<String>>,
    /// Accepted input media types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_modes: Option<Vec<String>>,
    /// Produced output media types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_modes: Option<Vec<String>>,
    /// The named inputs the skill expects (#813).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_fields: Option<Vec<FieldDefinition>>,
    /// The named outputs the skill produces (#813).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_fields: Option<Vec<FieldDefinition>>,
    /// Other members (security, v1.0 additions), kept as sent.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl AgentSkill {
    /// A skill with no tags, modes or fields.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            tags: Vec::new(),
            examples: None,
            input_modes: None,
            output_modes: None,
            input_fields: None,
            output_fields: None,
            extra: IndexMap::new(),
        }
    }

    /// Sets `inputFields` from `template` ([`fields_from_template`]) and
    /// `inputModes` to `["application/json"]`.
    pub fn with_input_template(mut self, template: &SchemaTemplate) -> Self {
        self.input_fields = Some(fields_from_template(template));
        self.input_modes = Some(vec![JSON_MEDIA_TYPE.to_owned()]);
        self
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
/// use sdsi::{FieldDefinition, template_from_fields};
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

struct Converted {
    keys: Vec<KeyDefinition>,
    warnings: Vec<Issue>,
    /// (field name, key name, whether the field is of kind text), per key.
    names: Vec<(String, String, bool)>,
}

fn lossy(path: String, message: String) -> Issue {
    Issue::owned(IssueCode::LossyMapping, path, message)
}

fn convert(fields: &[FieldDefinition]) -> Converted {
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
                format!("field name {name:?} cannot be made a snake_case key name"),
            ));
            continue;
        };
        if let Some(first) = used.get(key_name.as_str()) {
            out.warnings.push(Issue::owned(
                IssueCode::NotExpressible,
                pointer(&path, "name"),
                format!(
                    "field {name:?} maps onto key {:?}, already made from /{first}",
                    key_name.as_str()
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
                    "field name {name:?} is not snake_case: the key is {:?}",
                    key_name.as_str()
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
            format!("schema keywords not kept: {}", dropped.join(", ")),
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
                format!("media types not kept: {}", types.join(", ")),
            ));
        }
    }
    if !field.extra.is_empty() {
        let names: Vec<&str> = field.extra.keys().map(String::as_str).collect();
        warnings.push(lossy(
            path.to_owned(),
            format!("members not kept: {}", names.join(", ")),
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

/// `bookTitle` → `book_title`, `URLPath` → `url_path`, `review-chunk` →
/// `review_chunk`; `None` for names with non-ascii letters, or that do not
/// start with a letter once separators are dropped.
fn snake_case(name: &str) -> Option<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() {
                let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
                let next = chars.get(i + 1).copied();
                let boundary = match previous {
                    Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                    Some(p) if p.is_ascii_uppercase() => {
                        next.is_some_and(|n| n.is_ascii_lowercase())
                    }
                    _ => false,
                };
                if boundary && !out.ends_with('_') && !out.is_empty() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        } else if c.is_ascii() {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        } else {
            return None;
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    is_snake_case(&out).then_some(out)
}

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
/// use sdsi::{CompiledFields, FieldDefinition};
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
    /// Converts `fields` ([`template_from_fields`]) and compiles the template.
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

    /// What the conversion from fields lost (see [`template_from_fields`]).
    pub fn warnings(&self) -> &[Issue] {
        &self.warnings
    }

    /// Validates a data part's `data` object with the core validator. Paths
    /// are relative to `data` and use the field names (`/bookTitle`); the
    /// normalized payload, when valid, is keyed by field names too.
    pub fn validate_data(&self, data: &Value) -> Report {
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
        let report = self.schema.validate(&message);
        out.errors
            .extend(report.errors().iter().map(|i| self.to_data_path(i)));
        out.warnings
            .extend(report.warnings().iter().map(|i| self.to_data_path(i)));
        let normalized = report.into_normalized().map(|payload| {
            payload
                .into_iter()
                .map(|(key, value)| {
                    let name = self.by_key.get(&key).cloned().unwrap_or(key);
                    (name, value)
                })
                .collect()
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

/// An AgentCard extension entry (A2A v1.0 `AgentExtension`):
/// `{uri, description, required, params}`.
///
/// ```
/// use sdsi::{AgentExtension, SchemaTemplate};
/// use serde_json::json;
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "coffee_v1", "scenario": "coffee_order",
///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
///               "semantic_description": "Cup size: small, medium, large."}]
/// }))?;
/// let entry = AgentExtension::for_templates(&[template.clone()], false);
/// let card = json!({"name": "barista", "capabilities": {"extensions": [entry]}});
/// let found = AgentExtension::find(&card).ok_or("no extension")?;
/// assert_eq!(found.templates()?, vec![template]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentExtension {
    /// The extension's URI.
    pub uri: String,
    /// How the agent uses the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether clients must follow the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// The extension's configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Members A2A does not define, kept as sent.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

impl AgentExtension {
    /// This crate's extension ([`SDSI_A2A_EXTENSION_URI`]) publishing
    /// `templates` in `params.templates`; `required` tells clients whether
    /// they must send structured payloads.
    pub fn for_templates(templates: &[SchemaTemplate], required: bool) -> Self {
        let list = templates
            .iter()
            .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
            .collect();
        let mut params = Map::new();
        params.insert("templates".into(), Value::Array(list));
        Self {
            uri: SDSI_A2A_EXTENSION_URI.to_owned(),
            description: Some(
                "Schema templates (draft-zhou-structured-data-schema-interaction-00): send \
                 {\"schema_id\", \"payload\"} in a data part; params.templates lists them"
                    .to_owned(),
            ),
            required: Some(required),
            params: Some(params),
            extra: IndexMap::new(),
        }
    }

    /// This crate's extension entry in an AgentCard's
    /// `capabilities.extensions`, if the card has one that parses.
    pub fn find(card: &Value) -> Option<Self> {
        card.get("capabilities")?
            .get("extensions")?
            .as_array()?
            .iter()
            .filter(|e| e.get("uri").and_then(Value::as_str) == Some(SDSI_A2A_EXTENSION_URI))
            .find_map(|e| serde_json::from_value(e.clone()).ok())
    }

    /// The templates in `params.templates`, each checked; every problem is
    /// reported with a path from the extension entry
    /// (`/params/templates/0/keys/1/key_name`).
    pub fn templates(&self) -> Result<Vec<SchemaTemplate>, TemplateError> {
        let mut check = Problems::default();
        let list = match self.params.as_ref().and_then(|p| p.get("templates")) {
            None => {
                check.push_error(Issue::fixed(
                    IssueCode::MissingMember,
                    "/params/templates",
                    "the extension has no params.templates",
                ));
                return Err(TemplateError::from(check));
            }
            Some(Value::Array(list)) => list,
            Some(_) => {
                check.push_error(Issue::fixed(
                    IssueCode::InvalidMember,
                    "/params/templates",
                    "params.templates must be an array of templates",
                ));
                return Err(TemplateError::from(check));
            }
        };
        let mut templates = Vec::with_capacity(list.len());
        for (index, value) in list.iter().enumerate() {
            let prefix = format!("/params/templates/{index}");
            match SchemaTemplate::from_value(value) {
                Ok(template) => templates.push(template),
                Err(error) => {
                    for issue in error.errors() {
                        check.push_error(issue.prefixed(&prefix));
                    }
                    for issue in error.warnings() {
                        check.push_warning(issue.prefixed(&prefix));
                    }
                }
            }
        }
        if check.is_valid() {
            Ok(templates)
        } else {
            Err(TemplateError::from(check))
        }
    }
}

impl CompiledSchema {
    /// An A2A v1.0 data part carrying `message` (`{"schema_id", "payload"}`)
    /// as its `data`, with `mediaType` `application/json` and the message's
    /// JSON Schema ([`CompiledSchema::json_schema`]) as `metadata.schema`.
    pub fn a2a_data_part(&self, message: &StructuredPayload) -> Value {
        json!({
            "data": message.to_value(),
            "mediaType": JSON_MEDIA_TYPE,
            "metadata": {"schema": self.json_schema()},
        })
    }

    /// Validates an A2A data part whose `data` is a structured payload
    /// message; paths are from the part's root (`/data/payload/origin`).
    /// The part's other members (`metadata`, `mediaType`, a v0.x `kind`)
    /// are not checked.
    pub fn validate_a2a_data_part(&self, part: &Value) -> Report {
        let Some(object) = part.as_object() else {
            return Report::single(Issue::fixed(
                IssueCode::NotAnObject,
                "",
                "a part must be a JSON object",
            ));
        };
        let Some(data) = object.get("data") else {
            return Report::single(Issue::fixed(
                IssueCode::MissingPayload,
                "/data",
                "part has no data",
            ));
        };
        let report = self.validate(data);
        let out = Collect {
            errors: report
                .errors()
                .iter()
                .map(|i| i.prefixed("/data"))
                .collect(),
            warnings: report
                .warnings()
                .iter()
                .map(|i| i.prefixed("/data"))
                .collect(),
        };
        finish_report(out, report.into_normalized())
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
