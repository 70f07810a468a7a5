//! `sdsi evolve --state postgresql://… --replica NAME -`: three replica
//! processes fed one stream as a load balancer would (each line to one
//! replica, in time order, paced, not in lockstep), one of them killed and
//! restarted, propose what one process over the whole stream proposes, with
//! no error and every line counted once. Needs a PostgreSQL server
//! (`scripts/with-postgres.sh`, as the README's test command runs it).

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::fixture;
use serde_json::Value;

/// The server as a URL (`SDSI_TEST_POSTGRES` holds libpq key-value pairs),
/// or `None` when no server was started (skipped, loudly; fails under
/// `SDSI_REQUIRE_POSTGRES`).
pub(crate) fn server_url() -> Option<String> {
    let Ok(params) = std::env::var("SDSI_TEST_POSTGRES") else {
        assert!(
            std::env::var_os("SDSI_REQUIRE_POSTGRES").is_none(),
            "SDSI_REQUIRE_POSTGRES is set but SDSI_TEST_POSTGRES is not"
        );
        eprintln!("skipped: no PostgreSQL server (run through scripts/with-postgres.sh)");
        return None;
    };
    let field = |name: &str| param(&params, name);
    Some(format!(
        "postgresql://{}@localhost:{}/{}?host={}",
        field("user"),
        field("port"),
        field("dbname"),
        field("host")
    ))
}

/// The value of `name` in a libpq key-value string.
pub(crate) fn param(params: &str, name: &str) -> String {
    params
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap()
        .to_owned()
}

/// A fresh database on the server, so runs do not share a log.
pub(crate) fn fresh_database(url: &str, name: &str) -> String {
    let mut admin = postgres::Client::connect(url, postgres::NoTls).unwrap();
    // Two statements: neither may run inside a transaction block.
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let (head, query) = url.split_once('?').unwrap();
    let (server, _) = head.rsplit_once('/').unwrap();
    format!("{server}/{name}?{query}")
}

/// The keys proposed or held, in order, from JSON lines of output.
pub(crate) fn keys(output: &str) -> Vec<(String, String)> {
    output
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "proposed" || e["event"] == "held")
        .flat_map(|e| {
            let event = e["event"].as_str().unwrap().to_owned();
            e["patch"]["new_keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| (event.clone(), k["key_name"].as_str().unwrap().to_owned()))
                .collect::<Vec<_>>()
        })
        .collect()
}

pub(crate) fn errors(output: &str) -> Vec<String> {
    output
        .lines()
        .filter(|l| l.contains("\"event\":\"error\""))
        .map(str::to_owned)
        .collect()
}

fn replica(template: &str, url: &str, name: &str) -> Child {
    evolve_from_stdin(&["--schema", template, "--state", url, "--replica", name])
}

/// `sdsi evolve ARGS -`, its standard input, output and error piped.
pub(crate) fn evolve_from_stdin(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .arg("evolve")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub(crate) fn output_of(child: Child) -> (Option<i32>, String, String) {
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// A tiny deterministic generator, so the dealing is the same every run.
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

#[test]
fn three_replicas_one_killed_propose_what_one_process_does() {
    let Some(url) = server_url() else { return };
    let dir = fixture("bursts/banking77");
    let (template, events) = (
        format!("{dir}/template.json"),
        format!("{dir}/events.jsonl"),
    );
    let lines: Vec<String> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();

    // One process over the whole stream, with no database.
    let alone = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(["evolve", "--schema", &template, &events])
        .output()
        .unwrap();
    let alone = String::from_utf8(alone.stdout).unwrap();
    let expected = keys(&alone);
    assert!(
        expected.len() >= 3,
        "the control run proposes: {expected:?}"
    );

    // Three replicas; the second is killed a third of the way through and
    // restarted, fed again everything it had been dealt (a load balancer
    // retrying what it cannot know was received).
    let url = fresh_database(&url, "sdsi_cli_replicas");
    let mut children: Vec<Child> = (0..3)
        .map(|r| replica(&template, &url, &format!("r{r}")))
        .collect();
    let mut dealt: Vec<Vec<&str>> = vec![Vec::new(); 3];
    let mut outputs = Vec::new();
    let mut seed = 7;
    for (i, line) in lines.iter().enumerate() {
        if i == lines.len() / 3 {
            let mut killed = children.remove(1);
            killed.kill().unwrap();
            let (_, stdout, _) = output_of(killed);
            outputs.push(stdout);
            let mut again = replica(&template, &url, "r1");
            let stdin = again.stdin.as_mut().unwrap();
            for old in &dealt[1] {
                stdin.write_all(old.as_bytes()).unwrap();
            }
            children.insert(1, again);
        }
        let to = usize::try_from(next(&mut seed) % 3).unwrap();
        children[to]
            .stdin
            .as_mut()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        dealt[to].push(line);
        if i % 16 == 0 {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    for child in &mut children {
        drop(child.stdin.take());
    }
    let mut summaries = Vec::new();
    for child in children {
        let (code, stdout, stderr) = output_of(child);
        assert_eq!(code, Some(0), "{stderr}\n{stdout}");
        summaries.push(serde_json::from_str::<Value>(stdout.lines().last().unwrap()).unwrap());
        outputs.push(stdout);
    }
    let all = outputs.concat();
    assert_eq!(errors(&all), Vec::<String>::new());
    // The same keys, each proposed once between the replicas.
    let mut got = keys(&all);
    let mut want = expected.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "summaries: {summaries:?}");
    // Every line counted once: the restarted replica's repeats were known.
    let mut db = sdsi_postgres::PgState::connect(&url).unwrap();
    let scenario = serde_json::from_str::<Value>(&std::fs::read_to_string(&template).unwrap())
        .unwrap()["scenario"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        db.log_counts(&scenario).unwrap(),
        (u64::try_from(lines.len()).unwrap(), 0)
    );
    let restarted = &summaries[1];
    assert_eq!(
        restarted["already_logged"].as_u64().unwrap()
            + restarted["observations_logged"].as_u64().unwrap(),
        u64::try_from(dealt[1].len()).unwrap(),
        "{restarted}"
    );
}

/// `--state` over TLS: the URL asks for it and names the CA.
#[test]
fn a_replica_connects_over_tls_when_the_url_asks() {
    let Ok(params) = std::env::var("SDSI_TEST_POSTGRES_TLS") else {
        assert!(
            std::env::var_os("SDSI_REQUIRE_POSTGRES").is_none(),
            "SDSI_REQUIRE_POSTGRES is set but SDSI_TEST_POSTGRES_TLS is not"
        );
        eprintln!("skipped: no TLS PostgreSQL server");
        return;
    };
    let field = |name: &str| param(&params, name);
    let url = format!(
        "postgresql://postgres@localhost:{}/postgres?sslmode=require&sslrootcert={}",
        field("port"),
        field("sslrootcert")
    );
    let dir = fixture("bursts/hwu64");
    let output = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args([
            "evolve",
            "--schema",
            &format!("{dir}/template.json"),
            "--state",
            &url,
        ])
        .arg(format!("{dir}/events.jsonl"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(!keys(&stdout).is_empty(), "{stdout}");
    // Without the CA the server is not trusted: nothing is read or written.
    let untrusted = url.split("&sslrootcert").next().unwrap().to_owned();
    let refused = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args([
            "evolve",
            "--schema",
            &format!("{dir}/template.json"),
            "--state",
            &untrusted,
        ])
        .arg(format!("{dir}/events.jsonl"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8(refused.stdout).unwrap();
    assert!(said.contains("the state database"), "{said}");
}
