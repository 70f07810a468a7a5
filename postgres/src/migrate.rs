//! The database's schema, as numbered migrations kept in `migrations/` and
//! applied on connect.
//!
//! Rules (docs/replicas.md): migrations are forward-only and additive — a
//! new table, a new column with a default, a new index — and never drop or
//! rename what an earlier release reads. So in a rolling upgrade the first
//! new replica to connect migrates, and the old replicas still running keep
//! working on the newer schema; a replica never undoes a migration it does
//! not know.

use postgres::Client;

use crate::error::{Error, column};

/// The migrations, in order: (version, name, SQL).
const MIGRATIONS: [(i32, &str, &str); 4] = [
    (1, "state", include_str!("../migrations/0001_state.sql")),
    (
        2,
        "observation_log",
        include_str!("../migrations/0002_observation_log.sql"),
    ),
    (
        3,
        "store_rows",
        include_str!("../migrations/0003_store_rows.sql"),
    ),
    (
        4,
        "store_counts",
        include_str!("../migrations/0004_store_counts.sql"),
    ),
];

/// The schema version this release writes.
pub const SCHEMA_VERSION: i32 = 4;

/// Applies the migrations the database lacks, each once, and returns the
/// database's schema version (higher than [`SCHEMA_VERSION`] when a newer
/// release migrated it: additive, so this one still works on it).
pub(crate) fn migrate(client: &mut Client) -> Result<i32, Error> {
    let mut transaction = client.transaction()?;
    // Replicas starting together would race on the DDL (`CREATE TABLE IF
    // NOT EXISTS` is not atomic in PostgreSQL): one migrates at a time.
    transaction.query(
        "SELECT pg_advisory_xact_lock(hashtext('sdsi_migration'))",
        &[],
    )?;
    transaction.batch_execute(
        "CREATE TABLE IF NOT EXISTS sdsi_migration (
             version    INTEGER PRIMARY KEY,
             name       TEXT NOT NULL,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )?;
    let row = transaction.query_one("SELECT COALESCE(MAX(version), 0) FROM sdsi_migration", &[])?;
    let applied: i32 = column(&row, "sdsi_migration", 0)?;
    for (version, name, sql) in MIGRATIONS {
        if version <= applied {
            continue;
        }
        transaction.batch_execute(sql)?;
        transaction.execute(
            "INSERT INTO sdsi_migration (version, name) VALUES ($1, $2)",
            &[&version, &name],
        )?;
    }
    transaction.commit()?;
    Ok(applied.max(SCHEMA_VERSION))
}
