//! A fold's time bounds against a real PostgreSQL server
//! (`scripts/with-postgres.sh`): a row dated far past the evaluator's clock
//! is refused and deleted, and the log forgets nothing because of it.

use crate::common::server;
use std::time::Duration;

use sdsi::evolution::Evolution;
use sdsi_postgres::{Horizon, Logged, PgState, Watch};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;

fn logged(id: &str, at: OffsetDateTime) -> Logged {
    let message = json!({"schema_id": "s", "payload": {"origin": "PEK", "other": "a window seat"}});
    Logged::new(
        id,
        "hashing",
        Evolution::default().observation(&message, "agent-1", at),
    )
}

/// An evaluator at 10:00 folds rows of 8:00 and 9:00 and a row dated 9999:
/// that one is refused and deleted with the save, the others are kept for
/// the retention, so retrying them counts nothing; without the bound the
/// 9999 row would have made the save forget both.
#[test]
fn a_far_future_row_is_refused_and_forgets_nothing() {
    let Some(params) = server() else { return };
    let key = "horizon/s";
    let mut db = PgState::connect(&params).unwrap();
    db.join(key, "r").unwrap();
    let far = datetime!(9999-01-01 0:00 UTC);
    db.append(
        key,
        "r",
        &[
            logged("far", far),
            logged("a", datetime!(2026-05-01 8:00 UTC)),
            logged("b", datetime!(2026-05-01 9:00 UTC)),
        ],
    )
    .unwrap();
    db.finish(key, "r").unwrap();
    let watch = Watch::new(Duration::from_secs(3600), Duration::ZERO);
    let rows = db.unfolded(key, 100, watch).unwrap();
    let mut horizon = Horizon::new(
        datetime!(2026-05-01 10:00 UTC),
        time::Duration::days(30),
        time::Duration::days(7),
    );
    let mut refused = Vec::new();
    for row in &rows {
        let at = row.observation.as_ref().unwrap().at;
        match horizon.admit(at) {
            Ok(()) => horizon.counted(at),
            Err(ahead) => refused.push(ahead.at),
        }
    }
    assert_eq!(refused, [far]);
    let (store, engine) = {
        let template = sdsi::SchemaTemplate::from_value(&json!({
            "schema_id": "s", "scenario": "s", "keys": []}))
        .unwrap();
        let store =
            sdsi::SchemaStore::new(template, sdsi::patch::LifecyclePolicy::default()).unwrap();
        (store, Evolution::default().state())
    };
    let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
    db.save_folded(key, None, 0, &store, &engine, &seqs, &[], Some(&horizon))
        .unwrap();
    assert_eq!(
        db.log_counts(key).unwrap(),
        (2, 0),
        "the refused row is gone"
    );
    let retried = db
        .append(key, "r", &[logged("a", datetime!(2026-05-01 8:00 UTC))])
        .unwrap();
    assert_eq!(retried, 0, "a retry of a kept row counts once");
}
