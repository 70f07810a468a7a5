//! Reporting a contract's validation failure: sdsi's issue list in the
//! draft's error-detail shape, one sanitized summary for the carriers that
//! hold a single detail, and the whole list as a data part.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::export::JSON_SCHEMA_DIALECT;
use crate::issue::{Issue, IssueCode, pointer};

use super::super::fields::JSON_MEDIA_TYPE;
use super::error::ContractError;
use super::model::{Direction, SCHEMA_CONTRACT_URI};
use super::primary::{PrimaryPart, direction_of};
use super::read::{Walk, any_text};
use super::syntax::{is_absolute_uri, is_representation_id};

/// The codes of the draft's error detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ContractErrorCode {
    /// The request names no contract the agent offers.
    ContractNotFound,
    /// The request matches more than one contract.
    AmbiguousContract,
    /// The payload's representation (media type, representation id) is not
    /// one the contract lists.
    RepresentationNotSupported,
    /// A required payload is missing, or one is sent where none belongs.
    PayloadPresenceViolation,
    /// The schema could not be obtained.
    SchemaUnavailable,
    /// The schema itself is not valid.
    SchemaInvalid,
    /// The input payload breaks its schema.
    InstanceInvalid,
    /// The agent's output breaks the contract.
    OutputContractViolation,
    /// A fetched schema's digest differs from the declared one.
    SchemaIntegrityMismatch,
}

impl ContractErrorCode {
    /// Every code.
    pub const ALL: &'static [ContractErrorCode] = &[
        ContractErrorCode::ContractNotFound,
        ContractErrorCode::AmbiguousContract,
        ContractErrorCode::RepresentationNotSupported,
        ContractErrorCode::PayloadPresenceViolation,
        ContractErrorCode::SchemaUnavailable,
        ContractErrorCode::SchemaInvalid,
        ContractErrorCode::InstanceInvalid,
        ContractErrorCode::OutputContractViolation,
        ContractErrorCode::SchemaIntegrityMismatch,
    ];

    /// The wire name (`INSTANCE_INVALID`).
    pub fn as_str(self) -> &'static str {
        match self {
            ContractErrorCode::ContractNotFound => "CONTRACT_NOT_FOUND",
            ContractErrorCode::AmbiguousContract => "AMBIGUOUS_CONTRACT",
            ContractErrorCode::RepresentationNotSupported => "REPRESENTATION_NOT_SUPPORTED",
            ContractErrorCode::PayloadPresenceViolation => "PAYLOAD_PRESENCE_VIOLATION",
            ContractErrorCode::SchemaUnavailable => "SCHEMA_UNAVAILABLE",
            ContractErrorCode::SchemaInvalid => "SCHEMA_INVALID",
            ContractErrorCode::InstanceInvalid => "INSTANCE_INVALID",
            ContractErrorCode::OutputContractViolation => "OUTPUT_CONTRACT_VIOLATION",
            ContractErrorCode::SchemaIntegrityMismatch => "SCHEMA_INTEGRITY_MISMATCH",
        }
    }

    /// The code whose wire name is `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|code| code.as_str() == name)
    }
}

/// One problem in the draft's error-detail shape: `{"code", "contractId",
/// "direction", "representationId"?, "instancePath"?, "schemaLocation"?,
/// "keyword"?, "message"?}`.
///
/// A detail made from an sdsi [`Issue`] carries the issue's stable code in
/// `keyword` (the rule that failed), its path inside the payload in
/// `instancePath` and its message in `message`, so the issue list crosses
/// the wire whole and [`ContractErrorDetail::issue`] reads it back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ContractErrorDetail {
    /// What kind of failure.
    pub code: ContractErrorCode,
    /// The contract validated against.
    pub contract_id: String,
    /// Input or output.
    pub direction: Direction,
    /// The representation validated against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub representation_id: Option<String>,
    /// A JSON Pointer into the payload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_path: Option<String>,
    /// An absolute URI of the schema location that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_location: Option<String>,
    /// The rule that failed (for sdsi, the issue code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// A readable explanation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ContractErrorDetail {
    /// A detail with only the required members.
    pub fn new(
        code: ContractErrorCode,
        contract_id: impl Into<String>,
        direction: Direction,
    ) -> Self {
        Self {
            code,
            contract_id: contract_id.into(),
            direction,
            representation_id: None,
            instance_path: None,
            schema_location: None,
            keyword: None,
            message: None,
        }
    }

    /// The sdsi issue this detail carries, when its `keyword` is an sdsi
    /// issue code: at `instancePath` (the payload's root when absent), with
    /// the detail's message.
    pub fn issue(&self) -> Option<Issue> {
        let code: IssueCode = self.keyword.as_deref()?.parse().ok()?;
        Some(Issue::new(
            code,
            self.instance_path.clone().unwrap_or_default(),
            self.message.clone().unwrap_or_default(),
        ))
    }

    /// Reads a detail, checking it against the draft's shape; errors point
    /// into `value`.
    pub fn from_value(value: &Value) -> Result<Self, ContractError> {
        let mut walk = Walk::default();
        let detail = read_detail(&mut walk, value, "");
        walk.finish(detail).map_err(ContractError::new)
    }
}

fn read_detail(walk: &mut Walk, value: &Value, at: &str) -> Option<ContractErrorDetail> {
    let allowed = [
        "code",
        "contractId",
        "direction",
        "representationId",
        "instancePath",
        "schemaLocation",
        "keyword",
        "message",
    ];
    let object = walk.object(value, at, "an error detail", &allowed)?;
    let code = walk.required(object, "code", at).and_then(|code| {
        let parsed = code.as_str().and_then(ContractErrorCode::parse);
        if parsed.is_none() {
            walk.error(
                IssueCode::InvalidMember,
                format!("{at}/code"),
                "code must be one of the draft's error codes",
            );
        }
        parsed
    });
    let contract_id =
        walk.required_text(object, "contractId", at, "an absolute URI", is_absolute_uri);
    let direction = walk
        .required(object, "direction", at)
        .and_then(|v| direction_of(walk, v, format!("{at}/direction")));
    let mut detail = ContractErrorDetail::new(code?, contract_id?, direction?);
    detail.representation_id = walk.optional_text(
        object,
        "representationId",
        at,
        "a representation id",
        is_representation_id,
    );
    detail.instance_path = walk.optional_text(object, "instancePath", at, "a string", any_text);
    detail.schema_location = walk.optional_text(
        object,
        "schemaLocation",
        at,
        "an absolute URI",
        is_absolute_uri,
    );
    detail.keyword = walk.optional_text(object, "keyword", at, "a string", any_text);
    detail.message = walk.optional_text(object, "message", at, "a string", any_text);
    Some(detail)
}

/// A failed validation of a contract's payload, as the draft reports it.
///
/// Built from the errors of
/// [`CompiledSchema::validate_a2a_contract_part`](crate::CompiledSchema::validate_a2a_contract_part)
/// (paths from the part's root), each issue becomes one detail:
///
/// | issue | input | output |
/// |---|---|---|
/// | `missing_payload` | `PAYLOAD_PRESENCE_VIOLATION` | `OUTPUT_CONTRACT_VIOLATION` |
/// | under `/data` or `/text` (the payload) | `INSTANCE_INVALID`, `instancePath` inside the payload | `OUTPUT_CONTRACT_VIOLATION`, same |
/// | the identity's `contractId`, or no identity: the part names no contract the agent offers here | `CONTRACT_NOT_FOUND`, the part's path in `message` | `OUTPUT_CONTRACT_VIOLATION`, same |
/// | elsewhere (media type, metadata, the rest of the identity) | `REPRESENTATION_NOT_SUPPORTED`, the part's path in `message` | `OUTPUT_CONTRACT_VIOLATION`, same |
///
/// The draft's carriers hold one detail and disclose paths only on purpose:
/// [`ContractFailure::metadata`] gives the sanitized
/// [`summary`](ContractFailure::summary) under the extension's URI (for a
/// failed Task's or status event's `metadata`, or an error's
/// `ErrorInfo.metadata` as a JSON string), and
/// [`ContractFailure::to_data_part`] the whole list, for an agent that
/// chooses to show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractFailure {
    identity: PrimaryPart,
    details: Vec<ContractErrorDetail>,
}

impl ContractFailure {
    /// The failure of the payload `identity` names, from `issues`.
    pub fn new(identity: &PrimaryPart, issues: &[Issue]) -> Self {
        let details = issues
            .iter()
            .map(|issue| detail_of(identity, issue))
            .collect();
        Self {
            identity: identity.clone(),
            details,
        }
    }

    /// One detail per issue.
    pub fn details(&self) -> &[ContractErrorDetail] {
        &self.details
    }

    /// The failure in one detail, without paths, keywords or values: the
    /// most basic code among the details (the contract before the
    /// representation before the presence before the instance; always
    /// `OUTPUT_CONTRACT_VIOLATION` for an output) and how many problems
    /// there are.
    pub fn summary(&self) -> ContractErrorDetail {
        let rank = |code: &ContractErrorCode| match code {
            ContractErrorCode::ContractNotFound => 0,
            ContractErrorCode::RepresentationNotSupported => 1,
            ContractErrorCode::PayloadPresenceViolation => 2,
            _ => 3,
        };
        let fallback = match self.identity.direction {
            Direction::Input => ContractErrorCode::InstanceInvalid,
            Direction::Output => ContractErrorCode::OutputContractViolation,
        };
        let code = self
            .details
            .iter()
            .map(|d| d.code)
            .min_by_key(rank)
            .unwrap_or(fallback);
        let n = self.details.len();
        let mut summary = ContractErrorDetail::new(
            code,
            self.identity.contract_id.clone(),
            self.identity.direction,
        );
        summary.representation_id = Some(self.identity.representation_id.clone());
        summary.message = Some(format!(
            "the {} breaks its contract ({n} problem{})",
            self.identity.direction.as_str(),
            if n == 1 { "" } else { "s" }
        ));
        summary
    }

    /// `{SCHEMA_CONTRACT_URI: <summary>}`: what a failed Task's (or its
    /// final status event's) `metadata` holds.
    pub fn metadata(&self) -> Map<String, Value> {
        let mut metadata = Map::new();
        metadata.insert(
            SCHEMA_CONTRACT_URI.to_owned(),
            detail_value(&self.summary()),
        );
        metadata
    }

    /// Every detail as a data part (`{"data": {"errors": [...]}}`), its
    /// `metadata.mediaType` and `metadata.schema` (A2A v1.0 §6.8) the JSON
    /// media type and a JSON Schema of the list: the message of a failed
    /// Task's status, or an artifact, when the agent shows the problems.
    pub fn to_data_part(&self) -> Value {
        let errors: Vec<Value> = self.details.iter().map(detail_value).collect();
        json!({
            "data": {"errors": errors},
            "mediaType": JSON_MEDIA_TYPE,
            "metadata": {"mediaType": JSON_MEDIA_TYPE, "schema": error_list_schema()},
        })
    }

    /// The details of a part written by [`ContractFailure::to_data_part`];
    /// errors point into the part.
    pub fn details_of_part(part: &Value) -> Result<Vec<ContractErrorDetail>, ContractError> {
        let mut walk = Walk::default();
        let list = part
            .get("data")
            .and_then(|data| data.get("errors"))
            .and_then(Value::as_array);
        let Some(list) = list else {
            walk.error(
                IssueCode::MissingMember,
                "/data/errors".to_owned(),
                "the part has no data.errors list",
            );
            return Err(ContractError::new(walk.errors));
        };
        let details: Vec<_> = list
            .iter()
            .enumerate()
            .filter_map(|(index, value)| {
                read_detail(&mut walk, value, &format!("/data/errors/{index}"))
            })
            .collect();
        walk.finish(Some(details)).map_err(ContractError::new)
    }
}

/// A detail as JSON (it always serializes: strings and enums only).
fn detail_value(detail: &ContractErrorDetail) -> Value {
    serde_json::to_value(detail).unwrap_or(Value::Null)
}

/// `path` is `segment` or below it.
fn under<'p>(path: &'p str, segment: &str) -> Option<&'p str> {
    let rest = path.strip_prefix(segment)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// Whether an issue of the part's identity says the part names no contract
/// the agent offers here: another (or a malformed) `contractId`, or no
/// identity at all.
fn names_no_contract(issue: &Issue) -> bool {
    let at = pointer("/metadata", SCHEMA_CONTRACT_URI);
    let path = issue.path();
    path.strip_prefix(at.as_str()).is_some_and(|rest| {
        rest == "/contractId" || (rest.is_empty() && issue.code() == IssueCode::MissingMember)
    })
}

fn detail_of(identity: &PrimaryPart, issue: &Issue) -> ContractErrorDetail {
    let output = identity.direction == Direction::Output;
    let path = issue.path();
    let inside = under(path, "/data").or_else(|| under(path, "/text"));
    let with_place = || {
        format!(
            "{} (at {} of the part)",
            issue.message(),
            if path.is_empty() { "/" } else { path }
        )
    };
    let (code, instance_path, message) = match (issue.code(), inside) {
        (IssueCode::MissingPayload, _) => (
            ContractErrorCode::PayloadPresenceViolation,
            None,
            issue.message().into_owned(),
        ),
        (_, Some(inside)) => (
            ContractErrorCode::InstanceInvalid,
            Some(inside.to_owned()),
            issue.message().into_owned(),
        ),
        (_, None) if names_no_contract(issue) => {
            (ContractErrorCode::ContractNotFound, None, with_place())
        }
        (_, None) => (
            ContractErrorCode::RepresentationNotSupported,
            None,
            with_place(),
        ),
    };
    let code = if output {
        ContractErrorCode::OutputContractViolation
    } else {
        code
    };
    let mut detail =
        ContractErrorDetail::new(code, identity.contract_id.clone(), identity.direction);
    detail.representation_id = Some(identity.representation_id.clone());
    detail.instance_path = instance_path;
    detail.keyword = Some(issue.code().as_str().to_owned());
    detail.message = Some(message);
    detail
}

/// A JSON Schema of `{"errors": [<error detail>...]}`, the detail's shape
/// as the draft's error-detail schema defines it.
fn error_list_schema() -> Value {
    let codes: Vec<&str> = ContractErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    json!({
        "$schema": JSON_SCHEMA_DIALECT,
        "type": "object",
        "required": ["errors"],
        "properties": {"errors": {"type": "array", "items": {
            "type": "object",
            "additionalProperties": false,
            "required": ["code", "contractId", "direction"],
            "properties": {
                "code": {"enum": codes},
                "contractId": {"type": "string"},
                "direction": {"enum": ["input", "output"]},
                "representationId": {"type": "string"},
                "instancePath": {"type": "string"},
                "schemaLocation": {"type": "string"},
                "keyword": {"type": "string"},
                "message": {"type": "string"},
            },
        }}},
    })
}
