//! PostgreSQL storage for sdsi servers: several replicas of an agent
//! service share one state per scenario (the schema store and the evolution
//! engine, as [`sdsi::evolution::SavedServer`] bytes) in one table, with
//! optimistic concurrency, so occurrences and clients are counted across
//! replicas and two replicas never overwrite each other's patches.
//!
//! A replica handles a message by loading the latest state (when another
//! replica saved since), observing the message, and saving with the version
//! it loaded; a [`Error::Conflict`] means another replica saved first, and
//! the replica loads again and redoes the message. `tests/replicas.rs` runs
//! three replicas against one server.
//!
//! The core does no I/O; this crate implements its
//! [`sdsi::evolution::StateStorage`] trait with the maintained synchronous
//! `postgres` driver.

use postgres::{Client, NoTls};
use sdsi::evolution::{StateStorage, Versioned};

/// A connection to the state table.
pub struct PgState {
    client: Client,
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
    /// A stored version is not a version (negative).
    #[error("state of scenario {scenario:?} is damaged: {message}")]
    Damaged {
        /// The scenario.
        scenario: String,
        /// What was wrong.
        message: String,
    },
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sdsi_state (
    scenario TEXT PRIMARY KEY,
    version  BIGINT NOT NULL CHECK (version > 0),
    state    BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS sdsi_attachment (
    scenario TEXT NOT NULL,
    name     TEXT NOT NULL,
    bytes    BYTEA NOT NULL,
    PRIMARY KEY (scenario, name)
)";

impl PgState {
    /// Connects with a libpq-style string (`host=/run/postgresql
    /// user=sdsi dbname=agents`) and creates the table if it is missing.
    pub fn connect(params: &str) -> Result<Self, Error> {
        let mut client = Client::connect(params, NoTls)?;
        // Replicas starting together would race on `CREATE TABLE IF NOT
        // EXISTS` (it is not atomic in PostgreSQL): serialise it with a
        // transaction-scoped advisory lock.
        let mut transaction = client.transaction()?;
        transaction.query("SELECT pg_advisory_xact_lock(hashtext('sdsi_state'))", &[])?;
        transaction.batch_execute(SCHEMA)?;
        transaction.commit()?;
        Ok(Self { client })
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

    fn version_of(&mut self, scenario: &str) -> Result<Option<u64>, Error> {
        let row = self.client.query_opt(
            "SELECT version FROM sdsi_state WHERE scenario = $1",
            &[&scenario],
        )?;
        row.map(|r| r.get::<_, i64>(0))
            .map(|v| self.checked(scenario, v))
            .transpose()
    }

    fn checked(&self, scenario: &str, version: i64) -> Result<u64, Error> {
        u64::try_from(version).map_err(|_| Error::Damaged {
            scenario: scenario.to_owned(),
            message: format!("negative version {version}"),
        })
    }
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
        let version = self.checked(scenario, row.get::<_, i64>(0))?;
        Ok(Some(Versioned::new(version, row.get::<_, Vec<u8>>(1))))
    }

    fn save(&mut self, scenario: &str, expected: Option<u64>, bytes: &[u8]) -> Result<u64, Error> {
        let next = expected.map_or(1, |v| v.saturating_add(1));
        let stored = i64::try_from(next).unwrap_or(i64::MAX);
        // One statement each way, so the check and the write are atomic.
        let written = match expected {
            None => self.client.execute(
                "INSERT INTO sdsi_state (scenario, version, state) VALUES ($1, $2, $3)
                 ON CONFLICT (scenario) DO NOTHING",
                &[&scenario, &stored, &bytes],
            )?,
            Some(v) => {
                let v = i64::try_from(v).unwrap_or(i64::MAX);
                self.client.execute(
                    "UPDATE sdsi_state SET version = $2, state = $3
                     WHERE scenario = $1 AND version = $4",
                    &[&scenario, &stored, &bytes, &v],
                )?
            }
        };
        if written == 1 {
            return Ok(next);
        }
        Err(Error::Conflict {
            scenario: scenario.to_owned(),
            expected,
            found: self.version_of(scenario)?,
        })
    }
}
