//! The engine's pools as rows: each fine cluster and each need of each pool
//! one row (its JSON, running sum included), and the rest of the state a
//! small header. A database back end then rewrites only the rows a fold
//! changed instead of the whole state (docs/replicas.md, "The state as rows"):
//! a fold of a few hundred messages touches a few hundred clusters of a
//! pool that may hold ten thousand.
//!
//! Joining the header and the rows goes through the same checks as a
//! whole-state snapshot (each pool is rebuilt from its snapshot form) and
//! more, so rows that do not fit (a row missing or listed twice, positions
//! out of step, a need no cluster belongs to, a cluster whose need has no
//! row, another dimension) are refused, never half-read.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::evolution::engine::pool_key::PoolKey;
use crate::evolution::persist::state::{EVOLUTION_FORMAT_VERSION, EvolutionState, FORMAT};
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::fine::cluster::ClusterState;
use crate::evolution::pool::needs::level::NeedState;
use crate::evolution::pool::snapshot::PoolSnapshot;
use crate::patch::check_header;

/// The rows of an engine's pools: every fine cluster and every need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EngineRows {
    /// One row per fine cluster.
    pub clusters: Vec<PoolRow>,
    /// One row per need.
    pub needs: Vec<PoolRow>,
}

/// One cluster or need of one pool.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct PoolRow {
    /// The pool's key as JSON (`{"scenario":"s"}`, with `"client"` for a
    /// personal pool).
    pub pool: String,
    /// The cluster's or need's id, 16 hex digits (unique in its pool).
    pub id: String,
    /// Its place in the pool, from 0: a pool is rebuilt in this order, so
    /// that it scans and breaks ties exactly as the saved one did.
    pub position: i64,
    /// Its state as JSON, running sum included.
    pub body: String,
}

impl PoolRow {
    /// A row as a back end read it.
    pub fn from_columns(pool: String, id: String, position: i64, body: String) -> Self {
        Self {
            pool,
            id,
            position,
            body,
        }
    }

    /// Names the row: (pool, id).
    fn name(&self) -> (&str, &str) {
        (&self.pool, &self.id)
    }
}

/// Row digests by pool, then by id.
type Digests = HashMap<String, HashMap<String, u64>>;

/// What a back end last wrote or read of a scenario's pool rows, by row, so
/// that the next save writes only what changed ([`EngineRows::writes`]).
/// The digests are keyed at random (kept from one save to the next), so no
/// text a client sends can be made to collide with another on purpose.
#[derive(Debug, Clone, Default)]
pub struct RowDigests {
    keys: RandomState,
    clusters: Digests,
    needs: Digests,
}

/// What a save of pool rows writes, and the digests the stored rows have
/// once it commits.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RowWrites<'a> {
    /// The rows stored before are not known: delete them all first (then
    /// every row is in `clusters` and `needs`).
    pub replace_all: bool,
    /// Clusters to insert or rewrite.
    pub clusters: Vec<&'a PoolRow>,
    /// Clusters to delete: (pool, id).
    pub clusters_gone: Vec<(String, String)>,
    /// Needs to insert or rewrite.
    pub needs: Vec<&'a PoolRow>,
    /// Needs to delete: (pool, id).
    pub needs_gone: Vec<(String, String)>,
    /// The stored rows' digests once the save commits: keep them for the
    /// next save.
    pub digests: RowDigests,
}

/// The rows of one kind to write over those digested in `before` (all of
/// them without it), those gone, and the new digests; each row hashed once.
fn plan<'a>(
    rows: &'a [PoolRow],
    before: Option<&Digests>,
    keys: &RandomState,
) -> (Vec<&'a PoolRow>, Vec<(String, String)>, Digests) {
    let mut after: Digests = HashMap::new();
    let mut written = Vec::new();
    for row in rows {
        let digest = keys.hash_one(row);
        let stored = before
            .and_then(|b| b.get(row.pool.as_str()))
            .and_then(|ids| ids.get(row.id.as_str()));
        if stored != Some(&digest) {
            written.push(row);
        }
        match after.get_mut(row.pool.as_str()) {
            Some(ids) => {
                ids.insert(row.id.clone(), digest);
            }
            None => {
                after.insert(row.pool.clone(), HashMap::from([(row.id.clone(), digest)]));
            }
        }
    }
    let mut gone: Vec<(String, String)> = before
        .into_iter()
        .flatten()
        .flat_map(|(pool, ids)| {
            let kept = after.get(pool);
            ids.keys()
                .filter(move |id| !kept.is_some_and(|k| k.contains_key(*id)))
                .map(move |id| (pool.clone(), id.clone()))
        })
        .collect();
    gone.sort();
    (written, gone, after)
}

impl EngineRows {
    /// What a save writes over stored rows whose digests are `known` (what
    /// this connection last wrote or read of them; `None` when it does not
    /// know them: every row is written after the old ones are deleted).
    pub fn writes(&self, known: Option<&RowDigests>) -> RowWrites<'_> {
        let keys = known.map_or_else(RandomState::new, |k| k.keys.clone());
        let (clusters, clusters_gone, cluster_digests) =
            plan(&self.clusters, known.map(|k| &k.clusters), &keys);
        let (needs, needs_gone, need_digests) = plan(&self.needs, known.map(|k| &k.needs), &keys);
        RowWrites {
            replace_all: known.is_none(),
            clusters,
            clusters_gone,
            needs,
            needs_gone,
            digests: RowDigests {
                keys,
                clusters: cluster_digests,
                needs: need_digests,
            },
        }
    }

    /// The digests of these rows, as a back end keeps them after reading
    /// them.
    pub fn digests(&self) -> RowDigests {
        self.writes(None).digests
    }
}

/// One pool in the header: its snapshot without clusters and needs.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderEntry {
    key: PoolKey,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "time::serde::iso8601::option"
    )]
    last_active: Option<OffsetDateTime>,
    /// How many cluster and need rows the pool has: a row missing is an
    /// error, not a smaller pool.
    cluster_rows: usize,
    need_rows: usize,
    pool: PoolSnapshot,
}

/// The engine's state without its pools' clusters and needs. `pools_in_rows`
/// is what a whole-state reader refuses, so a header is never read as a
/// state whose pools are empty.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Header {
    format: String,
    version: u32,
    pools: Vec<HeaderEntry>,
    #[serde(default)]
    reviewed: u64,
    pools_in_rows: bool,
}

fn hex_id(id: u64) -> String {
    format!("{id:016x}")
}

impl EvolutionState {
    /// The state as a header and its pools' rows.
    pub(crate) fn split(&self) -> Result<(Header, EngineRows), serde_json::Error> {
        let mut rows = EngineRows::default();
        let mut pools = Vec::new();
        for (key, pool) in self.pools() {
            let name = serde_json::to_string(key)?;
            let mut snapshot = PoolSnapshot::from(pool.clone());
            let (clusters, needs) = snapshot.take_records();
            let (cluster_rows, need_rows) = (clusters.len(), needs.len());
            for (position, cluster) in clusters.iter().enumerate() {
                rows.clusters.push(PoolRow {
                    pool: name.clone(),
                    id: hex_id(cluster.id()),
                    position: i64::try_from(position).unwrap_or(i64::MAX),
                    body: serde_json::to_string(cluster)?,
                });
            }
            for (position, need) in needs.iter().enumerate() {
                rows.needs.push(PoolRow {
                    pool: name.clone(),
                    id: hex_id(need.id()),
                    position: i64::try_from(position).unwrap_or(i64::MAX),
                    body: serde_json::to_string(need)?,
                });
            }
            pools.push(HeaderEntry {
                key: key.clone(),
                last_active: self.last_active_of(key),
                cluster_rows,
                need_rows,
                pool: snapshot,
            });
        }
        let header = Header {
            format: FORMAT.to_owned(),
            version: EVOLUTION_FORMAT_VERSION,
            pools,
            reviewed: self.reviewed(),
            pools_in_rows: true,
        };
        Ok((header, rows))
    }

    /// The state a header and its rows describe, checked as a snapshot is.
    pub(crate) fn join(header: Header, rows: &EngineRows) -> Result<Self, String> {
        check_header::<serde_json::Error>(
            "evolution state",
            (&header.format, header.version),
            (FORMAT, EVOLUTION_FORMAT_VERSION),
        )
        .map_err(|e| e.to_string())?;
        if !header.pools_in_rows {
            return Err("the state's header does not keep its pools as rows".to_owned());
        }
        let mut clusters = grouped(&rows.clusters, "cluster", |c: &ClusterState| c.id())?;
        let mut needs = grouped(&rows.needs, "need", |n: &NeedState| n.id())?;
        let mut pools = BTreeMap::new();
        let mut last_active = BTreeMap::new();
        for entry in header.pools {
            let name = serde_json::to_string(&entry.key).map_err(|e| e.to_string())?;
            let mut snapshot = entry.pool;
            snapshot.put_records(
                clusters.remove(&name).unwrap_or_default(),
                needs.remove(&name).unwrap_or_default(),
            );
            let found = snapshot.record_counts();
            if found != (entry.cluster_rows, entry.need_rows) {
                return Err(format!(
                    "pool {name} has {} cluster and {} need rows; its header counts {} and {}",
                    found.0, found.1, entry.cluster_rows, entry.need_rows
                ));
            }
            // Every need holds a cluster and every cluster's need is there
            // (a live pool keeps both): a row out of step is refused here,
            // not dropped or re-founded by the restore.
            if !snapshot.needs_match_clusters() {
                return Err(format!(
                    "the need rows of pool {name} are not the needs its clusters belong to"
                ));
            }
            let pool = Pool::try_from(snapshot)
                .map_err(|e| format!("pool {name} does not restore from its rows: {e}"))?;
            if let Some(at) = entry.last_active {
                last_active.insert(entry.key.clone(), at);
            }
            if pools.insert(entry.key, pool).is_some() {
                return Err(format!("the header lists the pool {name} twice"));
            }
        }
        if let Some(name) = clusters.keys().chain(needs.keys()).next() {
            return Err(format!(
                "rows name the pool {name}, which the header does not list"
            ));
        }
        Ok(EvolutionState::from_parts(
            pools,
            last_active,
            header.reviewed,
        ))
    }
}

/// The rows' bodies, parsed, by pool in position order. Within a pool the
/// positions must be exactly 0, 1, 2, … and the ids distinct; a body that
/// does not parse, or whose id (`id_of`) is not its row's, is an error.
fn grouped<T: serde::de::DeserializeOwned>(
    rows: &[PoolRow],
    what: &str,
    id_of: impl Fn(&T) -> u64,
) -> Result<HashMap<String, Vec<T>>, String> {
    let mut by_pool: HashMap<&str, BTreeMap<i64, &PoolRow>> = HashMap::new();
    let mut ids: HashSet<(&str, &str)> = HashSet::new();
    for row in rows {
        if !ids.insert(row.name()) {
            return Err(format!(
                "two {what} rows of pool {} with id {}",
                row.pool, row.id
            ));
        }
        if by_pool
            .entry(&row.pool)
            .or_default()
            .insert(row.position, row)
            .is_some()
        {
            return Err(format!(
                "two {what} rows of pool {} at position {}",
                row.pool, row.position
            ));
        }
    }
    for (pool, rows) in &by_pool {
        let expected = (0..).take(rows.len());
        if !rows.keys().copied().eq(expected) {
            return Err(format!(
                "the {what} rows of pool {pool} are not at positions 0 to {}",
                rows.len().saturating_sub(1)
            ));
        }
    }
    by_pool
        .into_iter()
        .map(|(pool, rows)| {
            let parsed = rows
                .values()
                .map(|row| {
                    let parsed: T = serde_json::from_str(&row.body)
                        .map_err(|e| format!("{what} {} of pool {pool}: {e}", row.id))?;
                    if hex_id(id_of(&parsed)) != row.id {
                        return Err(format!(
                            "{what} row {} of pool {pool} holds {what} {}",
                            row.id,
                            hex_id(id_of(&parsed))
                        ));
                    }
                    Ok(parsed)
                })
                .collect::<Result<Vec<T>, String>>()?;
            Ok((pool.to_owned(), parsed))
        })
        .collect()
}
