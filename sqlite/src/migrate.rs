//! The file's schema, as numbered migrations kept in `migrations/` and
//! applied on open; the version is SQLite's `user_version`.
//!
//! The rules are PostgreSQL's (docs/replicas.md): forward-only and additive
//! (a new table, a new column with a default, a new index; never a drop or
//! a rename of what an earlier release reads), so a file migrated by a newer
//! release still opens in an older one, which never undoes a migration it
//! does not know.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::Error;

/// The migrations, in order: (version, SQL).
const MIGRATIONS: [(i64, &str); 3] = [
    (1, include_str!("../migrations/0001_state.sql")),
    (2, include_str!("../migrations/0002_store_rows.sql")),
    (3, include_str!("../migrations/0003_store_counts.sql")),
];

/// The schema version this release writes.
pub const SCHEMA_VERSION: i64 = 3;

/// The file's schema version (0 before any migration).
pub(crate) fn schema_version(connection: &Connection) -> Result<i64, Error> {
    Ok(connection.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

/// Applies the migrations the file lacks, each once, and returns its schema
/// version (higher than [`SCHEMA_VERSION`] when a newer release migrated
/// it: additive, so this one still works on it).
pub(crate) fn migrate(connection: &mut Connection) -> Result<i64, Error> {
    let found = schema_version(connection)?;
    // A file SQLite opened read-only (no write permission) is read as it
    // is: a file from before numbered migrations holds its tables already,
    // and anything missing is an error on first use, as it was before.
    if found >= SCHEMA_VERSION || connection.is_readonly(rusqlite::MAIN_DB)? {
        return Ok(found);
    }
    // The write lock first, then the version read again: two processes
    // opening a new file migrate one after the other, and the second finds
    // nothing left to do.
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let applied = schema_version(&transaction)?;
    for (version, sql) in MIGRATIONS {
        if version > applied {
            transaction.execute_batch(sql)?;
        }
    }
    if applied < SCHEMA_VERSION {
        transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    transaction.commit()?;
    Ok(applied.max(SCHEMA_VERSION))
}
