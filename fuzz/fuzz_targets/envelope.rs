//! Arbitrary bytes as a Universal Schema envelope: `Envelope::parse_slice`,
//! the typed envelope's round trip, and `CompiledSchema::validate_envelope`
//! against the draft's flight-booking template (Figure 2).
//!
//! Input layout: the whole input is the envelope. Seeds (`fuzz/seeds/envelope/`)
//! are the `data` of every case in `tests/cases/envelope*.json`.
//!
//! Classes (see `sdsi_fuzz`'s docs for `SDSI_FUZZ_TOLERATE`):
//!
//! | class | property |
//! |---|---|
//! | `envelope-invalid-json` | bytes serde_json rejects give exactly one `invalid_json` at `""` |
//! | `envelope-bytes-vs-value` | `parse_slice(b) == parse(&v)` when `b` parses to `v` |
//! | `envelope-report-shape` | valid ⇔ a typed envelope; errors and warnings sorted by path; the report serializes |
//! | `envelope-from-value` | `from_value` and serde agree with `parse` (same verdict, same errors) |
//! | `envelope-roundtrip` | a valid envelope serializes, parses back equal, with the same warnings |
//! | `envelope-structured` | `validate_envelope` keeps every envelope-layer error, its bytes form agrees, and a valid report has a normalized payload |
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use sdsi::{CompiledSchema, Envelope, IssueCode, SchemaTemplate};
use sdsi_fuzz::check;
use serde_json::Value;

const FIGURE_2: &str = include_str!("../templates/flight_booking_v1.json");

static FLIGHT: LazyLock<CompiledSchema> = LazyLock::new(|| {
    let template = SchemaTemplate::from_json(FIGURE_2).expect("Figure 2 parses");
    CompiledSchema::new(&template).expect("Figure 2 compiles")
});

fn sorted(issues: &[sdsi::Issue]) -> bool {
    issues.windows(2).all(|w| match w {
        [a, b] => a.path() <= b.path(),
        _ => true,
    })
}

fuzz_target!(|data: &[u8]| {
    let report = Envelope::parse_slice(data);
    check!(
        "envelope-report-shape",
        report.is_valid() == report.envelope().is_some()
            && sorted(report.errors())
            && sorted(report.warnings()),
        "{report:?}"
    );
    let text = serde_json::to_string(&report);
    check!("envelope-report-shape", text.is_ok(), "{text:?}");

    let value = match serde_json::from_slice::<Value>(data) {
        Ok(value) => value,
        Err(_) => {
            check!(
                "envelope-invalid-json",
                report.errors().len() == 1
                    && report
                        .errors()
                        .iter()
                        .all(|e| e.code() == IssueCode::InvalidJson && e.path().is_empty()),
                "{report:?}"
            );
            return;
        }
    };
    let from_value = Envelope::parse(&value);
    check!(
        "envelope-bytes-vs-value",
        from_value == report,
        "{from_value:?}\n{report:?}"
    );

    let typed = Envelope::from_value(&value);
    let via_serde = serde_json::from_slice::<Envelope>(data);
    check!(
        "envelope-from-value",
        typed.as_ref().ok() == report.envelope()
            && via_serde.as_ref().ok() == report.envelope()
            && typed
                .as_ref()
                .err()
                .is_none_or(|e| e.errors() == report.errors()),
        "{typed:?}\n{via_serde:?}\n{report:?}"
    );

    if let Some(envelope) = report.envelope() {
        let warnings = envelope.warnings();
        check!(
            "envelope-roundtrip",
            warnings == report.warnings(),
            "{warnings:?}\n{report:?}"
        );
        let written = serde_json::to_vec(envelope);
        check!("envelope-roundtrip", written.is_ok(), "{written:?}");
        if let Ok(written) = written {
            let again = Envelope::parse_slice(&written);
            check!(
                "envelope-roundtrip",
                again.envelope() == Some(envelope) && again.warnings() == report.warnings(),
                "{envelope:?}\n{again:?}"
            );
        }
    }

    let structured = FLIGHT.validate_envelope(&value);
    check!(
        "envelope-structured",
        report
            .errors()
            .iter()
            .all(|e| structured.errors().contains(e))
            && structured.is_valid() == structured.normalized().is_some()
            && sorted(structured.errors()),
        "{report:?}\n{structured:?}"
    );
    let structured_bytes = FLIGHT.validate_envelope_slice(data);
    check!(
        "envelope-structured",
        structured_bytes == structured,
        "{structured_bytes:?}\n{structured:?}"
    );
});
