//! Asking a user for a payload through an MCP client: the form-mode
//! `elicitation/create` request, sent as its own request under 2025-11-25
//! and carried inside an `InputRequiredResult` under 2026-07-28.

use super::version::McpVersion;
use crate::export::Export;
use crate::export::ordered::Object;
use crate::validate::core::schema::CompiledSchema;

impl CompiledSchema {
    /// What a server sends to ask the user for this schema's payload, under
    /// protocol revision `version`, with `message` shown to the user; the
    /// form is [`CompiledSchema::mcp_elicitation_schema`], whose warnings
    /// the export carries.
    ///
    /// - 2025-11-25: the `elicitation/create` request (`method` and
    ///   `params`; the transport adds `jsonrpc` and `id`).
    /// - 2026-07-28: the `InputRequiredResult` a server returns instead of
    ///   the tool's result, its `inputRequests` holding that request under
    ///   this schema's id. The client retries the call with
    ///   `inputResponses[<schema id>]` holding the user's answer, which
    ///   [`CompiledSchema::validate_mcp_elicit_result`] checks. A server
    ///   that keeps state across the retry adds its own `requestState`.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use sdsi::mcp::McpVersion;
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "seat_v1", "scenario": "seat_choice",
    ///     "keys": [{"key_name": "seat", "key_type": "string", "required": true,
    ///               "semantic_description": "Window or aisle."}]
    /// }))?;
    /// let schema = CompiledSchema::new(&template)?;
    /// let ask = schema.mcp_elicitation_request("Which seat?", McpVersion::V2026_07_28);
    /// assert_eq!(ask.schema["resultType"], "input_required");
    /// let request = &ask.schema["inputRequests"]["seat_v1"];
    /// assert_eq!(request["method"], "elicitation/create");
    /// assert_eq!(request["params"]["requestedSchema"]["required"], json!(["seat"]));
    ///
    /// let older = schema.mcp_elicitation_request("Which seat?", McpVersion::V2025_11_25);
    /// assert_eq!(older.schema["params"]["mode"], "form");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mcp_elicitation_request(&self, message: &str, version: McpVersion) -> Export {
        let form = self.mcp_elicitation_schema();
        let mut params = Object::new();
        params.insert("mode", "form");
        params.insert("message", message);
        params.insert("requestedSchema", form.schema.into_node());
        let mut request = Object::new();
        request.insert("method", "elicitation/create");
        request.insert("params", params);
        let schema = if version.elicits_in_result() {
            let mut requests = Object::new();
            requests.insert(self.schema_id(), request);
            let mut result = Object::new();
            result.insert("resultType", "input_required");
            result.insert("inputRequests", requests);
            result
        } else {
            request
        };
        Export {
            schema: schema.into_document(),
            warnings: form.warnings,
        }
    }
}
