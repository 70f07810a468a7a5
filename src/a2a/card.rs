//! The AgentCard side: skills with #813 input and output fields, and the
//! extension entry that carries an agent's schema templates.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode, Problems};
use crate::template::{SchemaTemplate, TemplateError};

use super::fields::{FieldDefinition, JSON_MEDIA_TYPE, fields_from_template};

/// The URI of this crate's A2A extension: an AgentCard entry whose
/// `params.templates` lists the agent's schema templates. It names the
/// draft's revision (`00`), since A2A identifies an extension's version by
/// its URI; a later revision gets a new URI.
pub const SDSI_A2A_EXTENSION_URI: &str =
    "https://datatracker.ietf.org/doc/draft-zhou-structured-data-schema-interaction/00/";

/// The unversioned URI earlier releases wrote; [`AgentExtension::find`]
/// still recognises it.
const UNVERSIONED_URI: &str =
    "https://datatracker.ietf.org/doc/draft-zhou-structured-data-schema-interaction/";

/// A skill of an AgentCard as extended by #813: the skill's members plus
/// `inputFields` / `outputFields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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

/// An AgentCard extension entry (A2A v1.0 `AgentExtension`):
/// `{uri, description, required, params}`.
///
/// ```
/// use sdsi::SchemaTemplate;
/// use sdsi::a2a::AgentExtension;
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
#[non_exhaustive]
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
    /// `capabilities.extensions`, if the card has one that parses (under
    /// [`SDSI_A2A_EXTENSION_URI`], or the unversioned URI of earlier
    /// releases).
    pub fn find(card: &Value) -> Option<Self> {
        card.get("capabilities")?
            .get("extensions")?
            .as_array()?
            .iter()
            .filter(|e| {
                e.get("uri")
                    .and_then(Value::as_str)
                    .is_some_and(|uri| uri == SDSI_A2A_EXTENSION_URI || uri == UNVERSIONED_URI)
            })
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
