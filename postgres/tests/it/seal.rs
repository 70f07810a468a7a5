//! A sealed state (a store that requires signatures) put back from an
//! older save, its header with its rows, against a real PostgreSQL server
//! (`scripts/with-postgres.sh`).

use crate::common::server;

use sdsi::evolution::Evolution;
use sdsi::patch::{HoldReason, PendingProposal, SealError, SealPin, Signer};
use sdsi_postgres::{Error, PgState};
use serde_json::json;
use time::macros::datetime;

/// The scenario, also the store's own (a sealed load checks they match).
const SCENARIO: &str = "seal-rollback";

/// The tables with a `scenario` column: everything a save writes.
fn tables(client: &mut postgres::Client) -> Vec<String> {
    client
        .query(
            "SELECT table_name::TEXT FROM information_schema.columns
             WHERE column_name = 'scenario' AND table_name LIKE 'sdsi_%'
                 AND table_schema = current_schema()",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// Someone who can write the database keeps a copy of the scenario's rows
/// after save 1 and puts it back after save 2: a loader that saw save 2
/// refuses it, whether it remembers it (the same connection) or is given
/// it (a pin, after a restart), so the denied proposal and the expired
/// patch do not come back; a loader that remembers nothing cannot tell.
#[test]
fn an_older_sealed_state_put_back_is_refused() {
    let Some(params) = server() else { return };
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let template = sdsi::SchemaTemplate::from_value(&json!({
        "schema_id": "s", "scenario": SCENARIO, "keys": [
            {"key_name": "origin", "key_type": "string", "required": true,
             "semantic_description": "Departure airport code"}]}))
    .unwrap();
    let mut s = sdsi::SchemaStore::new(template, sdsi::patch::LifecyclePolicy::default())
        .unwrap()
        .require_signatures(signer.clone());
    let mut e = Evolution::default();
    for i in 0..80 {
        let message = json!({"schema_id": "s",
            "payload": {"origin": "PEK", "other": "window seat please"}});
        let now = datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(15 * i);
        let client = format!("agent-{}", i % 8);
        sdsi::evolution::EvolutionEngine::observe(&mut e, &mut s, &message, &client, now);
    }
    assert!(s.patches().count() > 0, "the burst proposed a key");
    let at = datetime!(2026-05-02 0:00 UTC);
    let card = sdsi::patch::SchemaPatch::new("card", "s", at, at + time::Duration::days(30));
    let held = PendingProposal::new(card, HoldReason::Sensitive, "a payment key", at);
    s.hold(held).unwrap();

    let mut raw = postgres::Client::connect(&params, postgres::NoTls).unwrap();
    let mut db = PgState::connect(&params).unwrap();
    raw.execute("DELETE FROM sdsi_state WHERE scenario = $1", &[&SCENARIO])
        .unwrap();
    let v1 = db
        .save_folded(SCENARIO, None, 80, &s, &e.state(), &[], &[], None)
        .unwrap();
    let tables = tables(&mut raw);
    assert!(tables.len() > 5, "{tables:?}");
    for table in &tables {
        raw.batch_execute(&format!(
            "DROP TABLE IF EXISTS backup_{table};
             CREATE TABLE backup_{table} AS SELECT * FROM {table} WHERE scenario = '{SCENARIO}';"
        ))
        .unwrap();
    }

    // Save 2: the proposal denied, the burst's patches expired.
    let later = datetime!(2026-08-01 0:00 UTC);
    s.deny("card", "ops", "no card data", later).unwrap();
    s.evaluate_after_pause(later, &sdsi::patch::DenySensitive);
    assert_eq!(s.patches().count(), 0);
    let v2 = db
        .save_folded(SCENARIO, Some(v1), 81, &s, &e.state(), &[], &[], None)
        .unwrap();
    let saved = PgState::connect(&params)
        .unwrap()
        .load_saved_sealed(SCENARIO, signer.clone(), SealPin::at_least(v2))
        .unwrap()
        .unwrap();
    assert_eq!((saved.version, saved.cursor), (v2, 81));
    assert_eq!(saved.store.pending().count(), 0);
    assert_eq!(saved.store.denials().count(), 1);
    assert_eq!(saved.engine, e.state());

    for table in &tables {
        raw.batch_execute(&format!(
            "DELETE FROM {table} WHERE scenario = '{SCENARIO}';
             INSERT INTO {table} SELECT * FROM backup_{table};
             DROP TABLE backup_{table};"
        ))
        .unwrap();
    }
    let rolled_back = |result: Result<Option<sdsi_postgres::Saved>, Error>| {
        matches!(
            result,
            Err(Error::Seal {
                error: SealError::RolledBack {
                    found: 1,
                    expected_at_least: 2
                },
                ..
            })
        )
    };
    // The connection that saved version 2 remembers it.
    assert!(rolled_back(db.load_saved_sealed(
        SCENARIO,
        signer.clone(),
        SealPin::NONE
    )));
    // After a restart, the pin the application kept.
    let mut restarted = PgState::connect(&params).unwrap();
    let pinned = SealPin::at_least(v2);
    assert!(rolled_back(restarted.load_saved_sealed(
        SCENARIO,
        signer.clone(),
        pinned
    )));
    // A loader with no memory and no pin takes it: the denied proposal is
    // pending again (the limit docs/patches.md states).
    let old = PgState::connect(&params)
        .unwrap()
        .load_saved_sealed(SCENARIO, signer, SealPin::NONE)
        .unwrap()
        .unwrap();
    assert_eq!((old.version, old.store.pending().count()), (1, 1));
}
