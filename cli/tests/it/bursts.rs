//! The burst measure, pinned: two committed streams of realistic
//! multi-client traffic (held-out intents of Banking77 and HWU64, made by
//! `scripts/bursts.py generate`; see `fixtures/bursts/README.md`) go through
//! `sdsi evolve` with its defaults, and each proposed key is credited to the
//! intent most of its quoted examples come from (a key quoting none, to the
//! intent of the fragment that opened its gate), as the script scores it.
//! The floors are the counts measured when the fixtures were made, less a
//! margin of one need (docs/measurements/evolution.md, "The burst measure").

use std::collections::HashMap;

use crate::common::{fixture, model_dir, run_with_stdin};
use serde_json::Value;

/// What one stream scored.
#[derive(Debug)]
struct Score {
    exactly_one_key: usize,
    extra_keys: usize,
    noise_keys: usize,
    missed: Vec<String>,
}

/// A fragment as a key's description quotes it (`normal` in the script).
fn normal(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let quoted = collapsed.replace('"', "'");
    quoted
        .chars()
        .take(80)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The intent a quote comes from: the text it equals or, as a quote is the
/// clause of a text that holds the key's words, the texts it is part of
/// when they all share one intent.
fn quoted_intent<'t>(
    quote: &str,
    intent_of: &'t serde_json::Map<String, Value>,
) -> Option<&'t str> {
    let q = normal(quote);
    if let Some(intent) = intent_of.get(&q).and_then(Value::as_str) {
        return Some(intent);
    }
    let q = q
        .trim_end_matches(['.', '!', '?', ',', ';', ':', ' '])
        .to_lowercase();
    let mut found = intent_of
        .iter()
        .filter(|(text, _)| !q.is_empty() && text.to_lowercase().contains(&q))
        .filter_map(|(_, intent)| intent.as_str());
    let first = found.next()?;
    found.all(|i| i == first).then_some(first)
}

/// The quoted examples of a key's description (after "for example"; none
/// when it gives no examples).
fn quoted(description: &str) -> Vec<&str> {
    let at = description
        .find("For example")
        .or_else(|| description.find("for example"));
    let Some(at) = at else {
        return Vec::new();
    };
    description
        .get(at..)
        .unwrap_or("")
        .split('"')
        .skip(1)
        .step_by(2)
        .collect()
}

/// Runs `sdsi evolve` on stream `name` (with `extra` arguments) and scores
/// the keys it proposed, or held for authorization, against the truth.
fn measure(name: &str, extra: &[&str]) -> Score {
    let dir = fixture(&format!("bursts/{name}"));
    let template = format!("{dir}/template.json");
    let events = format!("{dir}/events.jsonl");
    let mut args = vec!["evolve", "--schema", &template, &events];
    args.extend_from_slice(extra);
    let run = run_with_stdin(&args, b"");
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/truth.json")).unwrap())
            .unwrap();
    let needs: Vec<String> = truth["needs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    let intent_of = truth["intent_of"].as_object().unwrap();
    // Each log line's fragment, for keys that quote none.
    let texts: Vec<String> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| {
            let event: Value = serde_json::from_str(l).unwrap();
            event["message"]["payload"]["other"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    let mut credited: HashMap<String, usize> = HashMap::new();
    let mut noise_keys = 0;
    for line in run.stdout.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        let held = event["event"] == "held" && event["reason"] == "sensitive";
        if event["event"] != "proposed" && !held {
            continue;
        }
        // New keys only: a refinement of a key adds no key.
        let new_keys = event["patch"]["new_keys"].as_array().cloned();
        for key in new_keys.unwrap_or_default().iter() {
            let description = key["semantic_description"].as_str().unwrap_or("");
            let mut votes: HashMap<&str, usize> = HashMap::new();
            let quotes = quoted(description);
            for q in &quotes {
                if let Some(intent) = quoted_intent(q, intent_of) {
                    *votes.entry(intent).or_default() += 1;
                }
            }
            // A key whose quotes tell nothing goes to the intent of the
            // fragment whose request opened its need's gate.
            if votes.is_empty() {
                let line = event["line"].as_u64().and_then(|l| usize::try_from(l).ok());
                let text = line.and_then(|l| texts.get(l.checked_sub(1)?));
                if let Some(intent) = text.and_then(|t| intent_of.get(&normal(t))?.as_str()) {
                    votes.insert(intent, 1);
                }
            }
            // The most votes; ties to the lesser name, so the score is stable.
            let winner = votes
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
                .map(|(intent, _)| intent.to_owned());
            match winner.filter(|w| needs.contains(w)) {
                Some(intent) => *credited.entry(intent).or_default() += 1,
                None => noise_keys += 1,
            }
        }
    }
    let count = |n: &String| credited.get(n).copied().unwrap_or(0);
    Score {
        exactly_one_key: needs.iter().filter(|n| count(n) == 1).count(),
        extra_keys: needs.iter().map(|n| count(n).saturating_sub(1)).sum(),
        noise_keys,
        missed: needs.iter().filter(|n| count(n) == 0).cloned().collect(),
    }
}

/// The floors for one stream: needs with exactly one key, at most this many
/// extra keys; never a key from noise.
fn assert_floor(score: &Score, exactly_one_key: usize, max_extra: usize) {
    eprintln!("{score:?}; missed: {:?}", score.missed);
    assert!(
        score.exactly_one_key >= exactly_one_key && score.extra_keys <= max_extra,
        "{score:?}: expected at least {exactly_one_key} needs with exactly one key, \
         at most {max_extra} extra keys"
    );
    assert_eq!(score.noise_keys, 0, "{score:?}");
}

#[test]
fn banking77_bursts_get_keys_with_the_default_embedder() {
    assert_floor(&measure("banking77", &[]), BANKING77_HASHING, 1);
}

#[test]
fn hwu64_bursts_get_keys_with_the_default_embedder() {
    assert_floor(&measure("hwu64", &[]), HWU64_HASHING, 1);
}

/// Measured on these streams (seed 7 of the held-out split) with the
/// adaptive, centred need linkage, each embedder's lending and a silenced
/// lender claimed from the centre: hashing 7 and 5 of 8, the model 8 and 7
/// of 8 (with the plain claim: hashing 6 and 4; before centring: 5 and 4,
/// 7 and 7; then, silencing lenders: 6 and 7; with a fixed need threshold:
/// 4 and 3, 6 and 6); each floor is one less.
const BANKING77_HASHING: usize = 6;
const HWU64_HASHING: usize = 4;
const BANKING77_MODEL: usize = 7;
const HWU64_MODEL: usize = 6;

/// With the sentence-transformer (`SDSI_MODEL_DIR`, set by scripts/test.sh).
#[test]
fn bursts_get_keys_with_the_model() {
    let Some(model) = model_dir() else { return };
    let model = model.as_str();
    assert_floor(
        &measure("banking77", &["--model", model]),
        BANKING77_MODEL,
        1,
    );
    assert_floor(&measure("hwu64", &["--model", model]), HWU64_MODEL, 1);
}
