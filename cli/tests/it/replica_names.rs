//! Replicas' bookkeeping through `sdsi evolve --state postgresql://…`:
//! replicas started without `--replica` are each a replica of their own
//! (one shared name let the first to finish stop the watermark waiting for
//! the other), and a replica not heard of within `--replica-timeout` stops
//! holding the others back and leaves the replica table. Needs a
//! PostgreSQL server (`scripts/with-postgres.sh`).

use std::io::Write;
use std::process::Child;
use std::time::{Duration, Instant};

use crate::common::fixture;
use crate::replicas::{errors, evolve_from_stdin, fresh_database, output_of, server_url};
use serde_json::Value;

/// The first `count` lines of the hwu64 burst stream (in time order), and
/// its template's path.
fn stream(count: usize) -> (String, Vec<String>) {
    let dir = fixture("bursts/hwu64");
    let lines = std::fs::read_to_string(format!("{dir}/events.jsonl"))
        .unwrap()
        .lines()
        .take(count)
        .map(|l| format!("{l}\n"))
        .collect();
    (format!("{dir}/template.json"), lines)
}

/// The rows of the `support` scenario's replica table, by name (none
/// while the first replica has not made the table yet).
fn replica_rows(url: &str) -> Vec<String> {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .query(
            "SELECT replica FROM sdsi_replica WHERE scenario = 'support' ORDER BY replica",
            &[],
        )
        .unwrap_or_default()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// Waits up to ten seconds for the replica table to hold `count` rows,
/// and returns what it holds then.
fn await_rows(url: &str, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let rows = replica_rows(url);
        if rows.len() >= count || Instant::now() > deadline {
            return rows;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Writes `lines` to the replica.
fn write(child: &mut Child, lines: &[String]) {
    let stdin = child.stdin.as_mut().unwrap();
    for line in lines {
        stdin.write_all(line.as_bytes()).unwrap();
    }
    stdin.flush().unwrap();
}

/// Writes `lines` to the replica and closes its input.
fn feed(child: &mut Child, lines: &[String]) {
    write(child, lines);
    drop(child.stdin.take());
}

/// The last line a replica printed: its summary.
fn summary(stdout: &str) -> Value {
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

/// Two replicas without `--replica` (a replica joins once its first
/// line arrives): each is a row of its own, and the one that finishes
/// first folds nothing while the other, which has appended nothing yet,
/// may still send older lines; the other then folds every line in time
/// order.
#[test]
fn two_unnamed_replicas_are_both_waited_for() {
    let Some(url) = server_url() else { return };
    let url = fresh_database(&url, "sdsi_cli_unnamed");
    let (template, lines) = stream(200);
    let (early, late) = lines.split_at(100);
    let args = ["--schema", template.as_str(), "--state", url.as_str()];
    let mut slow = evolve_from_stdin(&args);
    write(&mut slow, &early[..1]);
    assert_eq!(await_rows(&url, 1).len(), 1, "the first replica joined");
    let mut fast = evolve_from_stdin(&args);
    feed(&mut fast, late);
    let (code, stdout, stderr) = output_of(fast);
    assert_eq!(code, Some(0), "{stderr}\n{stdout}");
    let first = summary(&stdout);
    assert_eq!(first["observations_logged"], 100, "{first}");
    assert_eq!(
        first["observations_folded"], 0,
        "the other replica may still send older lines: {first}"
    );
    let rows = replica_rows(&url);
    assert_eq!(rows.len(), 2, "one row per unnamed replica: {rows:?}");

    feed(&mut slow, &early[1..]);
    let (code, stdout, stderr) = output_of(slow);
    assert_eq!(code, Some(0), "{stderr}\n{stdout}");
    let last = summary(&stdout);
    assert_eq!(last["observations_folded"], 200, "{last}");
    assert_eq!(errors(&stdout), Vec::<String>::new());
    assert_ne!(first["replica"], last["replica"]);
    assert_ne!(first["replica"], "main");
}

/// A replica that joined and then went quiet holds the others back only
/// for `--replica-timeout`; after that the folding replica folds without
/// it and deletes its row. Its line, sent at the end, is folded late.
#[test]
fn a_replica_not_heard_of_within_the_timeout_is_forgotten() {
    let Some(url) = server_url() else { return };
    let url = fresh_database(&url, "sdsi_cli_timeout");
    let (template, lines) = stream(50);
    let mut quiet =
        evolve_from_stdin(&["--schema", &template, "--state", &url, "--replica", "quiet"]);
    write(&mut quiet, &lines[..1]);
    assert_eq!(await_rows(&url, 1), ["quiet"]);
    std::thread::sleep(Duration::from_millis(1500));
    let mut busy = evolve_from_stdin(&[
        "--schema",
        &template,
        "--state",
        &url,
        "--replica",
        "busy",
        "--replica-timeout",
        "1s",
    ]);
    feed(&mut busy, &lines[1..]);
    let (code, stdout, stderr) = output_of(busy);
    assert_eq!(code, Some(0), "{stderr}\n{stdout}");
    assert_eq!(summary(&stdout)["observations_folded"], 49, "{stdout}");
    assert_eq!(
        replica_rows(&url),
        ["busy"],
        "the quiet replica's row is gone"
    );
    feed(&mut quiet, &[]);
    let (code, stdout, stderr) = output_of(quiet);
    assert_eq!(code, Some(0), "{stderr}\n{stdout}");
    assert_eq!(summary(&stdout)["observations_folded"], 1, "{stdout}");
}
