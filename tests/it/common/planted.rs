//! Planted-burst streams built from real paraphrases (Banking77, see
//! tests/fixtures/README.md), run through the evolution engine with any
//! embedder: tests/it/planted.rs uses the default hashing embedder, the
//! sdsi-model crate's tests the sentence-transformer.
//!
//! - Five intents arrive as multi-client bursts (10 clients each, every
//!   paraphrase three times, a message a minute: 600 messages in ten hours,
//!   each burst about 2.4 times the default gate's heat), interleaved with
//!   each other and with one-off requests of 71 other intents from 71 other
//!   clients. Each burst should yield a key named with its own words from a
//!   cluster that is (mostly) its intent alone; no one-off intent proposes
//!   anything. What each embedder reaches is its test's [`Expect`].
//! - One client floods a sixth intent: nothing global; with personal pools,
//!   at most a patch scoped to that client.
//!
//! The fixture's intents were chosen by a fixed rule (every 11th in name
//! order), not by how well they cluster.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sdsi::evolution::{
    Branching, Embedder, Evolution, EvolutionConfig, EvolutionEngine, EvolutionEvent, PoolKey,
    RuleInducer, redact, sanitize_fragment,
};
use sdsi::patch::{HoldReason, LifecyclePolicy, PatchScope, Submission};
use sdsi::{SchemaStore, SchemaTemplate};
use serde::Deserialize;
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const T0: OffsetDateTime = datetime!(2026-06-01 8:00 UTC);
const FIXTURE: &str = include_str!("../../fixtures/banking77_planted.jsonl");
const BURST_CLIENTS: usize = 10;
/// How often each paraphrase of a burst is sent (by different clients).
const REPEATS: usize = 3;

#[derive(Deserialize)]
pub struct Request {
    pub text: String,
    pub intent: String,
}

/// The fixture's requests by intent, intents in file order.
pub fn intents() -> Vec<(String, Vec<String>)> {
    let mut order: Vec<(String, Vec<String>)> = Vec::new();
    for line in FIXTURE.lines().filter(|l| !l.trim().is_empty()) {
        let request: Request = serde_json::from_str(line).unwrap();
        match order
            .iter_mut()
            .find(|(intent, _)| *intent == request.intent)
        {
            Some((_, texts)) => texts.push(request.text),
            None => order.push((request.intent, vec![request.text])),
        }
    }
    order
}

fn store() -> SchemaStore {
    let template: SchemaTemplate = serde_json::from_value(json!({
        "schema_id": "banking_v1",
        "scenario": "banking_support",
        "keys": [
            {"key_name": "account_id", "key_type": "string", "required": false,
             "semantic_description": "The customer's account reference"},
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Anything the customer needs that no other key covers"}
        ]
    }))
    .unwrap();
    SchemaStore::new(template, LifecyclePolicy::default()).unwrap()
}

fn message(text: &str) -> Value {
    json!({"schema_id": "banking_v1", "payload": {"other": text}})
}

/// One message of a stream.
struct Sent {
    client: String,
    text: String,
}

/// The text the pool stores for `text` (sanitized, then redacted), so
/// exemplars can be traced back to their intent.
fn stored_form(text: &str) -> Option<String> {
    sanitize_fragment(text).map(|clean| redact(&clean.text).text)
}

/// What a stream did: every event, and the intent behind each stored text.
pub struct Run {
    pub events: Vec<EvolutionEvent>,
    intent_of: HashMap<String, String>,
    clusters: BTreeMap<(PoolKey, u64), Vec<String>>,
}

impl Run {
    /// The applied proposals and the patches held for an operator (a
    /// sensitive key: the pipeline's authorizer refuses it, an operator
    /// decides): (pool, cluster, scope, key names).
    fn proposals(&self) -> Vec<(&PoolKey, u64, PatchScope, Vec<String>)> {
        self.events
            .iter()
            .filter_map(|event| match event {
                EvolutionEvent::Proposed {
                    pool,
                    need,
                    patch,
                    submission: Submission::Applied,
                } => Some((pool, *need, patch)),
                EvolutionEvent::Held {
                    pool,
                    need,
                    patch,
                    reason: HoldReason::Sensitive,
                    ..
                } => Some((pool, *need, patch)),
                _ => None,
            })
            .map(|(pool, cluster, patch)| {
                let names = patch
                    .new_keys
                    .iter()
                    .map(|k| k.key_name.as_str().to_owned())
                    .collect();
                (pool, cluster, patch.scope.clone(), names)
            })
            .collect()
    }

    /// How many of a cluster's exemplars come from each intent.
    fn make_up(&self, pool: &PoolKey, cluster: u64) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for text in self
            .clusters
            .get(&(pool.clone(), cluster))
            .into_iter()
            .flatten()
        {
            let intent = self.intent_of.get(text).cloned().unwrap_or_default();
            *counts.entry(intent).or_insert(0) += 1;
        }
        counts
    }
}

/// Replays `stream`, a message a minute, recording each proposing
/// cluster's exemplars at the moment it proposed (it may merge later).
fn replay<E: Embedder>(engine: &mut Evolution<E, RuleInducer>, stream: &[Sent]) -> Run {
    let mut store = store();
    let mut events = Vec::new();
    let mut clusters = BTreeMap::new();
    for (i, sent) in stream.iter().enumerate() {
        let at = T0 + Duration::minutes(i as i64);
        let happened = engine.observe(&mut store, &message(&sent.text), &sent.client, at);
        for event in &happened {
            if let EvolutionEvent::Proposed { pool, need, .. }
            | EvolutionEvent::Held { pool, need, .. } = event
            {
                let view = engine.pool(pool).and_then(|p| p.need(*need));
                let texts = view
                    .map(|c| c.exemplars().iter().map(|e| e.text.clone()).collect())
                    .unwrap_or_default();
                clusters.insert((pool.clone(), *need), texts);
            }
        }
        events.extend(happened);
    }
    Run {
        events,
        intent_of: HashMap::new(),
        clusters,
    }
}

fn intent_index(intents: &[(String, Vec<String>)]) -> HashMap<String, String> {
    let mut index = HashMap::new();
    for (intent, texts) in intents {
        for text in texts {
            if let Some(stored) = stored_form(text) {
                index.insert(stored, intent.clone());
            }
        }
    }
    index
}

/// The five bursts and the one-offs, interleaved; returns the run and the
/// burst intents with their texts.
pub fn bursts<E: Embedder>(embedder: E) -> (Run, Vec<(String, Vec<String>)>) {
    let intents = intents();
    let burst: Vec<(String, Vec<String>)> = intents.iter().take(5).cloned().collect();
    let one_offs: Vec<(String, Vec<String>)> = intents
        .iter()
        .filter(|(_, texts)| texts.len() == 1)
        .cloned()
        .collect();
    // Round-robin over the bursts, each paraphrase from three of its ten
    // clients; a one-off after every fifth message.
    let mut stream = Vec::new();
    let rounds = burst
        .iter()
        .map(|(_, t)| REPEATS * t.len())
        .max()
        .unwrap_or(0);
    let mut one_off = one_offs.iter().enumerate();
    for round in 0..rounds {
        for (b, (_, texts)) in burst.iter().enumerate() {
            if let Some(text) = texts.get(round % texts.len()) {
                stream.push(Sent {
                    client: format!("bank-{b}-{}", round % BURST_CLIENTS),
                    text: text.clone(),
                });
            }
        }
        if let Some((i, (_, texts))) = one_off.next() {
            stream.push(Sent {
                client: format!("one-off-{i}"),
                text: texts[0].clone(),
            });
        }
    }
    let mut engine = Evolution::new(embedder, RuleInducer, EvolutionConfig::default());
    let mut run = replay(&mut engine, &stream);
    run.intent_of = intent_index(&intents);
    (run, burst)
}

/// What a planted-burst run must reach with a given embedder.
pub struct Expect {
    /// Bursts (of five) that yield a key from a cluster that is at least
    /// 80 % their own intent.
    pub bursts_with_a_key: usize,
    /// Most keys one burst may yield (an intent whose requests fall into
    /// distinct sub-needs may yield one per sub-need).
    pub max_keys_per_burst: usize,
    /// Proposals from clusters that mix intents (less than 80 % one).
    pub max_mixed: usize,
}

/// Runs the bursts and checks `expect`: every proposal (applied, or held for
/// authorization when it reads as payment, identity or access control) is
/// global and comes from a burst, never from the one-offs; every key credited
/// to a burst has a name built from the burst's words.
pub fn assert_bursts<E: Embedder>(embedder: E, expect: &Expect) {
    let (run, burst) = bursts(embedder);
    let mut keys_by_intent: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut report = Vec::new();
    let mut mixed = 0;
    for (pool, cluster, scope, names) in run.proposals() {
        assert_eq!(scope, PatchScope::Global);
        let make_up = run.make_up(pool, cluster);
        let total: usize = make_up.values().sum();
        let (intent, count) = make_up
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(i, n)| (i.clone(), *n))
            .unwrap_or_default();
        report.push(format!("{names:?} from {make_up:?}"));
        assert!(
            burst.iter().any(|(b, _)| *b == intent),
            "a key was proposed for {intent:?}, which was no burst: {report:#?}"
        );
        if count * 5 >= total * 4 {
            keys_by_intent.entry(intent).or_default().extend(names);
        } else {
            mixed += 1;
        }
    }
    // Everything but the proposals, for the failure messages.
    for event in &run.events {
        match event {
            EvolutionEvent::Proposed { .. } | EvolutionEvent::Skipped { .. } => {}
            other => report.push(serde_json::to_string(other).unwrap_or_default()),
        }
    }
    assert!(
        mixed <= expect.max_mixed,
        "{mixed} mixed clusters proposed: {report:#?}"
    );
    let mut with_a_key = 0;
    for (intent, texts) in &burst {
        let names = keys_by_intent.get(intent).cloned().unwrap_or_default();
        assert!(
            names.len() <= expect.max_keys_per_burst,
            "the {intent} burst proposed {names:?}: {report:#?}"
        );
        for name in &names {
            assert_sensible(name, texts);
        }
        with_a_key += usize::from(!names.is_empty());
    }
    assert!(
        with_a_key >= expect.bursts_with_a_key,
        "{with_a_key} bursts yielded a key, expected {}: {report:#?}",
        expect.bursts_with_a_key
    );
    eprintln!("planted bursts: {report:#?}");
}

/// A name a schema designer could have written: not the hashed fallback,
/// one to three words, each one (or its stem) used in the burst's requests
/// but `preference`, the word an attribute's name ends with.
fn assert_sensible(name: &str, texts: &[String]) {
    assert!(!name.starts_with("need_"), "{name} is the fallback name");
    let words: Vec<&str> = name.split('_').collect();
    assert!((1..=3).contains(&words.len()), "{name}");
    let corpus = texts.join(" ").to_lowercase();
    for word in words.into_iter().filter(|w| *w != "preference") {
        let stem: String = word.chars().take(4).collect();
        assert!(
            corpus.contains(&stem),
            "{name}: {word:?} does not come from the requests"
        );
    }
}

/// One client flooding one intent: no global key; with personal pools, at
/// most a patch scoped to that client.
pub fn assert_a_flood_stays_with_its_client<E: Embedder>(embedder: E) {
    let intents = intents();
    let (_, texts) = &intents[5];
    let stream: Vec<Sent> = (0..3 * texts.len())
        .map(|i| Sent {
            client: "flooder".into(),
            text: texts[i % texts.len()].clone(),
        })
        .collect();
    let config = EvolutionConfig::default().branching(Branching::GlobalAndPerClient);
    let mut engine = Evolution::new(embedder, RuleInducer, config);
    let run = replay(&mut engine, &stream);
    for (pool, _, scope, names) in run.proposals() {
        assert_eq!(
            scope,
            PatchScope::Client("flooder".into()),
            "{names:?} from {pool:?}"
        );
    }
    // The flood did reach the pools: the global one holds it, below its gate.
    let held: u64 = engine
        .pools()
        .filter(|(key, _)| key.client.is_none())
        .flat_map(|(_, pool)| pool.clusters().map(|c| c.occurrences()))
        .sum();
    assert_eq!(
        held,
        stream.len() as u64,
        "every flood message counted in the global pool"
    );
}
