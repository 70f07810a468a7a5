//! The replica table against a real PostgreSQL server
//! (`scripts/with-postgres.sh`): a replica not heard of stops holding the
//! watermark back and its row goes, and a replica that joins again under
//! its name is counted again.

use crate::common::server;
use std::time::Duration;

use sdsi::evolution::Evolution;
use sdsi_postgres::{Logged, PgState, Watch};
use serde_json::json;
use time::macros::datetime;

/// A message's observation, `minutes` after 8:00.
fn logged(id: &str, minutes: i64) -> Logged {
    let at = datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(minutes);
    let message = json!({"schema_id": "s", "payload": {"origin": "PEK", "other": "a window seat"}});
    Logged::new(
        id,
        "hashing",
        Evolution::default().observation(&message, "agent-1", at),
    )
}

/// The names in `scenario`'s replica table.
fn replicas(params: &str, scenario: &str) -> Vec<String> {
    let mut client = postgres::Client::connect(params, postgres::NoTls).unwrap();
    client
        .query(
            "SELECT replica FROM sdsi_replica WHERE scenario = $1 ORDER BY replica",
            &[&scenario],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

const FOREVER: Watch = Watch::new(Duration::from_secs(3600), Duration::ZERO);

/// A replica that joined and was never heard of again (it died before
/// appending anything) holds the fold back only until `heard_within`
/// passes; then its row is deleted, and so is a finished replica's. A
/// replica that joins again under the same name holds the fold back again.
#[test]
fn a_stale_replica_stops_holding_the_watermark_and_its_row_goes() {
    let Some(params) = server() else { return };
    let key = "bookkeeping-stale/s";
    let mut db = PgState::connect(&params).unwrap();
    db.join(key, "died").unwrap();
    db.join(key, "done").unwrap();
    db.join(key, "live").unwrap();
    db.append(key, "live", &[logged("a", 0), logged("b", 5)])
        .unwrap();
    db.finish(key, "done").unwrap();
    assert!(db.unfolded(key, 100, FOREVER).unwrap().is_empty());
    assert_eq!(replicas(&params, key), ["died", "done", "live"]);

    std::thread::sleep(Duration::from_millis(1100));
    db.heartbeat(key, "live").unwrap();
    let brief = Watch::new(Duration::from_secs(1), Duration::ZERO);
    assert_eq!(db.unfolded(key, 100, brief).unwrap().len(), 2);
    assert_eq!(replicas(&params, key), ["live"], "the stale rows are gone");

    // Restarted under its name, a replica is counted again.
    db.join(key, "died").unwrap();
    assert!(db.unfolded(key, 100, brief).unwrap().is_empty());
    db.append(key, "died", &[logged("c", 7)]).unwrap();
    assert_eq!(db.unfolded(key, 100, brief).unwrap().len(), 2);
    assert_eq!(replicas(&params, key), ["died", "live"]);
}
