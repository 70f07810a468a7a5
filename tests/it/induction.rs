//! Induction off the message path (`Induction::OffPath`): `observe` never
//! calls the inducer; the waiting needs are induced on another thread and
//! completed, with the decisions an inline induction makes.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{MORNING as T0, flight_store, flight_with_other};
use sdsi::evolution::{
    Evolution, EvolutionConfig, EvolutionEngine, EvolutionEvent, HashingEmbedder, INDUCTION_WAIT,
    Induction, IntentInducer, NeedView, RuleInducer,
};
use sdsi::{KeyDefinition, SchemaStore, SchemaTemplate};
use time::Duration;

const WISHES: [&str; 6] = [
    "window seat please",
    "a seat by the window",
    "vegetarian meal please",
    "a vegetarian meal",
    "travelling with my cat",
    "bringing my dog along",
];

/// The rule inducer, counting its calls.
#[derive(Default)]
struct Counted(AtomicUsize);

impl IntentInducer for Counted {
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition> {
        self.0.fetch_add(1, Ordering::Relaxed);
        RuleInducer.induce(need, schema)
    }
}

fn engine(induction: Induction) -> Evolution<HashingEmbedder, Counted> {
    let config = EvolutionConfig::default().induction(induction);
    Evolution::new(HashingEmbedder::default(), Counted::default(), config)
}

/// 240 messages from eight clients, one every ten minutes; after each,
/// `between` may add what it did (the off-path round).
fn replay(
    engine: &mut Evolution<HashingEmbedder, Counted>,
    store: &mut SchemaStore,
    mut between: impl FnMut(
        &mut Evolution<HashingEmbedder, Counted>,
        &mut SchemaStore,
        time::OffsetDateTime,
    ) -> Vec<EvolutionEvent>,
) -> Vec<EvolutionEvent> {
    let mut events = Vec::new();
    for i in 0..240usize {
        let at = T0 + Duration::minutes(10 * i as i64);
        let text = WISHES[(i / 8) % WISHES.len()];
        let client = format!("agent-{}", i % 8);
        events.extend(engine.observe(store, &flight_with_other(text), &client, at));
        events.extend(between(engine, store, at));
    }
    events
}

#[test]
fn off_the_path_decides_as_inline_and_observe_never_induces() {
    let mut inline_store = flight_store();
    let mut inline = engine(Induction::Inline);
    let expected = replay(&mut inline, &mut inline_store, |_, _, _| Vec::new());
    let proposed = |events: &[EvolutionEvent]| {
        events
            .iter()
            .filter(|e| matches!(e, EvolutionEvent::Proposed { .. }))
            .count()
    };
    assert!(proposed(&expected) >= 2, "{expected:#?}");

    let mut store = flight_store();
    let mut off = engine(Induction::OffPath);
    let mut waited = 0;
    let got = replay(&mut off, &mut store, |engine, store, now| {
        let calls = engine_calls(engine);
        let pending = engine.inductions(store, now);
        waited += pending.len();
        // Induced on another thread, with no engine borrowed.
        let answers: Vec<_> = std::thread::scope(|scope| {
            let inducer = RuleInducer;
            let handles: Vec<_> = pending
                .into_iter()
                .map(|p| scope.spawn(move || p.run(&inducer)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(
            engine_calls(engine),
            calls,
            "the engine's inducer is not called"
        );
        answers
            .into_iter()
            .flat_map(|answer| engine.complete(store, answer, now))
            .collect()
    });
    assert_eq!(engine_calls(&off), 0, "observe never induced");
    assert!(waited >= 2);
    let without_waits: Vec<EvolutionEvent> = got
        .into_iter()
        .filter(|e| !matches!(e, EvolutionEvent::Inducing { .. }))
        .collect();
    assert_eq!(without_waits, expected);
    assert_eq!(
        serde_json::to_value(&store).unwrap(),
        serde_json::to_value(&inline_store).unwrap()
    );
}

fn engine_calls(engine: &Evolution<HashingEmbedder, Counted>) -> usize {
    engine.inducer().0.load(Ordering::Relaxed)
}

/// An answer that never comes (a restart) leaves the need to open again
/// after `INDUCTION_WAIT`; `induce_waiting` runs the round with the
/// engine's own inducer.
#[test]
fn a_lost_induction_opens_again_after_the_wait() {
    let mut store = flight_store();
    let mut engine = engine(Induction::OffPath);
    let mut inducing = Vec::new();
    let mut proposed = 0;
    for i in 0..200usize {
        let at = T0 + Duration::minutes(10 * i as i64);
        let client = format!("agent-{}", i % 8);
        for event in engine.observe(&mut store, &flight_with_other(WISHES[0]), &client, at) {
            if let EvolutionEvent::Inducing { until, .. } = event {
                inducing.push((at, until));
            }
        }
        if inducing.len() == 2 && proposed == 0 {
            let events = engine.induce_waiting(&mut store, at);
            proposed += events
                .iter()
                .filter(|e| matches!(e, EvolutionEvent::Proposed { .. }))
                .count();
        } else {
            // Taken and lost.
            drop(engine.inductions(&store, at));
        }
    }
    assert!(inducing.len() >= 2, "{inducing:?}");
    let (first, until) = inducing[0];
    assert_eq!(until, first + INDUCTION_WAIT);
    assert!(inducing[1].0 >= until, "{inducing:?}");
    assert_eq!(proposed, 1);
    assert_eq!(engine.inducer().0.load(Ordering::Relaxed), 1);
}

/// An answer counts once: completed a second time (a retried delivery), it
/// changes nothing.
#[test]
fn an_answer_completes_once() {
    let mut store = flight_store();
    let mut engine = engine(Induction::OffPath);
    let mut answers = Vec::new();
    for i in 0..120usize {
        let at = T0 + Duration::minutes(10 * i as i64);
        let client = format!("agent-{}", i % 8);
        engine.observe(&mut store, &flight_with_other(WISHES[0]), &client, at);
        answers.extend(
            engine
                .inductions(&store, at)
                .into_iter()
                .map(|p| p.run(&RuleInducer)),
        );
        if !answers.is_empty() {
            let answer = answers.remove(0);
            let first = engine.complete(&mut store, answer.clone(), at);
            assert!(
                first
                    .iter()
                    .any(|e| matches!(e, EvolutionEvent::Proposed { .. })),
                "{first:#?}"
            );
            assert_eq!(engine.complete(&mut store, answer, at), Vec::new());
            return;
        }
    }
    panic!("no need waited");
}
