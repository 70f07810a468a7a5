//! What comes back: an execution result (draft §3.2 step 5: "the result
//! itself SHOULD be structured according to a pre-negotiated response
//! schema") and an MCP tool's `structuredContent`, validated against a
//! *response template*, a [`SchemaTemplate`] whose keys are the result's
//! members.

use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode, Problems};
use crate::key::OTHER_KEY;
use crate::negotiate::SchemaUpdateSuggestion;
use crate::template::SchemaTemplate;

use crate::validate::core::schema::CompiledSchema;
use crate::validate::report::Report;

/// The member of an execution result that carries schema update
/// suggestions (§6.2.3); a response template cannot declare it.
pub const SUGGESTION_MEMBER: &str = "schema_update_suggestion";

impl SchemaTemplate {
    /// The rules a template must follow to describe a response, on top of
    /// [`SchemaTemplate::check`]: it must not declare
    /// `schema_update_suggestion` (the result's own member, checked
    /// separately), and a warning when it declares `other` (a result has no
    /// free-text channel for the server to fill).
    pub fn check_as_response(&self) -> Problems {
        let mut problems = self.check();
        for (index, key) in self.keys.iter().enumerate() {
            let path = format!("/keys/{index}/key_name");
            if key.key_name.as_str() == SUGGESTION_MEMBER {
                problems.push_error(Issue::owned(
                    IssueCode::InvalidMember,
                    path,
                    format!("{SUGGESTION_MEMBER:?} is the execution result's own member; a response template cannot declare it"),
                ));
            } else if key.key_name.as_str() == OTHER_KEY {
                problems.push_warning(Issue::owned(
                    IssueCode::InvalidMember,
                    path,
                    "a response template declares \"other\": results have no free-text channel"
                        .to_owned(),
                ));
            }
        }
        problems
    }
}

impl CompiledSchema {
    /// Validates an execution result (§3.2 step 5) against this schema
    /// compiled from a response template: the result's members, less
    /// `schema_update_suggestion`, are the payload; that member, when
    /// present, must read as a [`SchemaUpdateSuggestion`]. Paths are from
    /// the result's root (`/booking_id`); the normalized result holds the
    /// members with defaults applied (the suggestion is not repeated).
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let response = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "booking_result_v1", "scenario": "flight_booking",
    ///     "keys": [
    ///         {"key_name": "booking_id", "key_type": "string", "required": true, "semantic_description": "Booking reference."},
    ///         {"key_name": "status", "key_type": "string", "required": true, "semantic_description": "confirmed or failed."}
    ///     ]
    /// }))?;
    /// let schema = CompiledSchema::new(&response)?;
    /// let report = schema.validate_execution_result(&json!({"booking_id": 7, "status": "confirmed"}));
    /// assert_eq!(report.errors()[0].path(), "/booking_id");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate_execution_result(&self, result: &Value) -> Report<'static> {
        let Some(object) = result.as_object() else {
            return Report::single(Issue::fixed(
                IssueCode::NotAnObject,
                "",
                "an execution result must be a JSON object",
            ));
        };
        let members: Map<String, Value> = object
            .iter()
            .filter(|(name, _)| name.as_str() != SUGGESTION_MEMBER)
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let report = self.validate_payload_owned(members);
        match object
            .get(SUGGESTION_MEMBER)
            .map(SchemaUpdateSuggestion::read)
        {
            Some(Err(issue)) => report.with_error(issue),
            Some(Ok(_)) | None => report,
        }
    }

    /// Validates an MCP tool result's `structuredContent` object (the tool's
    /// `outputSchema` is [`CompiledSchema::mcp_output_schema`]); paths are
    /// from its root.
    pub fn validate_structured_content<'a>(&'a self, content: &'a Value) -> Report<'a> {
        match content.as_object() {
            Some(object) => self.validate_payload(object),
            None => Report::single(Issue::fixed(
                IssueCode::NotAnObject,
                "",
                "structuredContent must be a JSON object",
            )),
        }
    }

    /// Validates a whole MCP `CallToolResult` (`{"content", "structuredContent",
    /// "isError"}`): its `structuredContent` against this schema, paths from
    /// the result's root (`/structuredContent/seat`). A result without
    /// `structuredContent` is `missing_payload` there; an error result
    /// (`"isError": true`) is not held to the schema and is reported as
    /// such.
    pub fn validate_mcp_tool_result<'a>(&'a self, result: &'a Value) -> Report<'a> {
        if result.get("isError") == Some(&Value::Bool(true)) {
            return Report::single(Issue::fixed(
                IssueCode::MissingPayload,
                "/isError",
                "the tool reported an error; its result carries no structured content to validate",
            ));
        }
        match result.get("structuredContent") {
            Some(content) => self
                .validate_structured_content(content)
                .prefixed("/structuredContent"),
            None => Report::single(Issue::fixed(
                IssueCode::MissingPayload,
                "/structuredContent",
                "the tool result has no structuredContent",
            )),
        }
    }
}
