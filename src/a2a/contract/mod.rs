//! The A2A Schema Contract extension, in the shape A2A issue #2180 proposes
//! (community draft 0.1, [`SCHEMA_CONTRACT_URI`]): an agent publishes a
//! catalog of contracts in its AgentCard; each contract pairs an input and an
//! output, each direction lists the representations (media type and schema)
//! a payload may take; the primary part of an exchange names its contract in
//! `metadata[SCHEMA_CONTRACT_URI]`; payloads are validated at fixed points
//! (input before any work, output before it is published); failures are
//! reported in the draft's error-detail shape.
//!
//! **This tracks a proposal, not a standard.** The draft is its author's,
//! not A2A's, and is expected to change; a new draft gets a new URI and
//! these types follow it.
//!
//! [`SchemaContractExtension`] builds and reads the card entry;
//! [`SchemaContract::for_schemas`] makes a compiled schema's contract;
//! [`CompiledSchema::a2a_contract_part`](crate::CompiledSchema::a2a_contract_part)
//! and [`CompiledSchema::validate_a2a_contract_part`](crate::CompiledSchema::validate_a2a_contract_part)
//! build and check primary parts; [`ContractFailure`] reports what failed.

mod error;
mod extension;
mod failure;
mod model;
mod primary;
mod read;
mod syntax;

pub use error::ContractError;
pub use extension::SchemaContractExtension;
pub use failure::{ContractErrorCode, ContractErrorDetail, ContractFailure};
pub use model::{
    Bundle, Catalog, DigestAlgorithm, Direction, DirectionContract, Integrity, Presence,
    Representation, SCHEMA_CONTRACT_URI, SCHEMA_MEDIA_TYPE, SchemaContract, SchemaDescriptor,
    SchemaSource,
};
pub use primary::PrimaryPart;
