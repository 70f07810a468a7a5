//! Problems found in templates and payloads: a stable code, a JSON Pointer and a message.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::key::{JsonKind, KeyType};

mod path;
pub(crate) mod quote;
pub(crate) use path::{IssuePath, pointer};
#[cfg(feature = "a2a")]
pub(crate) use quote::quote_list;
pub(crate) use quote::{describe_short, json_kind, quote_short};

/// The stable, machine-readable code of an [`Issue`].
///
/// The string form (`as_str`, and the wire) never changes once released; see
/// `docs/error-codes.md` for an example of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum IssueCode {
    /// The input is not well-formed JSON.
    InvalidJson,
    /// A template member has the wrong JSON type (e.g. `required: "yes"`).
    InvalidMember,
    /// A REQUIRED template member is absent.
    MissingMember,
    /// A key name is not snake_case.
    InvalidKeyName,
    /// Two keys of a template share a name.
    DuplicateKeyName,
    /// A `key_type` is not a JSON Schema type name.
    UnknownKeyType,
    /// The template declares `other` as required.
    OtherMustBeOptional,
    /// The template declares `other` with a type other than string or array.
    OtherBadType,
    /// A `default_value` does not match its key's type.
    DefaultTypeMismatch,
    /// Warning: a semantic description is empty, which leaves the client's LLM without an anchor.
    EmptySemanticDescription,
    /// The message or its payload is not a JSON object.
    NotAnObject,
    /// The message has no `schema_id`.
    MissingSchemaId,
    /// The message's `schema_id` is not the compiled schema's.
    SchemaIdMismatch,
    /// The message has no `payload`.
    MissingPayload,
    /// A required key is absent (or `null`) from the payload.
    MissingRequiredKey,
    /// A value does not match its key's type.
    TypeMismatch,
    /// The payload has a key the schema does not define.
    UnknownKey,
    /// `other` is not a string or an array of strings.
    InvalidOther,
    /// A configured limit (depth, member count, input size) was crossed.
    LimitExceeded,
    /// Envelope: a mandatory field is absent.
    MissingField,
    /// Envelope: a field has the wrong JSON type.
    WrongType,
    /// Envelope: `id` is not a UUID, or not version 4 / RFC 4122 variant.
    InvalidUuid,
    /// Envelope: `timestamp` is not an RFC 3339 / ISO 8601 date-time.
    InvalidTimestamp,
    /// Envelope: `payload` is not a JSON object.
    PayloadNotObject,
    /// Envelope: `capabilities` holds something other than strings.
    CapabilitiesNotStrings,
    /// Envelope: `protocol_version` names a major version this crate does not speak.
    UnsupportedVersion,
    /// Envelope warning: `timestamp` is not in UTC.
    NonUtcTimestamp,
    /// Envelope warning: a payload key is not snake_case.
    PayloadKeyNotSnakeCase,
    /// Envelope warning: objects nest more than 2 levels inside `payload`.
    PayloadTooDeep,
    /// A patch document is malformed (not JSON, a member missing or mistyped).
    InvalidPatch,
    /// A patch expires at or before its own timestamp.
    InvalidPatchWindow,
    /// A patch's `parent_schema_id` names another schema.
    PatchParentMismatch,
    /// A patch's `parent_digest` does not match the base schema's digest (tampered or mismatched base).
    ParentDigestMismatch,
    /// Two different patches share a `patch_id`.
    DuplicatePatchId,
    /// A patch would change the type of an existing key.
    KeyRetype,
    /// A modified key changes more than its semantic description.
    ModificationNotAllowed,
    /// A modified key does not exist in the schema.
    UnknownModifiedKey,
    /// A patch introduces a key named `other`.
    OtherNotPatchable,
    /// A patch introduces a required key, which would break existing clients.
    NewKeyRequired,
    /// A patch reuses the name of a withdrawn key with another type.
    ReservedKeyName,
    /// A patch adds or modifies a sensitive key and the authorizer refused it.
    UnauthorizedSensitiveChange,
    /// A patch's signature is missing, malformed or does not match its content.
    InvalidSignature,
    /// Warning: the payload uses a deprecated key.
    DeprecatedKey,
    /// Warning: the payload uses a withdrawn key, still accepted during the backward-compatibility window.
    WithdrawnKey,
    /// Export warning: a key has no counterpart in the target format and was
    /// left out. Import warning: the template accepts other payloads than the
    /// imported schema at this place (a keyword it cannot express, an open
    /// object made closed, a `required` name with no property ...).
    NotExpressible,
    /// Bridge warning: an A2A field name is not snake_case; the template key uses a snake_case form of it.
    FieldRenamed,
    /// Bridge warning: a key or field was carried over with part of its meaning lost or approximated.
    LossyMapping,
    /// An `extra` member of a template or key is named like one of its real
    /// members, so the serialized template would hold it twice.
    ShadowedMember,
    /// Template warning: the template does not declare `other` (it is still
    /// accepted), so clients are not told where unmapped requests go.
    MissingOther,
    /// Template warning: `schema_id` or `scenario` is empty or blank.
    EmptyIdentifier,
    /// Template warning: an optional key of type `null`, whose only value
    /// means "not given".
    NullOptionalKey,
    /// Template warning: a required key has a default, which never applies.
    DefaultOnRequiredKey,
    /// A whole number beyond 64 bits in an `integer` key, under
    /// `BigIntegers::Reject`.
    IntegerOutOfRange,
    /// A template or patch has no RFC 8785 canonical form (a number no
    /// double holds), so it has no digest.
    NotCanonical,
}

impl IssueCode {
    /// Every code, in declaration order (for bindings, docs and tests).
    pub const ALL: &'static [IssueCode] = &[
        IssueCode::InvalidJson,
        IssueCode::InvalidMember,
        IssueCode::MissingMember,
        IssueCode::InvalidKeyName,
        IssueCode::DuplicateKeyName,
        IssueCode::UnknownKeyType,
        IssueCode::OtherMustBeOptional,
        IssueCode::OtherBadType,
        IssueCode::DefaultTypeMismatch,
        IssueCode::EmptySemanticDescription,
        IssueCode::NotAnObject,
        IssueCode::MissingSchemaId,
        IssueCode::SchemaIdMismatch,
        IssueCode::MissingPayload,
        IssueCode::MissingRequiredKey,
        IssueCode::TypeMismatch,
        IssueCode::UnknownKey,
        IssueCode::InvalidOther,
        IssueCode::LimitExceeded,
        IssueCode::MissingField,
        IssueCode::WrongType,
        IssueCode::InvalidUuid,
        IssueCode::InvalidTimestamp,
        IssueCode::PayloadNotObject,
        IssueCode::CapabilitiesNotStrings,
        IssueCode::UnsupportedVersion,
        IssueCode::NonUtcTimestamp,
        IssueCode::PayloadKeyNotSnakeCase,
        IssueCode::PayloadTooDeep,
        IssueCode::InvalidPatch,
        IssueCode::InvalidPatchWindow,
        IssueCode::PatchParentMismatch,
        IssueCode::ParentDigestMismatch,
        IssueCode::DuplicatePatchId,
        IssueCode::KeyRetype,
        IssueCode::ModificationNotAllowed,
        IssueCode::UnknownModifiedKey,
        IssueCode::OtherNotPatchable,
        IssueCode::NewKeyRequired,
        IssueCode::ReservedKeyName,
        IssueCode::UnauthorizedSensitiveChange,
        IssueCode::InvalidSignature,
        IssueCode::DeprecatedKey,
        IssueCode::WithdrawnKey,
        IssueCode::NotExpressible,
        IssueCode::FieldRenamed,
        IssueCode::LossyMapping,
        IssueCode::ShadowedMember,
        IssueCode::MissingOther,
        IssueCode::EmptyIdentifier,
        IssueCode::NullOptionalKey,
        IssueCode::DefaultOnRequiredKey,
        IssueCode::IntegerOutOfRange,
        IssueCode::NotCanonical,
    ];

    /// The code's stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::InvalidJson => "invalid_json",
            IssueCode::InvalidMember => "invalid_member",
            IssueCode::MissingMember => "missing_member",
            IssueCode::InvalidKeyName => "invalid_key_name",
            IssueCode::DuplicateKeyName => "duplicate_key_name",
            IssueCode::UnknownKeyType => "unknown_key_type",
            IssueCode::OtherMustBeOptional => "other_must_be_optional",
            IssueCode::OtherBadType => "other_bad_type",
            IssueCode::DefaultTypeMismatch => "default_type_mismatch",
            IssueCode::EmptySemanticDescription => "empty_semantic_description",
            IssueCode::NotAnObject => "not_an_object",
            IssueCode::MissingSchemaId => "missing_schema_id",
            IssueCode::SchemaIdMismatch => "schema_id_mismatch",
            IssueCode::MissingPayload => "missing_payload",
            IssueCode::MissingRequiredKey => "missing_required_key",
            IssueCode::TypeMismatch => "type_mismatch",
            IssueCode::UnknownKey => "unknown_key",
            IssueCode::InvalidOther => "invalid_other",
            IssueCode::LimitExceeded => "limit_exceeded",
            IssueCode::MissingField => "missing_field",
            IssueCode::WrongType => "wrong_type",
            IssueCode::InvalidUuid => "invalid_uuid",
            IssueCode::InvalidTimestamp => "invalid_timestamp",
            IssueCode::PayloadNotObject => "payload_not_object",
            IssueCode::CapabilitiesNotStrings => "capabilities_not_strings",
            IssueCode::UnsupportedVersion => "unsupported_version",
            IssueCode::NonUtcTimestamp => "non_utc_timestamp",
            IssueCode::PayloadKeyNotSnakeCase => "payload_key_not_snake_case",
            IssueCode::PayloadTooDeep => "payload_too_deep",
            IssueCode::InvalidPatch => "invalid_patch",
            IssueCode::InvalidPatchWindow => "invalid_patch_window",
            IssueCode::PatchParentMismatch => "patch_parent_mismatch",
            IssueCode::ParentDigestMismatch => "parent_digest_mismatch",
            IssueCode::DuplicatePatchId => "duplicate_patch_id",
            IssueCode::KeyRetype => "key_retype",
            IssueCode::ModificationNotAllowed => "modification_not_allowed",
            IssueCode::UnknownModifiedKey => "unknown_modified_key",
            IssueCode::OtherNotPatchable => "other_not_patchable",
            IssueCode::NewKeyRequired => "new_key_required",
            IssueCode::ReservedKeyName => "reserved_key_name",
            IssueCode::UnauthorizedSensitiveChange => "unauthorized_sensitive_change",
            IssueCode::InvalidSignature => "invalid_signature",
            IssueCode::DeprecatedKey => "deprecated_key",
            IssueCode::WithdrawnKey => "withdrawn_key",
            IssueCode::NotExpressible => "not_expressible",
            IssueCode::FieldRenamed => "field_renamed",
            IssueCode::LossyMapping => "lossy_mapping",
            IssueCode::ShadowedMember => "shadowed_member",
            IssueCode::MissingOther => "missing_other",
            IssueCode::EmptyIdentifier => "empty_identifier",
            IssueCode::NullOptionalKey => "null_optional_key",
            IssueCode::DefaultOnRequiredKey => "default_on_required_key",
            IssueCode::IntegerOutOfRange => "integer_out_of_range",
            IssueCode::NotCanonical => "not_canonical",
        }
    }
}

/// A name that is not the `as_str` of any [`IssueCode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown issue code {0:?}")]
pub struct UnknownIssueCode(pub String);

impl FromStr for IssueCode {
    type Err = UnknownIssueCode;

    /// The code whose [`IssueCode::as_str`] is `name`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        IssueCode::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == name)
            .ok_or_else(|| UnknownIssueCode(name.to_owned()))
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for IssueCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// What an issue's message says; rendered only when asked for, so that
/// collecting issues on a hot path allocates no text.
#[derive(Debug, Clone)]
enum Message {
    Fixed(&'static str),
    Owned(Box<str>),
    Type { expected: KeyType, found: JsonKind },
}

/// By what the message says: a fixed text and the same text owned are
/// equal, so an issue read back from its JSON (`Deserialize`) equals the one
/// written. A type mismatch compares its two types.
impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Message::Type { expected, found },
                Message::Type {
                    expected: e,
                    found: f,
                },
            ) => expected == e && found == f,
            (Message::Type { .. }, _) | (_, Message::Type { .. }) => false,
            (a, b) => a.text() == b.text(),
        }
    }
}

impl Message {
    /// The text of a message that is not a type mismatch.
    fn text(&self) -> &str {
        match self {
            Message::Fixed(text) => text,
            Message::Owned(text) => text,
            Message::Type { .. } => "",
        }
    }
}

/// One problem: a stable [`IssueCode`], a JSON Pointer to the offending value
/// (relative to the message or template root), and a readable message.
///
/// Serializes as `{"code", "path", "message"}`, plus `"limit"` for
/// [`IssueCode::LimitExceeded`], and `"expected"` and `"found"` (a key type
/// and a JSON type) for a payload's [`IssueCode::TypeMismatch`].
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    code: IssueCode,
    path: IssuePath,
    message: Message,
    limit: Option<u64>,
}

impl Issue {
    /// An issue with a message of the caller's (tools built on the crate use
    /// this for problems of their own; the crate's own issues come from validation).
    pub fn new(code: IssueCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::owned(code, path.into(), message.into())
    }

    /// The same issue with `prefix` put before its path, e.g. to report a
    /// structured payload's problems from the root of an envelope around it.
    pub fn prefixed(&self, prefix: &str) -> Self {
        let mut issue = self.clone();
        if !prefix.is_empty() {
            issue.path = format!("{prefix}{}", self.path()).into();
        }
        issue
    }

    /// Cuts `prefix` from the front of the path, when it is there.
    pub(crate) fn strip_prefix(&mut self, prefix: &str) {
        if let Some(rest) = self.path.as_str().strip_prefix(prefix) {
            self.path = rest.into();
        }
    }

    pub(crate) fn fixed(
        code: IssueCode,
        path: impl Into<IssuePath>,
        message: &'static str,
    ) -> Self {
        Self {
            code,
            path: path.into(),
            message: Message::Fixed(message),
            limit: None,
        }
    }

    pub(crate) fn owned(code: IssueCode, path: impl Into<IssuePath>, message: String) -> Self {
        Self {
            code,
            path: path.into(),
            message: Message::Owned(message.into()),
            limit: None,
        }
    }

    pub(crate) fn type_mismatch(
        path: impl Into<IssuePath>,
        expected: KeyType,
        found: JsonKind,
    ) -> Self {
        Self {
            code: IssueCode::TypeMismatch,
            path: path.into(),
            message: Message::Type { expected, found },
            limit: None,
        }
    }

    pub(crate) fn limit(path: impl Into<IssuePath>, what: &'static str, limit: u64) -> Self {
        Self {
            code: IssueCode::LimitExceeded,
            path: path.into(),
            message: Message::Owned(format!("{what} exceeds the limit of {limit}").into()),
            limit: Some(limit),
        }
    }

    /// The stable code.
    pub fn code(&self) -> IssueCode {
        self.code
    }

    /// The JSON Pointer (RFC 6901) to the offending value; `""` is the root.
    pub fn path(&self) -> &str {
        self.path.as_str()
    }

    /// A readable, lowercase message without a trailing period.
    pub fn message(&self) -> Cow<'_, str> {
        match &self.message {
            Message::Fixed(text) => Cow::Borrowed(text),
            Message::Owned(text) => Cow::Borrowed(text),
            Message::Type { expected, found } => {
                Cow::Owned(format!("expected {}, found {}", expected, found.as_str()))
            }
        }
    }

    /// The limit that was crossed, for [`IssueCode::LimitExceeded`].
    pub fn limit_value(&self) -> Option<u64> {
        self.limit
    }

    /// The type the key declares, for a [`IssueCode::TypeMismatch`] found
    /// in a payload.
    pub fn expected(&self) -> Option<KeyType> {
        match self.message {
            Message::Type { expected, .. } => Some(expected),
            _ => None,
        }
    }

    /// The JSON type of the value given, for a [`IssueCode::TypeMismatch`]
    /// found in a payload.
    pub fn found(&self) -> Option<JsonKind> {
        match self.message {
            Message::Type { found, .. } => Some(found),
            _ => None,
        }
    }
}

/// Errors and warnings: the problem list behind every report and error of
/// the crate ([`crate::Report`], a template's check, an envelope's report).
///
/// Errors make the thing checked unusable; warnings do not. Serializes as
/// `{"errors": [...], "warnings": [...]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[must_use]
pub struct Problems {
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
}

impl Problems {
    pub(crate) fn new(errors: Vec<Issue>, warnings: Vec<Issue>) -> Self {
        Self { errors, warnings }
    }

    pub(crate) fn error(issue: Issue) -> Self {
        Self::new(vec![issue], Vec::new())
    }

    /// Whether there are no errors (warnings do not count).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Every error.
    pub fn errors(&self) -> &[Issue] {
        &self.errors
    }

    /// Every warning.
    pub fn warnings(&self) -> &[Issue] {
        &self.warnings
    }

    /// The errors and the warnings, taken out.
    pub fn into_parts(self) -> (Vec<Issue>, Vec<Issue>) {
        (self.errors, self.warnings)
    }

    pub(crate) fn push_error(&mut self, issue: Issue) {
        self.errors.push(issue);
    }

    pub(crate) fn push_warning(&mut self, issue: Issue) {
        self.warnings.push(issue);
    }

    pub(crate) fn errors_mut(&mut self) -> &mut Vec<Issue> {
        &mut self.errors
    }

    pub(crate) fn warnings_mut(&mut self) -> &mut Vec<Issue> {
        &mut self.warnings
    }

    /// Orders both lists by path (stable: equal paths keep their order).
    pub(crate) fn sort_by_path(&mut self) {
        sort_by_path(&mut self.errors);
        sort_by_path(&mut self.warnings);
    }
}

/// Orders `issues` by path, stably.
pub(crate) fn sort_by_path(issues: &mut [Issue]) {
    issues.sort_by(|a, b| a.path().cmp(b.path()));
}

/// The one `Display` of the crate's errors: `"{subject} (N problems); issue; issue"`.
pub(crate) fn write_problems(
    f: &mut fmt::Formatter<'_>,
    subject: &str,
    errors: &[Issue],
) -> fmt::Result {
    let n = errors.len();
    write!(
        f,
        "{subject} ({n} problem{})",
        if n == 1 { "" } else { "s" }
    )?;
    for issue in errors {
        write!(f, "; {issue}")?;
    }
    Ok(())
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = match self.path() {
            "" => "/",
            path => path,
        };
        write!(f, "{} at {}: {}", self.code, path, self.message())
    }
}

impl Serialize for Issue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let typed = matches!(self.message, Message::Type { .. });
        let fields = 3 + usize::from(self.limit.is_some()) + 2 * usize::from(typed);
        let mut s = serializer.serialize_struct("Issue", fields)?;
        s.serialize_field("code", &self.code)?;
        s.serialize_field("path", self.path())?;
        s.serialize_field("message", &self.message())?;
        if let Some(limit) = self.limit {
            s.serialize_field("limit", &limit)?;
        }
        if let Message::Type { expected, found } = self.message {
            s.serialize_field("expected", expected.as_str())?;
            s.serialize_field("found", found.as_str())?;
        }
        s.end()
    }
}

// Reading an issue back from the JSON it serializes to: a report or an
// error written by one process (the CLI's output, a pickled Python
// exception) is the same issue in another.

/// The members [`Issue`]'s `Serialize` writes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    code: String,
    path: String,
    message: String,
    #[serde(default)]
    limit: Option<u64>,
    #[serde(default)]
    expected: Option<String>,
    #[serde(default)]
    found: Option<String>,
}

/// The JSON type named `name` (its [`JsonKind::as_str`]).
fn json_kind_named(name: &str) -> Option<JsonKind> {
    [
        JsonKind::Null,
        JsonKind::Boolean,
        JsonKind::Integer,
        JsonKind::Number,
        JsonKind::String,
        JsonKind::Array,
        JsonKind::Object,
    ]
    .into_iter()
    .find(|kind| kind.as_str() == name)
}

/// The inverse of `Serialize`: `{"code", "path", "message"}`, with `limit`,
/// and `expected` / `found` for a type mismatch (which then make the
/// message, as they do for the validator's own). An unknown code or type
/// name is an error, so is `expected` without `found`.
impl<'de> Deserialize<'de> for Issue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let written = Written::deserialize(deserializer)?;
        let code: IssueCode = written.code.parse().map_err(D::Error::custom)?;
        let message = match (written.expected, written.found) {
            (None, None) => Message::Owned(written.message.into()),
            (Some(expected), Some(found)) => Message::Type {
                expected: expected.parse::<KeyType>().map_err(D::Error::custom)?,
                found: json_kind_named(&found).ok_or_else(|| {
                    D::Error::custom(format!("unknown JSON type {}", quote_short(&found)))
                })?,
            },
            _ => return Err(D::Error::custom("`expected` and `found` come together")),
        };
        Ok(Issue {
            code,
            path: written.path.into(),
            message,
            limit: written.limit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixing_re_roots_the_path() {
        let issue = Issue::new(
            IssueCode::UnknownKey,
            "/payload/x",
            "key is not defined by the schema",
        );
        assert_eq!(issue.prefixed("/payload").path(), "/payload/payload/x");
        assert_eq!(issue.prefixed("").path(), "/payload/x");
        assert_eq!(issue.prefixed("/payload").message(), issue.message());
    }

    #[test]
    fn pointer_escaping() {
        assert_eq!(pointer("/payload", "a/b~c"), "/payload/a~1b~0c");
        assert_eq!(IssuePath::member("/payload", "é").as_str(), "/payload/é");
        assert_eq!(pointer("", "x"), "/x");
    }

    #[test]
    fn messages_render() {
        let issue = Issue::type_mismatch("/payload/n", KeyType::Integer, JsonKind::Number);
        assert_eq!(issue.message(), "expected integer, found number");
        assert_eq!(
            issue.to_string(),
            "type_mismatch at /payload/n: expected integer, found number"
        );
        let limit = Issue::limit("", "nesting depth", 3);
        assert_eq!(
            serde_json::to_value(&limit).unwrap(),
            serde_json::json!({"code": "limit_exceeded", "path": "", "message": "nesting depth exceeds the limit of 3", "limit": 3})
        );
    }
}
