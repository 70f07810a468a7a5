//! The primary part of a contracted exchange: the data part whose
//! `metadata[SCHEMA_CONTRACT_URI]` names the contract, direction and
//! representation it carries, built for a compiled schema and validated
//! against one (its identity and its payload, in one report).

use serde_json::{Value, json};

use crate::issue::{Issue, IssueCode, pointer, quote_short};
use crate::payload::message::StructuredPayload;
use crate::validate::core::schema::CompiledSchema;
use crate::validate::report::Report;

use super::error::ContractError;
use super::model::{Direction, SCHEMA_CONTRACT_URI};
use super::read::Walk;
use super::syntax::{is_absolute_uri, is_representation_id, representation_id_of};

/// The identity a primary part carries under [`SCHEMA_CONTRACT_URI`] in
/// its `metadata`: `{"contractId", "direction", "representationId", "role":
/// "primary"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PrimaryPart {
    /// The contract's id.
    pub contract_id: String,
    /// Input or output.
    pub direction: Direction,
    /// The representation the payload takes.
    pub representation_id: String,
}

impl PrimaryPart {
    /// The identity of a payload of `contract_id`, `direction`, `representation_id`.
    pub fn new(
        contract_id: impl Into<String>,
        direction: Direction,
        representation_id: impl Into<String>,
    ) -> Self {
        Self {
            contract_id: contract_id.into(),
            direction,
            representation_id: representation_id.into(),
        }
    }

    /// The metadata entry's value.
    pub fn to_value(&self) -> Value {
        json!({
            "contractId": self.contract_id,
            "direction": self.direction.as_str(),
            "representationId": self.representation_id,
            "role": "primary",
        })
    }

    /// The identity a part carries: `Ok(None)` when its metadata has no
    /// [`SCHEMA_CONTRACT_URI`] entry, an error (paths from the part's root)
    /// when the entry is malformed.
    pub fn of_part(part: &Value) -> Result<Option<Self>, ContractError> {
        let Some(entry) = part
            .get("metadata")
            .and_then(|m| m.get(SCHEMA_CONTRACT_URI))
        else {
            return Ok(None);
        };
        let at = pointer("/metadata", SCHEMA_CONTRACT_URI);
        let mut walk = Walk::default();
        let allowed = ["contractId", "direction", "representationId", "role"];
        let identity = walk
            .object(entry, &at, "a primary part's identity", &allowed)
            .and_then(|object| {
                let contract_id = walk.required_text(
                    object,
                    "contractId",
                    &at,
                    "an absolute URI",
                    is_absolute_uri,
                );
                let direction = walk
                    .required(object, "direction", &at)
                    .and_then(|value| direction_of(&mut walk, value, format!("{at}/direction")));
                let representation_id = walk.required_text(
                    object,
                    "representationId",
                    &at,
                    "a representation id",
                    is_representation_id,
                );
                if walk
                    .required(object, "role", &at)
                    .is_some_and(|role| role != "primary")
                {
                    walk.error(
                        IssueCode::InvalidMember,
                        format!("{at}/role"),
                        "role must be primary",
                    );
                }
                Some(Self::new(contract_id?, direction?, representation_id?))
            });
        walk.finish(identity).map(Some).map_err(ContractError::new)
    }
}

/// `"input"` or `"output"`.
pub(crate) fn direction_of(walk: &mut Walk, value: &Value, at: String) -> Option<Direction> {
    match value.as_str() {
        Some("input") => Some(Direction::Input),
        Some("output") => Some(Direction::Output),
        _ => {
            walk.error(
                IssueCode::InvalidMember,
                at,
                "direction must be input or output",
            );
            None
        }
    }
}

impl CompiledSchema {
    /// The primary part carrying `message` under contract `contract_id`:
    /// the data part of [`CompiledSchema::a2a_data_part`] (with §6.8's
    /// `metadata.mediaType` and `metadata.schema`), plus its identity under
    /// [`SCHEMA_CONTRACT_URI`], whose representation is this schema's id
    /// (as [`Representation::for_schema`](crate::a2a::Representation::for_schema) declares it).
    pub fn a2a_contract_part(
        &self,
        message: &StructuredPayload,
        contract_id: &str,
        direction: Direction,
    ) -> Value {
        let mut part = self.a2a_data_part(message);
        let identity = PrimaryPart::new(
            contract_id,
            direction,
            representation_id_of(&self.template().schema_id),
        );
        if let Some(metadata) = part.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert(SCHEMA_CONTRACT_URI.to_owned(), identity.to_value());
        }
        part
    }

    /// Validates a primary part of contract `contract_id` at the draft's
    /// validation point: an agent calls this on the input before doing any
    /// work, and on its output before publishing it. The part's identity
    /// must name `contract_id`, `direction` and this schema's id as its
    /// representation (`invalid_member`, or `schema_id_mismatch` for the
    /// representation, at `/metadata/<the extension URI>/...`; a part
    /// without one is `missing_member` there), and the part is validated
    /// as by [`CompiledSchema::validate_a2a_data_part`]. Both are checked
    /// whatever the other finds, and the report lists every error by path,
    /// as every report does (the payload's `/data/...` before the
    /// identity's `/metadata/...`). Turn the errors into the contract's
    /// failure report with
    /// [`ContractFailure::new`](crate::a2a::ContractFailure::new).
    pub fn validate_a2a_contract_part<'a>(
        &'a self,
        part: &'a Value,
        contract_id: &str,
        direction: Direction,
    ) -> Report<'a> {
        let mut report = self.validate_a2a_data_part(part);
        if !part.is_object() {
            return report;
        }
        let at = pointer("/metadata", SCHEMA_CONTRACT_URI);
        let own = representation_id_of(&self.template().schema_id);
        let issues = match PrimaryPart::of_part(part) {
            Err(error) => error.into_errors(),
            Ok(None) => vec![Issue::new(
                IssueCode::MissingMember,
                at,
                "the part does not say which contract it carries",
            )],
            Ok(Some(identity)) => {
                let mut issues = Vec::new();
                if identity.contract_id != contract_id {
                    issues.push(Issue::new(
                        IssueCode::InvalidMember,
                        format!("{at}/contractId"),
                        format!(
                            "the part is of contract {}, not {contract_id:?}",
                            quote_short(&identity.contract_id)
                        ),
                    ));
                }
                if identity.direction != direction {
                    issues.push(Issue::new(
                        IssueCode::InvalidMember,
                        format!("{at}/direction"),
                        format!(
                            "the part is an {}, not an {}",
                            identity.direction.as_str(),
                            direction.as_str()
                        ),
                    ));
                }
                if identity.representation_id != own {
                    issues.push(Issue::new(
                        IssueCode::SchemaIdMismatch,
                        format!("{at}/representationId"),
                        format!(
                            "the part is in representation {:?}, not {own:?}",
                            identity.representation_id
                        ),
                    ));
                }
                issues
            }
        };
        for issue in issues {
            report = report.with_error(issue);
        }
        report
    }
}
