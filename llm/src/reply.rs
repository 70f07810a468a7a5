//! What comes back: the chat-completions reply, its content validated by
//! sdsi against the induction template, then held to the same rules as a
//! key the rule inducer writes (§7: no instruction, no personal value, no
//! settled key's name), with real multi-client fragments quoted by sdsi
//! itself.

use sdsi::evolution::{NeedView, redact, sanitize_description};
use sdsi::key::OTHER_KEY;
use sdsi::{CompiledSchema, KeyDefinition, KeyName, KeyType, SchemaTemplate};
use serde_json::{Map, Value};

use crate::error::LlmError;

/// Longest description taken from a model, in characters.
pub const MAX_DESCRIPTION: usize = 600;
/// Most examples quoted after the model's description.
const QUOTES: usize = 3;
/// Longest quoted example, in characters.
const MAX_QUOTE: usize = 80;

/// The reply's message content, as a JSON object.
pub fn content(reply: &Value) -> Result<Map<String, Value>, LlmError> {
    let text = reply
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmError::Reply("no choices[0].message.content".to_owned()))?;
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(LlmError::Reply(
            "the content is not a JSON object".to_owned(),
        )),
        Err(error) => Err(LlmError::Reply(format!("the content is not JSON: {error}"))),
    }
}

/// The key the reply proposes, checked: valid against the induction
/// template; a snake_case name that is not `other` nor a settled key of
/// `schema`; a key type of the four; a description that reads as no
/// instruction to a model and carries no personal value or secret; then
/// the need's quotable exemplars quoted after it.
pub fn key(
    object: Map<String, Value>,
    template: &CompiledSchema,
    need: &NeedView<'_>,
    schema: &SchemaTemplate,
) -> Result<KeyDefinition, LlmError> {
    let report = template.validate_payload_owned(object);
    if !report.is_valid() {
        let problems: Vec<String> = report.errors().iter().map(|i| i.to_string()).collect();
        return Err(LlmError::Reply(format!(
            "the reply does not fit the induction template: {}",
            problems.join("; ")
        )));
    }
    let object = report.normalized().map(|n| n.to_map()).unwrap_or_default();
    let text = |name: &str| object.get(name).and_then(Value::as_str).unwrap_or("");
    let name = KeyName::new(text("key_name").trim())
        .map_err(|e| LlmError::Rejected(format!("key name: {e}")))?;
    if name.as_str() == OTHER_KEY {
        return Err(LlmError::Rejected("the name is `other`".to_owned()));
    }
    if schema
        .key(name.as_str())
        .is_some_and(|k| !k.is_experimental())
    {
        return Err(LlmError::Rejected(format!(
            "{name} is a settled key of the schema"
        )));
    }
    let key_type: KeyType = text("key_type")
        .trim()
        .parse()
        .ok()
        .filter(|t| {
            matches!(
                t,
                KeyType::Boolean | KeyType::Integer | KeyType::Number | KeyType::String
            )
        })
        .ok_or_else(|| LlmError::Rejected(format!("key type {:?}", text("key_type"))))?;
    let description = checked_text(text("description"))?;
    let name_text = name.as_str().replace('_', " ");
    checked_text(&name_text)?;
    Ok(KeyDefinition::new(
        name,
        key_type,
        false,
        with_quotes(&description, need),
    ))
}

/// `text` cleaned, when it reads as no instruction and carries no personal
/// value or secret (redaction would change it), and is not empty or too
/// long.
fn checked_text(text: &str) -> Result<String, LlmError> {
    let clean = sanitize_description(text)
        .ok_or_else(|| LlmError::Rejected("an empty description".to_owned()))?;
    if clean.flagged {
        return Err(LlmError::Rejected(
            "the reply reads as instructions to a model".to_owned(),
        ));
    }
    if clean.text.chars().count() > MAX_DESCRIPTION {
        return Err(LlmError::Rejected(format!(
            "a description over {MAX_DESCRIPTION} characters"
        )));
    }
    let redacted = redact(&clean.text);
    if !redacted.found.is_empty() {
        return Err(LlmError::Rejected(
            "the reply carries a personal value or a secret".to_owned(),
        ));
    }
    Ok(clean.text)
}

/// The model's description, then up to three of the need's quotable
/// exemplars (real fragments, as §6.2.2 asks), quoted by sdsi.
fn with_quotes(description: &str, need: &NeedView<'_>) -> String {
    let quotes: Vec<String> = need
        .quotable()
        .take(QUOTES)
        .map(|e| {
            let text: String = e.text.trim().chars().take(MAX_QUOTE).collect();
            format!("\"{}\"", text.replace('"', "'"))
        })
        .collect();
    let description = description.trim_end_matches('.');
    if quotes.is_empty() {
        format!("{description}.")
    } else {
        format!("{description}. For example: {}.", quotes.join("; "))
    }
}
