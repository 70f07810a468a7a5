//! What the test modules share: the fixtures, runs of the real `sdsi`
//! binary and the readings of what it printed, a log line, a card number,
//! a scratch directory, and the model directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;

/// A fixture in `cli/tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What one run printed and how it exited.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `sdsi args...` with nothing on standard input.
pub fn sdsi(args: &[&str]) -> Run {
    run_with_stdin(args, b"")
}

/// Runs `sdsi args...` with `stdin` written from a thread (the binary may
/// stop reading early, at a size limit).
pub fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sdsi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sdsi");
    let mut pipe = child.stdin.take().expect("stdin piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for sdsi");
    writer.join().expect("stdin writer");
    Run {
        code: output.status.code().expect("exited normally"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

impl Run {
    /// Stdout parsed as one JSON value; `null` when it is not JSON (a usage
    /// error prints nothing there).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or(Value::Null)
    }

    /// Every line of stdout, each parsed as JSON (JSON Lines).
    pub fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    /// Stdout parsed as one JSON object on one line whose members are
    /// exactly `members`, printed in that order, every entry of its
    /// `errors` and `warnings` an issue `{"code", "path", "message"}`.
    pub fn object(&self, members: &[&str]) -> Value {
        assert_eq!(
            self.stdout.matches('\n').count(),
            1,
            "compact output is one line: {:?}",
            self.stdout
        );
        let value: Value = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.stdout));
        let object = value.as_object().expect("stdout is a JSON object");
        let names: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut sorted = members.to_vec();
        sorted.sort_unstable();
        assert_eq!(names, sorted, "top-level members of {}", self.stdout);
        // serde_json's map sorts keys: check the printed order separately.
        let positions: Vec<usize> = members
            .iter()
            .map(|m| {
                self.stdout
                    .find(&format!("\"{m}\":"))
                    .expect("member printed")
            })
            .collect();
        assert!(
            positions.is_sorted(),
            "members in documented order: {}",
            self.stdout
        );
        for list in ["errors", "warnings"] {
            for issue in value[list].as_array().into_iter().flatten() {
                assert_issue(issue);
            }
        }
        value
    }
}

/// Runs `sdsi args...`; the exit code and the JSON lines it printed.
pub fn json_lines(args: &[&str]) -> (i32, Vec<Value>) {
    let run = sdsi(args);
    (run.code, run.lines())
}

/// Runs `sdsi args...` with `stdin`; the exit code and stdout as JSON
/// (`null` when it is not).
pub fn json_object(args: &[&str], stdin: &[u8]) -> (i32, Value) {
    let run = run_with_stdin(args, stdin);
    (run.code, run.json())
}

/// Runs `sdsi args...` with `stdin`; the exit code and stdout checked by
/// [`Run::object`] against `members`.
pub fn checked(args: &[&str], stdin: &[u8], members: &[&str]) -> (i32, Value) {
    let run = run_with_stdin(args, stdin);
    let value = run.object(members);
    (run.code, value)
}

/// Fails unless `issue` is `{"code", "path", "message"}` with string values.
pub fn assert_issue(issue: &Value) {
    for member in ["code", "path", "message"] {
        assert!(issue[member].is_string(), "{issue} has no string {member}");
    }
}

/// The `(code, path)` of every issue in `list`.
pub fn codes(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .expect("an array of issues")
        .iter()
        .map(|issue| {
            (
                issue["code"].as_str().expect("code").to_owned(),
                issue["path"].as_str().expect("path").to_owned(),
            )
        })
        .collect()
}

/// `(code, path)` pairs to compare with [`codes`].
pub fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(c, p)| ((*c).to_owned(), (*p).to_owned()))
        .collect()
}

/// A log line for `sdsi evolve`: `other` (the flight template's free text)
/// from `client`, `minutes` after 2026-05-01 08:00 UTC.
pub fn log_line(minutes: i64, client: &str, other: &str) -> String {
    let at = time::macros::datetime!(2026-05-01 8:00 UTC) + time::Duration::minutes(minutes);
    json!({
        "at": at.format(&Rfc3339).unwrap(),
        "client": client,
        "message": {"schema_id": "flight_booking_v1", "payload": {
            "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04",
            "other": other}}
    })
    .to_string()
}

/// A valid (Luhn) card number of 16 digits, different for every seed.
pub fn card_number(seed: usize) -> String {
    // `seed / 7` breaks the cycle of ten the products alone would repeat.
    let mut digits: Vec<u32> = (0..15)
        .map(|i| ((seed * 7919 + i * 104_729 + seed / 7) % 10) as u32)
        .collect();
    digits[0] = 5;
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| match (i % 2, d * 2) {
            (0, doubled) if doubled > 9 => doubled - 9,
            (0, doubled) => doubled,
            _ => d,
        })
        .sum();
    digits.push((10 - sum % 10) % 10);
    digits
        .iter()
        .map(|d| char::from_digit(*d, 10).unwrap())
        .collect()
}

/// A fresh, empty directory for one test (`sdsi-cli-{what}` in the temp
/// directory, per process): `what` names the module and the test, since
/// every module runs in one process.
pub fn fresh_dir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sdsi-cli-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create a test directory");
    d
}

/// The model directory (`SDSI_MODEL_DIR`, set by scripts/test.sh), or
/// `None` after saying the test is skipped; with `SDSI_REQUIRE_MODEL` set
/// (as CI sets it) a missing directory fails the test instead.
pub fn model_dir() -> Option<String> {
    let Some(model) = std::env::var_os("SDSI_MODEL_DIR") else {
        assert!(
            std::env::var_os("SDSI_REQUIRE_MODEL").is_none(),
            "SDSI_REQUIRE_MODEL is set but SDSI_MODEL_DIR is not"
        );
        eprintln!("skipped: SDSI_MODEL_DIR is not set (scripts/fetch-model.sh)");
        return None;
    };
    Some(model.into_string().expect("a UTF-8 model path"))
}
