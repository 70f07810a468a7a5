//! Message times against the database's clock through `sdsi evolve --state
//! postgresql://…`: a line dated in the far future is refused by the fold
//! (an error event, exit 1), is not counted, and does not make the log
//! forget what it holds, so a line retried later still counts once. Needs
//! a PostgreSQL server (`scripts/with-postgres.sh`).

use std::process::Child;

use crate::common::fixture;
use crate::replicas::{errors, evolve_from_stdin, fresh_database, keys, output_of, server_url};
use serde_json::Value;

/// Runs replica `name` over `lines` to the end of its input: its exit
/// code, output and summary.
fn run(url: &str, template: &str, lines: &[String], name: &str) -> (Option<i32>, String, Value) {
    let mut child: Child =
        evolve_from_stdin(&["--schema", template, "--state", url, "--replica", name]);
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for line in lines {
            stdin.write_all(line.as_bytes()).unwrap();
        }
    }
    let (code, stdout, stderr) = output_of(child);
    let summary = serde_json::from_str(stdout.lines().last().unwrap())
        .unwrap_or_else(|e| panic!("{e}: {stderr}\n{stdout}"));
    (code, stdout, summary)
}

/// The messages the shared store counted for the `support` scenario.
fn messages_counted(url: &str) -> i64 {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .query_one(
            "SELECT COALESCE(SUM(count), 0)::BIGINT FROM sdsi_key_count
             WHERE scenario = 'support' AND metric = 'messages' AND scope = 'global'",
            &[],
        )
        .unwrap()
        .get(0)
}

/// A line dated 9999 first and another mid-stream: the run proposes and
/// counts what a clean run over the other lines does, refuses the two
/// (one error each), and keeps the folded log, so an earlier line sent
/// again is recognised rather than counted twice.
#[test]
fn a_far_future_line_is_refused_and_the_log_forgets_nothing() {
    let Some(url) = server_url() else { return };
    let dir = fixture("bursts/hwu64");
    let template = format!("{dir}/template.json");
    let lines: Vec<String> = std::fs::read_to_string(format!("{dir}/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    let far = |date: &str| {
        format!(
            "{{\"at\": \"{date}T00:00:00Z\", \"client\": \"agent-1\", \"message\": \
             {{\"schema_id\": \"support_v1\", \"payload\": {{\"other\": \"cancel my transfer\"}}}}}}\n"
        )
    };

    let clean_url = fresh_database(&url, "sdsi_cli_clock_clean");
    let (code, clean, clean_summary) = run(&clean_url, &template, &lines, "r");
    assert_eq!(code, Some(0), "{clean}");
    assert!(!keys(&clean).is_empty(), "the clean run proposes: {clean}");

    let dirty_url = fresh_database(&url, "sdsi_cli_clock_dirty");
    let half = lines.len() / 2;
    let mut dirty_lines = vec![far("9999-01-01")];
    dirty_lines.extend_from_slice(&lines[..half]);
    dirty_lines.push(far("9999-06-01"));
    dirty_lines.extend_from_slice(&lines[half..]);
    let (code, dirty, summary) = run(&dirty_url, &template, &dirty_lines, "r");
    assert_eq!(code, Some(1), "a refused line is an error: {dirty}");
    let refused = errors(&dirty);
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused.iter().all(|e| e.contains("refused")), "{refused:?}");
    assert_eq!(summary["refused_log_rows"], 2, "{summary}");

    let mut want = keys(&clean);
    let mut got = keys(&dirty);
    want.sort();
    got.sort();
    assert_eq!(got, want);
    for count in [
        "triggers",
        "patches_proposed",
        "patches_held",
        "observations_folded",
    ] {
        assert_eq!(summary[count], clean_summary[count], "{count}: {summary}");
    }
    let counted = messages_counted(&clean_url);
    assert_eq!(messages_counted(&dirty_url), counted);
    let total = u64::try_from(lines.len()).unwrap();
    let mut db = sdsi_postgres::PgState::connect(&dirty_url).unwrap();
    assert_eq!(
        db.log_counts("support").unwrap(),
        (total, 0),
        "every line kept, the refused ones gone"
    );

    // An earlier line sent again (a load balancer's retry) counts once.
    let (code, again, retried) = run(&dirty_url, &template, &lines[5..6], "r");
    assert_eq!(code, Some(0), "{again}");
    assert_eq!(retried["already_logged"], 1, "{retried}");
    assert_eq!(retried["observations_folded"], 0, "{retried}");
    assert_eq!(messages_counted(&dirty_url), counted);
}
