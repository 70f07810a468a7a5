//! What the inducer's tests share: a template, and pools fed so that each
//! need is one cluster along a vector of its own.

use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::induce::rules::RuleInducer;
use crate::evolution::induce::terms::Term;
use crate::evolution::pool::config::PoolConfig;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::fine::exemplar::{Exemplar, client_tag};
use crate::key::KeyDefinition;
use crate::template::SchemaTemplate;

pub(super) fn template() -> SchemaTemplate {
    SchemaTemplate::from_slice(
        br#"{"schema_id": "s", "scenario": "x", "keys": [
            {"key_name": "cabin_class", "key_type": "string", "required": false,
             "semantic_description": "Cabin."},
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Anything else."}]}"#,
    )
    .unwrap()
}

/// The key induced for each of `needs` (each a list of texts, every
/// text from six clients), fed to one pool along its own axis, so each
/// is one cluster and one need.
pub(super) fn induce_each(needs: &[&[&str]]) -> Vec<KeyDefinition> {
    // One direction per need, so each need is one cluster.
    let axes: Vec<Vec<f32>> = (0..needs.len())
        .map(|n| {
            (0..DIMENSION)
                .map(|d| f32::from(u8::from(d == n)))
                .collect()
        })
        .collect();
    induce_along(&axes, needs)
}

pub(super) const DIMENSION: usize = 8;

/// As [`induce_each`], each need along its own vector of `vectors`.
pub(super) fn induce_along(vectors: &[Vec<f32>], needs: &[&[&str]]) -> Vec<KeyDefinition> {
    induce_in(&template(), vectors, needs)
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

/// As [`induce_along`], against `template`; `None` where no key is induced.
pub(super) fn induce_in(
    template: &SchemaTemplate,
    vectors: &[Vec<f32>],
    needs: &[&[&str]],
) -> Vec<Option<KeyDefinition>> {
    let mut pool = Pool::new(PoolConfig::new(DIMENSION, 0.99)).unwrap();
    let at = time::macros::datetime!(2026-05-01 8:00 UTC);
    let mut ids = Vec::new();
    for (vector, texts) in vectors.iter().zip(needs) {
        let mut id = None;
        for text in *texts {
            for client in 0..6 {
                let ingested = pool
                    .ingest(vector, text, false, &format!("agent-{client}"), at)
                    .unwrap();
                id = Some(ingested.need);
            }
        }
        ids.push(id.unwrap());
    }
    ids.iter()
        .map(|id| RuleInducer.induce(&pool.need(*id).unwrap(), template))
        .collect()
}

pub(super) fn one(texts: &[&str]) -> KeyDefinition {
    induce_each(&[texts]).remove(0)
}

pub(super) fn exemplar(text: &str) -> Exemplar {
    Exemplar {
        text: text.to_owned(),
        count: 1,
        flagged: false,
        client: "agent-1".to_owned(),
        clients: vec![client_tag("agent-1"), client_tag("agent-2")],
    }
}

pub(super) fn term(stem: &str) -> Term {
    Term {
        stem: stem.to_owned(),
        form: stem.to_owned(),
        frequency: 1,
        salience: 1.0,
        widespread: false,
        scenario: false,
    }
}
