//! What the CLI's test binaries share: the fixtures and a run of the real
//! `sdsi` binary with some standard input.

#![allow(dead_code, reason = "each test binary uses part of it")]

use std::io::Write;
use std::process::{Command, Stdio};

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

/// A valid (Luhn) card number, different for every seed.
pub fn card_number(seed: usize) -> String {
    let mut digits: Vec<u32> = (0..15)
        .map(|i| ((seed * 7919 + i * 104_729) % 10) as u32)
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
/// directory, per process).
pub fn fresh_dir(what: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sdsi-cli-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create a test directory");
    d
}
