//! From a triggered need to a decision (§6.2.2): withhold it, induce a key,
//! check it against the schema the pool's clients see, package the patch,
//! and apply it, queue it, hold it for an operator or defer it.

use serde_json::Value;
use time::OffsetDateTime;

use crate::evolution::embed::embedder::Embedder;
use crate::evolution::engine::config::Induction;
use crate::evolution::engine::event::EvolutionEvent;
use crate::evolution::engine::pipeline::Evolution;
use crate::evolution::engine::pool_key::PoolKey;
use crate::evolution::induce::description::listed_values;
use crate::evolution::induce::inducer::IntentInducer;
use crate::evolution::intake::Redaction;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::issue::IssueCode;
use crate::key::{EXPERIMENTAL_MEMBER, KeyDefinition, OTHER_KEY, Sensitivity};
use crate::patch::{DenySensitive, Evidence, HoldReason, PendingProposal};
use crate::patch::{PatchScope, SchemaPatch, SchemaStore};
use crate::template::SchemaTemplate;

/// The last instant `time` represents (without its `large-dates` feature).
const LAST_INSTANT: OffsetDateTime = time::macros::datetime!(9999-12-31 23:59:59.999_999_999 UTC);

/// Who the engine submits and holds patches as.
pub(crate) const SUBMITTER: &str = "sdsi:evolution";

impl<E: Embedder, I: IntentInducer> Evolution<E, I> {
    /// Need `need` of pool `key` just opened its gate: its key is induced
    /// now, or, off the message path ([`Induction::OffPath`]), the need
    /// waits for [`Evolution::inductions`].
    pub(in crate::evolution) fn propose(
        &mut self,
        store: &mut SchemaStore,
        key: &PoolKey,
        need: u64,
        now: OffsetDateTime,
        events: &mut Vec<EvolutionEvent>,
    ) {
        if self.config.induction == Induction::OffPath {
            self.wait_for_induction(key, need, now, events);
            return;
        }
        let template = schema_for(store, key, now);
        let candidate = template.as_ref().ok().and_then(|template| {
            let view = self.pools.get(key)?.need(need)?;
            self.inducer.induce(&view, template)
        });
        self.decide(store, key, need, now, template, candidate, events);
    }

    /// Decides what becomes of need `need` of pool `key` given the key
    /// induced for it (conflict detection, packaging, the store). The need
    /// is marked proposed only once its patch is applied, queued or held,
    /// or its key found to say it already; every other outcome defers it
    /// with the backoff. An applied, queued or covered need is reviewed
    /// when its gate opens again after the backoff (a held one waits for
    /// its operator). `template` is the schema the pool's clients see
    /// ([`schema_for`]), or why the store could not build it.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::evolution) fn decide(
        &mut self,
        store: &mut SchemaStore,
        key: &PoolKey,
        need: u64,
        now: OffsetDateTime,
        template: Result<SchemaTemplate, String>,
        candidate: Option<KeyDefinition>,
        events: &mut Vec<EvolutionEvent>,
    ) {
        let Some(pool) = self.pools.get_mut(key) else {
            return;
        };
        let defer = |pool: &mut Pool, reason: String, events: &mut Vec<EvolutionEvent>| {
            if let Some(retry_at) = pool.defer(need, now) {
                events.push(EvolutionEvent::Deferred {
                    pool: key.clone(),
                    need,
                    reason,
                    retry_at,
                });
            }
        };
        let template = match template {
            Ok(template) => template,
            Err(error) => {
                let reason = format!("the store could not build the schema: {error}");
                defer(pool, reason, events);
                return;
            }
        };
        let Some(view) = pool.need(need) else {
            return;
        };
        let instructed = flagged_by_most_clients(view.exemplars());
        let evidence =
            Evidence::from_texts(view.exemplars().iter().map(|e| (e.text.as_str(), e.count)));
        let carried = carried_sensitivity(view.exemplars());
        // A need already proposed is reviewed against its key: it may refine
        // that key, or, when the key is gone (expired, withdrawn; a
        // deprecated key counts as gone), be proposed anew; it never opens
        // a second key beside its own.
        let in_force = |k: &str| template.key(k).filter(|key| !key.is_deprecated());
        let reviewed = view
            .proposed()
            .filter(|k| in_force(k).is_some())
            .map(str::to_owned);
        let Some(candidate) = candidate else {
            defer(pool, "the inducer proposed no key".to_owned(), events);
            return;
        };
        if reviewed
            .as_deref()
            .is_some_and(|k| k != candidate.key_name.as_str())
        {
            // Reviewed again later, quietly: nothing changed for its key.
            pool.defer(need, now);
            return;
        }
        if candidate.key_name.as_str() == OTHER_KEY {
            // The inducer's way of saying the need belongs in `other`.
            pool.mark_proposed(need, OTHER_KEY);
            return;
        }
        let name = candidate.key_name.as_str().to_owned();
        if let Some(existing) = template.key(&name) {
            if existing.is_deprecated() {
                let reason = format!(
                    "the inducer named key {name:?}, which is deprecated; the need waits \
                     for another key"
                );
                defer(pool, reason, events);
                return;
            }
            if existing.key_type != candidate.key_type {
                let reason = format!(
                    "the inducer named key {name:?} but gave it type {} where the key is {}",
                    candidate.key_type, existing.key_type
                );
                defer(pool, reason, events);
                return;
            }
            // A review adds values, it does not reword: a refinement needs a
            // quoted value in the candidate's definition the key does not
            // hold (another wording, a model's, or other examples quoted,
            // is none).
            let same = existing.semantic_description == candidate.semantic_description
                || (reviewed.is_some()
                    && !adds_a_value(
                        &existing.semantic_description,
                        &candidate.semantic_description,
                    ));
            if same {
                // The need is a key the schema already describes as it
                // would; reviewed again later (with the backoff).
                pool.mark_proposed(need, &name);
                pool.defer(need, now);
                events.push(EvolutionEvent::Covered {
                    pool: key.clone(),
                    need,
                    key_name: name,
                });
                return;
            }
        } else if waits(store, &name) {
            // One proposal per key: a second need (or a review of a queued
            // one) waits for the first to be decided.
            let reason = format!(
                "key {name:?} waits in a proposal held for an operator or queued; the need \
                 waits with it"
            );
            defer(pool, reason, events);
            return;
        }
        let lifetime = self.config.patch_lifetime;
        let patch = package(
            store, key, need, now, lifetime, &template, candidate, carried,
        );
        if let Some(denial) = store.denial_covering(&patch, &evidence) {
            let reason = format!(
                "an operator denied proposal {} for the same requests; it is proposed \
                 again once what clients send for it changes",
                denial.proposal
            );
            defer(pool, reason, events);
            return;
        }
        // Evolution never rewrites a base key on its own, nor proposes on
        // its own what clients wrapped in instructions.
        let (reason, detail) = if store.base().key(&name).is_some() {
            (
                HoldReason::BaseKey,
                format!("it would change the base template's key {name:?}"),
            )
        } else if instructed {
            (
                HoldReason::Instructions,
                "most of the clients behind it wrapped their requests in text that spoke \
                 to the system, a model or the schema; that text was dropped"
                    .to_owned(),
            )
        } else {
            match store.submit_by(patch.clone(), Some(SUBMITTER), now, &DenySensitive) {
                Ok(submission) => {
                    pool.mark_proposed(need, &name);
                    // Reviewed later for new values (with the backoff).
                    pool.defer(need, now);
                    events.push(EvolutionEvent::Proposed {
                        pool: key.clone(),
                        need,
                        patch: Box::new(patch),
                        submission,
                    });
                    return;
                }
                Err(error) if unauthorized(error.errors()) => {
                    let sensitive = patch
                        .new_keys
                        .iter()
                        .chain(&patch.modified_keys)
                        .any(|k| k.sensitivity().is_some());
                    let reason = if sensitive {
                        HoldReason::Sensitive
                    } else {
                        HoldReason::Unauthorized
                    };
                    (reason, error.to_string())
                }
                Err(error) => {
                    defer(
                        pool,
                        format!("the store refused the patch: {error}"),
                        events,
                    );
                    return;
                }
            }
        };
        let held = PendingProposal::new(patch.clone(), reason, detail.clone(), now)
            .with_submitter(SUBMITTER)
            .with_evidence(evidence);
        let proposal = held.proposal.clone();
        match store.hold(held) {
            Ok(()) => {
                pool.mark_proposed(need, &name);
                events.push(EvolutionEvent::Held {
                    pool: key.clone(),
                    need,
                    proposal,
                    reason,
                    detail,
                    patch: Box::new(patch),
                });
            }
            Err(error) => defer(
                pool,
                format!("the proposal could not be held: {error}"),
                events,
            ),
        }
    }
}

/// The schema the clients of pool `key` see at `now`, or why the store
/// could not build it.
pub(in crate::evolution) fn schema_for(
    store: &SchemaStore,
    key: &PoolKey,
    now: OffsetDateTime,
) -> Result<SchemaTemplate, String> {
    store
        .template_for(key.client.as_deref(), now)
        .map_err(|error| error.to_string())
}

/// The patch for `candidate`: a new experimental key, or (conflict
/// detection, §6.2.2) a refinement of the key of that name, never a
/// duplicate; marked sensitive when the need carried payment, identity
/// or credential values (now placeholders) or the key reads as one.
#[allow(clippy::too_many_arguments)]
fn package(
    store: &SchemaStore,
    key: &PoolKey,
    need: u64,
    now: OffsetDateTime,
    lifetime: time::Duration,
    template: &SchemaTemplate,
    mut candidate: KeyDefinition,
    carried: Option<Sensitivity>,
) -> SchemaPatch {
    if candidate.sensitivity().is_none() {
        if let Some(sensitivity) = carried.or_else(|| Sensitivity::classify(&candidate)) {
            candidate = candidate.with_sensitivity(sensitivity);
        }
    }
    let mut patch = SchemaPatch::new(
        patch_id(key, need, now),
        template.schema_id.clone(),
        now,
        // Near the end of the representable range the lifetime is cut
        // at its last instant; at that very instant the store refuses the
        // patch (it would expire as it starts) and the need is deferred.
        now.checked_add(lifetime).unwrap_or(LAST_INSTANT),
    );
    // A base without a digest (see `DigestError`) cannot be named; the
    // patch still names its parent schema id.
    patch.parent_digest = store.base().digest().ok();
    if let Some(client) = &key.client {
        patch.scope = PatchScope::Client(client.clone());
    }
    match template.key(candidate.key_name.as_str()) {
        Some(existing) => patch.modified_keys.push(refinement(existing, &candidate)),
        None => {
            candidate
                .extra
                .insert(EXPERIMENTAL_MEMBER.to_owned(), Value::Bool(true));
            patch.new_keys.push(candidate);
        }
    }
    // A store that requires signed patches takes the engine's too.
    store.sign_own(&mut patch);
    patch
}

/// Whether a patch held for an operator or queued behind the convergence
/// guard adds or refines key `name`.
fn waits(store: &SchemaStore, name: &str) -> bool {
    let names = |patch: &SchemaPatch| {
        patch
            .new_keys
            .iter()
            .chain(&patch.modified_keys)
            .any(|k| k.key_name.as_str() == name)
    };
    store.queued().any(names) || store.pending().any(|p| names(&p.patch))
}

/// Whether `candidate` lists a value (quoted before its examples) that
/// `existing` does not hold anywhere.
fn adds_a_value(existing: &str, candidate: &str) -> bool {
    let held = existing.to_lowercase();
    listed_values(candidate)
        .iter()
        .any(|value| !held.contains(&format!("\"{}\"", value.to_lowercase())))
}

/// Whether most of the distinct clients behind a need's exemplars sent
/// instruction-like text: each client counts once however often it sent
/// it, so one client repeating an injection cannot keep a shared need out.
/// (Clients are counted through the exemplars' tags, up to
/// [`EXEMPLAR_CLIENTS`](crate::evolution::EXEMPLAR_CLIENTS) per text.)
fn flagged_by_most_clients(exemplars: &[Exemplar]) -> bool {
    let mut all = std::collections::BTreeSet::new();
    let mut flagged = std::collections::BTreeSet::new();
    for exemplar in exemplars {
        let tags = exemplar.client_tags();
        if exemplar.flagged {
            flagged.extend(tags.iter().copied());
        }
        all.extend(tags);
    }
    !all.is_empty() && flagged.len() * 2 >= all.len()
}

/// The sensitivity of the first personal or secret value (now a
/// placeholder) the need's exemplars carried, if any.
fn carried_sensitivity(exemplars: &[Exemplar]) -> Option<Sensitivity> {
    exemplars
        .iter()
        .flat_map(|e| Redaction::found_in(&e.text))
        .map(Redaction::sensitivity)
        .next()
}

/// Whether every problem is the authorizer's refusal: the patch itself is fine.
fn unauthorized(errors: &[crate::issue::Issue]) -> bool {
    !errors.is_empty()
        && errors
            .iter()
            .all(|e| e.code() == IssueCode::UnauthorizedSensitiveChange)
}

/// A patch id no other pool can produce: global and personal pools number
/// their needs independently, so the pool is part of it.
pub(in crate::evolution) fn patch_id(pool: &PoolKey, need: u64, now: OffsetDateTime) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    pool.hash(&mut hasher);
    format!(
        "evo-{:016x}-{need:016x}-{}",
        hasher.finish(),
        now.unix_timestamp()
    )
}

/// `existing` with the candidate's description, one text (the inducer saw
/// the key's description in the schema and keeps what it says, see
/// [`IntentInducer`]): same type, same flags, so the merge accepts it as a
/// refinement.
fn refinement(existing: &KeyDefinition, candidate: &KeyDefinition) -> KeyDefinition {
    let mut refined = existing.clone();
    refined
        .semantic_description
        .clone_from(&candidate.semantic_description);
    refined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_refines_only_for_a_new_value() {
        let old = "Which seat: \"window\" or \"aisle\". For example: \"window seat\".";
        let more = "Which seat: \"window\", \"aisle\" or \"middle\". For example: \"aisle\".";
        let reworded = "The seat asked for: \"aisle\" or \"window\". For example: \"a seat\".";
        assert!(adds_a_value(old, more));
        assert!(!adds_a_value(old, reworded));
        assert!(!adds_a_value(
            old,
            "Departure city, 'to Shanghai' -> 'SHA'."
        ));
    }

    #[test]
    fn patch_ids_differ_between_pools() {
        let now = time::macros::datetime!(2026-05-01 0:00 UTC);
        let global = PoolKey {
            scenario: "s".into(),
            client: None,
        };
        let personal = PoolKey {
            scenario: "s".into(),
            client: Some("agent-7".into()),
        };
        assert_ne!(patch_id(&global, 42, now), patch_id(&personal, 42, now));
        assert_eq!(
            patch_id(&global, 42, now),
            patch_id(&global.clone(), 42, now)
        );
    }
}
