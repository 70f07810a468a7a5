//! The oracle shared by the sdsi fuzz targets.
//!
//! Every property is checked with [`check!`], which names a *class*. A failed
//! check panics with `[class] message`, which libFuzzer records as a crash.
//! Classes listed in the environment variable `SDSI_FUZZ_TOLERATE`
//! (comma-separated, or `all`) are skipped instead, so that a long run can
//! look past a known, already-reported issue. By default nothing is tolerated,
//! so `fuzz/regressions/` inputs fail until the library is fixed.
//!
//! Classes:
//!
//! | class | property |
//! |---|---|
//! | `template-error-empty` | a rejected template reports at least one error |
//! | `template-serde` | `serde_json::from_slice::<SchemaTemplate>` agrees with `SchemaTemplate::from_slice` |
//! | `template-roundtrip` | parse → `serde_json::to_vec` → parse gives an equal template |
//! | `key-roundtrip` | each `KeyDefinition` survives `to_value` → `from_value` |
//! | `template-check` | a parsed template has no `check()` errors and compiles with any options |
//! | `digest` | `CompiledSchema::digest` is `sha256:` + 64 hex and survives the template's round trip |
//! | `bytes-accepts-invalid-json` | bytes that `serde_json::Value` rejects give exactly one `invalid_json` |
//! | `oversized` | input over `max_bytes` gives exactly one `limit_exceeded` at `""` |
//! | `verdict-vs-report` | `is_valid_slice(b) == validate_slice(b).is_valid()` |
//! | `verdict-lenient-json` | the same, in the case where `is_valid_slice` is `true` and `validate_slice` is exactly `invalid_json` |
//! | `bytes-vs-value` | `validate_slice(b) == validate(&v)` when `b` parses to `v` |
//! | `value-verdict` | `is_valid(&v) == validate(&v).is_valid()` |
//! | `str-vs-slice` | `validate_str` / `is_valid_str` equal the slice versions |
//! | `report-shape` | valid ⇔ normalized is `Some`; errors and warnings sorted by path; limits carry a value |
//! | `report-serialize` | the report serializes, with `"valid"` and the error count intact |
//! | `normalized-idempotent` | re-validating `{schema_id, payload: normalized}` is valid and gives the same normalized payload (unless it only crosses a limit) |
//! | `typed-payload` | a message that deserializes into `StructuredPayload` round-trips to the same `Value` |
//! | `from-deserializer` | `problems_from` / `is_valid_from_unique` over `&Value` and `is_valid_from` over the text agree with `validate` (or say `None` for too many members, for a repeat in the text, or, but for `is_valid_from_unique`, for a value too deep) |
//! | `keyed-vs-value` | the payload fed key by key (`keyed_verdict` / `keyed_problems`, by number or by name) gets `validate`'s answer for `{schema_id, payload}`; by number, `None` exactly when members that are not keys are needed |

use std::sync::OnceLock;

use sdsi::validate::{Limits, Refusal, UnknownKeys, ValidateOptions};
use sdsi::{
    CompiledSchema, IssueCode, KeyDefinition, Normalized, Report, SchemaTemplate, StructuredPayload,
};
use serde_json::{Map, Value};

/// Whether failures of `class` are to be skipped (see the crate docs).
pub fn tolerated(class: &str) -> bool {
    static LIST: OnceLock<Vec<String>> = OnceLock::new();
    let list = LIST.get_or_init(|| {
        std::env::var("SDSI_FUZZ_TOLERATE")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    });
    list.iter().any(|c| c == class || c == "all")
}

/// `check!("class", condition, "message {}", args...)`: panics with
/// `[class] message` unless the condition holds or the class is tolerated.
#[macro_export]
macro_rules! check {
    ($class:literal, $cond:expr, $($fmt:tt)+) => {
        if !$cond && !$crate::tolerated($class) {
            panic!("[{}] {}", $class, format_args!($($fmt)+));
        }
    };
}

/// Options from one byte: bits 0-1 `max_depth` (0..=3), bits 2-4 `max_keys`
/// (0..=7), bit 5 `UnknownKeys::Warn`, bits 6-7 `max_bytes` (default, 64,
/// 256, 1024).
pub fn options_from_byte(b: u8) -> ValidateOptions {
    let limits = Limits::default()
        .with_max_depth(usize::from(b & 0b11))
        .with_max_keys(usize::from((b >> 2) & 0b111));
    let limits = match b >> 6 {
        0 => limits,
        1 => limits.with_max_bytes(64),
        2 => limits.with_max_bytes(256),
        _ => limits.with_max_bytes(1024),
    };
    let policy = if b & 0b10_0000 != 0 {
        UnknownKeys::Warn
    } else {
        UnknownKeys::Reject
    };
    ValidateOptions::default()
        .unknown_keys(policy)
        .limits(limits)
}

/// Parses `bytes` as a template and checks everything about the result;
/// returns the template when it parsed.
pub fn check_template(bytes: &[u8]) -> Option<SchemaTemplate> {
    let parsed = SchemaTemplate::from_slice(bytes);
    // The serde impl goes through the same code; it must agree.
    let via_serde = serde_json::from_slice::<SchemaTemplate>(bytes);
    check!(
        "template-serde",
        parsed.as_ref().ok() == via_serde.as_ref().ok(),
        "from_slice: {parsed:?}\nserde: {via_serde:?}"
    );
    // Key definitions have their own Deserialize; it must not panic.
    let _ = serde_json::from_slice::<KeyDefinition>(bytes);
    let template = match parsed {
        Ok(template) => template,
        Err(error) => {
            check!(
                "template-error-empty",
                !error.errors().is_empty(),
                "rejected with no errors: {error:?}"
            );
            let _ = error.to_string();
            return None;
        }
    };

    // parse -> serialize -> parse
    let text = match serde_json::to_vec(&template) {
        Ok(text) => text,
        Err(error) => {
            check!("template-roundtrip", false, "serialize failed: {error}");
            return Some(template);
        }
    };
    let again = SchemaTemplate::from_slice(&text);
    check!(
        "template-roundtrip",
        again.as_ref() == Ok(&template),
        "parse -> serialize -> parse changed the template\nfirst: {template:?}\nserialized: {}\nsecond: {again:?}",
        String::from_utf8_lossy(&text)
    );
    for key in &template.keys {
        let back = serde_json::to_value(key).map(serde_json::from_value::<KeyDefinition>);
        check!(
            "key-roundtrip",
            matches!(&back, Ok(Ok(k)) if k == key),
            "key {key:?} came back as {back:?}"
        );
    }
    let template_check = template.check();
    check!(
        "template-check",
        template_check.is_valid(),
        "a parsed template fails check(): {template_check:?}"
    );
    Some(template)
}

/// Compiles `template` (which parsed, so it must compile).
pub fn compile(template: &SchemaTemplate, options: ValidateOptions) -> Option<CompiledSchema> {
    match CompiledSchema::with_options(template, options) {
        Ok(schema) => {
            check!(
                "template-check",
                schema.schema_id() == template.schema_id
                    && *schema.options() == options
                    && schema.template() == template,
                "compiled schema lost its id, options or template"
            );
            let digest = schema.digest();
            check!(
                "digest",
                // Fuzzed numbers are finite, so every checked template has a digest.
                digest
                    .as_ref()
                    .is_ok_and(|d| d.starts_with("sha256:") && d.len() == 7 + 64),
                "unexpected digest {digest:?}"
            );
            // Equal templates have equal digests, whatever their wire form.
            if let Some(again) = serde_json::to_vec(template)
                .ok()
                .and_then(|text| SchemaTemplate::from_slice(&text).ok())
                .and_then(|t| CompiledSchema::with_options(&t, options).ok())
            {
                check!(
                    "digest",
                    again.digest() == digest,
                    "round-tripped template has digest {:?} instead of {digest:?}",
                    again.digest()
                );
            }
            Some(schema)
        }
        Err(error) => {
            check!(
                "template-check",
                false,
                "a parsed template does not compile: {error}"
            );
            None
        }
    }
}

/// The message parsed as a `serde_json::Value`, computed once per input.
pub fn parse_message(msg: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<Value>(msg)
}

/// Validates `msg` every way the API offers and checks that the answers agree.
pub fn check_message(
    schema: &CompiledSchema,
    msg: &[u8],
    value: &Result<Value, serde_json::Error>,
) {
    let limits = schema.options().limits;
    let report = schema.validate_slice(msg);
    let verdict = schema.is_valid_slice(msg);
    check_report_shape(&report);
    let only_invalid_json =
        report.errors().len() == 1 && report.errors()[0].code() == IssueCode::InvalidJson;
    if verdict && only_invalid_json {
        // The verdict skipped (IgnoredAny) a value that the report parsed.
        check!(
            "verdict-lenient-json",
            false,
            "is_valid_slice = true, validate_slice = {report:?}"
        );
    } else {
        check!(
            "verdict-vs-report",
            verdict == report.is_valid(),
            "is_valid_slice = {verdict}, validate_slice = {report:?}"
        );
    }
    if let Ok(text) = std::str::from_utf8(msg) {
        check!(
            "str-vs-slice",
            schema.validate_str(text) == report && schema.is_valid_str(text) == verdict,
            "validate_str/is_valid_str differ from the slice versions"
        );
    }

    if msg.len() > limits.max_bytes {
        check!(
            "oversized",
            report.errors().len() == 1
                && report.errors()[0].code() == IssueCode::LimitExceeded
                && report.errors()[0].path().is_empty()
                && report.errors()[0].limit_value() == Some(limits.max_bytes as u64),
            "input of {} bytes over max_bytes {}: {report:?}",
            msg.len(),
            limits.max_bytes
        );
        // The Value path has no byte limit: nothing to compare with.
        return;
    }

    let value = match value {
        Ok(value) => value,
        Err(error) => {
            check!(
                "bytes-accepts-invalid-json",
                report.errors().len() == 1
                    && report.errors()[0].code() == IssueCode::InvalidJson
                    && !verdict,
                "serde_json::Value rejects the message ({error}) but validate_slice = {report:?}, is_valid_slice = {verdict}"
            );
            return;
        }
    };

    let from_value = schema.validate(value);
    check!(
        "bytes-vs-value",
        from_value == report,
        "validate_slice and validate(&Value) differ\nbytes: {report:?}\nvalue: {from_value:?}"
    );
    check!(
        "value-verdict",
        schema.is_valid(value) == from_value.is_valid(),
        "is_valid(&v) = {}, validate(&v) = {from_value:?}",
        schema.is_valid(value)
    );
    if from_value != report {
        check_report_shape(&from_value);
    }

    let owned = schema.validate_owned(value.clone());
    check!(
        "owned-vs-borrowed",
        owned == from_value,
        "validate_owned and validate(&Value) differ\nowned: {owned:?}\nborrowed: {from_value:?}"
    );
    check_other_readers(schema, msg, value, &from_value);

    let typed = schema.deserialize_slice::<Map<String, Value>>(msg);
    let typed_agrees = match (&typed, from_value.normalized()) {
        (Ok(accepted), Some(normalized)) => {
            *normalized == accepted.payload && accepted.warnings == from_value.warnings()
        }
        (Err(Refusal::Invalid(report)), None) => **report == from_value,
        _ => false,
    };
    check!(
        "typed-vs-report",
        typed_agrees,
        "deserialize_slice disagrees with validate\ntyped: {typed:?}\nreport: {from_value:?}"
    );

    if let Some(normalized) = from_value.normalized() {
        check!(
            "normalized-view",
            normalized.iter().count() == normalized.len()
                && normalized
                    .iter()
                    .all(|(name, value)| normalized.get(name) == Some(value)),
            "the normalized view's iteration, len and get disagree: {normalized:?}"
        );
        check_idempotent(schema, normalized);
    }

    if let Ok(typed) = serde_json::from_value::<StructuredPayload>(value.clone()) {
        let back = typed.to_value();
        check!(
            "typed-payload",
            back == *value,
            "StructuredPayload round trip changed the message\nin: {value}\nout: {back}"
        );
    }
}

/// The readers for messages held in other forms: any serde deserializer
/// (`&Value`'s own, and the text's), and a payload asked key by key.
fn check_other_readers(schema: &CompiledSchema, msg: &[u8], value: &Value, report: &Report) {
    let max_keys = schema.options().limits.max_keys;
    let members = value
        .get("payload")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    // `problems_from` cannot know that its source repeats no name, so it
    // leaves a value too deep to the `Value` path as well.
    let limit = report
        .errors()
        .iter()
        .any(|e| e.code() == IssueCode::LimitExceeded);
    let agrees = match schema.problems_from(value) {
        Ok(Some(checked)) => checked.problems == *report.problems(),
        Ok(None) => members > max_keys || limit,
        Err(_) => false,
    } && match schema.is_valid_from_unique(value) {
        Ok(Some(valid)) => valid == report.is_valid(),
        Ok(None) => members > max_keys,
        Err(_) => false,
    };
    check!(
        "from-deserializer",
        agrees,
        "problems_from / is_valid_from_unique over &Value disagree with validate: {report:?}"
    );
    // Over the text, a repeated member leaves the answer to the Value path.
    let mut text = serde_json::Deserializer::from_slice(msg);
    let verdict = schema.is_valid_from(&mut text);
    check!(
        "from-deserializer",
        matches!(verdict, Ok(None)) || matches!(verdict, Ok(Some(v)) if v == report.is_valid()),
        "is_valid_from over the text = {verdict:?}, validate = {report:?}"
    );

    let Some(payload) = value.get("payload").and_then(Value::as_object) else {
        return;
    };
    let whole = serde_json::json!({"schema_id": schema.schema_id(), "payload": payload});
    let expected = schema.validate(&whole);
    let names: Vec<&str> = schema.key_names().collect();
    let unknown = payload.keys().any(|name| !names.contains(&name.as_str()));
    let warn = schema.options().unknown_keys == UnknownKeys::Warn;
    let (Some(mut verdict), Some(mut problems)) = (
        schema.keyed_verdict(payload.len()),
        schema.keyed_problems(payload.len()),
    ) else {
        check!(
            "keyed-vs-value",
            payload.len() > max_keys,
            "keyed check refused {} members",
            payload.len()
        );
        return;
    };
    let mut stopped = false;
    for (index, name) in names.iter().enumerate() {
        let found = payload.get(*name);
        if let Some(member) = found {
            let _ = problems.key(index, member);
        }
        if !stopped {
            stopped = !match found {
                Some(member) => verdict.key(index, member).unwrap_or(false),
                None => verdict.absent(index),
            };
        }
    }
    let verdict = verdict.finish();
    check!(
        "keyed-vs-value",
        match verdict {
            Some(valid) => valid == expected.is_valid() && !(stopped && valid),
            None => unknown && warn,
        },
        "keyed verdict {verdict:?}, validate = {expected:?}"
    );
    let problems = problems.finish();
    check!(
        "keyed-vs-value",
        match &problems {
            Some(checked) => !unknown && checked.problems == *expected.problems(),
            None => unknown,
        },
        "keyed problems {problems:?}, validate = {expected:?}"
    );

    // By name, every member in the payload's order, as a caller walking its
    // dict feeds them: always settled, and the same answer.
    let (Some(mut verdict), Some(mut problems)) = (
        schema.keyed_verdict(payload.len()),
        schema.keyed_problems(payload.len()),
    ) else {
        return;
    };
    for (name, member) in payload {
        let _ = problems.member(name, member);
    }
    for (name, member) in payload {
        if !verdict.member(name, member).unwrap_or(false) {
            break;
        }
    }
    let verdict = verdict.finish();
    let problems = problems.finish();
    check!(
        "keyed-vs-value",
        verdict == Some(expected.is_valid())
            && problems.as_ref().map(|c| &c.problems) == Some(expected.problems()),
        "keyed by name: verdict {verdict:?}, problems {problems:?}, validate = {expected:?}"
    );
}

/// Report invariants that hold whatever the input.
fn check_report_shape(report: &Report) {
    check!(
        "report-shape",
        report.is_valid() == report.normalized().is_some(),
        "valid = {} but normalized = {:?}",
        report.is_valid(),
        report.normalized()
    );
    let sorted = |issues: &[sdsi::Issue]| issues.windows(2).all(|w| w[0].path() <= w[1].path());
    check!(
        "report-shape",
        sorted(report.errors()) && sorted(report.warnings()),
        "issues not ordered by path: {report:?}"
    );
    for issue in report.errors().iter().chain(report.warnings()) {
        check!(
            "report-shape",
            (issue.code() == IssueCode::LimitExceeded) == issue.limit_value().is_some(),
            "limit value on the wrong issue: {issue:?}"
        );
        let _ = issue.to_string();
    }
    match serde_json::to_string(report) {
        Ok(text) => {
            let back: Result<Value, _> = serde_json::from_str(&text);
            check!(
                "report-serialize",
                matches!(&back, Ok(v) if v["valid"] == Value::Bool(report.is_valid())
                    && v["errors"].as_array().map(Vec::len) == Some(report.errors().len())),
                "serialized report does not read back: {text}"
            );
        }
        Err(error) => check!(
            "report-serialize",
            false,
            "report does not serialize: {error}"
        ),
    }
}

/// Validating the normalized payload again gives a valid report with the
/// same normalized payload.
fn check_idempotent(schema: &CompiledSchema, normalized: &Normalized<'_>) {
    let normalized = normalized.to_map();
    let mut message = Map::new();
    message.insert("schema_id".into(), Value::String(schema.schema_id().into()));
    message.insert("payload".into(), Value::Object(normalized.clone()));
    let message = Value::Object(message);
    let again = schema.validate(&message);
    // Limits bound the input, not the output: defaults can add members past
    // `max_keys` and a default can nest deeper than `max_depth`. Those are
    // reported as limit_exceeded and are accepted here (see docs/fuzzing.md).
    if !again.is_valid()
        && again
            .errors()
            .iter()
            .all(|e| e.code() == IssueCode::LimitExceeded)
    {
        return;
    }
    check!(
        "normalized-idempotent",
        again.normalized().is_some_and(|again| *again == normalized),
        "normalized payload does not validate to itself\nnormalized: {}\nreport: {again:?}",
        Value::Object(normalized.clone())
    );
}
