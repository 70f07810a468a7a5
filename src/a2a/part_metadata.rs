//! A part's `metadata.mediaType` and `metadata.schema` (A2A v1.0 §6.8):
//! written on the data parts this crate builds, and checked against the
//! compiled schema when a part that carries them is validated.

use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode, quote_short};
use crate::validate::core::schema::CompiledSchema;

use super::fields::JSON_MEDIA_TYPE;

/// `{"mediaType": "application/json", "schema": <the message's JSON Schema>}`.
pub(crate) fn data_part_metadata(schema: &CompiledSchema) -> Map<String, Value> {
    let mut metadata = Map::new();
    metadata.insert("mediaType".to_owned(), JSON_MEDIA_TYPE.into());
    metadata.insert("schema".to_owned(), schema.json_schema().into_value());
    metadata
}

/// Whether `value` can be a JSON Schema: an object or a boolean.
pub(crate) fn is_json_schema(value: &Value) -> bool {
    matches!(value, Value::Object(_) | Value::Bool(_))
}

/// A media type's essence (`type/subtype`), lowercase, parameters dropped.
fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a part's `mediaType` names JSON: `application/json` or a
/// structured-syntax `+json` type, in any case, parameters allowed.
pub(crate) fn is_json_media_type(media_type: Option<&Value>) -> bool {
    let Some(Value::String(media_type)) = media_type else {
        return false;
    };
    let essence = essence(media_type);
    essence == JSON_MEDIA_TYPE
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// What a part carrying a JSON message says about itself that disagrees
/// with `schema`, each issue at its path from the part's root:
///
/// - a data part whose `mediaType` is not JSON (`/mediaType`);
/// - `metadata` that is not an object (`/metadata`);
/// - a `metadata.mediaType` that is not JSON, or names another type than
///   the part's own `mediaType` (`/metadata/mediaType`);
/// - a `metadata.schema` that is not a schema (an object or a boolean), or
///   that names another schema id than `schema`'s in its
///   `properties.schema_id.const`, where [`CompiledSchema::json_schema`]
///   writes it (`schema_id_mismatch` at
///   `/metadata/schema/properties/schema_id/const`). A schema that names no
///   schema id (one this crate did not write) is not compared.
pub(crate) fn metadata_issues(
    part: &Map<String, Value>,
    data_part: bool,
    schema: &CompiledSchema,
) -> Vec<Issue> {
    let mut issues = Vec::new();
    let part_type = part.get("mediaType");
    if data_part && part_type.is_some() && !is_json_media_type(part_type) {
        issues.push(Issue::new(
            IssueCode::InvalidMember,
            "/mediaType",
            "a data part carrying a structured payload has a JSON mediaType",
        ));
    }
    let metadata = match part.get("metadata") {
        None => return issues,
        Some(Value::Object(metadata)) => metadata,
        Some(_) => {
            issues.push(Issue::new(
                IssueCode::InvalidMember,
                "/metadata",
                "metadata must be an object",
            ));
            return issues;
        }
    };
    if let Some(declared) = metadata.get("mediaType") {
        if !is_json_media_type(Some(declared)) {
            issues.push(Issue::new(
                IssueCode::InvalidMember,
                "/metadata/mediaType",
                "the metadata's mediaType must be a JSON media type for a structured payload",
            ));
        } else if let (Some(Value::String(own)), Some(stated)) = (part_type, declared.as_str()) {
            if is_json_media_type(part_type) && essence(own) != essence(stated) {
                issues.push(Issue::new(
                    IssueCode::InvalidMember,
                    "/metadata/mediaType",
                    format!(
                        "the metadata's mediaType {} differs from the part's {}",
                        quote_short(stated),
                        quote_short(own)
                    ),
                ));
            }
        }
    }
    match metadata.get("schema") {
        Some(described) if !is_json_schema(described) => issues.push(Issue::new(
            IssueCode::InvalidMember,
            "/metadata/schema",
            "the metadata's schema must be a JSON Schema (an object or a boolean)",
        )),
        Some(Value::Object(described)) => {
            let named = described
                .get("properties")
                .and_then(|p| p.get("schema_id"))
                .and_then(|s| s.get("const"))
                .and_then(Value::as_str);
            let own = schema.template().schema_id.as_str();
            if let Some(named) = named.filter(|named| *named != own) {
                issues.push(Issue::new(
                    IssueCode::SchemaIdMismatch,
                    "/metadata/schema/properties/schema_id/const",
                    format!(
                        "the metadata's schema is for {}, not {own:?}",
                        quote_short(named)
                    ),
                ));
            }
        }
        _ => {}
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_media_types() {
        for yes in [
            "application/json",
            "Application/JSON; charset=utf-8",
            "application/vnd.a2a+json",
        ] {
            assert!(is_json_media_type(Some(&json!(yes))), "{yes}");
        }
        for no in ["text/plain", "application/jsonx", "json", ""] {
            assert!(!is_json_media_type(Some(&json!(no))), "{no}");
        }
        assert!(!is_json_media_type(None));
        assert!(!is_json_media_type(Some(&json!(1))));
    }
}
