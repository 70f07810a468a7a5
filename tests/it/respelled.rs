//! The bytes path on JSON text of every spelling: the same message written
//! with whitespace between tokens, escaped characters (surrogate pairs
//! too), integers written with fractions and exponents, names escaped —
//! and then sometimes damaged (a byte changed, the text cut, a lone
//! surrogate). Whatever the spelling, `validate_str` / `is_valid_str` must
//! answer as serde_json's `Value` and the `Value` path do, `invalid_json`
//! with serde_json's own message included. Messages serde_json writes
//! (the `properties` module) never reach most of these spellings.

use std::fmt::Write;

use crate::common::{Extras, message_for, options_with_limits, template};
use proptest::prelude::*;
use sdsi::{CompiledSchema, IssueCode};
use serde_json::Value;

/// A small deterministic random source for the spelling choices, and the
/// text's style: how often a character is escaped (0: never; names are
/// escaped only then, so most texts keep plain names, as real ones do) and
/// whether lone surrogates are planted.
struct Coins {
    state: u64,
    escape_one_in: u64,
    lone_surrogates: bool,
}

impl Coins {
    fn new(seed: u64) -> Self {
        let mut coins = Coins {
            state: seed,
            escape_one_in: 0,
            lone_surrogates: false,
        };
        coins.escape_one_in = *coins.pick(&[0, 0, 40, 4]);
        coins.lone_surrogates = coins.one_in(4);
        coins
    }
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.next() % n == 0
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[(self.next() % from.len() as u64) as usize]
    }
}

fn space(coins: &mut Coins, out: &mut String) {
    while coins.one_in(3) {
        out.push(*coins.pick(&[' ', '\t', '\n', '\r']));
    }
}

fn string(text: &str, coins: &mut Coins, out: &mut String) {
    out.push('"');
    if coins.lone_surrogates && coins.one_in(8) {
        // A lone surrogate: serde_json refuses it.
        out.push_str(coins.pick::<&str>(&["\\ud800", "\\udc00", "\\ud83d\\u0041"]));
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20
                || (coins.escape_one_in > 0 && coins.one_in(coins.escape_one_in)) =>
            {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            '/' if coins.one_in(2) => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Numbers at the edges of what the scanner reads itself: zero's signs,
/// the 64-bit bounds and just past them, 18 and 19 digits, fractions and
/// exponents that make whole numbers, and spellings serde_json refuses.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "0e5",
    "1E2",
    "-1",
    "2.5",
    "4503599627370496.5",
    "999999999999999999",
    "-999999999999999999",
    "1000000000000000000",
    "9223372036854775807",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901",
    "1e400",
    "01",
    "-",
    "1.",
    ".5",
    "1e",
    "-01",
    "00",
];

fn number(number: &serde_json::Number, coins: &mut Coins, out: &mut String) {
    let plain = number.to_string();
    let integer = number.is_i64() || number.is_u64();
    match coins.next() % 8 {
        0 if integer => out.push_str(&format!("{plain}.0")),
        1 if integer => out.push_str(&format!("{plain}e0")),
        2 if integer => out.push_str(&format!("{plain}0E-1")),
        3 | 4 => out.push_str(coins.pick::<&str>(EDGE_NUMBERS)),
        5 => match number.as_f64() {
            Some(f) => out.push_str(&format!("{f:e}")),
            None => out.push_str(&plain),
        },
        _ => out.push_str(&plain),
    }
}

/// Writes `value` as JSON text, spelled by `coins`.
fn respell(value: &Value, coins: &mut Coins, out: &mut String) {
    space(coins, out);
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => number(n, coins, out),
        Value::String(s) => string(s, coins, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                respell(item, coins, out);
            }
            space(coins, out);
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (name, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(coins, out);
                string(name, coins, out);
                space(coins, out);
                out.push(':');
                respell(item, coins, out);
            }
            space(coins, out);
            out.push('}');
        }
    }
    space(coins, out);
}

/// Often damages `text` (staying UTF-8): an ASCII byte replaced — half the
/// time one inside a word or number, where a literal or a number breaks —
/// or the text cut.
fn damage(text: &mut String, coins: &mut Coins) {
    if text.is_empty() || coins.one_in(2) {
        return;
    }
    let mut at = (coins.next() % text.len() as u64) as usize;
    if coins.one_in(4) {
        let cut = (0..=at)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        text.truncate(cut);
        return;
    }
    if coins.one_in(2) {
        let alphanumeric: Vec<usize> = text
            .bytes()
            .enumerate()
            .filter(|(_, b)| b.is_ascii_alphanumeric())
            .map(|(i, _)| i)
            .collect();
        if !alphanumeric.is_empty() {
            at = *coins.pick(&alphanumeric);
        }
    }
    if text.as_bytes()[at].is_ascii() {
        let with = *coins.pick(&[
            "\"", "\\", ",", ":", "{", "}", "[", "]", "0", "-", "e", ".", " ", "x", "\u{1}", "",
            "\t", "\n", "\u{1f}", "\u{7f}", "l",
        ]);
        text.replace_range(at..=at, with);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16384, ..ProptestConfig::default() })]

    #[test]
    fn every_spelling_gets_the_value_paths_answer(
        (template, message) in template(Extras::All).prop_flat_map(|t| { let m = message_for(&t); (Just(t), m) }),
        opts in options_with_limits(),
        seed in 1..u64::MAX,
    ) {
        let schema = CompiledSchema::with_options(&template, opts).unwrap();
        let mut coins = Coins::new(seed);
        let mut text = String::new();
        respell(&message, &mut coins, &mut text);
        damage(&mut text, &mut coins);
        let report = schema.validate_str(&text);
        match serde_json::from_str::<Value>(&text) {
            Ok(parsed) => {
                prop_assert_eq!(&report, &schema.validate(&parsed), "{}", text);
                prop_assert_eq!(schema.is_valid_str(&text), report.is_valid(), "{}", text);
            }
            Err(error) => {
                prop_assert_eq!(report.errors().len(), 1, "{}", text);
                prop_assert_eq!(report.errors()[0].code(), IssueCode::InvalidJson);
                prop_assert_eq!(report.errors()[0].message(), error.to_string());
                prop_assert!(!schema.is_valid_str(&text), "{}", text);
            }
        }
    }
}
