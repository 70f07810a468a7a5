//! The store as rows: its patches, key records, pending proposals and
//! delivered keys one by one, each with the columns a database indexes and
//! its JSON body, so that a back end keeps them as table rows beside the
//! whole-state snapshot, rewrites only the rows that changed, and lets them
//! be read or queried without loading the pools (docs/replicas.md, "Tables
//! and retention").
//!
//! Saved whole, the snapshot stays the state a server restores from (sealed
//! when the store requires signatures) and the rows, written from it in the
//! same transaction, say what it says. Saved split
//! (`SavedServer::encode_split`), the snapshot leaves out what changes with
//! every message (counters, clients, delivered keys) and the rows are the
//! only copy of it.

use time::OffsetDateTime;

use super::schema_store::SchemaStore;
use crate::patch::lifecycle::count_rows::{AdoptionRow, CountRow, Metric, scope_column};
use crate::patch::lifecycle::records::KeyRecord;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::review::PendingProposal;
use crate::patch::schema_patch::{PatchError, PatchScope, SchemaPatch};

/// Every row of one store, in a stable order: patches global, then each
/// client's, then the queue (their `position`); key records by scope and
/// key name; pending proposals by when they were held, then id; delivered
/// keys by client and key name; counts by scope, key name, metric and day;
/// adoptions by scope, key name and client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreRows {
    /// Accepted and queued patches.
    pub patches: Vec<PatchRow>,
    /// One per (scope, key) of the lifecycle.
    pub keys: Vec<KeyRow>,
    /// Proposals held for an operator.
    pub pending: Vec<PendingRow>,
    /// What each client was told about each patch key (the store tells a
    /// client of a key once per definition).
    pub delivered: Vec<DeliveredRow>,
    /// Every metric count of every key and the message totals, per day
    /// (see [`StoreRows::writes`]).
    pub counts: Vec<CountRow>,
    /// Per key, the clients told of it or sending it, and when.
    pub adoptions: Vec<AdoptionRow>,
}

impl StoreRows {
    /// Puts the rows in their order (see [`StoreRows`]), as
    /// [`SchemaStore::rows`] gives them: a back end that read them in
    /// another order calls it, so there is one definition of the order.
    pub fn sort(&mut self) {
        self.patches
            .sort_by(|a, b| (a.position, &a.patch_id).cmp(&(b.position, &b.patch_id)));
        self.keys
            .sort_by(|a, b| (&a.scope, &a.key_name).cmp(&(&b.scope, &b.key_name)));
        self.pending
            .sort_by(|a, b| (a.held_at, &a.proposal).cmp(&(b.held_at, &b.proposal)));
        self.delivered
            .sort_by(|a, b| (&a.client, &a.key_name).cmp(&(&b.client, &b.key_name)));
        self.counts.sort_by(|a, b| {
            (&a.scope, &a.key_name, a.metric, a.day).cmp(&(&b.scope, &b.key_name, b.metric, b.day))
        });
        self.adoptions.sort_by(|a, b| {
            (&a.scope, &a.key_name, &a.client).cmp(&(&b.scope, &b.key_name, &b.client))
        });
    }

    /// The key records, each with its counts and clients from
    /// [`StoreRows::counts`] and [`StoreRows::adoptions`] (the rows of
    /// [`StoreRows::keys`] hold neither).
    pub fn records(&self) -> Result<Vec<KeyRecord>, RowError> {
        let bodies = self
            .keys
            .iter()
            .map(|row| serde_json::from_str(&row.body))
            .collect::<Result<Vec<serde_json::Value>, _>>()
            .map_err(|e| RowError::new("key record", e))?;
        let mut lifecycle = serde_json::json!({ "records": bodies });
        let counts = self.counts.iter().filter(|r| r.metric != Metric::Messages);
        crate::patch::lifecycle::counted::fill(&mut lifecycle, counts, &self.adoptions)
            .map_err(|e| RowError::new("count", e))?;
        let records = lifecycle
            .get_mut("records")
            .map(serde_json::Value::take)
            .unwrap_or_default();
        serde_json::from_value(records).map_err(|e| RowError::new("key record", e))
    }
}

/// Whether a patch applies or waits for the convergence guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum PatchStatus {
    /// Accepted: it applies from its timestamp until it expires.
    Accepted,
    /// Waiting in the convergence guard's queue.
    Queued,
}

impl PatchStatus {
    /// The column's text: `accepted` or `queued`.
    pub fn as_str(self) -> &'static str {
        match self {
            PatchStatus::Accepted => "accepted",
            PatchStatus::Queued => "queued",
        }
    }

    /// The status a column's text names, if any.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "accepted" => Some(PatchStatus::Accepted),
            "queued" => Some(PatchStatus::Queued),
            _ => None,
        }
    }
}

/// One patch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PatchRow {
    /// The patch's `patch_id` (unique within a store).
    pub patch_id: String,
    /// The client of a personal patch; `None` for a global one.
    pub client: Option<String>,
    /// Accepted or queued.
    pub status: PatchStatus,
    /// Its place in the store's order (acceptance order within its scope,
    /// then queue order), from 0.
    pub position: i64,
    /// The patch as JSON ([`PatchRow::patch`] reads it back).
    pub body: String,
}

/// One key's lifecycle record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyRow {
    /// `global`, or `client:` and the client's id: unique with the key name.
    pub scope: String,
    /// The key.
    pub key_name: String,
    /// Its state as of the last evaluation.
    pub state: KeyState,
    /// The patch that introduced it.
    pub patch_id: String,
    /// The record as JSON, its counts left to [`StoreRows::counts`] and
    /// [`StoreRows::adoptions`] ([`StoreRows::records`] joins them): the row
    /// changes when the key's state does, not with every message.
    pub body: String,
}

/// One proposal held for an operator.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingRow {
    /// Its id (the held patch's `patch_id`).
    pub proposal: String,
    /// When it was held.
    pub held_at: OffsetDateTime,
    /// The proposal as JSON ([`PendingRow::proposal`]).
    pub body: String,
}

/// One key as last told to one client.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeliveredRow {
    /// The client.
    pub client: String,
    /// The key.
    pub key_name: String,
    /// The tag of the definition it was told (16 hex digits).
    pub tag: String,
}

impl DeliveredRow {
    /// A row as a back end read it.
    pub fn from_columns(client: String, key_name: String, tag: String) -> Self {
        Self {
            client,
            key_name,
            tag,
        }
    }
}

/// A row's JSON body that does not read back as what its table holds.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("a stored {what} row does not read back: {message}")]
pub struct RowError {
    what: &'static str,
    message: String,
}

impl RowError {
    fn new(what: &'static str, message: impl ToString) -> Self {
        Self {
            what,
            message: message.to_string(),
        }
    }
}

impl From<PatchError> for RowError {
    fn from(error: PatchError) -> Self {
        RowError::new("patch", error)
    }
}

impl PatchRow {
    fn new(
        patch: &SchemaPatch,
        status: PatchStatus,
        position: usize,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self {
            patch_id: patch.patch_id.clone(),
            client: match &patch.scope {
                PatchScope::Global => None,
                PatchScope::Client(client) => Some(client.clone()),
            },
            status,
            position: i64::try_from(position).unwrap_or(i64::MAX),
            body: serde_json::to_string(patch)?,
        })
    }

    /// A row as a back end read it (its columns, then its body).
    pub fn from_columns(
        patch_id: String,
        client: Option<String>,
        status: PatchStatus,
        position: i64,
        body: String,
    ) -> Self {
        Self {
            patch_id,
            client,
            status,
            position,
            body,
        }
    }

    /// The patch, parsed and checked as any patch is.
    pub fn patch(&self) -> Result<SchemaPatch, RowError> {
        Ok(SchemaPatch::from_slice(self.body.as_bytes())?)
    }
}

impl KeyRow {
    fn new(record: &KeyRecord) -> Result<Self, serde_json::Error> {
        Ok(Self {
            scope: scope_column(&record.scope),
            key_name: record.key_name.to_string(),
            state: record.state,
            patch_id: record.patch_id.clone(),
            body: serde_json::to_string(&record.header())?,
        })
    }

    /// A row as a back end read it.
    pub fn from_columns(
        scope: String,
        key_name: String,
        state: KeyState,
        patch_id: String,
        body: String,
    ) -> Self {
        Self {
            scope,
            key_name,
            state,
            patch_id,
            body,
        }
    }
}

impl PendingRow {
    fn new(pending: &PendingProposal) -> Result<Self, serde_json::Error> {
        Ok(Self {
            proposal: pending.proposal.clone(),
            held_at: pending.held_at,
            body: serde_json::to_string(pending)?,
        })
    }

    /// A row as a back end read it.
    pub fn from_columns(proposal: String, held_at: OffsetDateTime, body: String) -> Self {
        Self {
            proposal,
            held_at,
            body,
        }
    }

    /// The pending proposal.
    pub fn proposal(&self) -> Result<PendingProposal, RowError> {
        serde_json::from_str(&self.body).map_err(|e| RowError::new("pending proposal", e))
    }
}

impl SchemaStore {
    /// The store as rows (see [`StoreRows`]). Fails only where the snapshot
    /// would: a patch dated outside years 0-9999 cannot be written.
    pub fn rows(&self) -> Result<StoreRows, serde_json::Error> {
        let accepted = self.patches().map(|p| (p, PatchStatus::Accepted));
        let queued = self.queued().map(|p| (p, PatchStatus::Queued));
        let patches = accepted
            .chain(queued)
            .enumerate()
            .map(|(position, (patch, status))| PatchRow::new(patch, status, position))
            .collect::<Result<_, _>>()?;
        let keys = self
            .lifecycle()
            .records()
            .iter()
            .map(KeyRow::new)
            .collect::<Result<Vec<_>, _>>()?;
        let pending = self
            .pending()
            .map(PendingRow::new)
            .collect::<Result<Vec<_>, _>>()?;
        let delivered: Vec<DeliveredRow> = self
            .delivered
            .iter()
            .flat_map(|(client, told)| {
                told.iter().map(move |(key, tag)| DeliveredRow {
                    client: client.clone(),
                    key_name: key.to_string(),
                    tag: super::retention::tag_hex(*tag),
                })
            })
            .collect();
        let (counts, adoptions) = self.lifecycle().count_rows();
        let mut rows = StoreRows {
            patches,
            keys,
            pending,
            delivered,
            counts,
            adoptions,
        };
        rows.sort();
        Ok(rows)
    }
}
