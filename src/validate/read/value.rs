//! The `Value` path: validation of a parsed message.

use serde_json::{Map, Value};

use crate::validate::core::check::Check;
use crate::validate::core::edits::Edits;
use crate::validate::core::key_index::{Cursor, same_name};
use crate::validate::core::options::UnknownKeys;
use crate::validate::core::outcome::{Collect, Outcome};
use crate::validate::core::pass::{
    Fit, Pass, Source, ValueOrShape, check_schema_id, fit, is_schema_id_of, message_not_object,
    missing_payload, payload_not_object, too_deep, too_many_keys,
};
use crate::validate::core::schema::{CompiledSchema, SchemaCore};
use crate::validate::core::shape::Shape;
use crate::validate::normalized::Normalized;
use crate::validate::report::{Report, finish_report};

impl CompiledSchema {
    /// Validates a message `{"schema_id", "payload"}` and reports every
    /// problem. The report's normalized payload reads through to `message`
    /// (nothing is copied); see [`CompiledSchema::validate_owned`] to
    /// normalize a message you own in place.
    pub fn validate<'a>(&'a self, message: &'a Value) -> Report<'a> {
        let mut out = Collect::default();
        let normalized = run_value(&self.core, message, &mut out)
            .map(|(payload, plan)| Normalized::borrowed(payload, &self.core, plan));
        finish_report(out, normalized)
    }

    /// Validates a message you hand over, as [`CompiledSchema::validate`]
    /// does, and normalizes its payload in place: the report's normalized
    /// payload is the message's own payload map, with `null` optional
    /// members removed and defaults inserted; nothing else is copied.
    pub fn validate_owned(&self, message: Value) -> Report<'static> {
        let mut out = Collect::default();
        let plan = run_value(&self.core, &message, &mut out).map(|(_, plan)| plan);
        let normalized = plan.and_then(|plan| {
            let Value::Object(mut message) = message else {
                return None;
            };
            let Some(Value::Object(mut payload)) = message.remove("payload") else {
                return None;
            };
            plan.apply(&self.core, &mut payload);
            Some(Normalized::owned(payload))
        });
        finish_report(out, normalized)
    }

    /// Whether the message is valid; stops at the first problem and builds no report.
    pub fn is_valid(&self, message: &Value) -> bool {
        let Some(object) = message.as_object() else {
            return false;
        };
        let (schema_id, payload) = envelope_members(object);
        is_schema_id_of(&self.core, schema_id)
            && matches!(payload, Some(Value::Object(payload)) if payload_verdict(&self.core, payload))
    }

    /// Validates a bare payload, the object that goes under a message's
    /// `payload`, as the payload of this schema's `schema_id`: for a server
    /// that routes by schema id itself and has no `{"schema_id", "payload"}`
    /// wrapper to validate. Paths are from the payload's root (`/origin`,
    /// where [`CompiledSchema::validate`] says `/payload/origin`).
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
    /// let schema = CompiledSchema::new(&template)?;
    /// let payload = json!({"size": 12});
    /// let report = schema.validate_payload(payload.as_object().ok_or("not an object")?);
    /// assert_eq!(report.errors()[0].path(), "/size");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate_payload<'a>(&'a self, payload: &'a Map<String, Value>) -> Report<'a> {
        let mut out = Collect::default();
        let normalized = run_payload(&self.core, payload, &mut out)
            .map(|plan| Normalized::borrowed(payload, &self.core, plan));
        finish_report(out, normalized).strip_prefix("/payload")
    }

    /// [`CompiledSchema::validate_payload`] on a payload you hand over (an
    /// MCP tool call's arguments, say), normalized in place.
    pub fn validate_payload_owned(&self, mut payload: Map<String, Value>) -> Report<'static> {
        let mut out = Collect::default();
        let plan = run_payload(&self.core, &payload, &mut out);
        let normalized = plan.map(|plan| {
            plan.apply(&self.core, &mut payload);
            Normalized::owned(payload)
        });
        finish_report(out, normalized).strip_prefix("/payload")
    }

    /// Whether a bare payload is valid under this schema (see
    /// [`CompiledSchema::validate_payload`]); stops at the first problem.
    pub fn is_valid_payload(&self, payload: &Map<String, Value>) -> bool {
        payload_verdict(&self.core, payload)
    }
}

/// Runs the checks on a parsed message; returns its payload and what
/// normalizing changes when it is valid (and `O` wants them).
fn run_value<'m, O: Outcome>(
    schema: &SchemaCore,
    message: &'m Value,
    out: &mut O,
) -> Option<(&'m Map<String, Value>, Edits)> {
    let Some(object) = message.as_object() else {
        let _ = message_not_object(out);
        return None;
    };
    let (schema_id, payload) = envelope_members(object);
    if check_schema_id(schema, schema_id, out).is_break() {
        return None;
    }
    match payload {
        None => {
            let _ = missing_payload(out);
            None
        }
        Some(Value::Object(payload)) => {
            run_payload(schema, payload, out).map(|plan| (payload, plan))
        }
        Some(_) => {
            let _ = payload_not_object(out);
            None
        }
    }
}

/// The message's `schema_id` and `payload` members: one walk with inlined
/// comparisons over a small message (two map lookups each compare through
/// `memcmp`), lookups otherwise.
#[inline]
fn envelope_members(message: &Map<String, Value>) -> (Option<&Value>, Option<&Value>) {
    if message.len() > 4 {
        return (message.get("schema_id"), message.get("payload"));
    }
    let (mut schema_id, mut payload) = (None, None);
    for (name, value) in message {
        if same_name(name, "payload") {
            payload = Some(value);
        } else if same_name(name, "schema_id") {
            schema_id = Some(value);
        }
    }
    (schema_id, payload)
}

/// Whether a payload object is valid: the verdict of [`run_payload`], in a
/// loop of its own. A map cannot repeat a name and a verdict needs no
/// issue, warning or plan, so it takes only the pass's decisions ([`fit`],
/// [`too_deep`]) and counts required keys: `is_valid` runs on every
/// message a server gets, and this loop does less work than the pass
/// (`tests/it/properties.rs` holds the two equal). A scalar the key takes
/// from its tag alone ([`Scalars`](super::scalars::Scalars)) needs no
/// [`Shape`].
fn payload_verdict(schema: &SchemaCore, payload: &Map<String, Value>) -> bool {
    if payload.len() > schema.options.limits.max_keys {
        return false;
    }
    let max_depth = schema.options.limits.max_depth;
    let mut cursor = Cursor::default();
    let mut required = 0usize;
    for (name, value) in payload {
        if let Some(key_required) = schema.settle_next_sorted(&mut cursor, name.as_bytes(), value) {
            required += usize::from(key_required);
            continue;
        }
        match schema
            .lookup_from(&mut cursor, name.as_bytes())
            .and_then(|i| schema.keys.get(i))
        {
            Some(key) if key.verdict_scalars.take(value) => required += usize::from(key.required),
            Some(key) => {
                let shape = Shape::of(value, max_depth, key.check == Check::Other);
                match fit(key, &shape, schema) {
                    Fit::Fits { .. } | Fit::NotGiven => required += usize::from(key.required),
                    Fit::WrongType | Fit::TooDeep | Fit::BeyondRange => return false,
                }
            }
            None => match schema.options.unknown_keys {
                UnknownKeys::Reject => return false,
                UnknownKeys::Warn => {
                    if too_deep(schema, &Shape::of(value, max_depth, false)) {
                        return false;
                    }
                }
            },
        }
    }
    required == schema.required_count
}

/// Runs the checks on a payload object; returns what normalizing changes
/// when it is valid (and `O` wants it).
fn run_payload<O: Outcome>(
    schema: &SchemaCore,
    payload: &Map<String, Value>,
    out: &mut O,
) -> Option<Edits> {
    if payload.len() > schema.options.limits.max_keys {
        let _ = too_many_keys(schema, out);
        return None;
    }
    let mut pass = Pass::new(schema, Source::Map);
    for (name, value) in payload {
        if pass
            .member(name, ValueOrShape::Value(value), out)
            .is_break()
        {
            return None;
        }
    }
    if pass.finish(out).is_break() || !(O::NORMALIZE && out.is_clean()) {
        return None;
    }
    Some(pass.into_edits())
}
