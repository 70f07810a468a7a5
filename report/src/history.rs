//! What happened over a replay, kept small enough to save with the state:
//! counts, the keys proposed, the lifecycle's steps with their metrics, and
//! samples of the hottest needs' heat over time.

use std::collections::VecDeque;

use sdsi::SchemaStore;
use sdsi::evolution::{EvolutionEvent, Pool};
use sdsi::patch::{KeyState, Submission, Transition};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// Most heat samples kept: when full, every other one is dropped and the
/// sampling step doubles, so a replay of any length keeps an even trace.
pub const MAX_SAMPLES: usize = 256;

/// Fine clusters whose heat one sample records: the hottest at that moment.
/// Clusters, not needs: a cluster keeps its id while the needs above it
/// regroup, so a report can chart the heat of what is one need *now* back
/// through time.
pub const SAMPLED_CLUSTERS: usize = 48;

/// Most proposals and lifecycle steps kept (the oldest go first).
pub const MAX_RECORDS: usize = 4096;

/// The first sampling step, in seconds of the replayed traffic's time.
const FIRST_STEP_SECS: i64 = 600;

/// What happened over a replay. Feed it once per message with
/// [`History::record`]; save it with serde (JSON) beside the engine's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// Messages recorded.
    pub messages: u64,
    /// The time of the last message recorded.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub last_at: Option<OffsetDateTime>,
    /// Times a need's gate opened.
    pub triggers: u64,
    /// Keys proposed (applied, queued or held), oldest first.
    pub proposals: VecDeque<Proposal>,
    /// Lifecycle steps of evolved keys, oldest first.
    pub steps: VecDeque<Step>,
    /// Heat of the hottest fine clusters over time, oldest first.
    pub samples: Vec<Sample>,
    /// The sampling step in force, in seconds (doubles when the samples fill).
    step_secs: i64,
}

/// A key the engine proposed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    /// When (the message's time).
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// The need it came from.
    pub need: u64,
    /// The key's name.
    pub key_name: String,
    /// The key's type, as the schema names it.
    pub key_type: String,
    /// `applied`, `queued` or `held`; `refined, applied` (and so on) for a
    /// refinement of a key in force.
    pub outcome: String,
    /// The patch's id.
    pub patch_id: String,
}

/// One lifecycle step of an evolved key, with its metrics then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// When.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// The key.
    pub key_name: String,
    /// The patch that introduced it.
    pub patch_id: String,
    /// The state it left.
    pub from: KeyState,
    /// The state it entered.
    pub to: KeyState,
    /// Its metrics at that moment (`None` where nothing was observed).
    pub metrics: Metrics,
}

/// A key's metrics at one step, each a share in [0, 1].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Payloads carrying the key / payloads of the scenario.
    pub usage_frequency: Option<f64>,
    /// Judged correct / judged.
    pub semantic_alignment_accuracy: Option<f64>,
    /// Well-typed values / payloads carrying the key.
    pub value_type_correctness: Option<f64>,
    /// Clients it was delivered to that sent it.
    pub client_adoption_rate: Option<f64>,
}

/// The heat of the hottest fine clusters at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// When.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// (cluster id, heat), hottest first.
    pub heats: Vec<(u64, f64)>,
}

impl History {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one message observed at `at`: what the engine reported for
    /// it, the lifecycle's transitions evaluated after it, and (once per
    /// sampling step) the heat of the hottest fine clusters of `pools`.
    pub fn record<'p>(
        &mut self,
        at: OffsetDateTime,
        events: &[EvolutionEvent],
        transitions: &[Transition],
        store: &SchemaStore,
        pools: impl IntoIterator<Item = &'p Pool>,
    ) {
        self.messages = self.messages.saturating_add(1);
        self.last_at = Some(self.last_at.map_or(at, |last| last.max(at)));
        for event in events {
            self.event(at, event);
        }
        self.transitions(transitions, store);
        self.sample(at, pools);
    }

    /// Records lifecycle transitions evaluated apart from any message (an
    /// evaluation at the end of a run), each with the key's metrics then.
    pub fn transitions(&mut self, transitions: &[Transition], store: &SchemaStore) {
        for t in transitions {
            let metrics = store
                .lifecycle()
                .metrics(&t.scope, t.key_name.as_str(), t.at)
                .map(|m| Metrics {
                    usage_frequency: m.usage_frequency,
                    semantic_alignment_accuracy: m.semantic_alignment_accuracy,
                    value_type_correctness: m.value_type_correctness,
                    client_adoption_rate: m.client_adoption_rate,
                })
                .unwrap_or_default();
            push_bounded(
                &mut self.steps,
                Step {
                    at: t.at,
                    key_name: t.key_name.to_string(),
                    patch_id: t.patch_id.clone(),
                    from: t.from,
                    to: t.to,
                    metrics,
                },
            );
        }
    }

    fn event(&mut self, at: OffsetDateTime, event: &EvolutionEvent) {
        let (need, patch, outcome) = match event {
            EvolutionEvent::Triggered { .. } => {
                self.triggers = self.triggers.saturating_add(1);
                return;
            }
            EvolutionEvent::Proposed {
                need,
                patch,
                submission,
                ..
            } => (*need, patch, submission_name(submission)),
            EvolutionEvent::Held { need, patch, .. } => (*need, patch, "held".to_owned()),
            _ => return,
        };
        // A refinement shows as its key with the outcome saying so.
        let refined = format!("refined, {outcome}");
        let keys = patch
            .new_keys
            .iter()
            .map(|k| (k, &outcome))
            .chain(patch.modified_keys.iter().map(|k| (k, &refined)));
        for (key, outcome) in keys {
            push_bounded(
                &mut self.proposals,
                Proposal {
                    at,
                    need,
                    key_name: key.key_name.to_string(),
                    key_type: key.key_type.to_string(),
                    outcome: outcome.clone(),
                    patch_id: patch.patch_id.clone(),
                },
            );
        }
    }

    /// Samples the hottest clusters if a step has passed since the last one.
    fn sample<'p>(&mut self, at: OffsetDateTime, pools: impl IntoIterator<Item = &'p Pool>) {
        if self.step_secs <= 0 {
            self.step_secs = FIRST_STEP_SECS;
        }
        if let Some(last) = self.samples.last() {
            if (at - last.at).whole_seconds() < self.step_secs {
                return;
            }
        }
        let mut heats: Vec<(u64, f64)> = pools
            .into_iter()
            .flat_map(|pool| pool.clusters().map(move |c| (c.id(), c.heat(at))))
            .filter(|(_, heat)| heat.is_finite() && *heat > 0.0)
            .collect();
        heats.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        heats.truncate(SAMPLED_CLUSTERS);
        self.samples.push(Sample { at, heats });
        if self.samples.len() >= MAX_SAMPLES {
            let mut index = 0usize;
            self.samples.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.step_secs = self.step_secs.saturating_mul(2);
        }
    }

    /// Keys that became stable.
    pub fn promoted(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.to == KeyState::Stable)
            .count()
    }

    /// Keys that were deprecated or withdrawn (each counted once, at its
    /// first such step).
    pub fn retired(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.to >= KeyState::Deprecated && s.from < KeyState::Deprecated)
            .count()
    }
}

fn submission_name(submission: &Submission) -> String {
    match submission {
        Submission::Queued { .. } => "queued",
        _ => "applied",
    }
    .to_owned()
}

fn push_bounded<T>(records: &mut VecDeque<T>, record: T) {
    if records.len() >= MAX_RECORDS {
        records.pop_front();
    }
    records.push_back(record);
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdsi::patch::{SchemaPatch, Submission};
    use sdsi::{KeyDefinition, KeyName, KeyType};

    #[test]
    fn a_refinement_is_listed_as_one() {
        let at = time::macros::datetime!(2026-05-01 8:00 UTC);
        let mut patch = SchemaPatch::new("p", "s", at, at + time::Duration::days(1));
        let key =
            |name| KeyDefinition::new(KeyName::new(name).unwrap(), KeyType::String, false, "d");
        patch.new_keys.push(key("meal_preference"));
        patch.modified_keys.push(key("seat_preference"));
        let event = EvolutionEvent::Proposed {
            pool: serde_json::from_value(serde_json::json!({"scenario": "flight"})).unwrap(),
            need: 1,
            patch: Box::new(patch),
            submission: Submission::Applied,
        };
        let mut history = History::new();
        history.event(at, &event);
        let listed: Vec<(&str, &str)> = history
            .proposals
            .iter()
            .map(|p| (p.key_name.as_str(), p.outcome.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                ("meal_preference", "applied"),
                ("seat_preference", "refined, applied")
            ]
        );
    }
}
