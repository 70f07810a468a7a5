//! The state file: open, load, save (as rows or as one blob, under a
//! version check), and the attachments kept beside a state.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use sdsi::SchemaStore;
use sdsi::evolution::{
    EngineRows, EvolutionState, RowDigests, SavedServer, StateStorage, Versioned,
};
use sdsi::patch::{KnownRows, SealError, SealPin, Signer, StoreRows};

use crate::error::{Error, busy_or, is_busy};
use crate::{migrate, pool_rows, rows};

/// A state file.
#[derive(Debug)]
pub struct SqliteState {
    connection: Connection,
    /// Whether [`SqliteState::save`] keeps the state as rows.
    state_as_rows: bool,
    /// The rows the file holds, as this connection last wrote or read
    /// them: (scenario, version, what it knows).
    known_rows: Option<(String, u64, Known)>,
    /// The newest version of each scenario this connection saved or loaded
    /// sealed: [`SqliteState::load_sealed`] refuses an older sealed save.
    seen: BTreeMap<String, u64>,
}

/// What a connection knows of the rows stored with one state version, so
/// that its next save writes only what changed since.
#[derive(Debug)]
struct Known {
    /// The token of the save that wrote them (`sdsi_rows_written`).
    token: String,
    /// The store's counters, adoptions and delivered keys.
    store: KnownRows,
    /// The pools' rows, when the state keeps them apart.
    pools: Option<RowDigests>,
}

/// What a state row holds: its version, its bytes, and the store's and the
/// pools' rows when it keeps them apart (with the token of the save that
/// wrote them, if it wrote one).
type Stored = (u64, Vec<u8>, Option<SplitRows>);

/// The rows of a state kept as rows, as read.
type SplitRows = (StoreRows, EngineRows, Option<String>);

/// What [`SqliteState::load`] found for a scenario.
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

/// A quick integrity check, so that a damaged file is an error on open
/// rather than later.
fn check_integrity(connection: &Connection) -> Result<(), Error> {
    let check: String = connection.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if check == "ok" {
        return Ok(());
    }
    Err(Error::Sqlite(rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!("integrity check failed: {check}")),
    )))
}

/// How long opening waits for another connection's lock, and the busy
/// timeout a connection starts with.
const OPEN_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Puts the file in WAL mode, waiting up to `timeout` for another
/// connection's write lock. SQLite's busy handler does not wait here: the
/// switch of a file still in the rollback journal (a new one) takes the
/// write lock from inside the read it starts with, and SQLite fails such an
/// upgrade at once when another connection holds the write lock (waiting
/// could deadlock two upgraders), so two processes opening a new file, one
/// migrating it, made the other fail with `SQLITE_BUSY`. The read is
/// dropped between tries, so waiting here cannot deadlock.
fn to_wal(connection: &Connection, timeout: Duration) -> Result<(), Error> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match connection.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Ok(_mode) => return Ok(()),
            Err(error) if is_busy(&error) && started.elapsed() < timeout => {
                std::thread::sleep(pause);
                pause = pause.saturating_mul(2).min(Duration::from_millis(50));
            }
            Err(error) => return Err(error.into()),
        }
    }
}

impl SqliteState {
    /// Opens (or creates) the state file at `path`: WAL journal, full
    /// synchronisation, and a quick integrity check, so a damaged file is an
    /// error here rather than later; then the migrations the file lacks
    /// (`sqlite/migrations/`, [`SCHEMA_VERSION`]) are applied. Another
    /// process opening or writing the file at the same time is waited for,
    /// up to 5 s; a lock held longer fails with an error that
    /// [`Error::is_retryable`].
    ///
    /// [`SCHEMA_VERSION`]: migrate::SCHEMA_VERSION
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let mut connection = Connection::open(path)?;
        connection.busy_timeout(OPEN_BUSY_TIMEOUT)?;
        to_wal(&connection, OPEN_BUSY_TIMEOUT)?;
        connection.execute_batch("PRAGMA synchronous = FULL;")?;
        check_integrity(&connection)?;
        migrate::migrate(&mut connection)?;
        Ok(Self::with(connection))
    }

    /// Opens the state file at `path` for reading only, as a report does:
    /// nothing is written to it (no journal mode, no migration), so a file
    /// from an earlier or a newer release is read as it is, and a file that
    /// does not exist is an error rather than a new database. Saving
    /// through it fails.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Self, Error> {
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(OPEN_BUSY_TIMEOUT)?;
        check_integrity(&connection)?;
        Ok(Self::with(connection))
    }

    fn with(connection: Connection) -> Self {
        Self {
            connection,
            state_as_rows: true,
            known_rows: None,
            seen: BTreeMap::new(),
        }
    }

    /// Whether [`SqliteState::save`] keeps the state as rows (the default):
    /// each fine cluster and need (`sdsi_cluster`, `sdsi_need`) and the
    /// store's counters, adoptions and delivered keys are rows of their own
    /// beside a small header, and a save writes only the rows that changed
    /// (counters moved in place) instead of the whole state. Off, the state
    /// is one blob, as builds before rows wrote and read it (docs/replicas.md,
    /// "The state as rows"); any state loads whatever the setting.
    pub fn keep_state_as_rows(&mut self, on: bool) {
        self.state_as_rows = on;
    }

    /// The file's schema version: [`SCHEMA_VERSION`], or higher when a newer
    /// release migrated it (migrations are additive, so this release still
    /// works on it).
    ///
    /// [`SCHEMA_VERSION`]: migrate::SCHEMA_VERSION
    pub fn schema_version(&self) -> Result<i64, Error> {
        migrate::schema_version(&self.connection)
    }

    /// The state saved for `scenario`, if any, read back into its parts
    /// (with its pools' rows when it keeps them apart).
    pub fn load(&mut self, scenario: &str) -> Result<Option<Saved>, Error> {
        let Some((version, bytes, pools)) = self.stored(scenario)? else {
            return Ok(None);
        };
        let saved = match &pools {
            Some((store, pools, _)) => SavedServer::from_split(&bytes, store, pools),
            None => SavedServer::from_bytes(&bytes),
        }
        .map_err(|e| Error::Damaged {
            scenario: scenario.to_owned(),
            message: e.to_string(),
        })?;
        self.remember(scenario, version, pools.as_ref());
        Ok(Some(Saved {
            version,
            cursor: saved.cursor,
            store: saved.store,
            engine: saved.engine,
        }))
    }

    /// The state row of `scenario` and, when it keeps its pools apart, the
    /// store's and the pools' rows, read in one transaction.
    fn stored(&mut self, scenario: &str) -> Result<Option<Stored>, Error> {
        // A file from before migration 3, opened read-only, has no rows of
        // the form this release splits a state into.
        let has_rows = self.schema_version()? >= 3;
        let transaction = self.connection.transaction()?;
        let query = if has_rows {
            "SELECT s.version, s.state, COALESCE(r.version = s.version AND r.pools_in_rows, 0),
                    w.written_by
             FROM sdsi_state AS s LEFT JOIN sdsi_rows_version AS r USING (scenario)
                 LEFT JOIN sdsi_rows_written AS w USING (scenario)
             WHERE scenario = ?1"
        } else {
            "SELECT version, state, 0, NULL FROM sdsi_state WHERE scenario = ?1"
        };
        let row: Option<(i64, Vec<u8>, bool, Option<String>)> = transaction
            .query_row(query, params![scenario], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        let Some((version, bytes, split, token)) = row else {
            return Ok(None);
        };
        let version = u64::try_from(version).map_err(|_| Error::Damaged {
            scenario: scenario.to_owned(),
            message: format!("negative version {version}"),
        })?;
        let pools = if split {
            Some((
                rows::read_tables(&transaction, scenario)?,
                pool_rows::read(&transaction, scenario)?,
                token,
            ))
        } else {
            None
        };
        transaction.commit()?;
        Ok(Some((version, bytes, pools)))
    }

    /// Notes the rows the file holds for `scenario` at `version`.
    fn remember(&mut self, scenario: &str, version: u64, rows: Option<&SplitRows>) {
        self.known_rows = match rows {
            Some((store, pools, Some(token))) => {
                let known = Known {
                    token: token.clone(),
                    store: store.known(),
                    pools: Some(pools.digests()),
                };
                Some((scenario.to_owned(), version, known))
            }
            _ => None,
        };
    }

    /// The state saved for `scenario` by a store that required signatures
    /// with `signer`'s key: refused ([`Error::Seal`]) unless its sealed
    /// snapshot is intact and sealed with that key, saved with the engine
    /// state and cursor beside it, as the version the file holds it under
    /// ([`SealError::OtherSave`]), and no older than `pin` or than the
    /// newest version this connection saved or loaded sealed
    /// ([`SealError::RolledBack`]). The restored store requires signatures
    /// again. [`SqliteState::load`] refuses such a state.
    ///
    /// Whoever can write the file can put back an older sealed state: only
    /// a pin kept where they cannot write (the application's memory or its
    /// configuration, `Saved::version` of the last load or save) refuses it
    /// after a restart; a connection remembers what it saw while it lives
    /// (docs/patches.md, "A seal and a rollback").
    pub fn load_sealed(
        &mut self,
        scenario: &str,
        signer: Signer,
        pin: SealPin,
    ) -> Result<Option<Saved>, Error> {
        let Some((version, bytes, pools)) = self.stored(scenario)? else {
            return Ok(None);
        };
        let seal_error = |error| Error::Seal {
            scenario: scenario.to_owned(),
            error,
        };
        let pin = pin.max(SealPin::at_least(self.seen_version(scenario)));
        let saved = match &pools {
            Some((store, pools, _)) => {
                SavedServer::from_split_sealed(&bytes, store, pools, signer, pin)
            }
            None => SavedServer::from_bytes_sealed(&bytes, signer, pin),
        }
        .map_err(seal_error)?;
        if let Some(sealed) = saved.store.sealed_save()
            && sealed != version
        {
            return Err(seal_error(SealError::OtherSave {
                sealed,
                stored: version,
            }));
        }
        if saved.store.base().scenario != scenario {
            // Another scenario's sealed row copied here: sealed, but not this one.
            return Err(Error::Damaged {
                scenario: scenario.to_owned(),
                message: format!(
                    "the row holds the state of scenario {:?}",
                    saved.store.base().scenario
                ),
            });
        }
        self.remember(scenario, version, pools.as_ref());
        self.saw(scenario, version);
        Ok(Some(Saved {
            version,
            cursor: saved.cursor,
            store: saved.store,
            engine: saved.engine,
        }))
    }

    /// The newest version of `scenario` this connection saved or loaded
    /// sealed (0: none).
    fn seen_version(&self, scenario: &str) -> u64 {
        self.seen.get(scenario).copied().unwrap_or(0)
    }

    /// Notes that this connection saved or loaded `version` of `scenario`.
    fn saw(&mut self, scenario: &str, version: u64) {
        let seen = self.seen.entry(scenario.to_owned()).or_insert(0);
        *seen = (*seen).max(version);
    }

    /// The scenarios the file holds a state for, in order.
    pub fn scenarios(&mut self) -> Result<Vec<String>, Error> {
        let mut statement = self
            .connection
            .prepare("SELECT scenario FROM sdsi_state ORDER BY scenario")?;
        let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Saves `store` and `engine` for `scenario` with `cursor`, if the saved
    /// version is still `expected` (`None`: nothing saved yet). Returns the
    /// new version. One transaction: the file holds the old state or the
    /// new one, never a mix.
    pub fn save(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
        cursor: u64,
        store: &SchemaStore,
        engine: &EvolutionState,
    ) -> Result<u64, Error> {
        self.save_with_attachments(scenario, expected, cursor, store, engine, &[])
    }

    /// [`SqliteState::save`], replacing the `attachments` (name, bytes) kept
    /// beside the state ([`SqliteState::attachment`]) in the same
    /// transaction: what an application keeps of its own that must match
    /// the state (the CLI's log cursor and report history) is written with
    /// it or not at all, whenever the save fails or the process dies.
    /// Attachments not named are left as they are.
    pub fn save_with_attachments(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
        cursor: u64,
        store: &SchemaStore,
        engine: &EvolutionState,
        attachments: &[(&str, &[u8])],
    ) -> Result<u64, Error> {
        let serialize = |e: serde_json::Error| Error::Serialize {
            message: e.to_string(),
        };
        // Taken: a failed save leaves the file's rows unknown.
        let known = self
            .known_rows
            .take()
            .filter(|(s, v, _)| s == scenario && Some(*v) == expected)
            .map(|(_, _, known)| known);
        // The number the seal of a store that requires signatures carries:
        // the version this save writes (a conflict writes nothing).
        let save = expected.map_or(1, |v| v.saturating_add(1));
        let (version, known) = if self.state_as_rows {
            let split =
                SavedServer::encode_split(save, cursor, store, engine).map_err(serialize)?;
            let saving = Saving::Split(&split.store, &split.pools);
            self.save_busy_aware(scenario, expected, &split.bytes, saving, attachments, known)?
        } else {
            let rows = store.rows().map_err(serialize)?;
            let bytes = SavedServer::encode(save, cursor, store, engine).map_err(serialize)?;
            let saving = Saving::Whole(&rows);
            self.save_busy_aware(scenario, expected, &bytes, saving, attachments, known)?
        };
        self.known_rows = known.map(|known| (scenario.to_owned(), version, known));
        self.saw(scenario, version);
        Ok(version)
    }

    /// The store's rows saved with `scenario`'s state by
    /// [`SqliteState::save`] (tables `sdsi_patch`, `sdsi_key_record`,
    /// `sdsi_pending`, `sdsi_delivered`, `sdsi_key_count`, `sdsi_adoption`):
    /// its patches, key records, pending proposals, what each client was
    /// told, the metric counters and each key's clients,
    /// read without the pools. `None` when nothing was saved, or when the
    /// state saved last did not write them (saved as bytes through
    /// [`StateStorage::save`], or by a release before them): never rows
    /// older than the state.
    pub fn store_rows(&mut self, scenario: &str) -> Result<Option<StoreRows>, Error> {
        rows::read(&mut self.connection, scenario)
    }
}

impl SqliteState {
    /// How long a save waits for another writer's lock before it gives up
    /// with [`Error::Busy`] (5 s when opened).
    pub fn set_busy_timeout(&mut self, timeout: std::time::Duration) -> Result<(), Error> {
        Ok(self.connection.busy_timeout(timeout)?)
    }

    /// Keeps `bytes` under `name` beside `scenario`'s state, replacing what
    /// was there, in a transaction of its own. Not versioned: the last write
    /// wins. What must match the state is saved with it instead, by
    /// [`SqliteState::save_with_attachments`].
    pub fn save_attachment(
        &mut self,
        scenario: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), Error> {
        put_attachment(&self.connection, scenario, name, bytes).map_err(|e| busy_or(e, scenario))
    }

    /// What [`SqliteState::save_attachment`] kept under `name` for
    /// `scenario`, if anything.
    pub fn attachment(&mut self, scenario: &str, name: &str) -> Result<Option<Vec<u8>>, Error> {
        Ok(self
            .connection
            .query_row(
                "SELECT bytes FROM sdsi_attachment WHERE scenario = ?1 AND name = ?2",
                params![scenario, name],
                |r| r.get(0),
            )
            .optional()?)
    }
}

/// Writes `bytes` under `name` beside `scenario`'s state, replacing what
/// was there (a transaction derefs to its connection).
fn put_attachment(
    connection: &Connection,
    scenario: &str,
    name: &str,
    bytes: &[u8],
) -> Result<(), rusqlite::Error> {
    connection.execute(
        "INSERT INTO sdsi_attachment (scenario, name, bytes) VALUES (?1, ?2, ?3)
         ON CONFLICT(scenario, name) DO UPDATE SET bytes = excluded.bytes",
        params![scenario, name, bytes],
    )?;
    Ok(())
}

/// What a save writes beside the state's bytes.
enum Saving<'a> {
    /// Nothing: bytes this crate cannot look into.
    Bytes,
    /// The store's rows; the pools are in the bytes.
    Whole(&'a StoreRows),
    /// The store's rows and the pools' rows (the bytes hold their headers).
    Split(&'a StoreRows, &'a EngineRows),
}

impl StateStorage for SqliteState {
    type Error = Error;

    fn load(&mut self, scenario: &str) -> Result<Option<Versioned>, Error> {
        let row: Option<(i64, Vec<u8>)> = self
            .connection
            .query_row(
                "SELECT version, state FROM sdsi_state WHERE scenario = ?1",
                params![scenario],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((version, bytes)) = row else {
            return Ok(None);
        };
        let version = u64::try_from(version).map_err(|_| Error::Damaged {
            scenario: scenario.to_owned(),
            message: format!("negative version {version}"),
        })?;
        Ok(Some(Versioned::new(version, bytes)))
    }

    /// Saves bytes this crate cannot look into: the store's rows are left
    /// as they were and [`SqliteState::store_rows`] no longer reads them as
    /// current ([`SqliteState::save`] writes them).
    fn save(&mut self, scenario: &str, expected: Option<u64>, bytes: &[u8]) -> Result<u64, Error> {
        self.known_rows = None;
        let (version, _) =
            self.save_busy_aware(scenario, expected, bytes, Saving::Bytes, &[], None)?;
        self.saw(scenario, version);
        Ok(version)
    }
}

impl SqliteState {
    /// [`SqliteState::save_versioned`], with a busy timeout reported as the
    /// retryable [`Error::Busy`].
    fn save_busy_aware(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
        bytes: &[u8],
        saving: Saving<'_>,
        attachments: &[(&str, &[u8])],
        known: Option<Known>,
    ) -> Result<(u64, Option<Known>), Error> {
        self.save_versioned(scenario, expected, bytes, saving, attachments, known)
            .map_err(|error| match error {
                Error::Sqlite(e) => busy_or(e, scenario),
                other => other,
            })
    }

    /// The save itself, in an immediate transaction: the write lock is taken
    /// before the version is read, so a second writer waits for the first
    /// (up to the busy timeout) instead of failing to upgrade a read it made
    /// before the first committed. The `attachments` are replaced in it
    /// too. `known`: what this connection knew of the rows of version
    /// `expected`. Returns the new version and what the rows it left are.
    fn save_versioned(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
        bytes: &[u8],
        saving: Saving<'_>,
        attachments: &[(&str, &[u8])],
        known: Option<Known>,
    ) -> Result<(u64, Option<Known>), Error> {
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let found: Option<i64> = transaction
            .query_row(
                "SELECT version FROM sdsi_state WHERE scenario = ?1",
                params![scenario],
                |r| r.get(0),
            )
            .optional()?;
        let found = found.and_then(|v| u64::try_from(v).ok());
        if found != expected {
            return Err(Error::Conflict {
                scenario: scenario.to_owned(),
                expected,
                found,
            });
        }
        let next = expected.map_or(1, |v| v.saturating_add(1));
        let stored = i64::try_from(next).unwrap_or(i64::MAX);
        transaction.execute(
            "INSERT INTO sdsi_state (scenario, version, state) VALUES (?1, ?2, ?3)
             ON CONFLICT(scenario) DO UPDATE SET version = excluded.version, state = excluded.state",
            params![scenario, stored, bytes],
        )?;
        // What is known describes the file's rows only if the file says
        // they are still those the known save wrote (not so after a restore
        // from a backup, even one that brings the same version back).
        let written = match &known {
            Some(known) => rows::written_at(&transaction, scenario, expected, &known.token)?,
            None => None,
        };
        let known = known.filter(|_| written.is_some());
        let token = rows::new_token();
        let left = match saving {
            Saving::Bytes => None,
            Saving::Whole(rows) => {
                let store = known.as_ref().map(|k| &k.store);
                let store =
                    rows::write(&transaction, scenario, stored, rows, false, &token, store)?;
                pool_rows::clear(&transaction, scenario)?;
                Some(Known {
                    token,
                    store,
                    pools: None,
                })
            }
            Saving::Split(rows, pools) => {
                let digests = known
                    .as_ref()
                    .and_then(|k| k.pools.as_ref())
                    .filter(|_| written == Some(true));
                let store = known.as_ref().map(|k| &k.store);
                let store = rows::write(&transaction, scenario, stored, rows, true, &token, store)?;
                let writes = pools.writes(digests);
                pool_rows::write(&transaction, scenario, &writes)?;
                Some(Known {
                    token,
                    store,
                    pools: Some(writes.digests),
                })
            }
        };
        for (name, bytes) in attachments {
            put_attachment(&transaction, scenario, name, bytes)?;
        }
        transaction.commit()?;
        Ok((next, left))
    }
}
