//! What one received message gives the evolution loop, taken apart from the
//! engine that folds it in: replicas of a server each turn their messages
//! into [`Observation`]s (the costly part: cleaning, redaction, embedding)
//! and append them to a shared log, and one evaluator folds the log into the
//! pools and the store ([`Evolution::fold`]). [`EvolutionEngine::observe`]
//! is the two steps in one process.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::evolution::embed::embedder::Embedder;
use crate::evolution::engine::event::EvolutionEvent;
use crate::evolution::engine::pipeline::Evolution;
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::intake::{
    Dropped, Redaction, mapped_values, redact, sanitize_or_why, without_mapped,
};
use crate::key::{JsonKind, KeyName, KeyType, OTHER_KEY};
use crate::patch::SchemaStore;

/// Most payload members an observation records: a message with more is
/// refused by the validator's default limits ([`crate::validate::Limits`]).
const MAX_USED: usize = 1024;

/// One message as the evolution loop needs it, with nothing raw in it: the
/// payload's member names and JSON types (no value), and the `other`
/// fragments cleaned, redacted and embedded. Serializable, so replicas can
/// share it through a log (its vectors, as JSON numbers, are most of its size).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Observation {
    /// The sending client.
    pub client: String,
    /// When the message was received.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// The payload's members that are not `null`, by name (names that are
    /// not key names left out: no key can have them; at most 1,024, the
    /// validator's default `max_keys`), with the key type their value is
    /// an instance of: what the lifecycle's metrics count.
    pub used: Vec<(KeyName, KeyType)>,
    /// The `other` fragments, cleaned and redacted, with their vectors.
    pub fragments: Vec<ObservedFragment>,
    /// Fragments past the engine's per-message cap, left out.
    #[serde(default)]
    pub over_cap: usize,
    /// How many vectors the embedder returned, when that was not one per
    /// fragment (the fragments are then skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors_returned: Option<usize>,
    /// Fragments left out whole because they held nothing but text that
    /// spoke to the system, a model or the schema
    /// ([`sanitize_fragment`](crate::evolution::sanitize_fragment)).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub instructions: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One `other` fragment of an [`Observation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ObservedFragment {
    /// The text, cleaned ([`sanitize_fragment`](crate::evolution::sanitize_fragment)) and redacted ([`redact`]).
    pub text: String,
    /// Whether it looked like an instruction to an LLM.
    pub flagged: bool,
    /// Its unit vector (empty when the embedder failed).
    pub vector: Vec<f32>,
}

impl Observation {
    /// The key type a value of `kind` is an instance of; `None` for `null`
    /// (not counted: on an optional key it means "not given").
    fn key_type_of(kind: JsonKind) -> Option<KeyType> {
        Some(match kind {
            JsonKind::String => KeyType::String,
            JsonKind::Integer => KeyType::Integer,
            JsonKind::Number => KeyType::Number,
            JsonKind::Boolean => KeyType::Boolean,
            JsonKind::Array => KeyType::Array,
            JsonKind::Object => KeyType::Object,
            _ => return None,
        })
    }

    /// A payload with one value of each used member's type: what
    /// [`SchemaStore::record_payload`] counts, without the values.
    fn stand_in_payload(&self) -> Map<String, Value> {
        self.used
            .iter()
            .map(|(name, key_type)| {
                let value = match key_type {
                    KeyType::String => Value::String(String::new()),
                    KeyType::Integer => Value::from(0),
                    KeyType::Number => Value::from(0.5),
                    KeyType::Boolean => Value::Bool(false),
                    KeyType::Array => Value::Array(Vec::new()),
                    KeyType::Object => Value::Object(Map::new()),
                    KeyType::Null => Value::Null,
                };
                (name.as_str().to_owned(), value)
            })
            .collect()
    }
}

/// The `other` fragments of a message: a string, or the strings of an array.
fn other_fragments(message: &Value) -> Vec<&str> {
    match message.get("payload").and_then(|p| p.get(OTHER_KEY)) {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Cleans and redacts `text`, or says why nothing is left. No raw personal
/// value or secret goes further than this: not into the embedding, the
/// pool, an exemplar, a snapshot, an event, a log row or a key.
fn cleaned(text: &str) -> Result<(String, bool), Dropped> {
    #[cfg(fuzzing)]
    return remembered(text);
    #[cfg(not(fuzzing))]
    cleaned_now(text)
}

fn cleaned_now(text: &str) -> Result<(String, bool), Dropped> {
    sanitize_or_why(text).map(|clean| (redact(&clean.text).text, clean.flagged))
}

/// Texts the fuzz builds remember (see [`remembered`]).
#[cfg(fuzzing)]
const REMEMBERED: usize = 1024;

#[cfg(fuzzing)]
thread_local! {
    static CLEANED: std::cell::RefCell<std::collections::HashMap<String, Result<(String, bool), Dropped>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Fuzz builds only (`cfg(fuzzing)`, set by cargo-fuzz): cleaning is a
/// function of the text alone, so a text seen lately is looked up, not
/// cleaned again. libFuzzer repeats most of an input's texts byte for byte
/// in its mutations, and under its instrumentation cleaning a short
/// fragment took about 0.7 ms, most of the `pipeline` target's time; the
/// sanitizer's own properties are checked on every new text by `pool_ops`.
/// Once full, each new text evicts one: an input then frees about as many
/// blocks as it allocates, and libFuzzer's leak detection does not run it
/// a second time.
#[cfg(fuzzing)]
fn remembered(text: &str) -> Result<(String, bool), Dropped> {
    if let Some(known) = CLEANED.with_borrow(|memo| memo.get(text).cloned()) {
        return known;
    }
    let fresh = cleaned_now(text);
    CLEANED.with_borrow_mut(|memo| {
        if memo.len() >= REMEMBERED {
            let evicted = memo.keys().next().cloned();
            if let Some(evicted) = evicted {
                memo.remove(&evicted);
            }
        }
        memo.insert(text.to_owned(), fresh.clone());
    });
    fresh
}

impl<E: Embedder, I: IntentInducer> Evolution<E, I> {
    /// Takes `message` (`{"schema_id", "payload"}`, valid or not) from
    /// `client` at `at` apart for the loop: what [`Evolution::fold`] needs,
    /// with the fragments cleaned, redacted and embedded. Pure: the engine
    /// and the store do not change.
    pub fn observation(&self, message: &Value, client: &str, at: OffsetDateTime) -> Observation {
        let mut observation = self.fragments_observed(message, client, at);
        observation.used = message
            .get("payload")
            .and_then(Value::as_object)
            .map(|payload| {
                payload
                    .iter()
                    .filter_map(|(name, value)| {
                        let key_type = Observation::key_type_of(JsonKind::of(value))?;
                        Some((KeyName::new(name).ok()?, key_type))
                    })
                    .take(MAX_USED)
                    .collect()
            })
            .unwrap_or_default();
        observation
    }

    /// [`Evolution::observation`] without the payload's members: what
    /// `observe` needs, since it records the metrics from the message itself.
    pub(in crate::evolution) fn fragments_observed(
        &self,
        message: &Value,
        client: &str,
        at: OffsetDateTime,
    ) -> Observation {
        let fragments = other_fragments(message);
        let cap = self.config.max_fragments_per_message;
        let over_cap = fragments.len().saturating_sub(cap);
        let fragments: Vec<&str> = fragments.into_iter().take(cap).collect();
        let mut instructions = 0;
        let mut kept: Vec<(String, bool)> = Vec::with_capacity(fragments.len());
        // Read only for a message with something in `other` (most carry
        // none, and this is every message's path).
        let mapped = if fragments.is_empty() {
            Vec::new()
        } else {
            mapped_values(message.get("payload"))
        };
        for fragment in fragments {
            // What the message's keys carry is not the need.
            let own = without_mapped(fragment, &mapped);
            if own.trim().is_empty() {
                continue;
            }
            match cleaned(&own) {
                Ok(clean) => kept.push(clean),
                Err(why) => instructions += usize::from(why == Dropped::Instructions),
            }
        }
        let (fragments, vectors_returned) = self.embedded(kept);
        Observation {
            client: client.to_owned(),
            at,
            used: Vec::new(),
            fragments,
            over_cap,
            vectors_returned,
            instructions,
        }
    }

    /// The fragments with their vectors: one call for the message's
    /// fragments (a model embeds a batch in one forward pass).
    fn embedded(&self, kept: Vec<(String, bool)>) -> (Vec<ObservedFragment>, Option<usize>) {
        if kept.is_empty() {
            return (Vec::new(), None);
        }
        let texts: Vec<std::borrow::Cow<'_, str>> = kept
            .iter()
            .map(|(text, _)| Redaction::embedded(text))
            .collect();
        let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        let vectors = self.embedder.embed_batch(&texts);
        let returned = (vectors.len() != kept.len()).then_some(vectors.len());
        let mut vectors = vectors.into_iter();
        let fragments = kept
            .into_iter()
            .map(|(text, flagged)| ObservedFragment {
                text,
                flagged,
                vector: if returned.is_some() {
                    Vec::new()
                } else {
                    vectors.next().unwrap_or_default()
                },
            })
            .collect();
        (fragments, returned)
    }

    /// Folds an observation made by any replica into the pools and the
    /// store, as [`EvolutionEngine::observe`] would the message: records
    /// the lifecycle's metrics, clusters the fragments, and proposes a key
    /// when a gate opens. The fragments are cleaned and redacted again (the
    /// log they came through is not trusted to have done it), and flagged
    /// if either pass flagged them; a fragment whose vector is not of the
    /// pools' dimension is re-embedded from its text.
    ///
    /// [`EvolutionEngine::observe`]: crate::evolution::engine::interface::EvolutionEngine::observe
    pub fn fold(
        &mut self,
        store: &mut SchemaStore,
        observation: Observation,
    ) -> Vec<EvolutionEvent> {
        let Observation {
            client,
            at,
            mut used,
            fragments,
            over_cap,
            vectors_returned,
            mut instructions,
        } = observation;
        // The caps again: a row written by hand may hold any number.
        used.truncate(MAX_USED);
        let cap = self.config.max_fragments_per_message;
        let over_cap = over_cap.saturating_add(fragments.len().saturating_sub(cap));
        let dimension = self.embedder.dimension();
        let (mut kept, mut stale) = (Vec::new(), Vec::new());
        for fragment in fragments.into_iter().take(cap) {
            let (text, flagged) = match cleaned(&fragment.text) {
                Ok(clean) => clean,
                Err(why) => {
                    instructions += usize::from(why == Dropped::Instructions);
                    continue;
                }
            };
            let flagged = flagged || fragment.flagged;
            if fragment.vector.len() == dimension && text == fragment.text {
                kept.push(ObservedFragment {
                    text,
                    flagged,
                    vector: fragment.vector,
                });
            } else if vectors_returned.is_none() {
                stale.push((text, flagged));
            }
        }
        let (again, returned) = self.embedded(stale);
        kept.extend(again);
        let checked = Observation {
            client,
            at,
            used,
            fragments: kept,
            over_cap,
            vectors_returned: vectors_returned.or(returned),
            instructions,
        };
        store.record_payload(&checked.stand_in_payload(), &checked.client, checked.at);
        self.ingest_observation(store, &checked)
    }
}
