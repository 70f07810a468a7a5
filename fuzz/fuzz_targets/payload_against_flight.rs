//! Arbitrary message bytes against the draft's flight-booking template
//! (Figure 2, §4.1), under four sets of options.
//!
//! Input layout: the whole input is the message.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use sdsi::validate::{Limits, UnknownKeys, ValidateOptions};
use sdsi::{CompiledSchema, SchemaTemplate};

const FIGURE_2: &str = include_str!("../templates/flight_booking_v1.json");

static SCHEMAS: LazyLock<Vec<CompiledSchema>> = LazyLock::new(|| {
    let template = SchemaTemplate::from_json(FIGURE_2).expect("Figure 2 parses");
    let tight = Limits::default()
        .with_max_depth(0)
        .with_max_keys(3)
        .with_max_bytes(128);
    let small = Limits::default().with_max_depth(2).with_max_keys(7);
    [
        ValidateOptions::default(),
        ValidateOptions::default().unknown_keys(UnknownKeys::Warn),
        ValidateOptions::default()
            .unknown_keys(UnknownKeys::Warn)
            .limits(tight),
        ValidateOptions::default().limits(small),
    ]
    .into_iter()
    .map(|options| CompiledSchema::with_options(&template, options).expect("Figure 2 compiles"))
    .collect()
});

fuzz_target!(|data: &[u8]| {
    let value = sdsi_fuzz::parse_message(data);
    for schema in SCHEMAS.iter() {
        sdsi_fuzz::check_message(schema, data, &value);
    }
});
