//! Exports of a compiled schema for the tools agents already use: JSON Schema
//! 2020-12, MCP (a tool's `inputSchema`, an elicitation's `requestedSchema`),
//! a strict structured-output schema for constrained decoding, and a compact
//! prompt rendering for in-context learning (draft §6.1).
//!
//! Every schema export is an [`OrderedJson`]: it writes a template's keys
//! in the template's order (an undeclared `other` last), since a decoder
//! constrained by the schema writes them in that order, whatever serde_json
//! features the build turns on.

use serde::Serialize;
use serde_json::{Value, json};

use crate::issue::{Issue, IssueCode};
use crate::key::{KeyDefinition, KeyType, OTHER_KEY, Sensitivity, whole_number};
use crate::mcp::version::McpVersion;
use crate::validate::core::check::Check;
use crate::validate::core::compiled_key::{CompiledKey, KeyStatus};
use crate::validate::core::options::{BigIntegers, UnknownKeys};
use crate::validate::core::schema::CompiledSchema;

pub(crate) mod ordered;
pub use self::ordered::OrderedJson;
use self::ordered::{Node, Object};

/// The JSON Schema dialect of [`CompiledSchema::json_schema`].
pub const JSON_SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The description given to `other` when the template does not declare it.
const OTHER_DESCRIPTION: &str =
    "Anything the other keys do not cover, in the user's words: a string or an array of strings";

/// The item types a strict export allows in a free-form array.
const STRICT_ITEM_TYPES: [&str; 4] = ["string", "number", "boolean", "null"];

/// `"ty"` for a required key, `["ty", "null"]` for an optional one.
fn nullable(ty: &str, required: bool) -> Value {
    if required {
        ty.into()
    } else {
        json!([ty, "null"])
    }
}

/// A default as an export writes it: a whole-number float (`3.0`, which an
/// `integer` key accepts) as the integer it is, since SDKs read an integer
/// schema's default into an integer type; anything else unchanged.
fn as_written(default: &Value) -> Value {
    whole_number(default).unwrap_or_else(|| default.clone())
}

/// The description given to `other` in an elicitation when the template does
/// not declare it (a person reads it, and answers with a string).
const OTHER_ELICITATION: &str =
    "Anything else about your request that the fields above do not cover";

/// An export that may not carry every key: the exported JSON and a warning
/// ([`IssueCode::NotExpressible`]) for each key left out, with a JSON Pointer
/// into the template (`/keys/3`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Export {
    /// The exported JSON, its properties in the template's order.
    pub schema: OrderedJson,
    /// What could not be expressed.
    pub warnings: Vec<Issue>,
}

impl CompiledSchema {
    /// A JSON Schema 2020-12 of the whole message `{"schema_id", "payload"}`
    /// that accepts exactly the messages [`CompiledSchema::validate`]
    /// accepts, with one exception: JSON Schema cannot bound nesting depth,
    /// so values nested deeper than [`Limits::max_depth`](crate::validate::Limits::max_depth) are accepted
    /// by the schema and rejected by the validator.
    ///
    /// Compiled with [`BigIntegers::Reject`], each `integer` key carries
    /// `minimum: -9223372036854775808` and `maximum: 18446744073709551615`
    /// (`i64::MIN`, `u64::MAX`), which refuse what the policy refuses: a
    /// whole number no 64-bit integer holds, as the key's own value. The
    /// policy looks nowhere else (not inside arrays, objects or `other`, nor
    /// at `number` keys), so neither do the bounds. The match is exact for a
    /// validator that compares numbers exactly, as the `jsonschema` crate
    /// does; one that reads every number as a double (JavaScript's) also
    /// reads the maximum as `2^64`, and so accepts `18446744073709551616`,
    /// which the policy refuses.
    ///
    /// The payload is a closed object (open when the schema was compiled
    /// with [`UnknownKeys::Warn`], then bounded by `maxProperties`); required
    /// keys are `required` and non-null (unless their type is `null`);
    /// optional keys accept their type or `null`; each key's semantic
    /// description is its `description`, an optional key's default its
    /// `default`; `other` is a string or an array of strings; deprecated and
    /// withdrawn keys (still accepted) are marked `deprecated`. Members of
    /// the message beside `schema_id` and `payload` are allowed. The
    /// payload's `properties` are in the template's order, `other` last when
    /// the template does not declare it.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
    ///               "semantic_description": "Cup size: small, medium, large."}]
    /// }))?;
    /// let schema = CompiledSchema::new(&template)?.json_schema();
    /// assert_eq!(schema["properties"]["schema_id"], json!({"const": "coffee_v1"}));
    /// assert_eq!(schema["properties"]["payload"]["required"], json!(["size"]));
    /// assert_eq!(schema["properties"]["payload"]["additionalProperties"], json!(false));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_schema(&self) -> OrderedJson {
        let template = self.template();
        let mut properties = Object::new();
        properties.insert("schema_id", json!({"const": template.schema_id}));
        properties.insert("payload", self.payload_schema());
        let mut schema = Object::new();
        schema.insert("$schema", JSON_SCHEMA_DIALECT);
        schema.insert("title", template.schema_id.as_str());
        schema.insert(
            "description",
            format!(
                "A structured payload message for scenario {:?} (schema {:?})",
                template.scenario, template.schema_id
            ),
        );
        schema.insert("type", "object");
        schema.insert("properties", properties);
        schema.insert("required", json!(["schema_id", "payload"]));
        schema.into_document()
    }

    /// The payload object's JSON Schema: what an MCP tool's `inputSchema`
    /// holds when the tool's arguments are the payload. It is the `payload`
    /// member of [`CompiledSchema::json_schema`]; the server validates a call
    /// as `{"schema_id": <this schema's id>, "payload": <arguments>}`.
    ///
    /// It follows the newest MCP revision:
    /// [`CompiledSchema::mcp_input_schema_for`] with [`McpVersion::LATEST`].
    pub fn mcp_input_schema(&self) -> OrderedJson {
        self.mcp_input_schema_for(McpVersion::LATEST)
    }

    /// The payload object's JSON Schema as MCP revision `version` carries a
    /// tool's `inputSchema` (or `outputSchema`): under 2026-07-28 it names
    /// its dialect first (`"$schema"`, JSON Schema 2020-12, the revision's
    /// default, named so that no reader has to assume it); under 2025-11-25
    /// it does not.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use sdsi::mcp::McpVersion;
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
    ///               "semantic_description": "Cup size."}]
    /// }))?;
    /// let schema = CompiledSchema::new(&template)?;
    /// let newest = schema.mcp_input_schema_for(McpVersion::V2026_07_28);
    /// assert_eq!(newest["$schema"], "https://json-schema.org/draft/2020-12/schema");
    /// assert!(newest.to_string().starts_with(r#"{"$schema""#));
    /// assert!(schema.mcp_input_schema_for(McpVersion::V2025_11_25).get("$schema").is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mcp_input_schema_for(&self, version: McpVersion) -> OrderedJson {
        let mut schema = self.payload_schema();
        if version != McpVersion::V2025_11_25 {
            schema.insert_first("$schema", JSON_SCHEMA_DIALECT);
        }
        schema.into_document()
    }

    /// The payload object's schema, in the template's key order.
    fn payload_schema(&self) -> Object {
        let mut properties = Object::new();
        let mut required = Vec::new();
        let big_integers = self.options().big_integers;
        for (index, key) in self.core.keys.iter().enumerate() {
            let definition = self.template().key(&key.name);
            let mut property = acceptance_schema(key, big_integers);
            if let Some(description) = definition.and_then(described) {
                property.insert("description", description);
            } else if key.check == Check::Other {
                property.insert("description", OTHER_DESCRIPTION);
            }
            if let (Some((_, default)), false) = (self.core.default_of(index), key.required) {
                property.insert("default", as_written(default));
            }
            if key.status != KeyStatus::Active {
                property.insert("deprecated", true);
            }
            if key.required {
                required.push(Value::from(&*key.name));
            }
            properties.insert(&*key.name, property);
        }
        let count = properties.len();
        let mut schema = Object::new();
        schema.insert("type", "object");
        schema.insert("properties", properties);
        if !required.is_empty() {
            schema.insert("required", required);
        }
        let limits = self.options().limits;
        match self.options().unknown_keys {
            UnknownKeys::Warn => {
                schema.insert("maxProperties", limits.max_keys);
            }
            _ => {
                schema.insert("additionalProperties", false);
                if count > limits.max_keys {
                    schema.insert("maxProperties", limits.max_keys);
                }
            }
        }
        schema
    }

    /// An MCP tool's `outputSchema` when this schema was compiled from a
    /// response template: the same object schema as
    /// [`CompiledSchema::mcp_input_schema`], describing `structuredContent`,
    /// which [`CompiledSchema::validate_structured_content`] checks.
    pub fn mcp_output_schema(&self) -> OrderedJson {
        self.mcp_input_schema()
    }

    /// [`CompiledSchema::mcp_output_schema`] as MCP revision `version`
    /// carries it (see [`CompiledSchema::mcp_input_schema_for`]).
    pub fn mcp_output_schema_for(&self, version: McpVersion) -> OrderedJson {
        self.mcp_input_schema_for(version)
    }

    /// An MCP elicitation `requestedSchema`: a flat object whose properties
    /// are primitives (`string`, `number`, `integer`, `boolean`), each with a
    /// title, the semantic description and, for an optional key, its default.
    ///
    /// Keys of type `array`, `object` or `null` cannot be asked for: each is
    /// left out with a [`IssueCode::NotExpressible`] warning (saying so when
    /// the key is required, since the user's answer alone then cannot make a
    /// valid payload). Sensitive keys (marked, or classified so by their name
    /// or description: [`Sensitivity::classify`]) are left out the same way,
    /// since MCP's form mode must not request sensitive information. `other`
    /// is offered as an optional string, last. Withdrawn keys are not
    /// offered. Compiled with [`BigIntegers::Reject`], an `integer` key is
    /// bounded to what an `i64` holds, narrower than the policy's
    /// `u64::MAX`, since `rmcp`'s form schema holds its bounds as `i64`.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "photo_v1", "scenario": "photo_edit",
    ///     "keys": [
    ///         {"key_name": "filter", "key_type": "string", "required": true, "semantic_description": "Filter name."},
    ///         {"key_name": "crop", "key_type": "object", "required": false, "semantic_description": "Crop box."}
    ///     ]
    /// }))?;
    /// let export = CompiledSchema::new(&template)?.mcp_elicitation_schema();
    /// assert_eq!(export.schema["required"], json!(["filter"]));
    /// assert_eq!(export.warnings[0].code().as_str(), "not_expressible");
    /// assert_eq!(export.warnings[0].path(), "/keys/1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mcp_elicitation_schema(&self) -> Export {
        let mut properties = Object::new();
        let mut required = Vec::new();
        let mut warnings = Vec::new();
        let big_integers = self.options().big_integers;
        for (index, key) in self.template().keys.iter().enumerate() {
            let name = key.key_name.as_str();
            if key.key_name.is_other() {
                continue;
            }
            // MCP (2025-11-25): form-mode elicitation MUST NOT request
            // sensitive information; that is what URL mode is for. A key
            // marked sensitive, or whose name or description reads as such,
            // is left out.
            let consequence = if key.required {
                "; it is required, so the elicited content alone cannot make a valid payload"
            } else {
                ""
            };
            if let Some(sensitivity) = key.sensitivity().or_else(|| Sensitivity::classify(key)) {
                warnings.push(Issue::owned(
                    IssueCode::NotExpressible,
                    format!("/keys/{index}"),
                    format!(
                        "key {name:?} holds {} data, which an mcp form elicitation must not request (use url mode){consequence}",
                        sensitivity.as_str()
                    ),
                ));
                continue;
            }
            if !matches!(
                key.key_type,
                KeyType::String | KeyType::Number | KeyType::Integer | KeyType::Boolean
            ) {
                warnings.push(Issue::owned(
                    IssueCode::NotExpressible,
                    format!("/keys/{index}"),
                    format!(
                        "key {name:?} of type {} cannot be asked for in an mcp elicitation (only string, number, integer and boolean){consequence}",
                        key.key_type
                    ),
                ));
                continue;
            }
            let mut property = Object::new();
            property.insert("type", key.key_type.as_str());
            property.insert("title", title(name));
            if let Some(description) = described(key) {
                property.insert("description", description);
            }
            if key.key_type == KeyType::Integer {
                bound_integers(&mut property, big_integers, FORM_INTEGER_MAXIMUM);
            }
            if let (Some(default), false) = (key.effective_default(), key.required) {
                let default = as_written(default);
                if key.key_type == KeyType::Integer && !default.is_i64() {
                    // Forms hold 64-bit integers; the server still applies
                    // the default when the answer leaves the key out.
                    warnings.push(Issue::owned(
                        IssueCode::NotExpressible,
                        format!("/keys/{index}/default_value"),
                        format!(
                            "the default of key {name:?}, {default}, is beyond a 64-bit integer: left out of the form"
                        ),
                    ));
                } else {
                    property.insert("default", default);
                }
            }
            if key.required {
                required.push(Value::from(name));
            }
            properties.insert(name, property);
        }
        let other = self.template().key(OTHER_KEY);
        let mut property = Object::new();
        property.insert("type", "string");
        property.insert("title", title(OTHER_KEY));
        property.insert(
            "description",
            other.and_then(described).unwrap_or(OTHER_ELICITATION),
        );
        if let Some(Value::String(default)) = other.and_then(KeyDefinition::effective_default) {
            property.insert("default", default.clone());
        }
        properties.insert(OTHER_KEY, property);

        let mut schema = Object::new();
        schema.insert("type", "object");
        schema.insert("properties", properties);
        if !required.is_empty() {
            schema.insert("required", required);
        }
        Export {
            schema: schema.into_document(),
            warnings,
        }
    }

    /// A strict structured-output schema of the payload, for constrained
    /// decoding (draft §6.1), that satisfies the strict-mode rules of
    /// structured-output decoders at every depth: every object is closed
    /// (`additionalProperties: false`) with every property `required`,
    /// optional keys are nullable (`null` means "not given" to the
    /// validator), every array declares `items`, and there is no `default`.
    /// Every payload it accepts is valid for this schema (within
    /// [`Limits`](crate::validate::Limits)): under [`BigIntegers::Reject`]
    /// an `integer` key carries the bounds [`CompiledSchema::json_schema`]
    /// does. Withdrawn keys are not offered. Properties and `required` are
    /// in the template's order, which is the order a decoder writes them in.
    ///
    /// What strict mode cannot say is narrowed, never widened, each with a
    /// [`IssueCode::NotExpressible`] warning at the key (`/keys/3`): a
    /// free-form `array` key's items are limited to strings, numbers,
    /// booleans and `null`; an optional free-form `object` key is left out
    /// (a decoder then never fills it); a required one can only be `{}`.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "photo_v1", "scenario": "photo_edit",
    ///     "keys": [
    ///         {"key_name": "tags", "key_type": "array", "required": false, "semantic_description": "Tags."},
    ///         {"key_name": "crop", "key_type": "object", "required": false, "semantic_description": "Crop box."}
    ///     ]
    /// }))?;
    /// let export = CompiledSchema::new(&template)?.strict_schema();
    /// assert_eq!(export.schema["properties"]["tags"]["items"]["type"], json!(["string", "number", "boolean", "null"]));
    /// assert!(export.schema["properties"].get("crop").is_none());
    /// assert_eq!(export.warnings.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn strict_schema(&self) -> Export {
        let mut properties = Object::new();
        let mut required = Vec::new();
        let mut warnings = Vec::new();
        let big_integers = self.options().big_integers;
        for (_, key) in self.producer_keys() {
            let at = self.key_pointer(&key.name);
            let name = &*key.name;
            let mut property = Object::new();
            match &key.check {
                Check::Other => {
                    let mut strings = Object::new();
                    strings.insert("type", "array");
                    strings.insert("items", json!({"type": "string"}));
                    property.insert(
                        "anyOf",
                        Node::Array(vec![
                            json!({"type": "string"}).into(),
                            strings.into(),
                            json!({"type": "null"}).into(),
                        ]),
                    );
                }
                Check::Type(KeyType::Null) => {
                    property.insert("type", "null");
                }
                Check::Type(KeyType::Array) => {
                    property.insert("type", nullable("array", key.required));
                    property.insert("items", json!({"type": STRICT_ITEM_TYPES}));
                    warnings.push(Issue::owned(
                        IssueCode::NotExpressible,
                        at,
                        format!(
                            "key {name:?} is a free-form array, and strict decoding needs declared items: \
                             its items are limited to strings, numbers, booleans and null"
                        ),
                    ));
                }
                Check::Type(KeyType::Object) if !key.required => {
                    warnings.push(Issue::owned(
                        IssueCode::NotExpressible,
                        at,
                        format!(
                            "optional key {name:?} is a free-form object, which strict decoding \
                             cannot express (every object must be closed): left out"
                        ),
                    ));
                    continue;
                }
                Check::Type(KeyType::Object) => {
                    property.insert("type", "object");
                    property.insert("properties", json!({}));
                    property.insert("required", json!([]));
                    property.insert("additionalProperties", false);
                    warnings.push(Issue::owned(
                        IssueCode::NotExpressible,
                        at,
                        format!(
                            "required key {name:?} is a free-form object, which strict decoding \
                             cannot express (every object must be closed): only {{}} can be produced"
                        ),
                    ));
                }
                Check::Type(ty) => {
                    property.insert("type", nullable(ty.as_str(), key.required));
                    if *ty == KeyType::Integer {
                        bound_integers(&mut property, big_integers, INTEGER_MAXIMUM);
                    }
                }
            }
            let description = self
                .template()
                .key(&key.name)
                .and_then(described)
                .or((key.check == Check::Other).then_some(OTHER_DESCRIPTION));
            if let Some(description) = description {
                property.insert("description", description);
            }
            required.push(Value::from(name));
            properties.insert(name, property);
        }
        let mut schema = Object::new();
        schema.insert("type", "object");
        schema.insert("properties", properties);
        schema.insert("required", required);
        schema.insert("additionalProperties", false);
        Export {
            schema: schema.into_document(),
            warnings,
        }
    }

    /// A compact rendering of the template for an LLM's context (draft §6.1,
    /// in-context learning): one line per key with its type, whether it is
    /// required, its default and its semantic description, then the rules
    /// (answer with the message, use only these keys, send what no key
    /// covers to `other` rather than guess). Withdrawn keys are left out.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [{"key_name": "size", "key_type": "string", "required": false, "default_value": "medium",
    ///               "semantic_description": "Cup size: small, medium, large."}]
    /// }))?;
    /// let prompt = CompiledSchema::new(&template)?.prompt();
    /// assert!(prompt.contains("- size (string, optional, default \"medium\"): Cup size: small, medium, large."));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prompt(&self) -> String {
        let template = self.template();
        let id = Value::from(template.schema_id.as_str());
        let mut out = format!(
            "Fill in a structured payload for schema {id} (scenario: {}).\n\
             Answer with JSON only: {{\"schema_id\": {id}, \"payload\": {{...}}}}.\n\
             Keys:\n",
            one_line(&template.scenario)
        );
        for (index, key) in self.producer_keys() {
            let ty = match key.check {
                Check::Other => "string or array of strings".to_owned(),
                Check::Type(ty) => ty.to_string(),
            };
            let mut notes = vec![ty];
            notes.push(if key.required { "required" } else { "optional" }.to_owned());
            if let (Some((_, default)), false) = (self.core.default_of(index), key.required) {
                notes.push(format!("default {default}"));
            }
            if key.status == KeyStatus::Deprecated {
                notes.push("deprecated, avoid".to_owned());
            }
            let description = self
                .template()
                .key(&key.name)
                .and_then(described)
                .or((key.check == Check::Other).then_some(OTHER_DESCRIPTION))
                .map(one_line)
                .unwrap_or_default();
            out.push_str(&format!(
                "- {} ({}): {description}\n",
                key.name,
                notes.join(", ")
            ));
        }
        out.push_str(
            "Rules: use only these keys, with values of the given types; omit optional keys \
             the request does not mention; put any part of the request that no key covers \
             into \"other\" instead of guessing a key.\n",
        );
        out
    }

    /// The keys a client may fill in: all but withdrawn ones, `other` included.
    /// The JSON Pointer of a key in the template (`/keys/3`); the root for
    /// a key the template does not declare (an implicit `other`).
    fn key_pointer(&self, name: &str) -> String {
        self.template()
            .keys
            .iter()
            .position(|k| k.key_name.as_str() == name)
            .map_or_else(String::new, |i| format!("/keys/{i}"))
    }

    fn producer_keys(&self) -> impl Iterator<Item = (usize, &CompiledKey)> {
        self.core
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.status != KeyStatus::Withdrawn)
    }
}

/// The JSON Schema of what the validator accepts for `key`'s value.
fn acceptance_schema(key: &CompiledKey, big_integers: BigIntegers) -> Object {
    let mut schema = Object::new();
    match key.check {
        Check::Other => {
            // `other` is always optional: null means "not given".
            schema.insert("type", json!(["string", "array", "null"]));
            schema.insert("items", json!({"type": "string"}));
        }
        Check::Type(KeyType::Null) => {
            schema.insert("type", "null");
        }
        Check::Type(ty) if key.required => {
            schema.insert("type", ty.as_str());
        }
        Check::Type(ty) => {
            schema.insert("type", json!([ty.as_str(), "null"]));
        }
    }
    if key.check == Check::Type(KeyType::Integer) {
        bound_integers(&mut schema, big_integers, INTEGER_MAXIMUM);
    }
    schema
}

/// The largest value of an `integer` key the validator accepts under
/// [`BigIntegers::Reject`]: what a `u64` holds (the smallest is
/// `i64::MIN`). Written as integers, so that a validator comparing numbers
/// exactly (as `jsonschema` does) draws the line where the validator does:
/// `18446744073709551615` in, `18446744073709551616` (`2^64`, a float once
/// read) out.
const INTEGER_MAXIMUM: u64 = u64::MAX;

/// The largest integer an elicitation form offers under
/// [`BigIntegers::Reject`]: `i64::MAX`, narrower than [`INTEGER_MAXIMUM`],
/// since `rmcp`'s form schema holds its bounds as `i64` and refuses more.
const FORM_INTEGER_MAXIMUM: u64 = i64::MAX.unsigned_abs();

/// Adds `minimum` and `maximum` to an `integer` key's schema under
/// [`BigIntegers::Reject`], which refuses whole numbers no 64-bit integer
/// holds (`1e20`, `-1e19`); nothing under `Accept`.
fn bound_integers(schema: &mut Object, big_integers: BigIntegers, maximum: u64) {
    if big_integers == BigIntegers::Reject {
        schema.insert("minimum", i64::MIN);
        schema.insert("maximum", maximum);
    }
}

/// The key's semantic description, unless blank.
fn described(key: &KeyDefinition) -> Option<&str> {
    let text = key.semantic_description.as_str();
    (!text.trim().is_empty()).then_some(text)
}

/// `cabin_class` → `Cabin class`.
fn title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `text` with every run of whitespace (newlines included) made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The interop guide's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/interop.md")]
struct InteropDoctests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SchemaTemplate;
    use crate::validate::ValidateOptions;

    fn flight() -> CompiledSchema {
        let template = SchemaTemplate::from_value(&json!({
            "schema_id": "flight_booking_v1", "scenario": "flight_booking",
            "keys": [
                {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "From.\nIATA code."},
                {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1,
                 "semantic_description": "Passengers."},
                {"key_name": "stops", "key_type": "array", "required": false, "semantic_description": " "},
                {"key_name": "nothing", "key_type": "null", "required": true, "semantic_description": "Always null."}
            ]
        }))
        .unwrap();
        CompiledSchema::new(&template).unwrap()
    }

    #[test]
    fn payload_schema_shape() {
        let schema = flight().mcp_input_schema();
        assert_eq!(
            schema,
            json!({
                "$schema": JSON_SCHEMA_DIALECT,
                "type": "object",
                "properties": {
                    "origin": {"type": "string", "description": "From.\nIATA code."},
                    "passenger_count": {"type": ["integer", "null"], "description": "Passengers.", "default": 1},
                    "stops": {"type": ["array", "null"]},
                    "nothing": {"type": "null", "description": "Always null."},
                    "other": {"type": ["string", "array", "null"], "items": {"type": "string"}, "description": OTHER_DESCRIPTION}
                },
                "required": ["origin", "nothing"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn unknown_keys_warn_opens_the_object() {
        let schema = CompiledSchema::with_options(
            flight().template(),
            ValidateOptions::default().unknown_keys(UnknownKeys::Warn),
        )
        .unwrap()
        .mcp_input_schema();
        assert_eq!(schema.get("additionalProperties"), None);
        assert_eq!(schema["maxProperties"], 1024);
    }

    #[test]
    fn strict_and_elicitation() {
        let schema = flight();
        let strict = schema.strict_schema().schema;
        assert_eq!(
            strict["required"],
            json!(["origin", "passenger_count", "stops", "nothing", "other"])
        );
        assert_eq!(
            strict["properties"]["passenger_count"],
            json!({"type": ["integer", "null"], "description": "Passengers."})
        );
        let elicitation = schema.mcp_elicitation_schema();
        let codes: Vec<_> = elicitation
            .warnings
            .iter()
            .map(|w| (w.code().as_str(), w.path().to_owned()))
            .collect();
        assert_eq!(
            codes,
            [
                ("not_expressible", "/keys/2".to_owned()),
                ("not_expressible", "/keys/3".to_owned())
            ]
        );
        assert!(elicitation.warnings[1].message().contains("required"));
        assert_eq!(
            elicitation.schema["properties"]["passenger_count"],
            json!({"type": "integer", "title": "Passenger count", "description": "Passengers.", "default": 1})
        );
    }

    #[test]
    fn whole_float_defaults_are_written_as_integers() {
        let template = SchemaTemplate::from_value(&json!({
            "schema_id": "s", "scenario": "x",
            "keys": [
                {"key_name": "count", "key_type": "integer", "required": false,
                 "default_value": 3.0, "semantic_description": "How many."},
                {"key_name": "huge", "key_type": "integer", "required": false,
                 "default_value": 1e300, "semantic_description": "A lot."}
            ]
        }))
        .unwrap();
        let schema = CompiledSchema::new(&template).unwrap();
        assert_eq!(
            schema.mcp_input_schema()["properties"]["count"]["default"],
            json!(3)
        );
        let form = schema.mcp_elicitation_schema();
        assert_eq!(form.schema["properties"]["count"]["default"], json!(3));
        assert!(form.schema["properties"]["huge"].get("default").is_none());
        assert_eq!(form.warnings[0].path(), "/keys/1/default_value");
        assert_eq!(as_written(&json!(-0.0)), json!(0));
        assert_eq!(as_written(&json!(0.5)), json!(0.5));
        assert_eq!(
            as_written(&json!(1.8446744073709552e19)),
            json!(1.8446744073709552e19)
        );
        assert_eq!(
            as_written(&json!(1e19)),
            json!(10_000_000_000_000_000_000u64)
        );
    }

    #[test]
    fn prompt_is_one_line_per_key() {
        let prompt = flight().prompt();
        assert!(prompt.contains("- origin (string, required): From. IATA code.\n"));
        assert!(prompt.contains("- passenger_count (integer, optional, default 1): Passengers.\n"));
        assert!(prompt.contains("- stops (array, optional): \n"));
        assert!(prompt.contains("- other (string or array of strings, optional): Anything"));
        assert_eq!(prompt.lines().count(), 3 + 5 + 1);
    }
}
