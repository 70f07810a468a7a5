//! Runs the real `sdsi` binary's interop commands, `envelope` and `export`,
//! over the fixtures in `tests/fixtures/` and checks the contract of
//! `docs/cli.md`: one JSON object on stdout with exactly the documented
//! members, in order, and exit status 0 / 1 / 2.

use crate::common::{checked, codes, fixture, pairs, run_with_stdin, sdsi};
use serde_json::{Value, json};

const ENVELOPE: [&str; 3] = ["valid", "errors", "warnings"];
const ENVELOPE_SCHEMA: [&str; 4] = ["valid", "errors", "warnings", "normalized"];
const EXPORT: [&str; 4] = ["valid", "errors", "warnings", "export"];

#[test]
fn envelope_valid_exits_0() {
    let (code, out) = checked(
        &["check-envelope", &fixture("envelope_query.json")],
        b"",
        &ENVELOPE,
    );
    assert_eq!(code, 0);
    assert_eq!(out, json!({"valid": true, "errors": [], "warnings": []}));
}

#[test]
fn envelope_invalid_exits_1_with_every_problem() {
    let (code, out) = checked(
        &["check-envelope", &fixture("envelope_invalid.json")],
        b"",
        &ENVELOPE,
    );
    assert_eq!(code, 1);
    assert_eq!(
        codes(&out["errors"]),
        pairs(&[
            ("capabilities_not_strings", "/capabilities/1"),
            ("invalid_uuid", "/id"),
            ("unsupported_version", "/protocol_version"),
            ("missing_field", "/target_agent"),
        ])
    );
    assert_eq!(
        codes(&out["warnings"]),
        pairs(&[
            ("payload_key_not_snake_case", "/payload/productName"),
            ("non_utc_timestamp", "/timestamp"),
        ])
    );
}

#[test]
fn envelope_with_schema_reports_both_layers() {
    let schema = fixture("flight_template.json");
    let (code, out) = checked(
        &[
            "check-envelope",
            "--schema",
            &schema,
            &fixture("envelope_flight.json"),
        ],
        b"",
        &ENVELOPE_SCHEMA,
    );
    assert_eq!(code, 0);
    assert_eq!(
        codes(&out["warnings"]),
        pairs(&[("non_utc_timestamp", "/timestamp")])
    );
    assert_eq!(out["normalized"]["passenger_count"], 1);

    let (code, out) = checked(
        &[
            "check-envelope",
            "-s",
            &schema,
            &fixture("envelope_flight_invalid.json"),
        ],
        b"",
        &ENVELOPE_SCHEMA,
    );
    assert_eq!(code, 1);
    assert_eq!(
        codes(&out["errors"]),
        pairs(&[
            ("wrong_type", "/capabilities"),
            ("missing_required_key", "/payload/payload/departure_date"),
            ("missing_required_key", "/payload/payload/destination"),
            ("type_mismatch", "/payload/payload/passenger_count"),
        ])
    );
    assert_eq!(out["normalized"], Value::Null);
}

#[test]
fn envelope_from_stdin() {
    let text = std::fs::read(fixture("envelope_query.json")).unwrap();
    let (code, _) = checked(&["check-envelope", "-"], &text, &ENVELOPE);
    assert_eq!(code, 0);
    let (code, out) = checked(
        &["check-envelope", "--schema", "-", "-"],
        &text,
        &ENVELOPE_SCHEMA,
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&out["errors"]), pairs(&[("unreadable_input", "")]));
}

#[test]
fn envelope_unusable_inputs_exit_2() {
    let (code, out) = checked(
        &["check-envelope", &fixture("malformed_message.json")],
        b"",
        &ENVELOPE,
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&out["errors"]), pairs(&[("invalid_json", "")]));

    let (code, out) = checked(
        &["check-envelope", &fixture("missing.json")],
        b"",
        &ENVELOPE,
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&out["errors"]), pairs(&[("unreadable_input", "")]));

    let (code, out) = checked(
        &[
            "check-envelope",
            "--schema",
            &fixture("invalid_template.json"),
            &fixture("envelope_flight.json"),
        ],
        b"",
        &ENVELOPE_SCHEMA,
    );
    assert_eq!(code, 2);
    assert_eq!(
        codes(&out["errors"])[0],
        ("missing_member".to_owned(), "/scenario".to_owned())
    );
    assert_eq!(out["normalized"], Value::Null);
}

#[test]
fn envelope_over_the_size_limit_exits_1() {
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(4 << 20));
    let (code, out) = checked(&["check-envelope", "-"], big.as_bytes(), &ENVELOPE);
    assert_eq!(code, 1);
    assert_eq!(codes(&out["errors"]), pairs(&[("limit_exceeded", "")]));
    assert_eq!(out["errors"][0]["limit"], 4 << 20);
}

#[test]
fn export_every_format() {
    let template = fixture("flight_template.json");
    for format in [
        "json-schema",
        "mcp-input",
        "mcp-elicitation",
        "strict",
        "a2a-fields",
        "a2a-extension",
        "prompt",
    ] {
        let (code, out) = checked(
            &["export", "--format", format, "--schema", &template],
            b"",
            &EXPORT,
        );
        assert_eq!(code, 0, "{format}");
        assert_eq!(out["valid"], true, "{format}");
        assert!(out["errors"].as_array().unwrap().is_empty(), "{format}");
        let export = &out["export"];
        match format {
            "json-schema" => assert_eq!(
                export["$schema"],
                "https://json-schema.org/draft/2020-12/schema"
            ),
            "mcp-input" | "strict" => assert_eq!(export["additionalProperties"], false),
            "mcp-elicitation" => {
                assert_eq!(export["properties"]["passenger_count"]["type"], "integer")
            }
            "a2a-fields" => assert_eq!(export[0]["name"], "origin"),
            "a2a-extension" => assert_eq!(
                export["params"]["templates"][0]["schema_id"],
                "flight_booking_v1"
            ),
            _ => assert!(
                export
                    .as_str()
                    .unwrap()
                    .starts_with("Fill in a structured payload")
            ),
        }
    }
}

/// Every schema export prints the template's keys in the template's order
/// (`origin` first, `other` last), not the alphabet's (`cabin_class`
/// first, and `other` before `origin` and `passenger_count`); a decoder
/// constrained by the strict schema writes keys in that order.
#[test]
fn export_prints_the_template_key_order() {
    let template = fixture("flight_template.json");
    let keys = [
        "origin",
        "destination",
        "departure_date",
        "cabin_class",
        "passenger_count",
        "other",
    ];
    for (format, pretty) in [
        ("json-schema", false),
        ("mcp-input", true),
        ("mcp-elicitation", false),
        ("strict", true),
    ] {
        // The form leaves `departure_date` out (it reads as identity data).
        let keys: Vec<&str> = keys
            .into_iter()
            .filter(|key| format != "mcp-elicitation" || *key != "departure_date")
            .collect();
        let mut args = vec!["export", "--format", format, "--schema", &template];
        if pretty {
            args.insert(0, "--pretty");
        }
        let run = sdsi(&args);
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        // Where each key's schema starts: `"origin":{` (`"origin": {` pretty).
        let at: Vec<usize> = keys
            .iter()
            .map(|key| {
                let member = format!("\"{key}\":{}{{", if pretty { " " } else { "" });
                run.stdout
                    .find(&member)
                    .unwrap_or_else(|| panic!("{format}: no {member} in {}", run.stdout))
            })
            .collect();
        assert!(at.is_sorted(), "{format}: {at:?} in {}", run.stdout);
        if format == "json-schema" {
            assert!(run.stdout.find("\"schema_id\":{") < run.stdout.find("\"payload\":{"));
        }
    }
}

#[test]
fn export_reports_what_cannot_be_expressed() {
    let template = br#"{"schema_id": "photo_v1", "scenario": "photo_edit", "keys": [
        {"key_name": "filter", "key_type": "string", "required": true, "semantic_description": "Filter."},
        {"key_name": "crop", "key_type": "object", "required": true, "semantic_description": ""}]}"#;
    let (code, out) = checked(
        &["export", "-f", "mcp-elicitation", "-s", "-"],
        template,
        &EXPORT,
    );
    assert_eq!(code, 0);
    assert_eq!(
        codes(&out["warnings"]),
        pairs(&[
            ("missing_other", "/keys"),
            ("not_expressible", "/keys/1"),
            ("empty_semantic_description", "/keys/1/semantic_description"),
        ])
    );
    assert_eq!(out["export"]["required"], json!(["filter"]));
}

#[test]
fn export_of_a_bad_template() {
    let (code, out) = checked(
        &[
            "export",
            "--format",
            "strict",
            "--schema",
            &fixture("invalid_template.json"),
        ],
        b"",
        &EXPORT,
    );
    assert_eq!(code, 1);
    assert_eq!(out["export"], Value::Null);
    assert_eq!(
        codes(&out["errors"])[0],
        ("missing_member".to_owned(), "/scenario".to_owned())
    );

    let (code, out) = checked(
        &[
            "export",
            "--format",
            "strict",
            "--schema",
            &fixture("malformed_template.json"),
        ],
        b"",
        &EXPORT,
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&out["errors"]), pairs(&[("invalid_json", "")]));

    let (code, out) = checked(
        &[
            "export",
            "--format",
            "strict",
            "--schema",
            &fixture("missing.json"),
        ],
        b"",
        &EXPORT,
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&out["errors"]), pairs(&[("unreadable_input", "")]));
}

#[test]
fn export_usage_errors_exit_2() {
    let run = run_with_stdin(
        &[
            "export",
            "--format",
            "yaml",
            "--schema",
            &fixture("flight_template.json"),
        ],
        b"",
    );
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
}

/// The MCP formats follow a protocol revision: 2026-07-28 unless
/// `--mcp-version` names 2025-11-25; the elicitation request needs its
/// message, and a flag no format given reads is a usage error.
#[test]
fn export_follows_the_mcp_revision_asked_for() {
    let template = fixture("flight_template.json");
    let export = |extra: &[&str]| {
        let mut args = vec!["export", "--schema", &template];
        args.extend_from_slice(extra);
        let (code, out) = checked(&args, b"", &EXPORT);
        assert_eq!(code, 0, "{extra:?}");
        out["export"].clone()
    };
    let newest = export(&["--format", "mcp-input"]);
    assert_eq!(
        newest["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let older = export(&["--format", "mcp-input", "--mcp-version", "2025-11-25"]);
    assert!(older.get("$schema").is_none());
    assert_eq!(older["properties"], newest["properties"]);

    let asking = export(&[
        "--format",
        "mcp-elicitation-request",
        "--message",
        "Where to?",
    ]);
    assert_eq!(asking["resultType"], "input_required");
    let request = &asking["inputRequests"]["flight_booking_v1"];
    assert_eq!(request["params"]["message"], "Where to?");
    let form = export(&["--format", "mcp-elicitation"]);
    assert_eq!(request["params"]["requestedSchema"], form);
    let own = export(&[
        "--format",
        "mcp-elicitation-request",
        "--message",
        "Where to?",
        "--mcp-version",
        "2025-11-25",
    ]);
    assert_eq!(own["method"], "elicitation/create");

    for misuse in [
        &["--format", "mcp-elicitation-request"][..],
        &["--format", "strict", "--mcp-version", "2025-11-25"],
        &["--format", "mcp-input", "--message", "hi"],
        &["--format", "mcp-input", "--mcp-version", "2024-01-01"],
    ] {
        let mut args = vec!["export", "--schema", &template];
        args.extend_from_slice(misuse);
        let run = run_with_stdin(&args, b"");
        assert_eq!(run.code, 2, "{misuse:?}");
        assert!(run.stdout.is_empty(), "{misuse:?}");
    }
}
