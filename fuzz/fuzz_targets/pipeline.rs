//! Arbitrary event streams through the evolution pipeline (`Evolution::observe`)
//! and the store behind it: timestamps anywhere in the representable range
//! (years -9999..9999 are not all representable without `time`'s
//! `large-dates`; its whole range is), clocks that go back, any `other`
//! payload, many clients, personal pools on or off. Never a panic, and:
//!
//! | class | property |
//! |---|---|
//! | `pipeline-compiles` | every client's schema still compiles after every event |
//! | `pipeline-no-raw-card` | no 13-19 digit run passing Luhn appears in the free text (`text`, `semantic_description`, `reason`, `message`) of any event or pool snapshot |
//! | `pipeline-guard` | the scenario never holds more experimental keys than the guard allows |
//! | `pipeline-split` | the state splits into header and rows exactly when it serializes whole, and the rows give the same engine state back |
//! | `pipeline-rows` | the store's patch rows read back as its accepted and queued patches, in order |
//!
//! Input layout: `[flags] ([client] [time step: i32 seconds] [kind] [text…\0])*`.
//! Flags: bit 0 per-client pools too, bits 1-2 the start instant, bit 3 a
//! low gate (heat 1.5, bit 4 picks one or two clients) so proposals flow
//! through the store, bit 5 booked lending (`Lending::Book`; else silence).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use sdsi::evolution::{
    Branching, Evolution, EvolutionConfig, EvolutionEngine, HashingEmbedder, Lending, RuleInducer,
    SavedServer,
};
use sdsi::patch::{DenySensitive, LifecyclePolicy, PatchScope};
use sdsi::{SchemaStore, SchemaTemplate};
use sdsi_fuzz::check;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

/// `SDSI_FUZZ_TRACE=1` prints each event's outcome (to see what a seed reaches).
static TRACE: LazyLock<bool> = LazyLock::new(|| std::env::var_os("SDSI_FUZZ_TRACE").is_some());

const FIGURE_2: &str = include_str!("../templates/flight_booking_v1.json");
static BASE: LazyLock<SchemaTemplate> =
    LazyLock::new(|| SchemaTemplate::from_json(FIGURE_2).expect("Figure 2 parses"));

/// Whether `text` holds a run of 13-19 ASCII digits passing Luhn (spaces or
/// dashes allowed between digits).
fn has_card(text: &str) -> bool {
    let mut digits: Vec<u32> = Vec::new();
    let mut previous_separator = false;
    let flush = |digits: &mut Vec<u32>| -> bool {
        let found = (13..=19).any(|len| {
            digits.len() >= len
                && (0..=digits.len() - len).any(|start| {
                    let sum: u32 = digits[start..start + len]
                        .iter()
                        .rev()
                        .enumerate()
                        .map(|(i, &d)| {
                            if i % 2 == 1 {
                                let x = d * 2;
                                if x > 9 { x - 9 } else { x }
                            } else {
                                d
                            }
                        })
                        .sum();
                    sum % 10 == 0 && digits[start..start + len].iter().any(|&d| d != 0)
                })
        });
        digits.clear();
        found
    };
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            digits.push(d);
            previous_separator = false;
        } else if matches!(c, ' ' | '-') && !previous_separator && !digits.is_empty() {
            previous_separator = true;
        } else if flush(&mut digits) {
            return true;
        } else {
            previous_separator = false;
        }
    }
    flush(&mut digits)
}

/// Whether any free-text member (`text`, `semantic_description`, `reason`,
/// `message`) of `value` holds a card number. Numbers, ids and timestamps
/// are not free text and may hold any digits.
fn free_text_has_card(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(free_text_has_card),
        Value::Object(members) => members.iter().any(|(name, member)| match member {
            Value::String(text) => {
                matches!(
                    name.as_str(),
                    "text" | "semantic_description" | "reason" | "message"
                ) && has_card(text)
            }
            other => free_text_has_card(other),
        }),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, mut rest)) = data.split_first() else {
        return;
    };
    let mut config = EvolutionConfig::default().branching(if flags & 1 == 1 {
        Branching::GlobalAndPerClient
    } else {
        Branching::Global
    });
    // Bit 3: a low gate, so the 48 events of an input reach proposals and
    // the store's patch, lifecycle and guard paths (the default gate needs
    // a heat of 10 from three clients, rare in so few events).
    if flags & 8 != 0 {
        config.pool.heat_threshold = 1.5;
        config.pool.min_clients = 1 + usize::from((flags >> 4) & 1);
        config.pool.min_occurrences = 1;
    }
    if flags & 32 != 0 {
        config = config.lending(Lending::Book);
    }
    let mut engine = Evolution::new(HashingEmbedder::default(), RuleInducer, config);
    let Ok(mut store) = SchemaStore::new(BASE.clone(), LifecyclePolicy::default()) else {
        return;
    };
    // Start anywhere: near the epoch, or near either end of the range.
    let mut now = match (flags >> 1) & 3 {
        0 => OffsetDateTime::UNIX_EPOCH,
        1 => time::macros::datetime!(9999-12-31 20:00 UTC),
        2 => time::macros::datetime!(-9999-01-01 0:00 UTC),
        _ => time::macros::datetime!(2026-05-01 8:00 UTC),
    };
    let mut events = 0;
    while let [client, s0, s1, s2, s3, kind, tail @ ..] = rest {
        if events >= 48 {
            break;
        }
        events += 1;
        let step = i32::from_le_bytes([*s0, *s1, *s2, *s3]);
        now = now
            .checked_add(Duration::seconds(i64::from(step)))
            .unwrap_or(now);
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let text = String::from_utf8_lossy(&tail[..end]).into_owned();
        rest = tail.get(end + 1..).unwrap_or(&[]);
        let other = match kind % 3 {
            0 => Value::String(text.clone()),
            1 => Value::Array(
                text.split('|')
                    .map(|p| Value::String(p.to_owned()))
                    .collect(),
            ),
            _ => json!(text.len()),
        };
        let message = json!({"schema_id": "flight_booking_v1", "payload": {
            "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04", "other": other}});
        let client = format!("agent-{}", client % 12);
        let happened = engine.observe(&mut store, &message, &client, now);
        if kind & 0x80 != 0 {
            let _ = store.evaluate(now, &DenySensitive);
        }
        let printed = serde_json::to_value(&happened).unwrap_or_default();
        if *TRACE {
            eprintln!("{client} at {now}: {printed}");
        }
        check!(
            "pipeline-no-raw-card",
            !free_text_has_card(&printed),
            "{printed}"
        );
        for view in [None, Some(client.as_str())] {
            let compiled = store.compile_for(view, now);
            check!(
                "pipeline-compiles",
                compiled.is_ok(),
                "{view:?} at {now}: {compiled:?}"
            );
        }
        let experimental = store
            .lifecycle()
            .experimental_count(&PatchScope::Global, now);
        check!(
            "pipeline-guard",
            experimental <= store.lifecycle().policy().max_experimental,
            "{experimental} experimental keys"
        );
    }
    // The state kept as a header and rows (store and pools) comes back as
    // the whole state does, and the store's rows read back as its patches.
    let state = engine.state();
    let whole = SavedServer::encode(1, 0, &store, &state);
    let split = SavedServer::encode_split(1, 0, &store, &state);
    check!(
        "pipeline-split",
        whole.is_ok() == split.is_ok(),
        "whole {:?}, split {:?}",
        whole.as_ref().err(),
        split.as_ref().err()
    );
    if let Ok(split) = &split {
        let back = SavedServer::from_split(&split.bytes, &split.store, &split.pools);
        // Compared as JSON values: the header goes through a `Value`, which
        // orders a key definition's extra members (object order carries no
        // meaning; digests, tags and seals are canonical).
        let canonical = |s: &sdsi::SchemaStore| serde_json::to_value(s).ok().map(|v| v.to_string());
        let wanted = canonical(&store);
        let got = back.as_ref().ok().and_then(|b| canonical(&b.store));
        // Where the store read back first differs from the one written.
        let differs = match (&wanted, &got) {
            (Some(w), Some(g)) => w.bytes().zip(g.bytes()).position(|(a, b)| a != b),
            _ => None,
        };
        check!(
            "pipeline-split",
            back.as_ref().is_ok_and(|b| b.engine == state) && wanted == got,
            "{:?}; store differs at {:?}: {:?} / {:?}",
            back.as_ref().err(),
            differs,
            differs.and_then(|i| wanted.as_deref()?.get(i.saturating_sub(200)..i + 80)),
            differs.and_then(|i| got.as_deref()?.get(i.saturating_sub(200)..i + 80)),
        );
    }
    if let Ok(rows) = store.rows() {
        let patches: Vec<_> = store.patches().chain(store.queued()).collect();
        check!(
            "pipeline-rows",
            rows.patches.len() == patches.len()
                && rows
                    .patches
                    .iter()
                    .zip(&patches)
                    .all(|(row, patch)| row.patch().is_ok_and(|p| &p == *patch)),
            "{} rows for {} patches",
            rows.patches.len(),
            patches.len()
        );
    }
    for (_, pool) in engine.pools() {
        let snapshot = serde_json::to_value(pool).unwrap_or_default();
        check!(
            "pipeline-no-raw-card",
            !free_text_has_card(&snapshot),
            "a card number in {snapshot}"
        );
    }
});
