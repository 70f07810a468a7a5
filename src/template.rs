//! Schema templates (§4.1) and the checks that make one usable.
use std::fmt;

use rustc_hash::FxHashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::extra_members::{extra_members, unshadowed};
use crate::issue::{Issue, IssueCode, Problems, pointer, write_problems};
use crate::key::{KEY_MEMBERS, KeyDefinition, KeyName, KeyType};

pub use crate::digest::DigestError;

/// A schema template: the keys a scenario expects, each with a type and a
/// semantic description (§4.1).
///
/// Build one from wire JSON with [`SchemaTemplate::from_value`] (or serde),
/// which reports every problem at once; a template built in code is checked
/// by [`SchemaTemplate::check`] and again when it is compiled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SchemaTemplate {
    /// Identifies the schema version in the server agent's namespace.
    pub schema_id: String,
    /// The interaction scenario, e.g. `flight_booking`.
    pub scenario: String,
    /// The keys, in the order the server published them.
    pub keys: Vec<KeyDefinition>,
    /// Members this crate does not know, kept so that a round trip loses
    /// nothing. One named like a real member is `shadowed_member` in
    /// [`SchemaTemplate::check`] and never serialized, so the published JSON
    /// (and the digest) always say what the compiled schema does.
    #[serde(flatten, serialize_with = "template_extra")]
    pub extra: IndexMap<String, Value>,
}

fn template_extra<S: serde::Serializer>(
    extra: &IndexMap<String, Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    unshadowed(extra, &TEMPLATE_MEMBERS, serializer)
}

/// A template that cannot be used: every problem found, plus any warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateError {
    problems: Problems,
}

impl TemplateError {
    pub(crate) fn new(errors: Vec<Issue>, warnings: Vec<Issue>) -> Self {
        Self {
            problems: Problems::new(errors, warnings),
        }
    }

    /// The problems, structural ones first, each in document order.
    pub fn errors(&self) -> &[Issue] {
        self.problems.errors()
    }

    /// Advice found along the way.
    pub fn warnings(&self) -> &[Issue] {
        self.problems.warnings()
    }

    /// The errors and warnings.
    pub fn problems(&self) -> &Problems {
        &self.problems
    }

    /// Takes the errors and warnings out.
    pub fn into_problems(self) -> Problems {
        self.problems
    }
}

impl From<Problems> for TemplateError {
    fn from(problems: Problems) -> Self {
        Self { problems }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_problems(f, "invalid schema template", self.errors())
    }
}

impl std::error::Error for TemplateError {}

impl SchemaTemplate {
    /// A template with no extra members.
    pub fn new(
        schema_id: impl Into<String>,
        scenario: impl Into<String>,
        keys: Vec<KeyDefinition>,
    ) -> Self {
        Self {
            schema_id: schema_id.into(),
            scenario: scenario.into(),
            keys,
            extra: IndexMap::new(),
        }
    }

    /// Reads a template from JSON text, reporting every problem with a JSON Pointer.
    pub fn from_json(text: &str) -> Result<Self, TemplateError> {
        Self::from_slice(text.as_bytes())
    }

    /// Reads a template from JSON bytes, reporting every problem with a JSON Pointer.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, TemplateError> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| {
            TemplateError::new(
                vec![Issue::owned(IssueCode::InvalidJson, "", e.to_string())],
                vec![],
            )
        })?;
        Self::from_value(&value)
    }

    /// Reads a template from a parsed JSON value, reporting every problem
    /// (structure and rules) with a JSON Pointer.
    pub fn from_value(value: &Value) -> Result<Self, TemplateError> {
        let mut errors = Vec::new();
        let Some(object) = value.as_object() else {
            errors.push(Issue::fixed(
                IssueCode::NotAnObject,
                "",
                "a template must be a JSON object",
            ));
            return Err(TemplateError::new(errors, vec![]));
        };
        let schema_id = take_string(object, "", "schema_id", &mut errors);
        let scenario = take_string(object, "", "scenario", &mut errors);
        let mut parsed = Vec::new();
        match object.get("keys") {
            None => errors.push(missing("", "keys")),
            Some(Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    let path = format!("/keys/{index}");
                    if let Some(key) = parse_key(item, &path, &mut errors) {
                        parsed.push((index, key));
                    }
                }
            }
            Some(_) => errors.push(wrong_member("", "keys", "an array")),
        }
        let mut check = Problems::new(errors, Vec::new());
        check_keys(parsed.iter().map(|(i, k)| (*i, k)), &mut check);
        if !check.is_valid() {
            return Err(TemplateError::from(check));
        }
        match (schema_id, scenario) {
            (Some(schema_id), Some(scenario)) => Ok(Self {
                schema_id,
                scenario,
                keys: parsed.into_iter().map(|(_, k)| k).collect(),
                extra: extra_members(object, &["schema_id", "scenario", "keys"]),
            }),
            // Unreachable in practice: a missing or mistyped member was recorded above.
            _ => Err(TemplateError::from(check)),
        }
    }

    /// Checks the rules a typed template can still break: duplicate names,
    /// the `other` key's rules, defaults that do not match their type,
    /// `extra` members that shadow real ones; and warns about what is legal
    /// but likely a mistake (no `other`, an empty `schema_id` or `scenario`,
    /// an optional key of type `null`, a default on a required key).
    pub fn check(&self) -> Problems {
        let mut check = Problems::default();
        for name in TEMPLATE_MEMBERS {
            if self.extra.contains_key(name) {
                check.push_error(shadowed(format!("/{name}"), name));
            }
        }
        for (member, value) in [("schema_id", &self.schema_id), ("scenario", &self.scenario)] {
            if value.trim().is_empty() {
                check.push_warning(Issue::owned(
                    IssueCode::EmptyIdentifier,
                    format!("/{member}"),
                    format!("{member} is empty: clients and stores tell templates apart by it"),
                ));
            }
        }
        if !self.keys.iter().any(|k| k.key_name.is_other()) {
            check.push_warning(Issue::fixed(
                IssueCode::MissingOther,
                "/keys",
                "the template does not declare \"other\": it is accepted anyway, but clients are not told where unmapped requests go",
            ));
        }
        check_keys(self.keys.iter().enumerate(), &mut check);
        check
    }

    /// The key named `name`, if the template declares it.
    pub fn key(&self, name: &str) -> Option<&KeyDefinition> {
        self.keys.iter().find(|k| k.key_name.as_str() == name)
    }
}

impl<'de> Deserialize<'de> for SchemaTemplate {
    /// Deserializes through [`SchemaTemplate::from_value`]; the error message
    /// lists every problem.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(&value).map_err(serde::de::Error::custom)
    }
}

// Here rather than in key.rs, so that the key module stays a leaf: a key's
// wire form is checked by the same code as a whole template's keys.
impl<'de> Deserialize<'de> for KeyDefinition {
    /// Deserializes through the template's key checks: every problem is
    /// reported, with a JSON Pointer from the key definition's root.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        key_from_value(&value).map_err(serde::de::Error::custom)
    }
}

/// Parses one key definition (used by `KeyDefinition`'s `Deserialize`).
fn key_from_value(value: &Value) -> Result<KeyDefinition, TemplateError> {
    let mut errors = Vec::new();
    let key = parse_key(value, "", &mut errors);
    let mut check = Problems::new(errors, Vec::new());
    if let Some(key) = &key {
        check_key_rules(KeyAt(None), key, &mut check);
    }
    match key {
        Some(key) if check.is_valid() => Ok(key),
        _ => Err(TemplateError::from(check)),
    }
}

fn missing(prefix: &str, member: &str) -> Issue {
    Issue::owned(
        IssueCode::MissingMember,
        pointer(prefix, member),
        format!("required member {member:?} is missing"),
    )
}

fn wrong_member(prefix: &str, member: &str, expected: &str) -> Issue {
    Issue::owned(
        IssueCode::InvalidMember,
        pointer(prefix, member),
        format!("member {member:?} must be {expected}"),
    )
}

fn take_string(
    object: &Map<String, Value>,
    prefix: &str,
    member: &str,
    errors: &mut Vec<Issue>,
) -> Option<String> {
    match object.get(member) {
        None => {
            errors.push(missing(prefix, member));
            None
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            errors.push(wrong_member(prefix, member, "a string"));
            None
        }
    }
}

const TEMPLATE_MEMBERS: [&str; 3] = ["schema_id", "scenario", "keys"];

/// `shadowed_member`: an `extra` member named like a real one.
fn shadowed(path: String, name: &str) -> Issue {
    Issue::owned(
        IssueCode::ShadowedMember,
        path,
        format!("extra member {name:?} has the name of a real member: it would be written twice"),
    )
}

/// Parses the structure of one key definition at `path`, recording problems.
fn parse_key(value: &Value, path: &str, errors: &mut Vec<Issue>) -> Option<KeyDefinition> {
    let Some(object) = value.as_object() else {
        errors.push(Issue::fixed(
            IssueCode::InvalidMember,
            path,
            "a key definition must be a JSON object",
        ));
        return None;
    };
    let key_name = take_string(object, path, "key_name", errors).and_then(|name| {
        KeyName::new(&name)
            .map_err(|e| {
                errors.push(Issue::owned(
                    IssueCode::InvalidKeyName,
                    pointer(path, "key_name"),
                    e.to_string(),
                ))
            })
            .ok()
    });
    let key_type = take_string(object, path, "key_type", errors).and_then(|name| {
        name.parse::<KeyType>()
            .map_err(|e| {
                errors.push(Issue::owned(
                    IssueCode::UnknownKeyType,
                    pointer(path, "key_type"),
                    e.to_string(),
                ))
            })
            .ok()
    });
    let semantic_description = take_string(object, path, "semantic_description", errors);
    let required = match object.get("required") {
        None => {
            errors.push(missing(path, "required"));
            None
        }
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            errors.push(wrong_member(path, "required", "a boolean"));
            None
        }
    };
    Some(KeyDefinition {
        key_name: key_name?,
        key_type: key_type?,
        required: required?,
        default_value: object.get("default_value").cloned(),
        semantic_description: semantic_description?,
        extra: extra_members(object, &KEY_MEMBERS),
    })
}

/// The rules across keys: unique names, plus each key's own rules.
fn check_keys<'a>(
    keys: impl ExactSizeIterator<Item = (usize, &'a KeyDefinition)>,
    check: &mut Problems,
) {
    let mut first_index: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(keys.len(), Default::default());
    for (index, key) in keys {
        let at = KeyAt(Some(index));
        if let Some(first) = first_index.get(key.key_name.as_str()) {
            check.push_error(Issue::owned(
                IssueCode::DuplicateKeyName,
                at.member("key_name"),
                format!(
                    "key name {:?} is already used by /keys/{first}",
                    key.key_name.as_str()
                ),
            ));
        } else {
            first_index.insert(key.key_name.as_str(), index);
        }
        check_key_rules(at, key, check);
    }
}

/// Where a key definition sits: `/keys/<index>` in a template, or the root of
/// a lone key document. Paths are built only when an issue needs one.
#[derive(Clone, Copy)]
struct KeyAt(Option<usize>);

impl KeyAt {
    fn member(self, member: &str) -> String {
        match self.0 {
            Some(index) => format!("/keys/{index}/{member}"),
            None => format!("/{member}"),
        }
    }
}

/// The rules of one key: `other`'s constraints, the default's type, a non-empty description.
fn check_key_rules(at: KeyAt, key: &KeyDefinition, check: &mut Problems) {
    let is_other = key.key_name.is_other();
    if !key.extra.is_empty() {
        for name in KEY_MEMBERS.iter() {
            if key.extra.contains_key(*name) {
                check.push_error(shadowed(at.member(name), name));
            }
        }
    }
    if !is_other && !key.required && key.key_type == KeyType::Null {
        check.push_warning(Issue::fixed(
            IssueCode::NullOptionalKey,
            at.member("key_type"),
            "an optional key of type null: its only value, null, means \"not given\"",
        ));
    }
    if key.required && key.effective_default().is_some() {
        check.push_warning(Issue::fixed(
            IssueCode::DefaultOnRequiredKey,
            at.member("default_value"),
            "a required key's default never applies: a payload without the key is invalid",
        ));
    }
    if is_other && key.required {
        check.push_error(Issue::fixed(
            IssueCode::OtherMustBeOptional,
            at.member("required"),
            "the reserved key \"other\" must be optional (required: false)",
        ));
    }
    if is_other && !matches!(key.key_type, KeyType::String | KeyType::Array) {
        check.push_error(Issue::owned(
            IssueCode::OtherBadType,
            at.member("key_type"),
            format!(
                "the reserved key \"other\" must be a string or an array, not {}",
                key.key_type
            ),
        ));
    }
    if let Some(default) = key.effective_default() {
        let fits = if is_other {
            is_other_value(default)
        } else {
            key.key_type.matches(default)
        };
        if !fits {
            let expected = if is_other {
                "a string or an array of strings".to_owned()
            } else {
                key.key_type.to_string()
            };
            check.push_error(Issue::owned(
                IssueCode::DefaultTypeMismatch,
                at.member("default_value"),
                format!("default value does not match the key's type: expected {expected}"),
            ));
        }
    }
    if key.semantic_description.trim().is_empty() {
        check.push_warning(Issue::fixed(
            IssueCode::EmptySemanticDescription,
            at.member("semantic_description"),
            "semantic description is empty: the client's model has nothing to map intent against",
        ));
    }
}

/// Whether `value` is a valid `other` value: a string or an array of strings.
pub(crate) fn is_other_value(value: &Value) -> bool {
    match value {
        Value::String(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(err: &TemplateError) -> Vec<(&'static str, String)> {
        err.errors()
            .iter()
            .map(|i| (i.code().as_str(), i.path().to_owned()))
            .collect()
    }

    #[test]
    fn reports_every_problem_at_once() {
        let value = json!({
            "schema_id": "s",
            "keys": [
                {"key_name": "Bad", "key_type": "float", "required": "yes", "semantic_description": "x"},
                {"key_name": "a", "key_type": "string", "required": true, "semantic_description": "d"},
                {"key_name": "a", "key_type": "integer", "required": false, "default_value": "1", "semantic_description": "y"},
                {"key_name": "other", "key_type": "object", "required": true, "semantic_description": "z"},
                7,
                {"key_name": "b", "key_type": "string", "required": true}
            ]
        });
        let err = SchemaTemplate::from_value(&value).unwrap_err();
        assert_eq!(
            codes(&err),
            vec![
                ("missing_member", "/scenario".to_owned()),
                ("invalid_key_name", "/keys/0/key_name".to_owned()),
                ("unknown_key_type", "/keys/0/key_type".to_owned()),
                ("invalid_member", "/keys/0/required".to_owned()),
                ("invalid_member", "/keys/4".to_owned()),
                ("missing_member", "/keys/5/semantic_description".to_owned()),
                ("duplicate_key_name", "/keys/2/key_name".to_owned()),
                ("default_type_mismatch", "/keys/2/default_value".to_owned()),
                ("other_must_be_optional", "/keys/3/required".to_owned()),
                ("other_bad_type", "/keys/3/key_type".to_owned()),
            ]
        );
        assert!(
            err.errors()[2]
                .message()
                .contains("did you mean \"number\"")
        );
    }

    #[test]
    fn explicit_null_default_means_none_and_round_trips() {
        let value = json!({"schema_id": "s", "scenario": "t", "keys": [
            {"key_name": "a", "key_type": "string", "required": true, "default_value": null, "semantic_description": "d"}
        ], "x-vendor": {"k": 1}});
        let template = SchemaTemplate::from_value(&value).unwrap();
        assert_eq!(template.keys[0].effective_default(), None);
        assert_eq!(serde_json::to_value(&template).unwrap(), value);
    }

    #[test]
    fn empty_description_is_a_warning_only() {
        let template = SchemaTemplate::new(
            "s",
            "t",
            vec![KeyDefinition::new(
                KeyName::new("a").unwrap(),
                KeyType::String,
                true,
                " ",
            )],
        );
        let check = template.check();
        assert!(check.is_valid());
        let codes: Vec<IssueCode> = check.warnings().iter().map(|w| w.code()).collect();
        assert_eq!(
            codes,
            [IssueCode::MissingOther, IssueCode::EmptySemanticDescription]
        );
    }

    #[test]
    fn other_default_must_be_string_or_strings() {
        let value = json!({"key_name": "other", "key_type": "array", "required": false,
            "default_value": [1], "semantic_description": "d"});
        let err = key_from_value(&value).unwrap_err();
        assert_eq!(
            codes(&err),
            vec![("default_type_mismatch", "/default_value".to_owned())]
        );
    }
}
