//! Why the state could not be read or written, and how SQLite's own
//! errors map onto that.

use sdsi::patch::SealError;

/// Why the state could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// SQLite refused: the file is not a database, is damaged or truncated,
    /// cannot be opened or written.
    #[error("state database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The saved state does not restore (another format or version of a
    /// part, damaged content).
    #[error("saved state of scenario {scenario:?} does not restore: {message}")]
    Damaged {
        /// The scenario.
        scenario: String,
        /// What was wrong.
        message: String,
    },
    /// A sealed state did not restore: no seal, another key, or bytes
    /// changed since it was sealed.
    #[error("saved state of scenario {scenario:?}: {error}")]
    Seal {
        /// The scenario.
        scenario: String,
        /// What was wrong.
        error: SealError,
    },
    /// The state could not be serialized (see the store's documentation:
    /// patches dated outside years 0-9999 cannot be written).
    #[error("cannot serialize the state: {message}")]
    Serialize {
        /// What was wrong.
        message: String,
    },
    /// Another writer held the file's write lock for longer than the busy
    /// timeout ([`SqliteState::set_busy_timeout`], 5 s by default). Nothing
    /// was written: load again and retry, as after a
    /// [`Error::Conflict`].
    ///
    /// [`SqliteState::set_busy_timeout`]: crate::state::SqliteState::set_busy_timeout
    #[error(
        "scenario {scenario:?}: another writer held the database for longer than the busy timeout"
    )]
    Busy {
        /// The scenario.
        scenario: String,
    },
    /// Another writer saved since the version this save started from.
    #[error(
        "scenario {scenario:?} was saved by another writer: expected version {expected:?}, found {found:?}"
    )]
    Conflict {
        /// The scenario.
        scenario: String,
        /// The version the save named.
        expected: Option<u64>,
        /// The version in the file.
        found: Option<u64>,
    },
}

impl Error {
    /// Whether loading again and retrying may succeed: another writer got
    /// there first ([`Error::Conflict`]) or held the lock ([`Error::Busy`],
    /// or the same SQLite error where no scenario was at hand yet: opening
    /// the file, reading it), on any call.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Conflict { .. } | Error::Busy { .. } => true,
            Error::Sqlite(error) => is_busy(error),
            _ => false,
        }
    }
}

/// Whether SQLite said another connection holds the lock.
pub(crate) fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// `error` as [`Error::Busy`] when SQLite said another writer holds the lock.
pub(crate) fn busy_or(error: rusqlite::Error, scenario: &str) -> Error {
    if is_busy(&error) {
        Error::Busy {
            scenario: scenario.to_owned(),
        }
    } else {
        Error::Sqlite(error)
    }
}
