//! `sdsi compat`: every data-driven case of `tests/cases/compat.json`
//! through the binary, with exit status 0 compatible / 1 breaking / 2
//! unusable.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers: a panic is a failed test"
)]

mod common;

use common::run_with_stdin;
use serde_json::{Value, json};

fn sdsi(args: &[String]) -> (i32, Value) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run_with_stdin(&args, b"");
    let value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    (run.code, value)
}

#[test]
fn every_compat_case_through_the_binary() {
    let cases = format!("{}/../tests/cases/compat.json", env!("CARGO_MANIFEST_DIR"));
    let groups: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(cases).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("sdsi-compat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (g, group) in groups.iter().enumerate() {
        let mut files = Vec::new();
        let versions = group["history"]
            .as_array()
            .unwrap()
            .iter()
            .chain([&group["new"]]);
        for (v, template) in versions.enumerate() {
            let path = dir.join(format!("{g}-{v}.json"));
            std::fs::write(&path, template.to_string()).unwrap();
            files.push(path.display().to_string());
        }
        for case in group["cases"].as_array().unwrap() {
            let mut args = vec![
                "compat".to_owned(),
                "--mode".to_owned(),
                case["mode"].as_str().unwrap().to_owned(),
            ];
            args.extend(files.iter().cloned());
            let (code, out) = sdsi(&args);
            let compatible = case["compatible"].as_bool().unwrap();
            assert_eq!(
                code,
                if compatible { 0 } else { 1 },
                "{}: {out}",
                group["description"]
            );
            assert_eq!(out["compatible"], compatible);
            let got: Vec<Value> = out["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| json!([c["code"], c["path"], c["direction"]]))
                .collect();
            assert_eq!(
                &got,
                case["changes"].as_array().unwrap(),
                "{}",
                group["description"]
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unusable_input_exits_2() {
    let template = format!(
        "{}/tests/fixtures/flight_template.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, out) = sdsi(&[
        "compat".into(),
        template.clone(),
        "/nonexistent/new.json".into(),
    ]);
    assert_eq!(code, 2);
    assert_eq!(out["errors"][0]["code"], "unreadable_input");
    // One template is not a comparison.
    let (code, _) = sdsi(&["compat".into(), template]);
    assert_eq!(code, 2);
}
