//! The engine's pools as rows (`sdsi_cluster`, `sdsi_need`): written with
//! the state's header as the core's `EngineRows::writes` plans it (only the
//! rows that changed, when this connection knows what is stored); read back
//! to rebuild it.

use rusqlite::{Connection, Transaction, params};
use sdsi::evolution::{EngineRows, PoolRow, RowWrites};

use crate::error::Error;

/// The two tables, each with the rows of one kind.
const TABLES: [&str; 2] = ["sdsi_cluster", "sdsi_need"];

/// Writes `scenario`'s pool rows as `writes` says (see
/// [`EngineRows::writes`]).
pub(crate) fn write(
    transaction: &Transaction<'_>,
    scenario: &str,
    writes: &RowWrites<'_>,
) -> Result<(), Error> {
    if writes.replace_all {
        clear(transaction, scenario)?;
    }
    for (table, written, gone) in [
        ("sdsi_cluster", &writes.clusters, &writes.clusters_gone),
        ("sdsi_need", &writes.needs, &writes.needs_gone),
    ] {
        let mut delete = transaction.prepare_cached(&format!(
            "DELETE FROM {table} WHERE scenario = ?1 AND pool = ?2 AND id = ?3"
        ))?;
        for (pool, id) in gone {
            delete.execute(params![scenario, pool, id])?;
        }
        upsert(transaction, table, scenario, written.iter().copied())?;
    }
    Ok(())
}

fn upsert<'a>(
    transaction: &Transaction<'_>,
    table: &str,
    scenario: &str,
    rows: impl Iterator<Item = &'a PoolRow>,
) -> Result<(), Error> {
    let mut statement = transaction.prepare_cached(&format!(
        "INSERT INTO {table} (scenario, pool, id, position, body) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (scenario, pool, id) DO UPDATE SET
             position = excluded.position, body = excluded.body"
    ))?;
    for row in rows {
        statement.execute(params![scenario, row.pool, row.id, row.position, row.body])?;
    }
    Ok(())
}

/// Deletes `scenario`'s pool rows (a state saved whole keeps none).
pub(crate) fn clear(transaction: &Transaction<'_>, scenario: &str) -> Result<(), Error> {
    for table in TABLES {
        transaction.execute(
            &format!("DELETE FROM {table} WHERE scenario = ?1"),
            params![scenario],
        )?;
    }
    Ok(())
}

/// `scenario`'s pool rows.
pub(crate) fn read(connection: &Connection, scenario: &str) -> Result<EngineRows, Error> {
    let mut rows = EngineRows::default();
    for (table, into) in TABLES.iter().zip([&mut rows.clusters, &mut rows.needs]) {
        let mut statement = connection.prepare(&format!(
            "SELECT pool, id, position, body FROM {table} WHERE scenario = ?1
             ORDER BY pool, position"
        ))?;
        let mut found = statement.query(params![scenario])?;
        while let Some(row) = found.next()? {
            into.push(PoolRow::from_columns(
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
            ));
        }
    }
    Ok(rows)
}
