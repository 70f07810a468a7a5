//! The evolution engine's saved state: its pools and when each personal
//! pool was last active, in a versioned serde form.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;

use crate::evolution::engine::pool_key::PoolKey;
use crate::evolution::pool::data::Pool;
use crate::patch::check_header;

/// The state format's name, in its `format` member.
pub(crate) const FORMAT: &str = "sdsi.evolution";

/// The version of [`EvolutionState`]'s serialized form this crate writes and
/// reads; another version is refused rather than read wrongly.
pub const EVOLUTION_FORMAT_VERSION: u32 = 2;

/// What [`Evolution::state`](crate::evolution::Evolution::state) saves and [`Evolution::restore`](crate::evolution::Evolution::restore)
/// puts back: every pool, by key, and when each personal pool last took a
/// fragment (for the least-recently-active eviction). Serialized as
/// `{"format": "sdsi.evolution", "version": 2, "pools": [...]}`, the pools in
/// key order, so one state always gives the same bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct EvolutionState {
    pools: BTreeMap<PoolKey, Pool>,
    last_active: BTreeMap<PoolKey, OffsetDateTime>,
    /// The last store denial the engine acted on.
    reviewed: u64,
}

/// Why a saved state was not put back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EvolutionStateError {
    /// The pool was made with another setting its learned state depends on
    /// ([`PoolConfig::learned_difference`](crate::evolution::PoolConfig::learned_difference): the embedder's dimension,
    /// a similarity threshold, the linkage, the half-life) than the engine
    /// now uses. Gate, heat, window and cap settings may change.
    #[error(
        "the saved pool {pool:?} was built with another {setting} than this engine's; \
         a state resumes under other gate, heat, window and cap settings, but not under \
         another embedder, similarity threshold, linkage or half-life"
    )]
    ConfigMismatch {
        /// The pool.
        pool: PoolKey,
        /// The setting that differs (`dimension`, `threshold`, `linkage`,
        /// `need_threshold`, `need_contrast`, `support_threshold`,
        /// `claim_threshold` or `half_life_secs`; `configuration` when this
        /// engine's own pool settings are invalid).
        setting: &'static str,
    },
}

/// One pool in the serialized form.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry<P> {
    key: PoolKey,
    /// For a personal pool: when it last took a fragment.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::iso8601::option"
    )]
    last_active: Option<OffsetDateTime>,
    pool: P,
}

#[derive(Serialize)]
struct Written<'a> {
    format: &'static str,
    version: u32,
    pools: Vec<Entry<&'a Pool>>,
    #[serde(skip_serializing_if = "is_zero")]
    reviewed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Read {
    format: String,
    version: u32,
    /// Optional here, so another format or version is named as such first.
    pools: Option<Vec<Entry<Pool>>>,
    /// Absent while no denial was read.
    #[serde(default)]
    reviewed: u64,
    /// Set in a header whose pools are kept as rows (see `rows.rs`): not a
    /// whole state, refused here.
    #[serde(default)]
    pools_in_rows: bool,
}

impl EvolutionState {
    pub(crate) fn new(
        pools: &BTreeMap<PoolKey, Pool>,
        last_active: &BTreeMap<PoolKey, OffsetDateTime>,
        reviewed: u64,
    ) -> Self {
        Self {
            pools: pools.clone(),
            last_active: last_active.clone(),
            reviewed,
        }
    }

    /// The parts, owned.
    pub(crate) fn from_parts(
        pools: BTreeMap<PoolKey, Pool>,
        last_active: BTreeMap<PoolKey, OffsetDateTime>,
        reviewed: u64,
    ) -> Self {
        Self {
            pools,
            last_active,
            reviewed,
        }
    }

    /// When personal pool `key` last took a fragment.
    pub(crate) fn last_active_of(&self, key: &PoolKey) -> Option<OffsetDateTime> {
        self.last_active.get(key).copied()
    }

    /// The last store denial the engine acted on.
    pub(crate) fn reviewed(&self) -> u64 {
        self.reviewed
    }

    /// The saved pools, by key.
    pub fn pools(&self) -> impl Iterator<Item = (&PoolKey, &Pool)> {
        self.pools.iter()
    }

    /// The pools, when each personal pool was last active, and the last
    /// store denial acted on.
    pub(crate) fn into_parts(
        self,
    ) -> (
        BTreeMap<PoolKey, Pool>,
        BTreeMap<PoolKey, OffsetDateTime>,
        u64,
    ) {
        (self.pools, self.last_active, self.reviewed)
    }
}

impl Serialize for EvolutionState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Written {
            format: FORMAT,
            version: EVOLUTION_FORMAT_VERSION,
            pools: self
                .pools
                .iter()
                .map(|(key, pool)| Entry {
                    key: key.clone(),
                    last_active: self.last_active.get(key).copied(),
                    pool,
                })
                .collect(),
            reviewed: self.reviewed,
        }
        .serialize(serializer)
    }
}

/// Another format or version, a pool listed twice, or a pool that does not
/// restore (see [`Pool`]'s own checks) is an error.
impl<'de> Deserialize<'de> for EvolutionState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let read = Read::deserialize(deserializer)?;
        check_header(
            "evolution state",
            (&read.format, read.version),
            (FORMAT, EVOLUTION_FORMAT_VERSION),
        )?;
        if read.pools_in_rows {
            return Err(D::Error::custom(
                "this evolution state keeps its pools as rows: read it with them \
                 (SavedServer::from_split, or the storage back end's load)",
            ));
        }
        let mut state = EvolutionState {
            pools: BTreeMap::new(),
            last_active: BTreeMap::new(),
            reviewed: read.reviewed,
        };
        let pools = read
            .pools
            .ok_or_else(|| D::Error::custom("evolution state has no `pools`"))?;
        for entry in pools {
            if let Some(at) = entry.last_active {
                state.last_active.insert(entry.key.clone(), at);
            }
            if state.pools.insert(entry.key.clone(), entry.pool).is_some() {
                return Err(D::Error::custom(format!(
                    "evolution state lists the pool {:?} twice",
                    entry.key
                )));
            }
        }
        Ok(state)
    }
}
