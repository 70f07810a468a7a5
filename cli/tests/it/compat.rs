//! `sdsi check-compat`: every data-driven case of `tests/cases/compat.json`
//! through the binary, with exit status 0 compatible / 1 breaking / 2
//! unusable.

use crate::common::{fixture, json_object, sdsi};
use serde_json::{Value, json};

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
            // The new version, then the earlier ones, oldest first.
            let (new, history) = files.split_last().unwrap();
            let mut args = vec![
                "check-compat".to_owned(),
                "--mode".to_owned(),
                case["mode"].as_str().unwrap().to_owned(),
                "--schema".to_owned(),
                new.clone(),
                "--against".to_owned(),
            ];
            args.extend(history.iter().cloned());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out) = json_object(&args, b"");
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
    let template = fixture("flight_template.json");
    let (code, out) = json_object(
        &[
            "check-compat",
            "--schema",
            "/nonexistent/new.json",
            "--against",
            &template,
        ],
        b"",
    );
    assert_eq!(code, 2);
    assert_eq!(out["errors"][0]["code"], "unreadable_input");
    assert_eq!(out["compatible"], false);
    // One template is not a comparison: a usage error.
    for args in [
        &["check-compat", "--schema", &template][..],
        &["check-compat", "--against", &template][..],
    ] {
        let run = sdsi(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
}
