//! A time from a message is bounded by the store's clock guard
//! (`LifecyclePolicy::max_clock_jump`): a line dated far ahead moves neither
//! the store nor the heat of the need it would have joined.

use crate::common::{MORNING as T0, flight_store, flight_with_other};
use sdsi::evolution::{Evolution, EvolutionEngine, EvolutionEvent};
use sdsi::patch::DenySensitive;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const SEAT: [&str; 4] = [
    "window seat please",
    "a seat by the window",
    "I prefer a window seat",
    "window seat if possible",
];

/// Eight clients asking for a window seat, one message every 20 minutes,
/// each followed by the store's evaluation, as a server does; `intruder`
/// sends the same wish dated `(before message i, at)`.
fn run(intruder: Option<(usize, OffsetDateTime)>) -> Vec<EvolutionEvent> {
    let mut store = flight_store();
    let mut engine = Evolution::default();
    let mut events = Vec::new();
    for i in 0..96usize {
        if let Some((_, at)) = intruder.filter(|(before, _)| *before == i) {
            let refused = engine.observe(&mut store, &flight_with_other(SEAT[0]), "intruder", at);
            assert!(
                refused
                    .iter()
                    .all(|e| matches!(e, EvolutionEvent::Skipped { .. })),
                "{refused:#?}"
            );
            assert!(store.evaluate(at, &DenySensitive).clock_refused.is_some());
        }
        let at = T0 + Duration::minutes(20 * i as i64);
        let client = format!("agent-{}", i % 8);
        let text = SEAT[i % SEAT.len()];
        events.extend(engine.observe(&mut store, &flight_with_other(text), &client, at));
        store.evaluate(at, &DenySensitive);
    }
    events
}

#[test]
fn a_line_dated_far_ahead_changes_nothing_later_lines_do() {
    let clean = run(None);
    assert!(
        clean
            .iter()
            .any(|e| matches!(e, EvolutionEvent::Proposed { .. })),
        "the clean run proposes a key: {clean:#?}"
    );
    for before in [1, 20, 40] {
        for at in [datetime!(9999-12-31 23:59 UTC), T0 + Duration::days(40)] {
            assert_eq!(
                run(Some((before, at))),
                clean,
                "dated {at} before line {before}"
            );
        }
    }
}
