//! Reading an envelope from JSON: every problem at once with JSON Pointers,
//! the [`EnvelopeReport`], and [`CompiledSchema::validate_envelope`], which
//! checks an envelope and the structured payload inside it together.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use time::UtcOffset;

use super::id::MessageId;
use super::limits::EnvelopeLimits;
use super::message::{Envelope, FIELDS, MAX_PAYLOAD_OBJECT_NESTING};
use super::timestamp::Timestamp;
use super::version::ProtocolVersion;
use crate::issue::{
    Issue, IssueCode, Problems, pointer, quote_short, sort_by_path, write_problems,
};
use crate::key::is_snake_case;
use crate::validate::core::schema::CompiledSchema;

impl Envelope {
    /// The envelope document's recommendations this envelope does not follow:
    /// [`IssueCode::NonUtcTimestamp`], [`IssueCode::PayloadKeyNotSnakeCase`],
    /// [`IssueCode::PayloadTooDeep`], ordered by path.
    pub fn warnings(&self) -> Vec<Issue> {
        let mut warnings = Vec::new();
        if !self.timestamp.is_utc() {
            warnings.push(non_utc(&self.timestamp));
        }
        payload_warnings(&self.payload, usize::MAX, &mut warnings, &mut Vec::new());
        sort_by_path(&mut warnings);
        warnings
    }

    /// Checks a parsed JSON value: every error and warning, with JSON
    /// Pointers from the envelope's root, and the typed envelope when valid;
    /// under the default [`EnvelopeLimits`].
    pub fn parse(value: &Value) -> EnvelopeReport {
        Self::parse_with(value, &EnvelopeLimits::default())
    }

    /// [`Envelope::parse`] under `limits`: too many capabilities, a string
    /// field or capability too long, or a payload member nested too deep is
    /// `limit_exceeded` at its path, found without reading further.
    pub fn parse_with(value: &Value, limits: &EnvelopeLimits) -> EnvelopeReport {
        let (errors, warnings, envelope) = parse_value(value, limits);
        EnvelopeReport::new(errors, warnings, envelope)
    }

    /// Checks JSON text; text that is not JSON gives `invalid_json` at `""`,
    /// text over the default [`EnvelopeLimits::max_bytes`] `limit_exceeded`.
    pub fn parse_slice(bytes: &[u8]) -> EnvelopeReport {
        Self::parse_slice_with(bytes, &EnvelopeLimits::default())
    }

    /// [`Envelope::parse_slice`] under `limits`; text over `max_bytes` is
    /// refused before it is parsed.
    pub fn parse_slice_with(bytes: &[u8], limits: &EnvelopeLimits) -> EnvelopeReport {
        match read_json(bytes, limits) {
            Ok(value) => Self::parse_with(&value, limits),
            Err(issue) => EnvelopeReport::single(issue, false),
        }
    }

    /// Checks JSON text, as [`Envelope::parse_slice`].
    pub fn parse_str(text: &str) -> EnvelopeReport {
        Self::parse_slice(text.as_bytes())
    }

    /// The envelope in `value`, or every error (warnings are dropped: use
    /// [`Envelope::parse`] to see them).
    pub fn from_value(value: &Value) -> Result<Self, EnvelopeError> {
        let (mut errors, _, envelope) = parse_value(value, &EnvelopeLimits::default());
        match envelope {
            Some(envelope) => Ok(envelope),
            None => {
                sort_by_path(&mut errors);
                Err(EnvelopeError { errors })
            }
        }
    }

    /// The envelope in JSON text, or every error (under the default
    /// [`EnvelopeLimits`]).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, EnvelopeError> {
        match read_json(bytes, &EnvelopeLimits::default()) {
            Ok(value) => Self::from_value(&value),
            Err(issue) => Err(EnvelopeError {
                errors: vec![issue],
            }),
        }
    }
}

/// An envelope that cannot be used: every problem found.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeError {
    errors: Vec<Issue>,
}

impl EnvelopeError {
    /// The problems, ordered by path.
    pub fn errors(&self) -> &[Issue] {
        &self.errors
    }
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_problems(f, "invalid envelope", &self.errors)
    }
}

impl std::error::Error for EnvelopeError {}

/// The result of checking an envelope: every error and warning, with JSON
/// Pointers from the envelope's root, and the typed envelope when valid.
///
/// Serializes as `{"valid", "errors", "warnings"}`; a report from
/// [`CompiledSchema::validate_envelope`] adds `"normalized"` (the structured
/// payload's normalized payload, `null` when invalid).
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct EnvelopeReport {
    problems: Problems,
    envelope: Option<Envelope>,
    normalized: Option<Map<String, Value>>,
    /// Whether a structured payload was validated (adds `normalized`).
    structured: bool,
}

impl EnvelopeReport {
    /// A report of `errors` and `warnings`, sorted by path here.
    fn new(errors: Vec<Issue>, warnings: Vec<Issue>, envelope: Option<Envelope>) -> Self {
        let mut problems = Problems::new(errors, warnings);
        problems.sort_by_path();
        Self {
            problems,
            envelope,
            normalized: None,
            structured: false,
        }
    }

    fn single(issue: Issue, structured: bool) -> Self {
        Self {
            problems: Problems::error(issue),
            envelope: None,
            normalized: None,
            structured,
        }
    }

    /// Whether there are no errors (warnings do not count).
    pub fn is_valid(&self) -> bool {
        self.problems.is_valid()
    }

    /// Every error, ordered by path.
    pub fn errors(&self) -> &[Issue] {
        self.problems.errors()
    }

    /// Every warning, ordered by path.
    pub fn warnings(&self) -> &[Issue] {
        self.problems.warnings()
    }

    /// The errors and warnings together.
    pub fn problems(&self) -> &Problems {
        &self.problems
    }

    /// The typed envelope, when the envelope layer is valid. (With
    /// [`CompiledSchema::validate_envelope`], only when both layers are.)
    pub fn envelope(&self) -> Option<&Envelope> {
        self.envelope.as_ref()
    }

    /// Takes the typed envelope out of the report.
    pub fn into_envelope(self) -> Option<Envelope> {
        self.envelope
    }

    /// The structured payload's normalized payload (defaults applied), when
    /// the report comes from [`CompiledSchema::validate_envelope`] and both
    /// layers are valid.
    pub fn normalized(&self) -> Option<&Map<String, Value>> {
        self.normalized.as_ref()
    }
}

impl Serialize for EnvelopeReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("valid", &self.is_valid())?;
        map.serialize_entry("errors", self.errors())?;
        map.serialize_entry("warnings", self.warnings())?;
        if self.structured {
            map.serialize_entry("normalized", &self.normalized)?;
        }
        map.end()
    }
}

impl CompiledSchema {
    /// Validates an envelope whose payload is a structured payload
    /// `{"schema_id", "payload"}` for this schema: both layers are checked
    /// and reported together, with paths from the envelope's root (a
    /// payload problem at `/payload/origin` in the structured payload is
    /// reported at `/payload/payload/origin`).
    ///
    /// The structured payload is validated whenever the envelope's `payload`
    /// is an object, even if the envelope layer has errors. `message_type`
    /// is not required to be `structured_payload`.
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
    /// let report = schema.validate_envelope(&json!({
    ///     "id": "not-a-uuid", "protocol_version": "0.1", "timestamp": "2026-05-04T09:00:00Z",
    ///     "agent_id": "client", "target_agent": "barista", "message_type": "structured_payload",
    ///     "capabilities": [], "payload": {"schema_id": "coffee_v1", "payload": {"size": 3}}
    /// }));
    /// let codes: Vec<_> = report.errors().iter().map(|e| (e.code().as_str(), e.path())).collect();
    /// assert_eq!(codes, [("invalid_uuid", "/id"), ("type_mismatch", "/payload/payload/size")]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate_envelope(&self, message: &Value) -> EnvelopeReport {
        let (mut errors, mut warnings, envelope) = parse_value(message, &self.envelope_limits());
        let mut normalized = None;
        if let Some(payload) = message.get("payload").filter(|p| p.is_object()) {
            let report = self.validate(payload);
            errors.extend(report.errors().iter().map(|i| i.prefixed("/payload")));
            warnings.extend(report.warnings().iter().map(|i| i.prefixed("/payload")));
            normalized = report.into_normalized();
        }
        let valid = errors.is_empty();
        EnvelopeReport {
            envelope: envelope.filter(|_| valid),
            normalized: normalized.filter(|_| valid),
            structured: true,
            ..EnvelopeReport::new(errors, warnings, None)
        }
    }

    /// Validates envelope JSON text as [`CompiledSchema::validate_envelope`];
    /// text that is not JSON gives `invalid_json`, text over
    /// [`Limits::max_bytes`](crate::validate::Limits::max_bytes) gives `limit_exceeded`, both at `""`.
    pub fn validate_envelope_slice(&self, bytes: &[u8]) -> EnvelopeReport {
        match read_json(bytes, &self.envelope_limits()) {
            Ok(value) => self.validate_envelope(&value),
            Err(issue) => EnvelopeReport::single(issue, true),
        }
    }

    /// The envelope limits under this schema: its own byte and depth
    /// limits, the defaults for the rest.
    fn envelope_limits(&self) -> EnvelopeLimits {
        let limits = self.options().limits;
        EnvelopeLimits::default()
            .with_max_bytes(limits.max_bytes)
            .with_max_depth(limits.max_depth)
    }
}

/// Parses envelope text, refusing text over `limits.max_bytes` unread.
fn read_json(bytes: &[u8], limits: &EnvelopeLimits) -> Result<Value, Issue> {
    if bytes.len() > limits.max_bytes {
        return Err(Issue::limit(
            "",
            "input size in bytes",
            limits.max_bytes as u64,
        ));
    }
    serde_json::from_slice::<Value>(bytes).map_err(|error| invalid_json(&error))
}

fn invalid_json(error: &serde_json::Error) -> Issue {
    Issue::owned(IssueCode::InvalidJson, "", error.to_string())
}

/// The JSON type of `value`, as named in messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn wrong_type(field: &str, expected: &str, found: &Value) -> Issue {
    Issue::owned(
        IssueCode::WrongType,
        pointer("", field),
        format!("expected {expected}, found {}", kind(found)),
    )
}

fn non_utc(timestamp: &Timestamp) -> Issue {
    Issue::owned(
        IssueCode::NonUtcTimestamp,
        "/timestamp",
        format!(
            "timestamp has utc offset {}; the envelope asks for utc (Z)",
            offset_text(timestamp.as_offset_date_time().offset())
        ),
    )
}

fn offset_text(offset: UtcOffset) -> String {
    let (h, m, _) = offset.as_hms();
    let sign = if offset.is_negative() { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", h.unsigned_abs(), m.unsigned_abs())
}

/// A string field: `None` (with an error) when absent, not a string, or
/// longer than `max_bytes`.
fn string_field<'v>(
    object: &'v Map<String, Value>,
    field: &str,
    max_bytes: usize,
    errors: &mut Vec<Issue>,
) -> Option<&'v str> {
    match object.get(field) {
        None => {
            errors.push(missing(field));
            None
        }
        Some(Value::String(text)) if text.len() > max_bytes => {
            errors.push(Issue::limit(
                pointer("", field),
                "string length in bytes",
                max_bytes as u64,
            ));
            None
        }
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            errors.push(wrong_type(field, "string", other));
            None
        }
    }
}

fn missing(field: &str) -> Issue {
    Issue::owned(
        IssueCode::MissingField,
        pointer("", field),
        format!("mandatory field {field:?} is missing"),
    )
}

/// Parses every field of `value`, collecting errors and warnings (unsorted).
fn parse_value(
    value: &Value,
    limits: &EnvelopeLimits,
) -> (Vec<Issue>, Vec<Issue>, Option<Envelope>) {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let Some(object) = value.as_object() else {
        errors.push(Issue::fixed(
            IssueCode::NotAnObject,
            "",
            "an envelope must be a JSON object",
        ));
        return (errors, warnings, None);
    };

    // id, protocol_version and timestamp are parsed to fixed-size values in
    // one pass; the string limit is for the fields kept as text.
    let id = string_field(object, "id", usize::MAX, &mut errors).and_then(|text| {
        text.parse::<MessageId>()
            .map_err(|e| errors.push(Issue::owned(IssueCode::InvalidUuid, "/id", e.to_string())))
            .ok()
    });
    let protocol_version = string_field(object, "protocol_version", usize::MAX, &mut errors)
        .and_then(|text| {
            text.parse::<ProtocolVersion>()
                .map_err(|e| {
                    errors.push(Issue::owned(
                        IssueCode::UnsupportedVersion,
                        "/protocol_version",
                        e.to_string(),
                    ))
                })
                .ok()
        });
    let timestamp = string_field(object, "timestamp", usize::MAX, &mut errors).and_then(|text| {
        text.parse::<Timestamp>()
            .map_err(|e| {
                errors.push(Issue::owned(
                    IssueCode::InvalidTimestamp,
                    "/timestamp",
                    e.to_string(),
                ))
            })
            .ok()
    });
    if let Some(timestamp) = &timestamp {
        if !timestamp.is_utc() {
            warnings.push(non_utc(timestamp));
        }
    }
    let agent_id = string_field(object, "agent_id", limits.max_string_bytes, &mut errors);
    let target_agent = string_field(object, "target_agent", limits.max_string_bytes, &mut errors);
    let message_type = string_field(object, "message_type", limits.max_string_bytes, &mut errors);

    let capabilities = match object.get("capabilities") {
        None => {
            errors.push(missing("capabilities"));
            None
        }
        Some(Value::Array(items)) if items.len() > limits.max_capabilities => {
            errors.push(Issue::limit(
                "/capabilities",
                "capability count",
                limits.max_capabilities as u64,
            ));
            None
        }
        Some(Value::Array(items)) => {
            let mut strings = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) if s.len() > limits.max_string_bytes => {
                        errors.push(Issue::limit(
                            format!("/capabilities/{index}"),
                            "string length in bytes",
                            limits.max_string_bytes as u64,
                        ))
                    }
                    Value::String(s) => strings.push(s.clone()),
                    other => errors.push(Issue::owned(
                        IssueCode::CapabilitiesNotStrings,
                        format!("/capabilities/{index}"),
                        format!("a capability must be a string, found {}", kind(other)),
                    )),
                }
            }
            (strings.len() == items.len()).then_some(strings)
        }
        Some(other) => {
            errors.push(wrong_type("capabilities", "an array of strings", other));
            None
        }
    };

    let payload = match object.get("payload") {
        None => {
            errors.push(missing("payload"));
            None
        }
        Some(Value::Object(payload)) => {
            let before = errors.len();
            payload_warnings(payload, limits.max_depth, &mut warnings, &mut errors);
            (errors.len() == before).then_some(payload)
        }
        Some(other) => {
            errors.push(Issue::owned(
                IssueCode::PayloadNotObject,
                "/payload",
                format!("payload must be a JSON object, found {}", kind(other)),
            ));
            None
        }
    };

    let envelope = match (
        id,
        protocol_version,
        timestamp,
        agent_id,
        target_agent,
        message_type,
        capabilities,
        payload,
    ) {
        (
            Some(id),
            Some(protocol_version),
            Some(timestamp),
            Some(agent_id),
            Some(target_agent),
            Some(message_type),
            Some(capabilities),
            Some(payload),
        ) if errors.is_empty() => Some(Envelope {
            id,
            protocol_version,
            timestamp,
            agent_id: agent_id.to_owned(),
            target_agent: target_agent.to_owned(),
            message_type: message_type.to_owned(),
            capabilities,
            payload: payload.clone(),
            extra: object
                .iter()
                .filter(|(name, _)| !FIELDS.contains(&name.as_str()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
        }),
        _ => None,
    };
    (errors, warnings, envelope)
}

/// The payload recommendations: snake_case keys at every level, objects
/// nested at most [`MAX_PAYLOAD_OBJECT_NESTING`] levels inside the payload
/// (arrays add no level); and the limit: a member's value nested deeper than
/// `max_depth` (arrays and objects both count) is `limit_exceeded` in
/// `errors`, and nothing below it is read. Walks without recursion, so a
/// deep value built in code cannot overflow the stack.
pub(super) fn payload_warnings(
    payload: &Map<String, Value>,
    max_depth: usize,
    warnings: &mut Vec<Issue>,
    errors: &mut Vec<Issue>,
) {
    // (value, its path, how many objects enclose it inside the payload,
    // whether a too-deep ancestor was already reported, how many arrays and
    // objects enclose it inside its payload member)
    let mut stack: Vec<(&Value, String, usize, bool, usize)> = Vec::new();
    push_members(payload, "/payload", 0, false, 0, &mut stack, warnings);
    while let Some((value, path, level, reported, depth)) = stack.pop() {
        if (value.is_array() || value.is_object()) && depth >= max_depth {
            errors.push(Issue::limit(path, "nesting depth", max_depth as u64));
            continue;
        }
        let depth = depth + 1;
        match value {
            Value::Object(object) => {
                let nesting = level + 1;
                let too_deep = nesting > MAX_PAYLOAD_OBJECT_NESTING && !reported;
                if too_deep {
                    warnings.push(Issue::owned(
                        IssueCode::PayloadTooDeep,
                        path.clone(),
                        format!(
                            "object nested {nesting} levels inside the payload; the envelope recommends at most {MAX_PAYLOAD_OBJECT_NESTING}"
                        ),
                    ));
                }
                push_members(
                    object,
                    &path,
                    nesting,
                    reported || too_deep,
                    depth,
                    &mut stack,
                    warnings,
                );
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((item, format!("{path}/{index}"), level, reported, depth));
                }
            }
            _ => {}
        }
    }
}

/// Checks the names of `object`'s members and pushes them on `stack`, last
/// first, so that they are visited in document order.
fn push_members<'v>(
    object: &'v Map<String, Value>,
    path: &str,
    level: usize,
    reported: bool,
    depth: usize,
    stack: &mut Vec<(&'v Value, String, usize, bool, usize)>,
    warnings: &mut Vec<Issue>,
) {
    let start = stack.len();
    for (name, value) in object {
        let member_path = pointer(path, name);
        if !is_snake_case(name) {
            warnings.push(Issue::owned(
                IssueCode::PayloadKeyNotSnakeCase,
                member_path.clone(),
                format!("payload key {} is not snake_case", quote_short(name)),
            ));
        }
        stack.push((value, member_path, level, reported, depth));
    }
    if let Some(pushed) = stack.get_mut(start..) {
        pushed.reverse();
    }
}
