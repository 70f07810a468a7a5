//! The connection: connecting and migrating, the state row and its version
//! check (the whole-state `StateStorage` implementation), and the
//! attachments kept beside a state.

use std::collections::{BTreeMap, BTreeSet};

use postgres::{Client, Transaction};
use sdsi::evolution::{RowDigests, StateStorage, Versioned};
use sdsi::patch::KnownRows;

use crate::error::{Error, column};
use crate::{migrate, tls};

/// A connection to the state table.
pub struct PgState {
    pub(crate) client: Client,
    /// The scenarios whose evaluator lock this connection holds.
    pub(crate) leading: BTreeSet<String>,
    /// The database's schema version, as found on connect.
    schema_version: i32,
    /// Whether [`PgState::save_folded`] keeps the state as rows.
    pub(crate) state_as_rows: bool,
    /// The rows the database holds, as this connection last wrote or read
    /// them: (scenario, version, what it knows).
    pub(crate) known_rows: Option<(String, u64, Known)>,
    /// The newest version of each scenario this connection saved or loaded
    /// sealed: [`PgState::load_saved_sealed`] refuses an older sealed save.
    pub(crate) seen: BTreeMap<String, u64>,
}

/// What a connection knows of the rows stored with one state version, so
/// that its next save writes only what changed since.
pub(crate) struct Known {
    /// The token of the save that wrote them (`sdsi_rows_written`).
    pub(crate) token: String,
    /// The store's counters, adoptions and delivered keys.
    pub(crate) store: KnownRows,
    /// The pools' rows, when the state keeps them apart.
    pub(crate) pools: Option<RowDigests>,
}

impl std::fmt::Debug for PgState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgState").finish_non_exhaustive()
    }
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
            seen: BTreeMap::new(),
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

    /// The database's schema version: [`SCHEMA_VERSION`], or higher when a
    /// newer release migrated it (migrations are additive: this release
    /// works on it).
    ///
    /// [`SCHEMA_VERSION`]: migrate::SCHEMA_VERSION
    pub fn schema_version(&self) -> i32 {
        self.schema_version
    }

    /// Whether the connection is gone (the server restarted, the network
    /// failed): connect again, as a retry after [`Error::is_retryable`].
    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// The error for a save from `expected` that found another version.
    pub(crate) fn conflict(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
    ) -> Result<Error, Error> {
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
        row.map(|r| column::<Vec<u8>>(&r, "sdsi_attachment", 0))
            .transpose()
    }

    /// The version of `scenario`'s saved state, if any: a replica compares
    /// it with the one it loaded to know whether to load again.
    pub fn version(&mut self, scenario: &str) -> Result<Option<u64>, Error> {
        self.version_of(scenario)
    }

    /// The newest version of `scenario` this connection saved or loaded
    /// sealed (0: none).
    pub(crate) fn seen_version(&self, scenario: &str) -> u64 {
        self.seen.get(scenario).copied().unwrap_or(0)
    }

    /// Notes that this connection saved or loaded `version` of `scenario`.
    pub(crate) fn saw(&mut self, scenario: &str, version: u64) {
        let seen = self.seen.entry(scenario.to_owned()).or_insert(0);
        *seen = (*seen).max(version);
    }

    fn version_of(&mut self, scenario: &str) -> Result<Option<u64>, Error> {
        let row = self.client.query_opt(
            "SELECT version FROM sdsi_state WHERE scenario = $1",
            &[&scenario],
        )?;
        row.map(|r| stored_version(scenario, column(&r, "sdsi_state", 0)?))
            .transpose()
    }
}

/// A version column's value, which must not be negative.
pub(crate) fn stored_version(scenario: &str, version: i64) -> Result<u64, Error> {
    u64::try_from(version).map_err(|_| Error::Damaged {
        scenario: scenario.to_owned(),
        message: format!("negative version {version}"),
    })
}

/// Writes `state` as the version after `expected` inside `transaction`;
/// `None` when the saved version is not `expected` (nothing written).
pub(crate) fn save_in(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    expected: Option<u64>,
    state: &[u8],
) -> Result<Option<u64>, Error> {
    let next = expected.map_or(1, |v| v.saturating_add(1));
    let stored = i64::try_from(next).unwrap_or(i64::MAX);
    // One statement each way, so the check and the write are atomic.
    let written = match expected {
        None => transaction.execute(
            "INSERT INTO sdsi_state (scenario, version, state) VALUES ($1, $2, $3)
             ON CONFLICT (scenario) DO NOTHING",
            &[&scenario, &stored, &state],
        )?,
        Some(v) => {
            let v = i64::try_from(v).unwrap_or(i64::MAX);
            transaction.execute(
                "UPDATE sdsi_state SET version = $2, state = $3
                 WHERE scenario = $1 AND version = $4",
                &[&scenario, &stored, &state, &v],
            )?
        }
    };
    Ok((written == 1).then_some(next))
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
        let version = stored_version(scenario, column(&row, "sdsi_state", 0)?)?;
        Ok(Some(Versioned::new(
            version,
            column(&row, "sdsi_state", 1)?,
        )))
    }

    fn save(&mut self, scenario: &str, expected: Option<u64>, bytes: &[u8]) -> Result<u64, Error> {
        let mut transaction = self.client.transaction()?;
        if let Some(version) = save_in(&mut transaction, scenario, expected, bytes)? {
            transaction.commit()?;
            self.saw(scenario, version);
            return Ok(version);
        }
        drop(transaction);
        Err(self.conflict(scenario, expected)?)
    }
}
