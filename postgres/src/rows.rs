//! The store's rows (`sdsi_patch`, `sdsi_key_record`, `sdsi_pending`,
//! `sdsi_delivered`, `sdsi_key_count`, `sdsi_adoption`),
//! written inside the transaction that saves the state, one statement per
//! table and kind of change, and read back in one snapshot.

use postgres::{IsolationLevel, Transaction};
use sdsi::patch::{
    AdoptionRow, CountRow, DeliveredRow, KeyRow, KeyState, KnownRows, Metric, PatchRow,
    PatchStatus, PendingRow, StoreRows,
};
use time::OffsetDateTime;

use crate::error::{Error, column};
use crate::state::PgState;

/// Makes `scenario`'s rows say what `rows` says, as of state `version`
/// (whose pools are kept as rows when `pools_in_rows`): a row that changed
/// is rewritten, an unchanged one left alone, one no longer there deleted;
/// a counter moves by what was counted since the `known` rows (the rows
/// that change with every message are rewritten whole when they are not
/// known). Returns those rows as now stored.
pub(crate) fn write(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    version: i64,
    rows: &StoreRows,
    pools_in_rows: bool,
    token: &str,
    known: Option<&KnownRows>,
) -> Result<KnownRows, Error> {
    transaction.execute(
        "INSERT INTO sdsi_rows_version (scenario, version, pools_in_rows) VALUES ($1, $2, $3)
         ON CONFLICT (scenario) DO UPDATE SET
             version = EXCLUDED.version, pools_in_rows = EXCLUDED.pools_in_rows",
        &[&scenario, &version, &pools_in_rows],
    )?;
    transaction.execute(
        "INSERT INTO sdsi_rows_written (scenario, written_by) VALUES ($1, $2)
         ON CONFLICT (scenario) DO UPDATE SET written_by = EXCLUDED.written_by",
        &[&scenario, &token],
    )?;
    write_patches(transaction, scenario, &rows.patches)?;
    write_keys(transaction, scenario, &rows.keys)?;
    write_pending(transaction, scenario, &rows.pending)?;
    write_changing(transaction, scenario, rows, known)
}

/// Whether the database says its rows for `scenario` are those the save
/// `token` names wrote at state `version` (so what was known of them then
/// still holds) and, if so, whether its pools are rows too: `None` when
/// they are not.
pub(crate) fn written_at(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    version: Option<u64>,
    token: &str,
) -> Result<Option<bool>, Error> {
    let Some(version) = version.and_then(|v| i64::try_from(v).ok()) else {
        return Ok(None);
    };
    let found = transaction.query_opt(
        "SELECT pools_in_rows FROM sdsi_rows_version JOIN sdsi_rows_written USING (scenario)
         WHERE scenario = $1 AND version = $2 AND written_by = $3",
        &[&scenario, &version, &token],
    )?;
    found
        .map(|row| column(&row, "sdsi_rows_version", 0))
        .transpose()
}

/// A new save's token: random, so that no other save (another replica, a
/// restored backup) writes the same one.
pub(crate) fn new_token() -> String {
    use std::hash::BuildHasher;
    let random = || std::collections::hash_map::RandomState::new().hash_one(0u8);
    format!("{:016x}{:016x}", random(), random())
}

/// Writes the rows that change with every message as [`StoreRows::writes`]
/// plans them over the `known` ones, one statement per table and kind of
/// change: counters moved in place by what was counted since, adoption and
/// delivered rows only where they changed.
fn write_changing(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    rows: &StoreRows,
    known: Option<&KnownRows>,
) -> Result<KnownRows, Error> {
    let writes = rows.writes(known);
    if writes.replace_all {
        for table in ["sdsi_key_count", "sdsi_adoption", "sdsi_delivered"] {
            transaction.execute(
                &format!("DELETE FROM {table} WHERE scenario = $1"),
                &[&scenario],
            )?;
        }
    }
    let gone = &writes.counts_gone;
    if !gone.is_empty() {
        let scopes: Vec<&str> = gone.iter().map(|g| g.0.as_str()).collect();
        let names: Vec<&str> = gone.iter().map(|g| g.1.as_str()).collect();
        let metrics: Vec<&str> = gone.iter().map(|g| g.2.as_str()).collect();
        let days: Vec<i64> = gone.iter().map(|g| g.3).collect();
        transaction.execute(
            "DELETE FROM sdsi_key_count WHERE scenario = $1
             AND (scope, key_name, metric, day) IN (
                 SELECT * FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[], $5::BIGINT[]))",
            &[&scenario, &scopes, &names, &metrics, &days],
        )?;
    }
    let added = &writes.counts;
    if !added.is_empty() {
        let scopes: Vec<&str> = added.iter().map(|(r, _)| r.scope.as_str()).collect();
        let names: Vec<&str> = added.iter().map(|(r, _)| r.key_name.as_str()).collect();
        let metrics: Vec<&str> = added.iter().map(|(r, _)| r.metric.as_str()).collect();
        let days: Vec<i64> = added.iter().map(|(r, _)| r.day).collect();
        let by: Vec<i64> = added.iter().map(|(_, n)| *n).collect();
        transaction.execute(
            "INSERT INTO sdsi_key_count (scenario, scope, key_name, metric, day, count)
             SELECT $1, s, k, m, d, n
             FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[], $5::BIGINT[], $6::BIGINT[])
                 AS t(s, k, m, d, n)
             ON CONFLICT (scenario, scope, key_name, metric, day) DO UPDATE SET
                 count = sdsi_key_count.count + EXCLUDED.count",
            &[&scenario, &scopes, &names, &metrics, &days, &by],
        )?;
    }
    let gone = &writes.adoptions_gone;
    if !gone.is_empty() {
        let scopes: Vec<&str> = gone.iter().map(|g| g.0.as_str()).collect();
        let names: Vec<&str> = gone.iter().map(|g| g.1.as_str()).collect();
        let clients: Vec<&str> = gone.iter().map(|g| g.2.as_str()).collect();
        transaction.execute(
            "DELETE FROM sdsi_adoption WHERE scenario = $1 AND (scope, key_name, client) IN (
                 SELECT * FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[]))",
            &[&scenario, &scopes, &names, &clients],
        )?;
    }
    let changed = &writes.adoptions;
    if !changed.is_empty() {
        let scopes: Vec<&str> = changed.iter().map(|r| r.scope.as_str()).collect();
        let names: Vec<&str> = changed.iter().map(|r| r.key_name.as_str()).collect();
        let clients: Vec<&str> = changed.iter().map(|r| r.client.as_str()).collect();
        let delivered: Vec<Option<i64>> = changed.iter().map(|r| r.delivered_day).collect();
        let adopted: Vec<Option<i64>> = changed.iter().map(|r| r.adopted_day).collect();
        transaction.execute(
            "INSERT INTO sdsi_adoption
                 (scenario, scope, key_name, client, delivered_day, adopted_day)
             SELECT $1, s, k, c, d, a
             FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[], $5::BIGINT[], $6::BIGINT[])
                 AS t(s, k, c, d, a)
             ON CONFLICT (scenario, scope, key_name, client) DO UPDATE SET
                 delivered_day = EXCLUDED.delivered_day, adopted_day = EXCLUDED.adopted_day",
            &[&scenario, &scopes, &names, &clients, &delivered, &adopted],
        )?;
    }
    let gone = &writes.delivered_gone;
    if !gone.is_empty() {
        let clients: Vec<&str> = gone.iter().map(|g| g.0.as_str()).collect();
        let names: Vec<&str> = gone.iter().map(|g| g.1.as_str()).collect();
        transaction.execute(
            "DELETE FROM sdsi_delivered WHERE scenario = $1 AND (client, key_name) IN (
                 SELECT * FROM UNNEST($2::TEXT[], $3::TEXT[]))",
            &[&scenario, &clients, &names],
        )?;
    }
    let changed = &writes.delivered;
    if !changed.is_empty() {
        let clients: Vec<&str> = changed.iter().map(|r| r.client.as_str()).collect();
        let names: Vec<&str> = changed.iter().map(|r| r.key_name.as_str()).collect();
        let tags: Vec<&str> = changed.iter().map(|r| r.tag.as_str()).collect();
        transaction.execute(
            "INSERT INTO sdsi_delivered (scenario, client, key_name, tag)
             SELECT $1, c, k, t FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[]) AS u(c, k, t)
             ON CONFLICT (scenario, client, key_name) DO UPDATE SET tag = EXCLUDED.tag",
            &[&scenario, &clients, &names, &tags],
        )?;
    }
    Ok(writes.known)
}

fn write_patches(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    rows: &[PatchRow],
) -> Result<(), Error> {
    let ids: Vec<&str> = rows.iter().map(|r| r.patch_id.as_str()).collect();
    let clients: Vec<Option<&str>> = rows.iter().map(|r| r.client.as_deref()).collect();
    let statuses: Vec<&str> = rows.iter().map(|r| r.status.as_str()).collect();
    let positions: Vec<i64> = rows.iter().map(|r| r.position).collect();
    let bodies: Vec<&str> = rows.iter().map(|r| r.body.as_str()).collect();
    transaction.execute(
        "DELETE FROM sdsi_patch WHERE scenario = $1 AND NOT (patch_id = ANY($2))",
        &[&scenario, &ids],
    )?;
    transaction.execute(
        "INSERT INTO sdsi_patch (scenario, patch_id, client, status, position, body)
         SELECT $1, i, c, s, p, b
         FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[], $5::BIGINT[], $6::TEXT[])
             AS t(i, c, s, p, b)
         ON CONFLICT (scenario, patch_id) DO UPDATE SET
             client = EXCLUDED.client, status = EXCLUDED.status,
             position = EXCLUDED.position, body = EXCLUDED.body
         WHERE (sdsi_patch.client, sdsi_patch.status, sdsi_patch.position, sdsi_patch.body)
               IS DISTINCT FROM
               (EXCLUDED.client, EXCLUDED.status, EXCLUDED.position, EXCLUDED.body)",
        &[&scenario, &ids, &clients, &statuses, &positions, &bodies],
    )?;
    Ok(())
}

fn write_keys(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    rows: &[KeyRow],
) -> Result<(), Error> {
    let scopes: Vec<&str> = rows.iter().map(|r| r.scope.as_str()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r.key_name.as_str()).collect();
    let states: Vec<&str> = rows.iter().map(|r| r.state.as_str()).collect();
    let patches: Vec<&str> = rows.iter().map(|r| r.patch_id.as_str()).collect();
    let bodies: Vec<&str> = rows.iter().map(|r| r.body.as_str()).collect();
    transaction.execute(
        "DELETE FROM sdsi_key_record WHERE scenario = $1
         AND (scope, key_name) NOT IN (SELECT * FROM UNNEST($2::TEXT[], $3::TEXT[]))",
        &[&scenario, &scopes, &names],
    )?;
    transaction.execute(
        "INSERT INTO sdsi_key_record (scenario, scope, key_name, state, patch_id, body)
         SELECT $1, s, k, st, p, b
         FROM UNNEST($2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::TEXT[])
             AS t(s, k, st, p, b)
         ON CONFLICT (scenario, scope, key_name) DO UPDATE SET
             state = EXCLUDED.state, patch_id = EXCLUDED.patch_id, body = EXCLUDED.body
         WHERE (sdsi_key_record.state, sdsi_key_record.patch_id, sdsi_key_record.body)
               IS DISTINCT FROM (EXCLUDED.state, EXCLUDED.patch_id, EXCLUDED.body)",
        &[&scenario, &scopes, &names, &states, &patches, &bodies],
    )?;
    Ok(())
}

fn write_pending(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    rows: &[PendingRow],
) -> Result<(), Error> {
    let ids: Vec<&str> = rows.iter().map(|r| r.proposal.as_str()).collect();
    let held: Vec<i64> = rows.iter().map(|r| micros(r.held_at)).collect();
    let bodies: Vec<&str> = rows.iter().map(|r| r.body.as_str()).collect();
    transaction.execute(
        "DELETE FROM sdsi_pending WHERE scenario = $1 AND NOT (proposal = ANY($2))",
        &[&scenario, &ids],
    )?;
    transaction.execute(
        "INSERT INTO sdsi_pending (scenario, proposal, held_at, body)
         SELECT $1, p, to_timestamp(h / 1000000.0), b
         FROM UNNEST($2::TEXT[], $3::BIGINT[], $4::TEXT[]) AS t(p, h, b)
         ON CONFLICT (scenario, proposal) DO UPDATE SET
             held_at = EXCLUDED.held_at, body = EXCLUDED.body
         WHERE (sdsi_pending.held_at, sdsi_pending.body)
               IS DISTINCT FROM (EXCLUDED.held_at, EXCLUDED.body)",
        &[&scenario, &ids, &held, &bodies],
    )?;
    Ok(())
}

/// `at` in whole microseconds since the Unix epoch (PostgreSQL's precision).
fn micros(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos() / 1000).unwrap_or(i64::MAX)
}

impl PgState {
    /// The store's rows saved with `scenario`'s state by
    /// [`PgState::save_folded`] (tables `sdsi_patch`, `sdsi_key_record`,
    /// `sdsi_pending`, `sdsi_delivered`, `sdsi_key_count`, `sdsi_adoption`):
    /// its patches, key records, pending proposals, what each client was
    /// told, the metric counters and each key's clients,
    /// read in one snapshot without the pools — what a replica that only
    /// validates, a dashboard or an operator needs. `None` when nothing was
    /// saved, or when the state saved last did not write them (saved as
    /// bytes alone, or by a release before them): never rows older than
    /// the state. A pending proposal's `held_at` column keeps microseconds
    /// (its body keeps the time as written).
    pub fn store_rows(&mut self, scenario: &str) -> Result<Option<StoreRows>, Error> {
        let mut transaction = self
            .client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let current = transaction.query_opt(
            "SELECT 1 FROM sdsi_state JOIN sdsi_rows_version USING (scenario, version)
             WHERE scenario = $1",
            &[&scenario],
        )?;
        if current.is_none() {
            return Ok(None);
        }
        let rows = read_tables(&mut transaction, scenario)?;
        transaction.commit()?;
        Ok(Some(rows))
    }
}

/// `scenario`'s store rows as the tables hold them, in the store's order.
pub(crate) fn read_tables(
    transaction: &mut Transaction<'_>,
    scenario: &str,
) -> Result<StoreRows, Error> {
    let damaged = |message: String| Error::Damaged {
        scenario: scenario.to_owned(),
        message,
    };
    let mut rows = StoreRows::default();
    for row in transaction.query(
        "SELECT patch_id, client, status, position, body FROM sdsi_patch
             WHERE scenario = $1",
        &[&scenario],
    )? {
        let status: String = column(&row, "sdsi_patch", 2)?;
        let status = PatchStatus::parse(&status)
            .ok_or_else(|| damaged(format!("patch status {status:?}")))?;
        rows.patches.push(PatchRow::from_columns(
            column(&row, "sdsi_patch", 0)?,
            column(&row, "sdsi_patch", 1)?,
            status,
            column(&row, "sdsi_patch", 3)?,
            column(&row, "sdsi_patch", 4)?,
        ));
    }
    for row in transaction.query(
        "SELECT scope, key_name, state, patch_id, body FROM sdsi_key_record
             WHERE scenario = $1",
        &[&scenario],
    )? {
        let state: String = column(&row, "sdsi_key_record", 2)?;
        let state =
            KeyState::parse(&state).ok_or_else(|| damaged(format!("key state {state:?}")))?;
        rows.keys.push(KeyRow::from_columns(
            column(&row, "sdsi_key_record", 0)?,
            column(&row, "sdsi_key_record", 1)?,
            state,
            column(&row, "sdsi_key_record", 3)?,
            column(&row, "sdsi_key_record", 4)?,
        ));
    }
    for row in transaction.query(
        "SELECT proposal, (EXTRACT(EPOCH FROM held_at) * 1000000)::BIGINT, body
             FROM sdsi_pending WHERE scenario = $1",
        &[&scenario],
    )? {
        let held: i64 = column(&row, "sdsi_pending", 1)?;
        let held_at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(held) * 1000)
            .map_err(|e| damaged(format!("held_at {held} µs: {e}")))?;
        rows.pending.push(PendingRow::from_columns(
            column(&row, "sdsi_pending", 0)?,
            held_at,
            column(&row, "sdsi_pending", 2)?,
        ));
    }
    for row in transaction.query(
        "SELECT client, key_name, tag FROM sdsi_delivered WHERE scenario = $1",
        &[&scenario],
    )? {
        rows.delivered.push(DeliveredRow::from_columns(
            column(&row, "sdsi_delivered", 0)?,
            column(&row, "sdsi_delivered", 1)?,
            column(&row, "sdsi_delivered", 2)?,
        ));
    }
    for row in transaction.query(
        "SELECT scope, key_name, metric, day, count FROM sdsi_key_count
             WHERE scenario = $1",
        &[&scenario],
    )? {
        let metric: String = column(&row, "sdsi_key_count", 2)?;
        let metric = Metric::parse(&metric).ok_or_else(|| damaged(format!("metric {metric:?}")))?;
        rows.counts.push(CountRow::from_columns(
            column(&row, "sdsi_key_count", 0)?,
            column(&row, "sdsi_key_count", 1)?,
            metric,
            column(&row, "sdsi_key_count", 3)?,
            column(&row, "sdsi_key_count", 4)?,
        ));
    }
    for row in transaction.query(
        "SELECT scope, key_name, client, delivered_day, adopted_day FROM sdsi_adoption
             WHERE scenario = $1",
        &[&scenario],
    )? {
        rows.adoptions.push(AdoptionRow::from_columns(
            column(&row, "sdsi_adoption", 0)?,
            column(&row, "sdsi_adoption", 1)?,
            column(&row, "sdsi_adoption", 2)?,
            column(&row, "sdsi_adoption", 3)?,
            column(&row, "sdsi_adoption", 4)?,
        ));
    }
    rows.sort();
    Ok(rows)
}
