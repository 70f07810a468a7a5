//! PostgreSQL storage for sdsi servers: several replicas of an agent
//! service share one state per scenario (the schema store and the evolution
//! engine, as [`sdsi::evolution::SavedServer`] bytes) and one observation
//! log.
//!
//! Replicas do not write the state per message. Each turns its messages
//! into [`sdsi::evolution::Observation`]s (cleaned, redacted, embedded) and
//! [`PgState::append`]s them to the log, one row per message id (a retry
//! counts once). One evaluator at a time ([`PgState::lead`], a session
//! advisory lock that passes on when its holder's connection dies) folds
//! the [`PgState::unfolded`] rows into the pools and the store and saves
//! both with the rows marked folded in one transaction
//! ([`PgState::save_folded`]), which notifies the replicas
//! ([`PgState::listen`], [`PgState::wait_for_change`]) so they reload the
//! store. The same save keeps the store's patches, key records, pending
//! proposals and delivered keys as rows, rewriting only those that changed, which
//! [`PgState::store_rows`] reads without the pools. docs/replicas.md
//! describes the protocol; `sdsi evolve --state postgresql://… --replica
//! NAME` runs it.
//!
//! The whole-state [`sdsi::evolution::StateStorage`] implementation (load,
//! then save under a version check, [`Error::Conflict`] when another writer
//! saved first) remains for a single writer. The schema is kept as numbered
//! migrations applied on connect ([`SCHEMA_VERSION`]). The core does no I/O;
//! this crate uses the maintained synchronous `postgres` driver.

use std::collections::BTreeSet;

use postgres::{Client, IsolationLevel};
use sdsi::SchemaStore;
use sdsi::evolution::{
    EngineRows, EvolutionState, RowDigests, SavedServer, StateStorage, Versioned,
};
use sdsi::patch::{KnownRows, SealError, Signer, StoreRows};

mod lead;
mod log;
mod migrate;
mod pool_rows;
mod rows;
mod tls;

pub use log::{Logged, Unfolded, Watch};
pub use migrate::SCHEMA_VERSION;

/// A connection to the state table.
pub struct PgState {
    client: Client,
    /// The scenarios whose evaluator lock this connection holds.
    leading: BTreeSet<String>,
    /// The database's schema version, as found on connect.
    schema_version: i32,
    /// Whether [`PgState::save_folded`] keeps the state as rows.
    state_as_rows: bool,
    /// The rows the database holds, as this connection last wrote or read
    /// them: (scenario, version, what it knows).
    known_rows: Option<(String, u64, Known)>,
}

/// What a connection knows of the rows stored with one state version, so
/// that its next save writes only what changed since.
struct Known {
    /// The token of the save that wrote them (`sdsi_rows_written`).
    token: String,
    /// The store's counters, adoptions and delivered keys.
    store: KnownRows,
    /// The pools' rows, when the state keeps them apart.
    pools: Option<RowDigests>,
}

/// The store's and the pools' rows of a state that keeps them apart.
type SplitRows = (StoreRows, EngineRows);

/// What [`PgState::load_saved`] found for a scenario.
#[derive(Debug)]
#[non_exhaustive]
pub struct Saved {
    /// The version the save wrote; name it when saving again.
    pub version: u64,
    /// The application's cursor, as saved.
    pub cursor: u64,
    /// The schema store.
    pub store: SchemaStore,
    /// The evolution engine's state (give it to `Evolution::restore`).
    pub engine: EvolutionState,
}

impl std::fmt::Debug for PgState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgState").finish_non_exhaustive()
    }
}

/// Why the state could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server refused, or the connection failed.
    #[error("state database: {0}")]
    Postgres(#[from] postgres::Error),
    /// Another writer saved since the version this save started from.
    #[error(
        "scenario {scenario:?} was saved by another writer: expected version {expected:?}, found {found:?}"
    )]
    Conflict {
        /// The scenario.
        scenario: String,
        /// The version the save named.
        expected: Option<u64>,
        /// The version in the table.
        found: Option<u64>,
    },
    /// TLS could not be set up: an unreadable `sslrootcert`, no trusted
    /// root. (A server that fails verification is an [`Error::Postgres`].)
    #[error("TLS: {message}")]
    Tls {
        /// What was wrong.
        message: String,
    },
    /// An observation could not be serialized.
    #[error("cannot serialize an observation: {message}")]
    Serialize {
        /// What was wrong.
        message: String,
    },
    /// A stored version is not a version (negative).
    #[error("state of scenario {scenario:?} is damaged: {message}")]
    Damaged {
        /// The scenario.
        scenario: String,
        /// What was wrong.
        message: String,
    },
}

impl PgState {
    /// Connects with a libpq-style string (`host=/run/postgresql
    /// user=sdsi dbname=agents`) or a URL (`postgresql://sdsi@db/agents`)
    /// and applies the migrations the database lacks. With `sslmode=require`
    /// the connection uses TLS (rustls), verifying the server against the
    /// PEM file `sslrootcert=PATH` names, or the system's roots; otherwise
    /// it is plain (docs/replicas.md, "TLS").
    pub fn connect(params: &str) -> Result<Self, Error> {
        let mut client = tls::connect(params)?;
        let schema_version = migrate::migrate(&mut client)?;
        Ok(Self {
            client,
            leading: BTreeSet::new(),
            schema_version,
            state_as_rows: true,
            known_rows: None,
        })
    }

    /// Whether [`PgState::save_folded`] keeps the state as rows (the
    /// default): each fine cluster and need (`sdsi_cluster`, `sdsi_need`)
    /// and the store's counters, adoptions and delivered keys are rows of
    /// their own beside a small header, and a save sends and writes only the
    /// rows the fold changed (counters moved in place) instead of the whole
    /// state. Off, the state is one blob, as builds before rows wrote and read
    /// it (docs/replicas.md, "The state as rows"). Any state loads
    /// ([`PgState::load_saved`]) whatever the setting.
    pub fn keep_state_as_rows(&mut self, on: bool) {
        self.state_as_rows = on;
    }

    /// The state saved for `scenario`, if any, read back into its parts, in
    /// one snapshot (with its pools' rows when it keeps them apart).
    /// [`StateStorage::load`] gives the bytes alone, which do not restore a
    /// state whose pools are rows.
    pub fn load_saved(&mut self, scenario: &str) -> Result<Option<Saved>, Error> {
        self.load_with(scenario, |bytes, rows| {
            match rows {
                Some((store, pools)) => SavedServer::from_split(bytes, store, pools),
                None => SavedServer::from_bytes(bytes),
            }
            .map_err(|e| e.to_string())
        })
    }

    /// [`PgState::load_saved`] for a store that required signatures with
    /// `signer`'s key: refused unless its sealed snapshot is intact and
    /// sealed with that key; the restored store requires signatures again.
    pub fn load_saved_sealed(
        &mut self,
        scenario: &str,
        signer: Signer,
    ) -> Result<Option<Saved>, Error> {
        let saved = self.load_with(scenario, |bytes, rows| {
            match rows {
                Some((store, pools)) => {
                    SavedServer::from_split_sealed(bytes, store, pools, signer.clone())
                }
                None => SavedServer::from_bytes_sealed(bytes, signer.clone()),
            }
            .map_err(|e: SealError| e.to_string())
        })?;
        if let Some(saved) = &saved
            && saved.store.base().scenario != scenario
        {
            return Err(Error::Damaged {
                scenario: scenario.to_owned(),
                message: format!(
                    "the row holds the state of scenario {:?}",
                    saved.store.base().scenario
                ),
            });
        }
        Ok(saved)
    }

    /// Reads `scenario`'s state row and, when it keeps its pools apart,
    /// their rows, in one snapshot, and decodes them with `decode`.
    fn load_with(
        &mut self,
        scenario: &str,
        decode: impl Fn(&[u8], Option<&SplitRows>) -> Result<SavedServer, String>,
    ) -> Result<Option<Saved>, Error> {
        let mut transaction = self
            .client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let row = transaction.query_opt(
            "SELECT s.version, s.state,
                    COALESCE(r.version = s.version AND r.pools_in_rows, FALSE), w.written_by
             FROM sdsi_state AS s LEFT JOIN sdsi_rows_version AS r USING (scenario)
                 LEFT JOIN sdsi_rows_written AS w USING (scenario)
             WHERE scenario = $1",
            &[&scenario],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let version = stored_version(scenario, row.get(0))?;
        let bytes: Vec<u8> = row.get(1);
        let token: Option<String> = row.get(3);
        let pools = if row.get::<_, bool>(2) {
            Some((
                rows::read_tables(&mut transaction, scenario)?,
                pool_rows::read(&mut transaction, scenario)?,
            ))
        } else {
            None
        };
        transaction.commit()?;
        let saved = decode(&bytes, pools.as_ref()).map_err(|message| Error::Damaged {
            scenario: scenario.to_owned(),
            message,
        })?;
        self.known_rows = pools.zip(token).map(|((store, pools), token)| {
            let known = Known {
                token,
                store: store.known(),
                pools: Some(pools.digests()),
            };
            (scenario.to_owned(), version, known)
        });
        Ok(Some(Saved {
            version,
            cursor: saved.cursor,
            store: saved.store,
            engine: saved.engine,
        }))
    }

    /// The database's schema version: [`SCHEMA_VERSION`], or higher when a
    /// newer release migrated it (migrations are additive: this release
    /// works on it).
    pub fn schema_version(&self) -> i32 {
        self.schema_version
    }

    /// Whether the connection is gone (the server restarted, the network
    /// failed): connect again, as a retry after [`Error::is_retryable`].
    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// The error for a save from `expected` that found another version.
    fn conflict(&mut self, scenario: &str, expected: Option<u64>) -> Result<Error, Error> {
        Ok(Error::Conflict {
            scenario: scenario.to_owned(),
            expected,
            found: self.version_of(scenario)?,
        })
    }

    /// Keeps `bytes` under `name` beside `scenario`'s state (what an
    /// application keeps with it: the CLI's report history and log
    /// cursor), replacing what was there. Not versioned: the last write wins.
    pub fn save_attachment(
        &mut self,
        scenario: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), Error> {
        self.client.execute(
            "INSERT INTO sdsi_attachment (scenario, name, bytes) VALUES ($1, $2, $3)
             ON CONFLICT (scenario, name) DO UPDATE SET bytes = EXCLUDED.bytes",
            &[&scenario, &name, &bytes],
        )?;
        Ok(())
    }

    /// What [`PgState::save_attachment`] kept under `name` for `scenario`.
    pub fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, Error> {
        let row = self.client.query_opt(
            "SELECT bytes FROM sdsi_attachment WHERE scenario = $1 AND name = $2",
            &[&scenario, &name],
        )?;
        Ok(row.map(|r| r.get::<_, Vec<u8>>(0)))
    }

    /// The version of `scenario`'s saved state, if any: a replica compares
    /// it with the one it loaded to know whether to load again.
    pub fn version(&mut self, scenario: &str) -> Result<Option<u64>, Error> {
        self.version_of(scenario)
    }

    fn version_of(&mut self, scenario: &str) -> Result<Option<u64>, Error> {
        let row = self.client.query_opt(
            "SELECT version FROM sdsi_state WHERE scenario = $1",
            &[&scenario],
        )?;
        row.map(|r| r.get::<_, i64>(0))
            .map(|v| stored_version(scenario, v))
            .transpose()
    }
}

/// A version column's value, which must not be negative.
fn stored_version(scenario: &str, version: i64) -> Result<u64, Error> {
    u64::try_from(version).map_err(|_| Error::Damaged {
        scenario: scenario.to_owned(),
        message: format!("negative version {version}"),
    })
}

impl StateStorage for PgState {
    type Error = Error;

    fn load(&mut self, scenario: &str) -> Result<Option<Versioned>, Error> {
        let row = self.client.query_opt(
            "SELECT version, state FROM sdsi_state WHERE scenario = $1",
            &[&scenario],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let version = stored_version(scenario, row.get::<_, i64>(0))?;
        Ok(Some(Versioned::new(version, row.get::<_, Vec<u8>>(1))))
    }

    fn save(&mut self, scenario: &str, expected: Option<u64>, bytes: &[u8]) -> Result<u64, Error> {
        let mut transaction = self.client.transaction()?;
        if let Some(version) = log::save_in(&mut transaction, scenario, expected, bytes)? {
            transaction.commit()?;
            return Ok(version);
        }
        drop(transaction);
        Err(self.conflict(scenario, expected)?)
    }
}

impl Error {
    /// Whether loading again and retrying may succeed: another writer
    /// saved first, or the connection failed (connect again first).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Conflict { .. } => true,
            Error::Postgres(error) => error.is_closed(),
            _ => false,
        }
    }
}
