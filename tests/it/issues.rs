//! An issue read back from the JSON it writes is the same issue: its code,
//! path, message, limit and types survive (what the Python package's
//! pickling and any reader of the CLI's output rely on).

use sdsi::validate::{Limits, ValidateOptions};
use sdsi::{CompiledSchema, Issue, IssueCode};
use serde_json::json;

use crate::common::flight_template;

fn round_trip(issue: &Issue) -> Issue {
    let written = serde_json::to_value(issue).unwrap();
    let read: Issue = serde_json::from_value(written.clone()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), written);
    read
}

#[test]
fn every_kind_of_issue_reads_back_equal() {
    let schema = CompiledSchema::new(&flight_template()).unwrap();
    // A missing key (a fixed message), a type mismatch (two types, no
    // text), an unknown key (a text of its own).
    let report = schema.validate_owned(json!({"schema_id": "flight_booking_v1", "payload": {
        "origin": 7, "departure_date": "2026-05-04", "seat": "12A"}}));
    assert!(report.errors().len() >= 3);
    for issue in report.errors() {
        let read = round_trip(issue);
        assert_eq!(&read, issue);
        assert_eq!(read.expected(), issue.expected());
        assert_eq!(read.found(), issue.found());
    }
    let mismatch = report
        .errors()
        .iter()
        .find(|i| i.code() == IssueCode::TypeMismatch)
        .unwrap();
    assert!(round_trip(mismatch).expected().is_some());

    let tight = ValidateOptions::default().limits(Limits::default().with_max_keys(1));
    let schema = CompiledSchema::from_template_with_options(flight_template(), tight).unwrap();
    let report = schema.validate_owned(json!({"schema_id": "flight_booking_v1", "payload": {
        "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04"}}));
    let limit = report
        .errors()
        .iter()
        .find(|i| i.code() == IssueCode::LimitExceeded)
        .unwrap();
    assert_eq!(round_trip(limit).limit_value(), limit.limit_value());
    assert_eq!(&round_trip(limit), limit);
}

#[test]
fn a_made_issue_reads_back_equal() {
    let issue = Issue::new(IssueCode::UnknownKey, "/payload/a~1b", "not a key");
    assert_eq!(round_trip(&issue), issue);
}

#[test]
fn what_no_issue_writes_is_refused() {
    for bad in [
        json!({"code": "no_such_code", "path": "", "message": "m"}),
        json!({"code": "type_mismatch", "path": "", "message": "m", "expected": "string"}),
        json!({"code": "type_mismatch", "path": "", "message": "m", "expected": "text", "found": "string"}),
        json!({"code": "type_mismatch", "path": "", "message": "m", "expected": "string", "found": "word"}),
        json!({"code": "unknown_key", "path": "", "message": "m", "extra": 1}),
        json!({"code": "unknown_key", "message": "m"}),
    ] {
        assert!(
            serde_json::from_value::<Issue>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}
