//! Criterion benchmarks: `sdsi` against the `jsonschema` crate on the same
//! messages, in the same process and run.
//!
//! Four templates (the draft's flight booking, Figure 2; its photo retouch,
//! Appendix A.3; a synthetic 50-key one; a trip plan whose values nest
//! arrays and objects three to five deep), each with a valid message and an
//! invalid one carrying exactly four problems. `jsonschema` validates
//! against the template's own JSON Schema export
//! (`CompiledSchema::json_schema`), so both apply the same rules; the setup
//! asserts that both libraries agree on every message before timing anything.
//!
//! Benchmark ids are `<measurement>/<template>/<contender>`:
//!
//! | measurement            | sdsi call                     | compared with                                         |
//! |------------------------|-------------------------------|-------------------------------------------------------|
//! | `value_is_valid`       | `is_valid(&value)`            | `Validator::is_valid(&value)`                         |
//! | `value_report_invalid` | `validate(&value)`            | `iter_errors(&value).collect::<Vec<_>>()`             |
//! | `value_report_valid`   | `validate(&value)`            | `iter_errors(&value).collect::<Vec<_>>()`             |
//! | `bytes_verdict`        | `is_valid_slice(bytes)`       | `serde_json::from_slice::<IgnoredAny>(bytes)`         |
//! | `bytes_report_valid`   | `validate_slice(bytes)`       | `from_slice::<Value>` then `iter_errors` collected    |
//! | `bytes_report_invalid` | `validate_slice(bytes)`       | `from_slice::<Value>` then `iter_errors` collected    |
//! | `compile`              | `CompiledSchema::new`         | `jsonschema::validator_for`                           |
//! | `bytes_typed` (flight) | `deserialize_slice::<Flight>` | `from_slice::<Value>`, `is_valid`, `from_value::<Flight>` |
//!
//! `bytes_verdict_invalid` repeats `bytes_verdict` on the invalid message, and
//! `compile` also times both libraries starting from JSON text
//! (`sdsi_from_json`: `SchemaTemplate::from_slice` then
//! `CompiledSchema::from_template`; `jsonschema_from_json`).
//!
//! Run with `cargo bench --bench validate`; the figures are in
//! `benches/README.md`, how to read them in `docs/benchmarks.md`.

// A bench may panic on a broken fixture: a fixture that does not parse, a
// template that does not compile, or the two libraries disagreeing on a
// message are bugs in the bench, and stopping loudly is the right outcome.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sdsi::key::OTHER_KEY;
use sdsi::validate::{Limits, UnknownKeys, ValidateOptions};
use sdsi::{CompiledSchema, KeyDefinition, KeyName, KeyType, SchemaTemplate};
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};

/// The draft's Figure 2, verbatim.
const FLIGHT_TEMPLATE: &[u8] = include_bytes!("fixtures/flight_booking_v1.template.json");
/// The draft's Appendix A.3 (Figure 10), verbatim.
const PHOTO_TEMPLATE: &[u8] = include_bytes!("fixtures/photo_retouch_v2.template.json");

/// One template with its messages, ready for both libraries.
struct Case {
    name: &'static str,
    /// The template as JSON text (what a server publishes).
    template_json: Vec<u8>,
    template: SchemaTemplate,
    schema: CompiledSchema,
    /// The equivalent JSON Schema, as a value and as JSON text.
    json_schema: Value,
    json_schema_text: Vec<u8>,
    validator: jsonschema::Validator,
    valid: Value,
    valid_bytes: Vec<u8>,
    invalid: Value,
    invalid_bytes: Vec<u8>,
}

/// The synthetic template: 49 typed keys cycling through the six value types;
/// keys 0, 3, 6, … required (17), keys 1, 4, 7, … with a default (16 of the
/// 32 optional ones); then `other`: 50 keys.
fn synthetic_template() -> SchemaTemplate {
    const TYPES: [KeyType; 6] = [
        KeyType::String,
        KeyType::Integer,
        KeyType::Number,
        KeyType::Boolean,
        KeyType::Array,
        KeyType::Object,
    ];
    let mut keys: Vec<KeyDefinition> = (0..49)
        .map(|i| {
            let ty = TYPES[i % TYPES.len()];
            let name = KeyName::new(&synthetic_name(i, ty)).unwrap();
            let description = format!(
                "Synthetic attribute number {i} of type {ty}. Acceptable values: any {ty}. \
                 Example mapping: 'set attribute {i}' -> a {ty} value."
            );
            let key = KeyDefinition::new(name, ty, i % 3 == 0, description);
            if i % 3 == 1 {
                key.with_default(synthetic_value(i, ty))
            } else {
                key
            }
        })
        .collect();
    keys.push(KeyDefinition::new(
        KeyName::new(OTHER_KEY).unwrap(),
        KeyType::String,
        false,
        "Natural-language requests that cannot be mapped to existing keys.",
    ));
    SchemaTemplate::new("synthetic_v1", "synthetic", keys)
}

fn synthetic_name(i: usize, ty: KeyType) -> String {
    format!("attr_{i:02}_{ty}")
}

/// A representative value of type `ty` for key number `i`.
fn synthetic_value(i: usize, ty: KeyType) -> Value {
    match ty {
        KeyType::String => json!(format!("value for key {i}")),
        KeyType::Integer => json!(i * 7),
        KeyType::Number => json!(i as f64 + 0.25),
        KeyType::Boolean => json!(i % 2 == 0),
        KeyType::Array => json!(["red", "green", "blue"]),
        KeyType::Object => json!({"unit": "cm", "value": i}),
        KeyType::Null => Value::Null,
    }
}

/// A representative valid synthetic payload: every required key, most
/// optional ones (all but every sixth key), and `other`: 42 members.
fn synthetic_payload(template: &SchemaTemplate) -> Map<String, Value> {
    let mut payload = Map::new();
    for (i, key) in template.keys.iter().enumerate() {
        if key.key_name.is_other() {
            payload.insert(OTHER_KEY.to_owned(), json!("deliver after 6 pm"));
        } else if key.required || i % 6 != 5 {
            payload.insert(
                key.key_name.as_str().to_owned(),
                synthetic_value(i, key.key_type),
            );
        }
    }
    payload
}

fn message(schema_id: &str, payload: Map<String, Value>) -> Value {
    json!({"schema_id": schema_id, "payload": payload})
}

fn case(
    name: &'static str,
    template_json: Vec<u8>,
    template: SchemaTemplate,
    valid: Value,
    invalid: Value,
) -> Case {
    let schema = CompiledSchema::new(&template).unwrap();
    // The same rules, as the template's own JSON Schema export.
    let json_schema = schema.json_schema().into_value();
    let json_schema_text = serde_json::to_vec(&json_schema).unwrap();
    let validator = jsonschema::validator_for(&json_schema).unwrap();
    let valid_bytes = serde_json::to_vec(&valid).unwrap();
    let invalid_bytes = serde_json::to_vec(&invalid).unwrap();
    let case = Case {
        name,
        template_json,
        template,
        schema,
        json_schema,
        json_schema_text,
        validator,
        valid,
        valid_bytes,
        invalid,
        invalid_bytes,
    };
    check_agreement(&case);
    case
}

/// Both libraries must agree on every benchmarked message, and the invalid
/// message must carry exactly four problems for each, or the comparison
/// means nothing.
fn check_agreement(case: &Case) {
    let name = case.name;
    let template = SchemaTemplate::from_slice(&case.template_json).unwrap();
    assert_eq!(template, case.template, "{name}: template text round trip");

    assert!(case.schema.is_valid(&case.valid), "{name}: sdsi valid");
    assert!(
        case.validator.is_valid(&case.valid),
        "{name}: jsonschema valid"
    );
    let report = case.schema.validate(&case.valid);
    assert!(report.is_valid(), "{name}: sdsi report valid");
    assert_eq!(case.validator.iter_errors(&case.valid).count(), 0);

    assert!(!case.schema.is_valid(&case.invalid), "{name}: sdsi invalid");
    assert!(
        !case.validator.is_valid(&case.invalid),
        "{name}: jsonschema invalid"
    );
    let report = case.schema.validate(&case.invalid);
    assert_eq!(
        report.errors().len(),
        4,
        "{name}: sdsi errors {:?}",
        report.errors()
    );
    let errors: Vec<String> = case
        .validator
        .iter_errors(&case.invalid)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert_eq!(errors.len(), 4, "{name}: jsonschema errors {errors:?}");

    for (value, bytes) in [
        (&case.valid, &case.valid_bytes),
        (&case.invalid, &case.invalid_bytes),
    ] {
        let from_value = case.schema.validate(value);
        let from_bytes = case.schema.validate_slice(bytes);
        assert_eq!(from_value, from_bytes, "{name}: bytes path report");
        assert_eq!(
            case.schema.is_valid_slice(bytes),
            from_value.is_valid(),
            "{name}: bytes path verdict"
        );
        let parsed: Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(
            case.validator.is_valid(&parsed),
            from_value.is_valid(),
            "{name}: jsonschema on bytes"
        );
    }
}

/// A trip plan: values that nest arrays and objects, the shape of real
/// agent payloads (itineraries, contacts, filters).
fn trip_template() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "trip_plan_v1",
        "scenario": "trip_planning",
        "keys": [
            {"key_name": "traveller", "key_type": "object", "required": true,
             "semantic_description": "Who travels: name, contact details, loyalty programmes."},
            {"key_name": "legs", "key_type": "array", "required": true,
             "semantic_description": "The journey's legs in order, each with its segments and seats."},
            {"key_name": "budget", "key_type": "object", "required": false,
             "semantic_description": "Spending limit: amount and currency."},
            {"key_name": "tags", "key_type": "array", "required": false, "default_value": [],
             "semantic_description": "Free labels for the trip."},
            {"key_name": "passengers", "key_type": "integer", "required": false, "default_value": 1,
             "semantic_description": "Number of travellers."},
            {"key_name": "flexible", "key_type": "boolean", "required": false, "default_value": false,
             "semantic_description": "Whether dates may move by a day."},
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Anything the other keys do not cover."}
        ]
    }))
    .unwrap()
}

fn trip_payload() -> Value {
    let leg = |from: &str, to: &str, date: &str, flight: &str, row: u32| {
        json!({"from": from, "to": to, "date": date,
               "segments": [{"flight": flight, "seat": {"row": row, "letter": "A"},
                             "meals": ["vegetarian", "no nuts"]}]})
    };
    json!({
        "traveller": {
            "name": "Ada Lovelace",
            "contact": {"email": "ada@example.org", "phones": ["+44 20 7946 0000"]},
            "loyalty": [{"programme": "skyclub", "number": "SC123456", "tier": {"level": 2}}]
        },
        "legs": [
            leg("LHR", "PEK", "2026-05-04", "CA938", 12),
            leg("PEK", "SHA", "2026-05-09", "MU5102", 30),
            leg("SHA", "LHR", "2026-05-15", "VS251", 7)
        ],
        "budget": {"amount": 2400.5, "currency": "GBP"},
        "tags": ["conference", "family"],
        "other": "aisle seats where possible"
    })
}

fn cases() -> Vec<Case> {
    let flight_template = SchemaTemplate::from_slice(FLIGHT_TEMPLATE).unwrap();
    // Figure 4 (§5.1): the draft's flight-booking payload.
    let flight_valid = json!({
        "schema_id": "flight_booking_v1",
        "payload": {
            "origin": "PEK",
            "destination": "SHA",
            "departure_date": "2026-05-04",
            "cabin_class": "business",
            "passenger_count": 1,
            "other": "window seat"
        }
    });
    // Missing `destination`, two type mismatches, one unknown key.
    let flight_invalid = json!({
        "schema_id": "flight_booking_v1",
        "payload": {
            "origin": "PEK",
            "departure_date": "2026-05-04",
            "cabin_class": 2,
            "passenger_count": "two",
            "seat_preference": "window",
            "other": "window seat"
        }
    });

    let photo_template = SchemaTemplate::from_slice(PHOTO_TEMPLATE).unwrap();
    // Figure 5 (§5.2): the draft's photo-editing payload.
    let photo_valid = json!({
        "schema_id": "photo_retouch_v2",
        "payload": {
            "skin_smoothing": 7,
            "teeth_whitening": true,
            "background_blur": true,
            "filter_style": "vintage",
            "eye_enlargement": false,
            "other": "increase eye size proportionally"
        }
    });
    // Every photo key is optional, so no missing key: two type mismatches,
    // an `other` array with a non-string element, one unknown key.
    let photo_invalid = json!({
        "schema_id": "photo_retouch_v2",
        "payload": {
            "skin_smoothing": "high",
            "teeth_whitening": "yes",
            "background_blur": true,
            "filter_style": "vintage",
            "eye_enlargement": false,
            "eye_size_scale": 1.2,
            "other": ["increase eye size proportionally", 3]
        }
    });

    let synthetic = synthetic_template();
    let synthetic_json = serde_json::to_vec(&synthetic).unwrap();
    let payload = synthetic_payload(&synthetic);
    let synthetic_valid = message(&synthetic.schema_id, payload.clone());
    // Missing required key 0, type mismatches on keys 1 (integer) and 2
    // (number), one unknown key.
    let mut bad = payload;
    bad.remove(&synthetic_name(0, KeyType::String));
    bad.insert(synthetic_name(1, KeyType::Integer), json!("seven"));
    bad.insert(synthetic_name(2, KeyType::Number), json!(true));
    bad.insert("attr_unknown".to_owned(), json!(1));
    let synthetic_invalid = message(&synthetic.schema_id, bad);

    let trip = trip_template();
    let trip_json = serde_json::to_vec(&trip).unwrap();
    let trip_valid = message("trip_plan_v1", trip_payload().as_object().unwrap().clone());
    // Missing `legs`, `budget` a string, `passengers` a float, one unknown key.
    let mut bad = trip_payload().as_object().unwrap().clone();
    bad.remove("legs");
    bad.insert("budget".into(), json!("2400 GBP"));
    bad.insert("passengers".into(), json!(2.5));
    bad.insert("hotel".into(), json!({"stars": 4}));
    let trip_invalid = message("trip_plan_v1", bad);

    vec![
        case(
            "flight",
            FLIGHT_TEMPLATE.to_vec(),
            flight_template,
            flight_valid,
            flight_invalid,
        ),
        case(
            "photo",
            PHOTO_TEMPLATE.to_vec(),
            photo_template,
            photo_valid,
            photo_invalid,
        ),
        case(
            "synthetic50",
            synthetic_json,
            synthetic,
            synthetic_valid,
            synthetic_invalid,
        ),
        case("trip", trip_json, trip, trip_valid, trip_invalid),
    ]
}

fn bench_value(c: &mut Criterion, case: &Case) {
    let Case {
        name,
        schema,
        validator,
        valid,
        invalid,
        ..
    } = case;

    let mut group = c.benchmark_group(format!("value_is_valid/{name}"));
    group.bench_function("sdsi", |b| b.iter(|| schema.is_valid(black_box(valid))));
    group.bench_function("jsonschema", |b| {
        b.iter(|| validator.is_valid(black_box(valid)))
    });
    group.finish();

    for (measure, message) in [
        ("value_report_invalid", invalid),
        ("value_report_valid", valid),
    ] {
        let mut group = c.benchmark_group(format!("{measure}/{name}"));
        group.bench_function("sdsi", |b| b.iter(|| schema.validate(black_box(message))));
        group.bench_function("jsonschema", |b| {
            b.iter(|| {
                validator
                    .iter_errors(black_box(message))
                    .collect::<Vec<_>>()
            })
        });
        group.finish();
    }
}

fn bench_bytes(c: &mut Criterion, case: &Case) {
    let Case {
        name,
        schema,
        validator,
        valid_bytes,
        invalid_bytes,
        ..
    } = case;

    for (measure, bytes) in [
        ("bytes_verdict", valid_bytes),
        ("bytes_verdict_invalid", invalid_bytes),
    ] {
        let mut group = c.benchmark_group(format!("{measure}/{name}"));
        group.bench_function("sdsi", |b| {
            b.iter(|| schema.is_valid_slice(black_box(bytes)))
        });
        group.bench_function("serde_ignored_any", |b| {
            b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(bytes)).unwrap())
        });
        group.finish();
    }

    for (measure, bytes) in [
        ("bytes_report_valid", valid_bytes),
        ("bytes_report_invalid", invalid_bytes),
    ] {
        let mut group = c.benchmark_group(format!("{measure}/{name}"));
        group.bench_function("sdsi", |b| {
            b.iter(|| schema.validate_slice(black_box(bytes)))
        });
        group.bench_function("serde_jsonschema", |b| {
            b.iter(|| {
                let value: Value = serde_json::from_slice(black_box(bytes)).unwrap();
                let errors = validator.iter_errors(&value).collect::<Vec<_>>();
                // Hand both on, as sdsi hands on its report and normalized payload.
                black_box(&errors);
                drop(errors);
                value
            })
        });
        group.finish();
    }
}

fn bench_compile(c: &mut Criterion, case: &Case) {
    let Case {
        name,
        template,
        template_json,
        json_schema,
        json_schema_text,
        ..
    } = case;

    let mut group = c.benchmark_group(format!("compile/{name}"));
    group.bench_function("sdsi", |b| {
        b.iter(|| CompiledSchema::new(black_box(template)).unwrap())
    });
    group.bench_function("jsonschema", |b| {
        b.iter(|| jsonschema::validator_for(black_box(json_schema)).unwrap())
    });
    group.bench_function("sdsi_from_json", |b| {
        b.iter(|| {
            let template = SchemaTemplate::from_slice(black_box(template_json)).unwrap();
            CompiledSchema::from_template(template).unwrap()
        })
    });
    group.bench_function("jsonschema_from_json", |b| {
        b.iter(|| {
            let schema: Value = serde_json::from_slice(black_box(json_schema_text)).unwrap();
            jsonschema::validator_for(&schema).unwrap()
        })
    });
    group.finish();
}

/// The flight payload as a server's own type.
#[derive(serde::Deserialize)]
#[allow(dead_code, reason = "read by serde; the bench only builds it")]
struct Flight {
    origin: String,
    destination: String,
    departure_date: String,
    cabin_class: String,
    passenger_count: u32,
    other: Option<String>,
}

/// Bytes to a validated `Flight`: sdsi validates the text and reads the
/// payload straight into the type; the usual way parses a `Value`,
/// validates it and converts it.
fn bench_typed(c: &mut Criterion, case: &Case) {
    let Case {
        name,
        schema,
        validator,
        valid_bytes,
        ..
    } = case;
    let flight = schema.deserialize_slice::<Flight>(valid_bytes).unwrap();
    assert_eq!(flight.payload.passenger_count, 1);
    let mut group = c.benchmark_group(format!("bytes_typed/{name}"));
    group.bench_function("sdsi", |b| {
        b.iter(|| {
            schema
                .deserialize_slice::<Flight>(black_box(valid_bytes))
                .unwrap()
        })
    });
    group.bench_function("serde_jsonschema", |b| {
        b.iter(|| {
            let mut value: Value = serde_json::from_slice(black_box(valid_bytes)).unwrap();
            assert!(validator.is_valid(&value));
            serde_json::from_value::<Flight>(value["payload"].take()).unwrap()
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    for case in &cases() {
        bench_value(c, case);
        bench_bytes(c, case);
        bench_compile(c, case);
        if case.name == "flight" {
            bench_typed(c, case);
        }
    }
    bench_unknown_names(c);
}

/// A message of `count` unknown payload members whose names share a
/// 200-byte prefix, and the flight schema with room for them, warning
/// about unknown keys: the bytes path checks each name against the earlier
/// ones (a repeat falls back to the `Value` path). Read with the time per
/// name: equal for 100 and 1,000 names when the check is linear.
fn bench_unknown_names(c: &mut Criterion) {
    let template = SchemaTemplate::from_slice(FLIGHT_TEMPLATE).unwrap();
    let options = ValidateOptions::default()
        .unknown_keys(UnknownKeys::Warn)
        .limits(Limits::default().with_max_keys(2048));
    let schema = CompiledSchema::with_options(&template, options).unwrap();
    let prefix = "p".repeat(200);
    let mut group = c.benchmark_group("unknown_names_shared_prefix");
    for count in [100usize, 1000] {
        let mut payload = Map::new();
        payload.insert("origin".into(), json!("PEK"));
        payload.insert("destination".into(), json!("SHA"));
        payload.insert("departure_date".into(), json!("2025-12-01"));
        for i in 0..count {
            payload.insert(format!("{prefix}{i:05}"), json!(i));
        }
        let message = json!({"schema_id": "flight_booking_v1", "payload": payload});
        let bytes = serde_json::to_vec(&message).unwrap();
        assert!(schema.is_valid_slice(&bytes));
        group.bench_function(format!("sdsi_{count}"), |b| {
            b.iter(|| schema.is_valid_slice(black_box(&bytes)))
        });
        group.bench_function(format!("serde_ignored_any_{count}"), |b| {
            b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(&bytes)).is_ok())
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(50)
}

criterion_group! {
    name = validate;
    config = config();
    targets = benches
}
criterion_main!(validate);
