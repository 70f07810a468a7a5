//! A2A bridges: the structured field definitions proposed in A2A issue #813
//! (`FieldDefinition`, skill-level `inputFields` / `outputFields`), their
//! mapping to and from schema templates, and the two ways structured data
//! travels in A2A v1.0, which has not adopted #813: an AgentCard extension
//! entry carrying the templates, and a data part whose `metadata.schema`
//! describes its `data`.
//!
//! [`FieldDefinition`] and [`FieldKind`] convert to and from templates;
//! [`AgentSkill`] and [`AgentExtension`] are the AgentCard side;
//! [`CompiledFields`] validates data parts. [`SchemaContractExtension`] and
//! its companions track A2A issue #2180's Schema Contract proposal: input
//! and output contracts per media type, checked at fixed points, failures
//! reported in the proposal's error shape.
//!
//! Feature `a2a` (on by default).

mod card;
mod contract;
mod fields;
mod part;
mod part_metadata;

pub use card::{AgentExtension, AgentSkill, SDSI_A2A_EXTENSION_URI};
pub use contract::{
    Bundle, Catalog, ContractError, ContractErrorCode, ContractErrorDetail, ContractFailure,
    DigestAlgorithm, Direction, DirectionContract, Integrity, Presence, PrimaryPart,
    Representation, SCHEMA_CONTRACT_URI, SCHEMA_MEDIA_TYPE, SchemaContract,
    SchemaContractExtension, SchemaDescriptor, SchemaSource,
};
pub use fields::JSON_MEDIA_TYPE;
pub use fields::{
    FieldDefinition, FieldKind, FieldsConversion, fields_from_template, template_from_fields,
};
pub use part::{CompiledFields, FIELDS_SCHEMA_ID};
