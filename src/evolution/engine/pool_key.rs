//! Which pool a fragment feeds ([`PoolKey`]): a scenario, and a client
//! for a personal pool. Events, the saved state and its rows name pools by it.

use serde::Serialize;

/// Names one pool: a scenario, and a client for a personal pool.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct PoolKey {
    /// The scenario.
    pub scenario: String,
    /// The client, for a personal pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}
