//! The protocol revision: the newest by default, 2025-11-25 on request.

use std::fmt;
use std::str::FromStr;

/// An MCP protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum McpVersion {
    /// Revision 2025-11-25: `structuredContent` is an object, a server
    /// elicits with its own `elicitation/create` request.
    V2025_11_25,
    /// Revision 2026-07-28 (the default): schemas name their dialect,
    /// `structuredContent` is any JSON value, results carry `resultType`,
    /// elicitation travels inside an `InputRequiredResult`.
    #[default]
    V2026_07_28,
}

impl McpVersion {
    /// Every revision, oldest first.
    pub const ALL: &'static [McpVersion] = &[McpVersion::V2025_11_25, McpVersion::V2026_07_28];

    /// The newest revision, the one the bridges use unless told otherwise.
    pub const LATEST: McpVersion = McpVersion::V2026_07_28;

    /// The revision as MCP writes it (`2026-07-28`).
    pub fn as_str(self) -> &'static str {
        match self {
            McpVersion::V2025_11_25 => "2025-11-25",
            McpVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether this revision lets a server ask for input only inside a
    /// result (`InputRequiredResult`), not with a request of its own.
    pub fn elicits_in_result(self) -> bool {
        self != McpVersion::V2025_11_25
    }
}

impl fmt::Display for McpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protocol revision that is not one of [`McpVersion::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mcp protocol revision {0:?}: expected 2025-11-25 or 2026-07-28")]
pub struct UnknownMcpVersion(pub String);

impl FromStr for McpVersion {
    type Err = UnknownMcpVersion;
    /// Reads a revision as MCP writes it (`2025-11-25`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        McpVersion::ALL
            .iter()
            .copied()
            .find(|version| version.as_str() == wanted)
            .ok_or_else(|| UnknownMcpVersion(text.to_owned()))
    }
}
