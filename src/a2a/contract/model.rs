//! The Schema Contract catalog as typed values: contracts, their input and
//! output directions, the representations a direction accepts and the
//! schema descriptor of each, with builders for a compiled schema's contract.

use serde::Serialize;
use serde_json::Value;

use crate::export::JSON_SCHEMA_DIALECT;
use crate::validate::core::schema::CompiledSchema;

use super::super::fields::JSON_MEDIA_TYPE;
use super::syntax::representation_id_of;

/// The URI of the Schema Contract extension, exactly as the community draft
/// behind A2A issue #2180 gives it (draft 0.1). The draft is young and
/// expected to change; a changed draft gets a new URI, and the draft forbids
/// treating one version as another.
pub const SCHEMA_CONTRACT_URI: &str = "https://w3id.org/a2a-schema-contract/draft/0.1";

/// The media type of a JSON Schema document, which a schema descriptor names
/// as its `mediaType` (the schema's own media type, not the payload's).
pub const SCHEMA_MEDIA_TYPE: &str = "application/schema+json";

/// Which way a payload travels under a contract: `input` (client to agent)
/// or `output` (agent to client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The payload a client sends.
    Input,
    /// The payload an agent returns.
    Output,
}

impl Direction {
    /// The wire name: `"input"` or `"output"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Input => "input",
            Direction::Output => "output",
        }
    }
}

/// How many primary payloads a direction carries: `required` exactly one,
/// `optional` zero or one, `none` zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    /// Exactly one primary payload.
    Required,
    /// Zero or one primary payload.
    Optional,
    /// No payload in this direction.
    None,
}

impl Presence {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Presence::Required => "required",
            Presence::Optional => "optional",
            Presence::None => "none",
        }
    }
}

/// One direction of a contract: its presence and, unless the presence is
/// `none`, the representations the payload may take (at least one).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DirectionContract {
    /// How many payloads travel this way.
    pub presence: Presence,
    /// The alternatives a payload may take; empty exactly when the presence
    /// is `none`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub representations: Vec<Representation>,
}

impl DirectionContract {
    /// No payload this way.
    pub fn none() -> Self {
        Self {
            presence: Presence::None,
            representations: Vec::new(),
        }
    }

    /// Exactly one payload, in one of `representations`.
    pub fn required(representations: Vec<Representation>) -> Self {
        Self {
            presence: Presence::Required,
            representations,
        }
    }

    /// At most one payload, in one of `representations`.
    pub fn optional(representations: Vec<Representation>) -> Self {
        Self {
            presence: Presence::Optional,
            representations,
        }
    }

    /// The representation whose `id` is `id`.
    pub fn representation(&self, id: &str) -> Option<&Representation> {
        self.representations.iter().find(|r| r.id == id)
    }
}

/// One form a payload may take: an id unique within its direction, a media
/// type, and optionally the schema the payload follows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Representation {
    /// `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`, unique within the direction.
    pub id: String,
    /// The payload's media type (`application/json`).
    pub media_type: String,
    /// What the representation is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The schema a payload must follow; without one only the media type binds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<SchemaDescriptor>,
}

impl Representation {
    /// A representation without a schema.
    pub fn new(id: impl Into<String>, media_type: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            media_type: media_type.into(),
            description: None,
            schema: None,
        }
    }

    /// The representation of `schema`'s messages: the id is the schema id
    /// (any snake_case id fits the draft's pattern; another id is replaced by
    /// `schema-` and 32 hex digits of its SHA-256), the media type
    /// `application/json`, and the schema the message's JSON Schema
    /// ([`CompiledSchema::json_schema`]) inline. The data part carries the
    /// whole message `{"schema_id", "payload"}`, as
    /// [`CompiledSchema::a2a_data_part`] writes it.
    pub fn for_schema(schema: &CompiledSchema) -> Self {
        let template = schema.template();
        Self {
            id: representation_id_of(&template.schema_id),
            media_type: JSON_MEDIA_TYPE.to_owned(),
            description: Some(format!(
                "A structured payload of scenario {}",
                template.scenario
            )),
            schema: Some(SchemaDescriptor::inline_json_schema(
                schema.json_schema().into_value(),
            )),
        }
    }

    /// The same representation with `description`.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// Where a representation's schema is and what language it is in: exactly
/// one source (inline, an external URI, or an entry of a bundle), the
/// schema document's media type, and its dialect.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SchemaDescriptor {
    /// The schema itself, or where to fetch it (this crate never fetches).
    #[serde(flatten)]
    pub source: SchemaSource,
    /// The schema document's media type (`application/schema+json`).
    pub media_type: String,
    /// The schema language's dialect URI, when the media type leaves it open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
}

impl SchemaDescriptor {
    /// A JSON Schema 2020-12 document given inline.
    pub fn inline_json_schema(schema: Value) -> Self {
        Self {
            source: SchemaSource::Inline { inline: schema },
            media_type: SCHEMA_MEDIA_TYPE.to_owned(),
            dialect: Some(JSON_SCHEMA_DIALECT.to_owned()),
        }
    }

    /// The inline schema, when the schema is given inline.
    pub fn inline(&self) -> Option<&Value> {
        match &self.source {
            SchemaSource::Inline { inline } => Some(inline),
            _ => None,
        }
    }
}

/// The source of a schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SchemaSource {
    /// `{"inline": <schema>}`: the schema in the catalog.
    Inline {
        /// The schema document (an object or a boolean for JSON Schema).
        inline: Value,
    },
    /// `{"uri", "integrity"?}`: a schema published elsewhere.
    External {
        /// Its absolute URI.
        uri: String,
        /// A digest of its exact bytes, to check before parsing.
        #[serde(skip_serializing_if = "Option::is_none")]
        integrity: Option<Integrity>,
    },
    /// `{"bundle", "entrypoint"}`: one document of a published bundle.
    Bundled {
        /// The bundle.
        bundle: Bundle,
        /// The document's relative path inside the bundle.
        entrypoint: String,
    },
}

/// A bundle of schema documents published at one URI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Bundle {
    /// Its absolute URI.
    pub uri: String,
    /// The bundle's media type (an archive format).
    pub media_type: String,
    /// A digest of its exact bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrity: Option<Integrity>,
}

/// A digest of a published resource's exact bytes: `{"algorithm", "value"}`,
/// the value in base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Integrity {
    /// The digest algorithm.
    pub algorithm: DigestAlgorithm,
    /// The digest, base64 (44 characters for SHA-256, 88 for SHA-512).
    pub value: String,
}

impl Integrity {
    /// A digest given as its algorithm and base64 value.
    pub fn new(algorithm: DigestAlgorithm, value: impl Into<String>) -> Self {
        Self {
            algorithm,
            value: value.into(),
        }
    }
}

/// The digest algorithms the draft names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DigestAlgorithm {
    /// `sha-256`.
    #[serde(rename = "sha-256")]
    Sha256,
    /// `sha-512`.
    #[serde(rename = "sha-512")]
    Sha512,
}

impl DigestAlgorithm {
    /// The base64 form of a digest: characters before the padding, and the padding.
    pub(crate) fn base64_shape(self) -> (usize, &'static str) {
        match self {
            DigestAlgorithm::Sha256 => (43, "="),
            DigestAlgorithm::Sha512 => (86, "=="),
        }
    }
}

/// One contract: a versioned absolute URI naming an input and an output
/// that belong together, optionally associated with the agent's skills.
///
/// ```
/// use sdsi::{CompiledSchema, SchemaTemplate};
/// use sdsi::a2a::{Presence, SchemaContract};
/// use serde_json::json;
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "coffee_v1", "scenario": "coffee_order",
///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
///               "semantic_description": "Cup size: small, medium, large."}]
/// }))?;
/// let schema = CompiledSchema::new(&template)?;
/// let contract = SchemaContract::for_schemas("https://cafe.example/contracts/coffee/1", Some(&schema), None)
///     .with_skill("order_coffee");
/// assert_eq!(contract.input.presence, Presence::Required);
/// assert_eq!(contract.output.presence, Presence::None);
/// let json = serde_json::to_value(&contract)?;
/// assert_eq!(json["input"]["representations"][0]["id"], "coffee_v1");
/// assert_eq!(json["skillIds"], json!(["order_coffee"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SchemaContract {
    /// An absolute URI, immutable and versioned (a new version of the
    /// contract gets a new id).
    pub id: String,
    /// What the contract is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The skills the contract serves: descriptive only, a request still
    /// names the contract's id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skill_ids: Vec<String>,
    /// Ids of earlier contracts this one replaces (informational).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
    /// What the client sends.
    pub input: DirectionContract,
    /// What the agent returns.
    pub output: DirectionContract,
}

impl SchemaContract {
    /// A contract with no description, skills or predecessors.
    pub fn new(id: impl Into<String>, input: DirectionContract, output: DirectionContract) -> Self {
        Self {
            id: id.into(),
            description: None,
            skill_ids: Vec::new(),
            supersedes: Vec::new(),
            input,
            output,
        }
    }

    /// The contract of an agent that takes `input`'s messages and returns
    /// `output`'s: each given direction `required` with the schema's one
    /// representation ([`Representation::for_schema`]), each absent one `none`.
    pub fn for_schemas(
        id: impl Into<String>,
        input: Option<&CompiledSchema>,
        output: Option<&CompiledSchema>,
    ) -> Self {
        let direction = |schema: Option<&CompiledSchema>| match schema {
            Some(schema) => DirectionContract::required(vec![Representation::for_schema(schema)]),
            None => DirectionContract::none(),
        };
        Self::new(id, direction(input), direction(output))
    }

    /// The same contract associated with one more skill.
    pub fn with_skill(mut self, skill_id: impl Into<String>) -> Self {
        self.skill_ids.push(skill_id.into());
        self
    }

    /// The same contract with `description`.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The input or the output.
    pub fn direction(&self, direction: Direction) -> &DirectionContract {
        match direction {
            Direction::Input => &self.input,
            Direction::Output => &self.output,
        }
    }
}

/// An agent's contracts: listed in the AgentCard, or published at a URI
/// (for a catalog too large for the card).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Catalog {
    /// `{"inline": {"contracts": [...]}}`: at least one contract, ids unique.
    Inline(Vec<SchemaContract>),
    /// `{"uri", "mediaType": "application/json", "integrity"?}`: a catalog
    /// published elsewhere (this crate never fetches it).
    External {
        /// Its absolute URI.
        uri: String,
        /// A digest of its exact bytes.
        integrity: Option<Integrity>,
    },
}

impl Serialize for Catalog {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;

        /// `{"contracts": [...]}`.
        #[derive(Serialize)]
        struct Contracts<'a> {
            contracts: &'a [SchemaContract],
        }

        let mut map = serializer.serialize_map(None)?;
        match self {
            Catalog::Inline(contracts) => {
                map.serialize_entry("inline", &Contracts { contracts })?
            }
            Catalog::External { uri, integrity } => {
                map.serialize_entry("uri", uri)?;
                // The draft fixes an external catalog's media type.
                map.serialize_entry("mediaType", JSON_MEDIA_TYPE)?;
                if let Some(integrity) = integrity {
                    map.serialize_entry("integrity", integrity)?;
                }
            }
        }
        map.end()
    }
}
