//! Arbitrary template bytes and message bytes through parse → compile → validate.
//!
//! Input layout: `[len_lo, len_hi, opts, template bytes (len, clamped) ..., message bytes ...]`.
//! `len` is the template's length, little-endian, clamped to what is left;
//! `opts` picks a third set of options (see `sdsi_fuzz::options_from_byte`)
//! on top of the default options and `UnknownKeys::Warn`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sdsi::validate::{UnknownKeys, ValidateOptions};

fuzz_target!(|data: &[u8]| {
    let Some((header, rest)) = data.split_first_chunk::<3>() else {
        return;
    };
    let len = usize::from(u16::from_le_bytes([header[0], header[1]])).min(rest.len());
    let (template_bytes, msg) = rest.split_at(len);

    let Some(template) = sdsi_fuzz::check_template(template_bytes) else {
        return;
    };
    let value = sdsi_fuzz::parse_message(msg);
    for options in [
        ValidateOptions::default(),
        ValidateOptions::default().unknown_keys(UnknownKeys::Warn),
        sdsi_fuzz::options_from_byte(header[2]),
    ] {
        if let Some(schema) = sdsi_fuzz::compile(&template, options) {
            sdsi_fuzz::check_message(&schema, msg, &value);
        }
    }
});
