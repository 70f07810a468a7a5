//! MCP, by protocol revision: which revision the bridges speak
//! ([`McpVersion`], the newest by default) and, with the `export` feature,
//! how a server asks a user for a payload in each one.
//!
//! Revision 2026-07-28 changed what the bridges serve: a tool's
//! `inputSchema` and `outputSchema` may use any JSON Schema 2020-12 keyword
//! and name their dialect, `structuredContent` may be any JSON value,
//! results carry `resultType`, and a server asks the user for more input by
//! returning an `InputRequiredResult` rather than by sending its own
//! `elicitation/create` request. Revision 2025-11-25's forms stay available
//! through [`McpVersion::V2025_11_25`].

#[cfg(feature = "export")]
mod elicitation;
pub(crate) mod version;

pub use version::{McpVersion, UnknownMcpVersion};
