//! Arbitrary event streams through the evolution pipeline (`Evolution::observe`)
//! and the store behind it: timestamps anywhere in the representable range
//! (years -9999..9999 are not all representable without `time`'s
//! `large-dates`; its whole range is), clocks that go back, lines dated far
//! ahead or out of order, any `other` payload, many clients, personal pools
//! on or off. Never a panic, and:
//!
//! | class | property |
//! |---|---|
//! | `pipeline-compiles` | every client's schema still compiles after every event |
//! | `pipeline-no-raw-card` | no 13-19 digit run passing Luhn appears in the free text (`text`, `semantic_description`, `reason`, `message`) of any event or pool snapshot |
//! | `pipeline-guard` | the scenario never holds more experimental keys than the guard allows |
//! | `pipeline-split` | the state splits into header and rows exactly when it serializes whole, and the rows give the same engine state back |
//! | `pipeline-rows` | the store's patch rows read back as its accepted and queued patches, in order |
//! | `pipeline-far-ahead` | a line the store's clock guard refuses (more than `max_clock_jump` past the last evaluation) gives only `Skipped` events; and, in the twin run, lines dated far ahead inserted into the stream leave every other line's events, every evaluation and the final store and engine state exactly as without them |
//!
//! Input layout: `[flags] ([client] [time step: i32 seconds] [kind] [text…\0])*`,
//! at most 48 lines.
//! Flags: bit 0 per-client pools too, bits 1-2 the start instant, bit 3 a
//! low gate (heat 1.5, bit 4 picks one or two clients) so proposals flow
//! through the store, bit 5 booked lending (`Lending::Book`; else silence),
//! bit 6 the twin run (below).
//! Kind: `kind % 3` the shape of `other` (text, array split at `|`, a
//! number), bit 7 evaluate the store at the line's time after it; bits 4-6
//! the line's time (the clock starts at the start instant):
//!
//! | bits 4-6 | the line is dated | the clock then |
//! |---|---|---|
//! | 0, 5, 6, 7 | clock + step | moves there |
//! | 1 | 9999-12-31 23:59:59 UTC | stays |
//! | 2 | the guard's bound + \|step\| s (the bound itself at step 0, which the guard accepts) | stays |
//! | 3 | clock − \|step\| s (out of order) | stays |
//! | 4 | the guard's bound + \|step\| s | moves there (later lines are refused until it comes back) |
//!
//! The guard's bound is the last evaluation plus `max_clock_jump` (30 days);
//! before the first evaluation there is none (then the clock plus 30 days).
//!
//! The twin run (flag bit 6) feeds a second engine and store the same lines,
//! and before each line with kind bit 3 set, once the store has been
//! evaluated, one more: that line's message from the next client
//! (`agent-(n+1)`), dated 9999-12-31 23:59:59 (kind bit 1) or a second past
//! the guard's bound, and evaluated there when the line is. The guard must
//! refuse it everywhere: one line dated far ahead cannot change what later
//! in-range lines do to other clients' needs. Only the first engine's lines
//! are checked one by one (the twin's must equal them).
//!
//! The embedder is the hashing one at dimension 32 (1,024 in production):
//! nothing in the pipeline depends on the dimension but the cost of every
//! vector, which at 1,024 made the state's serialization and read-back
//! most of the time.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use sdsi::evolution::{
    Branching, Evolution, EvolutionConfig, EvolutionEngine, EvolutionEvent, HashingEmbedder,
    Lending, RuleInducer, SavedServer,
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

/// Lines read per input.
const MAX_LINES: usize = 48;
/// The hashing embedder's dimension here (see the header).
const DIMENSION: usize = 32;
/// A line dated "far ahead".
const FAR_AHEAD: OffsetDateTime = time::macros::datetime!(9999-12-31 23:59:59 UTC);

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

/// One engine and its store.
struct Server {
    engine: Evolution,
    store: SchemaStore,
}

impl Server {
    fn new(flags: u8) -> Option<Self> {
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
        let embedder = HashingEmbedder::default().with_dimension(DIMENSION);
        Some(Self {
            engine: Evolution::new(embedder, RuleInducer, config),
            store: SchemaStore::new(BASE.clone(), LifecyclePolicy::default()).ok()?,
        })
    }

    /// The last evaluation plus `max_clock_jump`: past it the guard refuses.
    fn bound(&self) -> Option<OffsetDateTime> {
        let lifecycle = self.store.lifecycle();
        lifecycle
            .evaluated_at()?
            .checked_add(lifecycle.policy().max_clock_jump)
    }

    /// Observes `message`, and evaluates the store after it when asked.
    fn line(
        &mut self,
        message: &Value,
        client: &str,
        at: OffsetDateTime,
        evaluate: bool,
    ) -> (Vec<EvolutionEvent>, Option<sdsi::patch::Evaluation>) {
        let happened = self.engine.observe(&mut self.store, message, client, at);
        let evaluation = evaluate.then(|| self.store.evaluate(at, &DenySensitive));
        (happened, evaluation)
    }
}

/// The store as a JSON value: comparable across stores (object order
/// carries no meaning; digests, tags and seals are canonical). Compared as
/// values, not as their text: printing both was a fifth of a short input's
/// time, and two values are equal exactly when their texts are.
fn canonical(store: &SchemaStore) -> Option<Value> {
    serde_json::to_value(store).ok()
}

fn only_skipped(events: &[EvolutionEvent]) -> bool {
    events
        .iter()
        .all(|e| matches!(e, EvolutionEvent::Skipped { .. }))
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, mut rest)) = data.split_first() else {
        return;
    };
    let Some(mut server) = Server::new(flags) else {
        return;
    };
    let mut twin = if flags & 0x40 != 0 {
        Server::new(flags)
    } else {
        None
    };
    // Start anywhere: near the epoch, or near either end of the range.
    let mut clock = match (flags >> 1) & 3 {
        0 => OffsetDateTime::UNIX_EPOCH,
        1 => time::macros::datetime!(9999-12-31 20:00 UTC),
        2 => time::macros::datetime!(-9999-01-01 0:00 UTC),
        _ => time::macros::datetime!(2026-05-01 8:00 UTC),
    };
    let mut lines = 0;
    while let [client, s0, s1, s2, s3, kind, tail @ ..] = rest {
        if lines >= MAX_LINES {
            break;
        }
        lines += 1;
        let (client, kind) = (*client, *kind);
        let step = i32::from_le_bytes([*s0, *s1, *s2, *s3]);
        let back = Duration::seconds(i64::from(step.unsigned_abs()));
        let bound = server
            .bound()
            .or_else(|| clock.checked_add(server.store.lifecycle().policy().max_clock_jump));
        let past_bound = bound.and_then(|b| b.checked_add(back));
        let at = match (kind >> 4) & 7 {
            1 => FAR_AHEAD,
            2 => past_bound.unwrap_or(FAR_AHEAD),
            3 => clock.checked_sub(back).unwrap_or(clock),
            4 => {
                clock = past_bound.unwrap_or(clock);
                clock
            }
            _ => {
                clock = clock
                    .checked_add(Duration::seconds(i64::from(step)))
                    .unwrap_or(clock);
                clock
            }
        };
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
        let name = format!("agent-{}", client % 12);
        let evaluate = kind & 0x80 != 0;
        // The twin's extra line first: the same message from another
        // client, dated where the guard refuses it.
        if let Some(twin) = twin.as_mut().filter(|_| kind & 8 != 0) {
            let ahead = if kind & 2 != 0 {
                Some(FAR_AHEAD)
            } else {
                twin.bound().and_then(|b| b.checked_add(Duration::SECOND))
            };
            let refused = ahead.filter(|&t| twin.store.lifecycle().clock_jump(t).is_some());
            if let Some(ahead) = refused {
                let other_client = format!("agent-{}", (client % 12 + 1) % 12);
                let (happened, evaluation) = twin.line(&message, &other_client, ahead, evaluate);
                check!(
                    "pipeline-far-ahead",
                    only_skipped(&happened) && evaluation.is_none_or(|e| e.clock_refused.is_some()),
                    "{other_client} at {ahead}: {happened:?}"
                );
            }
        }
        let refused = server.store.lifecycle().clock_jump(at).is_some();
        let (happened, evaluation) = server.line(&message, &name, at, evaluate);
        if let Some(twin) = twin.as_mut() {
            let (twin_happened, twin_evaluation) = twin.line(&message, &name, at, evaluate);
            check!(
                "pipeline-far-ahead",
                twin_happened == happened && twin_evaluation == evaluation,
                "{name} at {at}, after lines dated far ahead: {twin_happened:?} {twin_evaluation:?}, \
                 without them: {happened:?} {evaluation:?}"
            );
        }
        let printed = serde_json::to_value(&happened).unwrap_or_default();
        if *TRACE {
            eprintln!("{name} at {at}: {printed}");
        }
        check!(
            "pipeline-far-ahead",
            !refused || only_skipped(&happened),
            "{name} at {at}, past the guard: {printed}"
        );
        check!(
            "pipeline-no-raw-card",
            !free_text_has_card(&printed),
            "{printed}"
        );
        let store = &server.store;
        for view in [None, Some(name.as_str())] {
            let compiled = store.compile_for(view, at);
            check!(
                "pipeline-compiles",
                compiled.is_ok(),
                "{view:?} at {at}: {compiled:?}"
            );
        }
        let experimental = store
            .lifecycle()
            .experimental_count(&PatchScope::Global, at);
        check!(
            "pipeline-guard",
            experimental <= store.lifecycle().policy().max_experimental,
            "{experimental} experimental keys"
        );
    }
    let Server { engine, store } = &server;
    // The state kept as a header and rows (store and pools) comes back as
    // the whole state does, and the store's rows read back as its patches.
    let state = engine.state();
    let whole = SavedServer::encode(1, 0, store, &state);
    let split = SavedServer::encode_split(1, 0, store, &state);
    check!(
        "pipeline-split",
        whole.is_ok() == split.is_ok(),
        "whole {:?}, split {:?}",
        whole.as_ref().err(),
        split.as_ref().err()
    );
    let wanted = canonical(store);
    if let Ok(split) = &split {
        let back = SavedServer::from_split(&split.bytes, &split.store, &split.pools);
        // Compared as JSON values: the header goes through a `Value`, which
        // orders a key definition's extra members.
        let got = back.as_ref().ok().and_then(|b| canonical(&b.store));
        let same = back.as_ref().is_ok_and(|b| b.engine == state) && wanted == got;
        if !same {
            // Where the store read back first differs from the one written.
            let text = |v: &Option<Value>| v.as_ref().map(Value::to_string).unwrap_or_default();
            let (w, g) = (text(&wanted), text(&got));
            let differs = w.bytes().zip(g.bytes()).position(|(a, b)| a != b);
            check!(
                "pipeline-split",
                false,
                "{:?}; store differs at {:?}: {:?} / {:?}",
                back.as_ref().err(),
                differs,
                differs.and_then(|i| w.get(i.saturating_sub(200)..i + 80)),
                differs.and_then(|i| g.get(i.saturating_sub(200)..i + 80)),
            );
        }
    }
    if let Some(twin) = &twin {
        check!(
            "pipeline-far-ahead",
            twin.engine.state() == state && canonical(&twin.store) == wanted,
            "the lines dated far ahead changed the final state"
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
