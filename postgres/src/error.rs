//! Why the state could not be read or written.

use sdsi::patch::SealError;

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
    /// A row holds NULL or a value of another type where the crate's own
    /// table holds neither (a damaged or altered table): named, never a
    /// panic.
    #[error("table {table}, column {column}: {message}")]
    Column {
        /// The table.
        table: &'static str,
        /// The column, by name.
        column: String,
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
    /// A sealed state did not restore ([`PgState::load_saved_sealed`]):
    /// no seal, another key, content changed since it was sealed, or an
    /// older save than the one last seen put back.
    ///
    /// [`PgState::load_saved_sealed`]: crate::PgState::load_saved_sealed
    #[error("saved state of scenario {scenario:?}: {error}")]
    Seal {
        /// The scenario.
        scenario: String,
        /// What was wrong.
        error: SealError,
    },
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

/// Column `index` of a `row` read from `table`, or [`Error::Column`].
pub(crate) fn column<'r, T: postgres::types::FromSql<'r>>(
    row: &'r postgres::Row,
    table: &'static str,
    index: usize,
) -> Result<T, Error> {
    row.try_get(index).map_err(|e| Error::Column {
        table,
        column: row
            .columns()
            .get(index)
            .map_or_else(|| index.to_string(), |c| c.name().to_owned()),
        message: e.to_string(),
    })
}
