//! The engine's pools as rows (`sdsi_cluster`, `sdsi_need`): written with
//! the state's header as the core's `EngineRows::writes` plans it (an
//! unchanged cluster is neither sent nor written, when this connection
//! knows what is stored); read back to rebuild the pools.

use postgres::Transaction;
use sdsi::evolution::{EngineRows, PoolRow, RowWrites};

use crate::error::{Error, column};

/// The two tables, each with the rows of one kind.
const TABLES: [&str; 2] = ["sdsi_cluster", "sdsi_need"];

/// Writes `scenario`'s pool rows as `writes` says (see
/// [`sdsi::evolution::EngineRows::writes`]).
pub(crate) fn write(
    transaction: &mut Transaction<'_>,
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
        if !gone.is_empty() {
            let pools: Vec<&str> = gone.iter().map(|(pool, _)| pool.as_str()).collect();
            let ids: Vec<&str> = gone.iter().map(|(_, id)| id.as_str()).collect();
            transaction.execute(
                &format!(
                    "DELETE FROM {table} WHERE scenario = $1
                     AND (pool, id) IN (SELECT * FROM UNNEST($2::TEXT[], $3::TEXT[]))"
                ),
                &[&scenario, &pools, &ids],
            )?;
        }
        upsert(transaction, table, scenario, written.iter().copied())?;
    }
    Ok(())
}

/// Inserts or rewrites `rows` in one statement.
fn upsert<'a>(
    transaction: &mut Transaction<'_>,
    table: &str,
    scenario: &str,
    rows: impl Iterator<Item = &'a PoolRow>,
) -> Result<(), Error> {
    let (mut pools, mut ids, mut positions, mut bodies) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        pools.push(row.pool.as_str());
        ids.push(row.id.as_str());
        positions.push(row.position);
        bodies.push(row.body.as_str());
    }
    if ids.is_empty() {
        return Ok(());
    }
    transaction.execute(
        &format!(
            "INSERT INTO {table} (scenario, pool, id, position, body)
             SELECT $1, p, i, o, b
             FROM UNNEST($2::TEXT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[]) AS t(p, i, o, b)
             ON CONFLICT (scenario, pool, id) DO UPDATE SET
                 position = EXCLUDED.position, body = EXCLUDED.body"
        ),
        &[&scenario, &pools, &ids, &positions, &bodies],
    )?;
    Ok(())
}

/// Deletes `scenario`'s pool rows (a state saved whole keeps none).
pub(crate) fn clear(transaction: &mut Transaction<'_>, scenario: &str) -> Result<(), Error> {
    for table in TABLES {
        transaction.execute(
            &format!("DELETE FROM {table} WHERE scenario = $1"),
            &[&scenario],
        )?;
    }
    Ok(())
}

/// `scenario`'s pool rows.
pub(crate) fn read(transaction: &mut Transaction<'_>, scenario: &str) -> Result<EngineRows, Error> {
    let mut rows = EngineRows::default();
    for (table, into) in TABLES.iter().zip([&mut rows.clusters, &mut rows.needs]) {
        for row in transaction.query(
            &format!(
                "SELECT pool, id, position, body FROM {table} WHERE scenario = $1
                 ORDER BY pool COLLATE \"C\", position"
            ),
            &[&scenario],
        )? {
            into.push(PoolRow::from_columns(
                column(&row, table, 0)?,
                column(&row, table, 1)?,
                column(&row, table, 2)?,
                column(&row, table, 3)?,
            ));
        }
    }
    Ok(rows)
}
