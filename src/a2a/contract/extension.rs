//! The Schema Contract extension as an AgentCard entry: built from typed
//! contracts, checked before it is written, and read back from a card.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode};

use super::super::card::AgentExtension;
use super::error::ContractError;
use super::model::{Catalog, Integrity, SCHEMA_CONTRACT_URI, SchemaContract};
use super::read::{read_params, read_params_object};

/// What the entry says when the caller gives no description.
const DEFAULT_DESCRIPTION: &str = "Input and output contracts of this agent's payloads \
     (A2A Schema Contract extension, community draft 0.1)";

/// The Schema Contract extension entry of an AgentCard
/// (`capabilities.extensions[]`), in the shape A2A issue #2180 proposes:
/// `{"uri": SCHEMA_CONTRACT_URI, "description", "required", "params":
/// {"catalog": ...}}`.
///
/// The proposal is a community draft (0.1) that its author expects to change;
/// this type tracks it, and a later draft gets a new URI (the draft forbids
/// falling back between versions), so this one stays readable.
///
/// ```
/// use sdsi::{CompiledSchema, SchemaTemplate};
/// use sdsi::a2a::{SchemaContract, SchemaContractExtension};
/// use serde_json::json;
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "coffee_v1", "scenario": "coffee_order",
///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
///               "semantic_description": "Cup size: small, medium, large."}]
/// }))?;
/// let schema = CompiledSchema::new(&template)?;
/// let contract = SchemaContract::for_schemas("https://cafe.example/contracts/coffee/1", Some(&schema), None);
/// let entry = SchemaContractExtension::new(vec![contract]).to_agent_extension()?;
/// let card = json!({"name": "barista", "capabilities": {"extensions": [entry]}});
///
/// let found = SchemaContractExtension::find(&card)?.ok_or("no contract extension")?;
/// assert_eq!(found.contracts()[0].input.representations[0].id, "coffee_v1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SchemaContractExtension {
    /// The contracts, in the card or published at a URI.
    pub catalog: Catalog,
    /// Whether a client must use the extension (only when the agent cannot
    /// work without it).
    pub required: bool,
    /// How the agent uses the extension.
    pub description: Option<String>,
}

impl SchemaContractExtension {
    /// An optional extension listing `contracts` in the card.
    pub fn new(contracts: Vec<SchemaContract>) -> Self {
        Self {
            catalog: Catalog::Inline(contracts),
            required: false,
            description: Some(DEFAULT_DESCRIPTION.to_owned()),
        }
    }

    /// An optional extension whose catalog is published at `uri`.
    pub fn external(uri: impl Into<String>, integrity: Option<Integrity>) -> Self {
        Self {
            catalog: Catalog::External {
                uri: uri.into(),
                integrity,
            },
            required: false,
            description: Some(DEFAULT_DESCRIPTION.to_owned()),
        }
    }

    /// The same extension, required or not.
    pub fn with_required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }

    /// The same extension with `description`.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The contracts listed in the card (none when the catalog is external).
    pub fn contracts(&self) -> &[SchemaContract] {
        match &self.catalog {
            Catalog::Inline(contracts) => contracts,
            Catalog::External { .. } => &[],
        }
    }

    /// The contract whose id is `id`, when the card lists it.
    pub fn contract(&self, id: &str) -> Option<&SchemaContract> {
        self.contracts().iter().find(|c| c.id == id)
    }

    /// The AgentCard entry, checked by the same rules as
    /// [`SchemaContractExtension::from_agent_extension`] reads with, so
    /// that no card carries an entry a client refuses (a relative contract
    /// id, a bad representation id, two contracts with one id, an empty
    /// catalog...). Errors point into the entry (`/params/catalog/...`).
    pub fn to_agent_extension(&self) -> Result<AgentExtension, ContractError> {
        let catalog = serde_json::to_value(&self.catalog).map_err(|error| {
            ContractError::new(vec![Issue::new(
                IssueCode::InvalidMember,
                "/params/catalog",
                format!("the catalog does not serialize: {error}"),
            )])
        })?;
        let mut params = Map::new();
        params.insert("catalog".to_owned(), catalog);
        read_params_object(&params, "/params").map_err(ContractError::new)?;
        Ok(AgentExtension {
            uri: SCHEMA_CONTRACT_URI.to_owned(),
            description: self.description.clone(),
            required: Some(self.required),
            params: Some(params),
            extra: IndexMap::new(),
        })
    }

    /// Reads an AgentCard entry: its URI must be exactly
    /// [`SCHEMA_CONTRACT_URI`] and its `params` a valid catalog. Errors point
    /// into the entry (`/params/catalog/inline/contracts/0/id`).
    pub fn from_agent_extension(entry: &AgentExtension) -> Result<Self, ContractError> {
        if entry.uri != SCHEMA_CONTRACT_URI {
            return Err(ContractError::new(vec![Issue::new(
                IssueCode::InvalidMember,
                "/uri",
                format!("not the schema contract extension ({SCHEMA_CONTRACT_URI})"),
            )]));
        }
        let catalog = match &entry.params {
            Some(params) => read_params_object(params, "/params"),
            None => Err(vec![no_params("")]),
        };
        let required = entry.required.unwrap_or(false);
        Self::assemble(catalog, required, entry.description.clone(), Vec::new())
    }

    /// The Schema Contract entry of an AgentCard's
    /// `capabilities.extensions`: `Ok(None)` when the card declares none,
    /// an error (paths from the card's root) when the entry is malformed or
    /// declared twice. Only the exact URI counts; other versions of the
    /// draft are other extensions.
    pub fn find(card: &Value) -> Result<Option<Self>, ContractError> {
        let Some(list) = card
            .get("capabilities")
            .and_then(|c| c.get("extensions"))
            .and_then(Value::as_array)
        else {
            return Ok(None);
        };
        let mut entries = list
            .iter()
            .enumerate()
            .filter(|(_, e)| e.get("uri").and_then(Value::as_str) == Some(SCHEMA_CONTRACT_URI));
        let Some((index, entry)) = entries.next() else {
            return Ok(None);
        };
        let at = format!("/capabilities/extensions/{index}");
        if let Some((again, _)) = entries.next() {
            return Err(ContractError::new(vec![Issue::new(
                IssueCode::InvalidMember,
                format!("/capabilities/extensions/{again}"),
                "the schema contract extension is declared twice",
            )]));
        }
        // The members a typed entry (`AgentExtension`) has typed already.
        let mut errors = Vec::new();
        let required = match entry.get("required") {
            None => false,
            Some(Value::Bool(required)) => *required,
            Some(_) => {
                errors.push(Issue::new(
                    IssueCode::InvalidMember,
                    format!("{at}/required"),
                    "required must be a boolean",
                ));
                false
            }
        };
        let description = match entry.get("description") {
            None => None,
            Some(Value::String(text)) => Some(text.clone()),
            Some(_) => {
                errors.push(Issue::new(
                    IssueCode::InvalidMember,
                    format!("{at}/description"),
                    "description must be a string",
                ));
                None
            }
        };
        let catalog = match entry.get("params") {
            Some(params) => read_params(params, &format!("{at}/params")),
            None => Err(vec![no_params(&at)]),
        };
        Self::assemble(catalog, required, description, errors).map(Some)
    }

    /// The extension read from an entry, or every error found in it:
    /// `errors` from its other members, then the catalog's.
    fn assemble(
        catalog: Result<Catalog, Vec<Issue>>,
        required: bool,
        description: Option<String>,
        mut errors: Vec<Issue>,
    ) -> Result<Self, ContractError> {
        match catalog {
            Ok(catalog) if errors.is_empty() => Ok(Self {
                catalog,
                required,
                description,
            }),
            Ok(_) => Err(ContractError::new(errors)),
            Err(mut more) => {
                errors.append(&mut more);
                Err(ContractError::new(errors))
            }
        }
    }
}

/// An entry (at `at`) without `params`.
fn no_params(at: &str) -> Issue {
    Issue::new(
        IssueCode::MissingMember,
        format!("{at}/params"),
        "params is required",
    )
}
