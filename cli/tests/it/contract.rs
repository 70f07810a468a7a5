//! The CLI's scheme (docs/cli.md, "The scheme"): the old names and forms
//! still work and warn, enumerated options refuse bad values as usage
//! errors, a command-level error has one shape in every streaming mode and
//! an `errors` member everywhere, no flag is silently ignored, and `--help`
//! carries the exit-status table.

use serde_json::Value;

use crate::common::{assert_issue, fixture, run_with_stdin, sdsi};

/// An old form and the new one it stands for: same stdout, same exit
/// status; the old one warns on stderr, the new one does not.
#[test]
fn old_names_and_forms_still_work_and_warn() {
    let (template, envelope) = (
        fixture("flight_template.json"),
        fixture("envelope_query.json"),
    );
    let booking = fixture("booking_template.json");
    let cases: [(&[&str], &[&str]); 5] = [
        (&["envelope", &envelope], &["check-envelope", &envelope]),
        (
            &["compat", "--mode", "full", &booking, &template],
            &[
                "check-compat",
                "--mode",
                "full",
                "--schema",
                &template,
                "--against",
                &booking,
            ],
        ),
        (
            &["compat", &template, &booking, &template],
            &[
                "check-compat",
                "--schema",
                &template,
                "--against",
                &template,
                &booking,
            ],
        ),
        (
            &["check-template", &template],
            &["check-template", "--schema", &template],
        ),
        (
            &["export", "--format", "prompt", &template],
            &["export", "--format", "prompt", "--schema", &template],
        ),
    ];
    for (old, new) in cases {
        let (was, is) = (sdsi(old), sdsi(new));
        assert_eq!(was.code, is.code, "{old:?}: {}", was.stdout);
        assert_ne!(was.code, 2, "{old:?}: {}{}", was.stdout, was.stderr);
        assert_eq!(was.stdout, is.stdout, "{old:?}");
        assert!(
            was.stderr.starts_with("sdsi: warning: ") && was.stderr.contains("next release"),
            "{old:?} warns: {:?}",
            was.stderr
        );
        assert_eq!(is.stderr, "", "{new:?} does not warn");
    }
    // Both forms at once is a usage error, not a silent choice.
    let both = sdsi(&["check-template", "--schema", &template, &template]);
    assert_eq!(both.code, 2);
    assert_eq!(both.stdout, "");
}

/// The old names are hidden: `--help` lists only the new ones.
#[test]
fn help_lists_the_new_names_only() {
    let help = sdsi(&["--help"]);
    assert_eq!(help.code, 0);
    let listed: Vec<&str> = help
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for name in [
        "check-envelope",
        "check-compat",
        "check-template",
        "validate",
    ] {
        assert!(listed.contains(&name), "{name} in {listed:?}");
    }
    for old in ["envelope", "compat"] {
        assert!(!listed.contains(&old), "{old} hidden: {listed:?}");
    }
}

/// Every enumerated option is a `ValueEnum`: its values are listed in
/// `--help`, and a value outside them is clap's usage error (exit 2,
/// nothing on stdout, the possible values on stderr).
#[test]
fn enumerated_options_list_their_values_and_refuse_others() {
    let (template, events) = (fixture("flight_template.json"), fixture("events.jsonl"));
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "check-compat",
                "--schema",
                &template,
                "--against",
                &template,
                "--mode",
                "sideways",
            ],
            "full-transitive",
        ),
        (
            &["export", "--schema", &template, "--format", "yaml"],
            "mcp-elicitation",
        ),
        (&["import", "--from", "yaml", &template], "mcp-tool"),
        (
            &[
                "evolve",
                "--schema",
                &template,
                "--inducer",
                "oracle",
                &events,
            ],
            "rules",
        ),
        (
            &[
                "evolve",
                "--schema",
                &template,
                "--lending",
                "give",
                &events,
            ],
            "silence",
        ),
        (
            &[
                "evolve",
                "--schema",
                &template,
                "--inducer",
                "llm",
                "--llm-url",
                "http://127.0.0.1:9/v1",
                "--llm-model",
                "m",
                "--llm-format",
                "xml",
                &events,
            ],
            "json-object",
        ),
    ];
    for (args, value) in cases {
        let run = sdsi(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(
            run.stderr.contains("invalid value"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(value),
            "{args:?} lists {value}: {}",
            run.stderr
        );
        let help = sdsi(&[args[0], "--help"]);
        assert!(
            help.stdout.contains(value),
            "{} --help lists {value}",
            args[0]
        );
    }
    // The registry's snake_case spellings, in any case, stay accepted.
    for mode in ["full_transitive", "FULL_TRANSITIVE", "full-transitive"] {
        let run = sdsi(&[
            "check-compat",
            "--mode",
            mode,
            "--schema",
            &template,
            "--against",
            &template,
        ]);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        assert_eq!(run.json()["mode"], "full_transitive", "{mode}");
    }
}

/// One row per mode: a command-level error exits 2 and prints, last on
/// stdout, one JSON object with a non-empty `errors` array of issues; in
/// the streaming modes that object is exactly `{"event": "error",
/// "errors": [...]}`, whatever came before it. Nothing goes to stderr but
/// the `--jsonl` summary.
#[test]
fn a_command_level_error_has_one_shape_in_every_mode() {
    let d = crate::common::fresh_dir("contract-errors");
    let (template, events) = (fixture("flight_template.json"), fixture("events.jsonl"));
    let (bad, missing) = (fixture("invalid_template.json"), fixture("missing.json"));
    let unwritable = d.join("no-such-dir").join("r.html");
    let unwritable = unwritable.to_str().unwrap();
    let state = d.join("missing.db");
    let state = state.to_str().unwrap();
    let message = fixture("valid_message.json");
    // (arguments, standard input, streams, the first error's code)
    let rows: [(&[&str], &[u8], bool, &str); 19] = [
        (
            &["validate", "--schema", &template, &missing],
            b"",
            false,
            "unreadable_input",
        ),
        (
            &["validate", "--schema", &bad, &message],
            b"",
            false,
            "missing_member",
        ),
        (
            &["check-template", "--schema", &missing],
            b"",
            false,
            "unreadable_input",
        ),
        (
            &["check-envelope", "--schema", &missing, &message],
            b"",
            false,
            "unreadable_input",
        ),
        (
            &["check-compat", "--schema", &template, "--against", &missing],
            b"",
            false,
            "unreadable_input",
        ),
        (
            &["export", "--format", "strict", "--schema", &missing],
            b"",
            false,
            "unreadable_input",
        ),
        (&["import", &missing], b"", false, "unreadable_input"),
        (
            &["review", "--state", state],
            b"",
            false,
            "unreadable_input",
        ),
        (
            &["report", "--state", state, "--output", unwritable],
            b"",
            false,
            "unreadable_input",
        ),
        (
            &["validate", "--jsonl", "--schema", &template, &missing],
            b"",
            true,
            "unreadable_input",
        ),
        (
            &["validate", "--jsonl", "--schema", &bad, "-"],
            b"{}\n",
            true,
            "missing_member",
        ),
        (
            &[
                "validate", "--jsonl", "--schema", &template, "--at", "soon", "-",
            ],
            b"{}\n",
            true,
            "invalid_timestamp",
        ),
        (
            &[
                "validate", "--jsonl", "--schema", &template, "--patch", &missing, "-",
            ],
            b"{}\n",
            true,
            "invalid_patch",
        ),
        (&["cluster", &missing], b"", true, "unreadable_input"),
        (
            &["cluster", "--threshold", "2", "-"],
            b"seat\n",
            true,
            "invalid_option",
        ),
        (
            &["cluster", "-"],
            b"window seat\n\xff\xfe\nmeal\n",
            true,
            "unreadable_input",
        ),
        (
            &["evolve", "--schema", &template, &missing],
            b"",
            true,
            "unreadable_input",
        ),
        (
            &["evolve", "--schema", &bad, &events],
            b"",
            true,
            "missing_member",
        ),
        (
            &[
                "evolve", "--schema", &template, "--report", unwritable, &events,
            ],
            b"",
            true,
            "unwritable_output",
        ),
    ];
    for (args, stdin, streams, code) in rows {
        let run = run_with_stdin(args, stdin);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        let last = run.stdout.lines().last().unwrap_or_default();
        let error: Value =
            serde_json::from_str(last).unwrap_or_else(|e| panic!("{args:?}: {e}: {last}"));
        let errors = error["errors"].as_array().expect("an errors array");
        assert!(!errors.is_empty(), "{args:?}");
        errors.iter().for_each(assert_issue);
        assert_eq!(errors[0]["code"], code, "{args:?}: {last}");
        if streams {
            let members: Vec<&String> = error.as_object().unwrap().keys().collect();
            assert_eq!(members, ["errors", "event"], "{args:?}: {last}");
            assert_eq!(error["event"], "error", "{args:?}");
            // Only `validate --jsonl` writes to stderr: its summary.
            if args[0] == "validate" {
                assert!(
                    !run.stderr.contains("\"error\":{"),
                    "{args:?}: {}",
                    run.stderr
                );
            } else {
                assert_eq!(run.stderr, "", "{args:?}");
            }
        } else {
            assert_eq!(run.stdout.lines().count(), 1, "{args:?}: one object");
            assert_eq!(run.stderr, "", "{args:?}");
        }
    }
    // A read that fails mid-stream comes after the lines read before it.
    let run = run_with_stdin(&["cluster", "-"], b"window seat\n\xff\xfe\nmeal\n");
    let lines = run.lines();
    assert_eq!(lines[0]["line"], 1, "{}", run.stdout);
    assert_eq!(
        lines.len(),
        2,
        "the line read, then the error: {}",
        run.stdout
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--pretty` cannot indent JSON Lines: with a streaming mode it is a usage
/// error rather than silently ignored; elsewhere it indents.
#[test]
fn pretty_with_a_streaming_mode_is_a_usage_error() {
    let (template, events) = (fixture("flight_template.json"), fixture("events.jsonl"));
    let fragments = fixture("fragments.txt");
    let message = fixture("valid_message.json");
    for args in [
        &[
            "--pretty", "validate", "--jsonl", "--schema", &template, &message,
        ][..],
        &[
            "validate", "--jsonl", "--pretty", "--schema", &template, &message,
        ][..],
        &["--pretty", "evolve", "--schema", &template, &events][..],
        &["cluster", "--pretty", &fragments][..],
    ] {
        let run = sdsi(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(run.stderr.contains("--pretty"), "{args:?}: {}", run.stderr);
    }
    let run = sdsi(&["--pretty", "validate", "--schema", &template, &message]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.lines().count() > 1);
}

/// A flag that would mean nothing with the others given is a usage error.
#[test]
fn flags_that_would_be_ignored_are_usage_errors() {
    let (template, events) = (fixture("flight_template.json"), fixture("events.jsonl"));
    let d = crate::common::fresh_dir("contract-ignored");
    let state = d.join("s.db");
    let state = state.to_str().unwrap();
    let evolve = ["evolve", "--schema", &template];
    let cases: [(&[&str], &str); 8] = [
        (
            &[
                &evolve[..],
                &["--llm-url", "http://127.0.0.1:9/v1", &events],
            ]
            .concat(),
            "--llm-url",
        ),
        (
            &[&evolve[..], &["--llm-timeout", "5", &events]].concat(),
            "--llm-timeout",
        ),
        (
            &[&evolve[..], &["--llm-format", "json-object", &events]].concat(),
            "--llm-format",
        ),
        (
            &[
                &evolve[..],
                &[
                    "--state",
                    "postgresql://u@127.0.0.1:9/db",
                    "--save-every",
                    "5",
                    &events,
                ],
            ]
            .concat(),
            "--save-every",
        ),
        (
            &[
                &evolve[..],
                &[
                    "--state",
                    "postgresql://u@127.0.0.1:9/db",
                    "--not-after",
                    "2026-05-03T09:00:00Z",
                    &events,
                ],
            ]
            .concat(),
            "--not-after",
        ),
        (
            &[&evolve[..], &["--replica", "r1", &events]].concat(),
            "--replica",
        ),
        (
            &["review", "--state", state, "--at", "2026-05-03T09:00:00Z"],
            "--at",
        ),
        (&["review", "--state", state, "--by", "ops"], "--by"),
    ];
    for (args, flag) in cases {
        let run = sdsi(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(run.stderr.contains(flag), "{args:?}: {}", run.stderr);
    }
    assert!(!d.join("s.db").exists(), "a usage error touches nothing");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--help` ends with the exit-status table, and each command's with what
/// 0, 1 and 2 mean for it.
#[test]
fn help_carries_the_exit_status_table() {
    let top = sdsi(&["--help"]);
    assert_eq!(top.code, 0);
    for line in [
        "Exit status:",
        "  0  ",
        "  1  ",
        "  2  ",
        "\"event\":\"error\"",
    ] {
        assert!(top.stdout.contains(line), "{line:?} in sdsi --help");
    }
    for command in [
        "validate",
        "check-template",
        "check-envelope",
        "check-compat",
        "export",
        "import",
        "evolve",
        "cluster",
        "review",
        "report",
    ] {
        let help = sdsi(&[command, "--help"]);
        assert_eq!(help.code, 0, "{command}");
        let table = help
            .stdout
            .split("Exit status:")
            .nth(1)
            .unwrap_or_else(|| panic!("{command} --help has no exit status"));
        assert!(
            table.contains("  0  ") && table.contains("  2  "),
            "{command}: {table}"
        );
    }
}
