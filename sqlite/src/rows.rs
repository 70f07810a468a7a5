//! The store's rows (`sdsi_patch`, `sdsi_key_record`, `sdsi_pending`,
//! `sdsi_delivered`, `sdsi_key_count`, `sdsi_adoption`),
//! written inside the transaction that saves the state and read back one
//! table at a time.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use sdsi::patch::{
    AdoptionRow, CountRow, DeliveredRow, KeyRow, KeyState, KnownRows, Metric, PatchRow,
    PatchStatus, PendingRow, StoreRows,
};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::Error;

/// Makes `scenario`'s rows say what `rows` says, as of state `version`
/// (whose pools are kept as rows when `pools_in_rows`), written by the save
/// `token` names: a row that changed
/// is rewritten, an unchanged one left alone, one no longer there deleted;
/// a counter moves by what was counted since the `known` rows (the rows
/// that change with every message are rewritten whole when they are not
/// known). Returns those rows as now stored.
pub(crate) fn write(
    transaction: &Transaction<'_>,
    scenario: &str,
    version: i64,
    rows: &StoreRows,
    pools_in_rows: bool,
    token: &str,
    known: Option<&KnownRows>,
) -> Result<KnownRows, Error> {
    transaction.execute(
        "INSERT INTO sdsi_rows_version (scenario, version, pools_in_rows) VALUES (?1, ?2, ?3)
         ON CONFLICT (scenario) DO UPDATE SET
             version = excluded.version, pools_in_rows = excluded.pools_in_rows",
        params![scenario, version, pools_in_rows],
    )?;
    transaction.execute(
        "INSERT INTO sdsi_rows_written (scenario, written_by) VALUES (?1, ?2)
         ON CONFLICT (scenario) DO UPDATE SET written_by = excluded.written_by",
        params![scenario, token],
    )?;
    let ids = |items: Vec<String>| serde_json::Value::from(items).to_string();
    transaction.execute(
        "DELETE FROM sdsi_patch WHERE scenario = ?1
         AND patch_id NOT IN (SELECT value FROM json_each(?2))",
        params![
            scenario,
            ids(rows.patches.iter().map(|r| r.patch_id.clone()).collect())
        ],
    )?;
    let mut patch = transaction.prepare_cached(
        "INSERT INTO sdsi_patch (scenario, patch_id, client, status, position, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (scenario, patch_id) DO UPDATE SET
             client = excluded.client, status = excluded.status,
             position = excluded.position, body = excluded.body
         WHERE (client, status, position, body)
               IS NOT (excluded.client, excluded.status, excluded.position, excluded.body)",
    )?;
    for row in &rows.patches {
        patch.execute(params![
            scenario,
            row.patch_id,
            row.client,
            row.status.as_str(),
            row.position,
            row.body
        ])?;
    }
    // A key row is named by (scope, key name): one JSON pair each.
    let keys: Vec<serde_json::Value> = rows
        .keys
        .iter()
        .map(|r| serde_json::json!([r.scope, r.key_name]))
        .collect();
    transaction.execute(
        "DELETE FROM sdsi_key_record WHERE scenario = ?1 AND (scope, key_name) NOT IN (
             SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]')
             FROM json_each(?2))",
        params![scenario, serde_json::Value::from(keys).to_string()],
    )?;
    let mut key = transaction.prepare_cached(
        "INSERT INTO sdsi_key_record (scenario, scope, key_name, state, patch_id, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (scenario, scope, key_name) DO UPDATE SET
             state = excluded.state, patch_id = excluded.patch_id, body = excluded.body
         WHERE (state, patch_id, body) IS NOT (excluded.state, excluded.patch_id, excluded.body)",
    )?;
    for row in &rows.keys {
        key.execute(params![
            scenario,
            row.scope,
            row.key_name,
            row.state.as_str(),
            row.patch_id,
            row.body
        ])?;
    }
    transaction.execute(
        "DELETE FROM sdsi_pending WHERE scenario = ?1
         AND proposal NOT IN (SELECT value FROM json_each(?2))",
        params![
            scenario,
            ids(rows.pending.iter().map(|r| r.proposal.clone()).collect())
        ],
    )?;
    let mut pending = transaction.prepare_cached(
        "INSERT INTO sdsi_pending (scenario, proposal, held_at, body) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (scenario, proposal) DO UPDATE SET
             held_at = excluded.held_at, body = excluded.body
         WHERE (held_at, body) IS NOT (excluded.held_at, excluded.body)",
    )?;
    for row in &rows.pending {
        let held_at = row.held_at.format(&Rfc3339).map_err(|e| Error::Serialize {
            message: format!("proposal {:?}: {e}", row.proposal),
        })?;
        pending.execute(params![scenario, row.proposal, held_at, row.body])?;
    }
    write_changing(transaction, scenario, rows, known)
}

/// Whether the file says its rows for `scenario` are those the save
/// `token` names wrote at state `version` (so what was known of them then
/// still holds) and, if so, whether its pools are rows too: `None` when
/// they are not.
pub(crate) fn written_at(
    transaction: &Transaction<'_>,
    scenario: &str,
    version: Option<u64>,
    token: &str,
) -> Result<Option<bool>, Error> {
    let Some(version) = version.and_then(|v| i64::try_from(v).ok()) else {
        return Ok(None);
    };
    Ok(transaction
        .query_row(
            "SELECT pools_in_rows FROM sdsi_rows_version JOIN sdsi_rows_written USING (scenario)
             WHERE scenario = ?1 AND version = ?2 AND written_by = ?3",
            params![scenario, version, token],
            |row| row.get(0),
        )
        .optional()?)
}

/// A new save's token: random, so that no other save (another connection,
/// a restored backup) writes the same one.
pub(crate) fn new_token() -> String {
    use std::hash::BuildHasher;
    let random = || std::collections::hash_map::RandomState::new().hash_one(0u8);
    format!("{:016x}{:016x}", random(), random())
}

/// Writes the rows that change with every message as [`StoreRows::writes`]
/// plans them over the `known` ones: counters moved in place by what was
/// counted since, adoption and delivered rows only where they changed.
fn write_changing(
    transaction: &Transaction<'_>,
    scenario: &str,
    rows: &StoreRows,
    known: Option<&KnownRows>,
) -> Result<KnownRows, Error> {
    let writes = rows.writes(known);
    if writes.replace_all {
        for table in ["sdsi_key_count", "sdsi_adoption", "sdsi_delivered"] {
            transaction.execute(
                &format!("DELETE FROM {table} WHERE scenario = ?1"),
                params![scenario],
            )?;
        }
    }
    let mut delete = transaction.prepare_cached(
        "DELETE FROM sdsi_key_count
         WHERE scenario = ?1 AND scope = ?2 AND key_name = ?3 AND metric = ?4 AND day = ?5",
    )?;
    for (scope, key_name, metric, day) in &writes.counts_gone {
        delete.execute(params![scenario, scope, key_name, metric.as_str(), day])?;
    }
    let mut add = transaction.prepare_cached(
        "INSERT INTO sdsi_key_count (scenario, scope, key_name, metric, day, count)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (scenario, scope, key_name, metric, day) DO UPDATE SET
             count = count + excluded.count",
    )?;
    for (row, n) in &writes.counts {
        add.execute(params![
            scenario,
            row.scope,
            row.key_name,
            row.metric.as_str(),
            row.day,
            n
        ])?;
    }
    let mut delete = transaction.prepare_cached(
        "DELETE FROM sdsi_adoption
         WHERE scenario = ?1 AND scope = ?2 AND key_name = ?3 AND client = ?4",
    )?;
    for (scope, key_name, client) in &writes.adoptions_gone {
        delete.execute(params![scenario, scope, key_name, client])?;
    }
    let mut adoption = transaction.prepare_cached(
        "INSERT INTO sdsi_adoption (scenario, scope, key_name, client, delivered_day, adopted_day)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (scenario, scope, key_name, client) DO UPDATE SET
             delivered_day = excluded.delivered_day, adopted_day = excluded.adopted_day",
    )?;
    for row in &writes.adoptions {
        adoption.execute(params![
            scenario,
            row.scope,
            row.key_name,
            row.client,
            row.delivered_day,
            row.adopted_day
        ])?;
    }
    let mut delete = transaction.prepare_cached(
        "DELETE FROM sdsi_delivered WHERE scenario = ?1 AND client = ?2 AND key_name = ?3",
    )?;
    for (client, key_name) in &writes.delivered_gone {
        delete.execute(params![scenario, client, key_name])?;
    }
    let mut delivered = transaction.prepare_cached(
        "INSERT INTO sdsi_delivered (scenario, client, key_name, tag) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (scenario, client, key_name) DO UPDATE SET tag = excluded.tag",
    )?;
    for row in &writes.delivered {
        delivered.execute(params![scenario, row.client, row.key_name, row.tag])?;
    }
    Ok(writes.known)
}

/// `scenario`'s rows, in the store's order, if they were written with the
/// state saved last (read in one transaction, so a save cannot come
/// between the check and the rows).
pub(crate) fn read(
    connection: &mut Connection,
    scenario: &str,
) -> Result<Option<StoreRows>, Error> {
    // A file from before migration 3 (opened read-only, so not migrated)
    // has no rows, or no counters as rows.
    if crate::migrate::schema_version(connection)? < 3 {
        return Ok(None);
    }
    let transaction = connection.transaction()?;
    let current: Option<i64> = transaction
        .query_row(
            "SELECT 1 FROM sdsi_state JOIN sdsi_rows_version USING (scenario, version)
             WHERE scenario = ?1",
            params![scenario],
            |row| row.get(0),
        )
        .optional()?;
    if current.is_none() {
        return Ok(None);
    }
    let rows = read_tables(&transaction, scenario)?;
    transaction.commit()?;
    Ok(Some(rows))
}

/// `scenario`'s rows as the tables hold them, in the store's order.
pub(crate) fn read_tables(connection: &Connection, scenario: &str) -> Result<StoreRows, Error> {
    let damaged = |message: String| Error::Damaged {
        scenario: scenario.to_owned(),
        message,
    };
    let mut rows = StoreRows::default();
    let mut statement = connection.prepare(
        "SELECT patch_id, client, status, position, body FROM sdsi_patch
         WHERE scenario = ?1",
    )?;
    let mut found = statement.query(params![scenario])?;
    while let Some(row) = found.next()? {
        let status: String = row.get(2)?;
        let status = PatchStatus::parse(&status)
            .ok_or_else(|| damaged(format!("patch status {status:?}")))?;
        rows.patches.push(PatchRow::from_columns(
            row.get(0)?,
            row.get(1)?,
            status,
            row.get(3)?,
            row.get(4)?,
        ));
    }
    let mut statement = connection.prepare(
        "SELECT scope, key_name, state, patch_id, body FROM sdsi_key_record
         WHERE scenario = ?1",
    )?;
    let mut found = statement.query(params![scenario])?;
    while let Some(row) = found.next()? {
        let state: String = row.get(2)?;
        let state =
            KeyState::parse(&state).ok_or_else(|| damaged(format!("key state {state:?}")))?;
        rows.keys.push(KeyRow::from_columns(
            row.get(0)?,
            row.get(1)?,
            state,
            row.get(3)?,
            row.get(4)?,
        ));
    }
    let mut statement = connection.prepare(
        "SELECT proposal, held_at, body FROM sdsi_pending
         WHERE scenario = ?1",
    )?;
    let mut found = statement.query(params![scenario])?;
    while let Some(row) = found.next()? {
        let held_at: String = row.get(1)?;
        let held_at = OffsetDateTime::parse(&held_at, &Rfc3339)
            .map_err(|e| damaged(format!("held_at {held_at:?}: {e}")))?;
        rows.pending
            .push(PendingRow::from_columns(row.get(0)?, held_at, row.get(2)?));
    }
    let mut statement = connection.prepare(
        "SELECT client, key_name, tag FROM sdsi_delivered
         WHERE scenario = ?1",
    )?;
    let mut found = statement.query(params![scenario])?;
    while let Some(row) = found.next()? {
        rows.delivered.push(DeliveredRow::from_columns(
            row.get(0)?,
            row.get(1)?,
            row.get(2)?,
        ));
    }
    let mut statement = connection.prepare(
        "SELECT scope, key_name, metric, day, count FROM sdsi_key_count
         WHERE scenario = ?1",
    )?;
    let mut found = statement.query(params![scenario])?;
    while let Some(row) = found.next()? {
        let metric: String = row.get(2)?;
        let metric = Metric::parse(&metric).ok_or_else(|| damaged(format!("metric {metric:?}")))?;
        rows.counts.push(CountRow::from_columns(
            row.get(0)?,
            row.get(1)?,
            metric,
            row.get(3)?,
            row.get(4)?,
        ));
    }
    let mut statement = connection.prepare(
        "SELECT scope, key_name, client, delivered_day, adopted_day FROM sdsi_adoption
         WHERE scenario = ?1",
    )?;
    let mut found = statement.query(params![scenario])?;
    while let Some(row) = found.next()? {
        rows.adoptions.push(AdoptionRow::from_columns(
            row.get(0)?,
            row.get(1)?,
            row.get(2)?,
            row.get(3)?,
            row.get(4)?,
        ));
    }
    rows.sort();
    Ok(rows)
}
