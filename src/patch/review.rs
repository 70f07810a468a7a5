//! Proposals held for an operator (§7: updates that touch security-relevant
//! keys MUST be authorized): what waits, why, and what the operator decided.
//!
//! A proposal the store may not apply on its own — it touches a sensitive
//! key, the submitter's authorizer refused it, or it would rewrite a key of
//! the base template — is *held* ([`crate::SchemaStore::hold`]) instead of
//! lost. An operator approves it (it is submitted as the operator's patch)
//! or denies it; a denial is remembered with the [`Evidence`] the proposal
//! was made from, so the engine does not propose the same need again until
//! what clients send for it has changed materially.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::patch::compile_error::CompileError;

use crate::patch::schema_patch::SchemaPatch;

/// Most proposals a store holds at once; past it, [`crate::SchemaStore::hold`]
/// refuses (the engine then defers the need and tries again later), so
/// nothing held is ever dropped to make room.
pub const MAX_PENDING: usize = 1024;

/// Most denials a store remembers; past it the oldest is forgotten (its need
/// may then be proposed again).
pub const MAX_DENIALS: usize = 1024;

/// The share of a need's evidence (by count) that must be new since a denial
/// before the need is proposed again: below it, the need is "the same" as
/// the one the operator denied.
pub const MATERIAL_CHANGE: f64 = 0.5;

/// Why a proposal waits for an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HoldReason {
    /// It adds or changes a key marked sensitive (§7), which only an
    /// operator may authorize.
    Sensitive,
    /// The submitter's authorizer refused it.
    Unauthorized,
    /// It would rewrite a key of the base template, which evolution never
    /// does on its own.
    BaseKey,
    /// Most of the clients behind it wrapped their requests in text that
    /// spoke to the system, a model or the schema (prompt injection): that
    /// text was dropped and the key comes from the rest, but an operator
    /// decides.
    Instructions,
}

/// What a proposal was induced from: a stable tag of each redacted exemplar
/// text with how often it was seen. Tags, not texts, so a denial remembers
/// no client's words; comparing two evidences tells whether a need changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Evidence {
    /// Text tag (16 hex digits of its SHA-256) → count.
    counts: BTreeMap<String, u64>,
}

impl Evidence {
    /// The evidence of `(text, count)` pairs; a text given twice adds up.
    pub fn from_texts<'a>(texts: impl IntoIterator<Item = (&'a str, u64)>) -> Self {
        let mut counts = BTreeMap::new();
        for (text, count) in texts {
            let tag = format!("{:016x}", crate::digest::short_tag(text.as_bytes()));
            let total: &mut u64 = counts.entry(tag).or_default();
            *total = total.saturating_add(count);
        }
        Self { counts }
    }

    /// Whether there is no evidence at all.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The share of this evidence's count in texts `earlier` also holds, in
    /// `0.0..=1.0` (`0.0` when this evidence is empty).
    pub fn shared_with(&self, earlier: &Evidence) -> f64 {
        let (shared, total) =
            self.counts
                .iter()
                .fold((0u64, 0u64), |(shared, total), (tag, &count)| {
                    let known = earlier.counts.contains_key(tag);
                    (
                        shared.saturating_add(if known { count } else { 0 }),
                        total.saturating_add(count),
                    )
                });
        if total == 0 {
            0.0
        } else {
            shared as f64 / total as f64
        }
    }

    /// Whether this evidence differs materially from `earlier`: at least
    /// [`MATERIAL_CHANGE`] of its count is in texts `earlier` did not hold.
    pub fn changed_since(&self, earlier: &Evidence) -> bool {
        1.0 - self.shared_with(earlier) >= MATERIAL_CHANGE
    }
}

/// A proposal waiting for an operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingProposal {
    /// Its id: the held patch's `patch_id`.
    pub proposal: String,
    /// Why it waits.
    pub reason: HoldReason,
    /// The problem in words (the store's refusal, or the base key it names).
    pub detail: String,
    /// The patch as proposed. Approval submits it restamped to start then.
    pub patch: SchemaPatch,
    /// When it was held.
    #[serde(with = "time::serde::rfc3339")]
    pub held_at: OffsetDateTime,
    /// Who proposed it (`"sdsi:evolution"` for the engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitter: Option<String>,
    /// What it was induced from.
    #[serde(default, skip_serializing_if = "Evidence::is_empty")]
    pub evidence: Evidence,
}

/// A proposal an operator denied, remembered so that the need behind it is
/// not proposed again until its evidence changes materially.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Denial {
    /// The denied proposal's id.
    pub proposal: String,
    /// The denied patch.
    pub patch: SchemaPatch,
    /// Who denied it.
    pub by: String,
    /// Why, in the operator's words.
    pub reason: String,
    /// When.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// What the proposal was induced from.
    #[serde(default, skip_serializing_if = "Evidence::is_empty")]
    pub evidence: Evidence,
    /// Its place in the store's sequence of denials (from 1), so an engine
    /// can tell which denials it has not yet acted on.
    pub sequence: u64,
}

impl Denial {
    /// Whether the denial covers a proposal for the same scope made from
    /// `evidence`: the evidence has not changed materially since.
    pub fn covers(&self, patch: &SchemaPatch, evidence: &Evidence) -> bool {
        self.patch.scope == patch.scope && !evidence.changed_since(&self.evidence)
    }
}

/// Why a review call did nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// No pending proposal has this id.
    #[error("no pending proposal {proposal:?}")]
    UnknownProposal {
        /// The id asked for.
        proposal: String,
    },
    /// A proposal (or a patch the store took) already has this id.
    #[error("the store already holds or took a patch with id {proposal:?}")]
    Taken {
        /// The id.
        proposal: String,
    },
    /// The store already holds [`MAX_PENDING`] proposals.
    #[error("{limit} proposals already wait for an operator; review them first")]
    Full {
        /// [`MAX_PENDING`].
        limit: usize,
    },
    /// The decision is dated before the proposal was held.
    #[error("the proposal was held at {held_at}, after the decision's time {at}")]
    BeforeHeld {
        /// When it was held.
        held_at: OffsetDateTime,
        /// The decision's time.
        at: OffsetDateTime,
    },
    /// The approved patch no longer fits the schema (another patch took its
    /// key, the base changed, its window is invalid); it stays pending, for
    /// the operator to deny.
    #[error("the approved patch was refused: {0}")]
    Refused(#[from] CompileError),
}

/// The store's held proposals and remembered denials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Review {
    #[serde(default)]
    pub(crate) pending: BTreeMap<String, PendingProposal>,
    #[serde(default)]
    pub(crate) denied: Vec<Denial>,
    /// The last denial's sequence number.
    #[serde(default)]
    pub(crate) sequence: u64,
}

impl Review {
    /// Whether there is nothing to save.
    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty() && self.denied.is_empty() && self.sequence == 0
    }

    /// Remembers a denial under the next sequence number, forgetting the
    /// oldest past [`MAX_DENIALS`]; returns it as remembered.
    pub(crate) fn remember(&mut self, mut denial: Denial) -> Denial {
        self.sequence = self.sequence.saturating_add(1);
        denial.sequence = self.sequence;
        let excess = (self.denied.len() + 1).saturating_sub(MAX_DENIALS);
        self.denied.drain(..excess.min(self.denied.len()));
        self.denied.push(denial.clone());
        denial
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_changes_when_most_of_it_is_new() {
        let before = Evidence::from_texts([("window seat please", 8), ("aisle seat", 2)]);
        let grown = Evidence::from_texts([("window seat please", 30), ("a seat by the window", 5)]);
        assert!(
            !grown.changed_since(&before),
            "{}",
            grown.shared_with(&before)
        );
        let moved = Evidence::from_texts([
            ("window seat please", 3),
            ("extra legroom", 6),
            ("exit row", 4),
        ]);
        assert!(
            moved.changed_since(&before),
            "{}",
            moved.shared_with(&before)
        );
        assert!(Evidence::default().changed_since(&before));
        assert_eq!(Evidence::default().shared_with(&before), 0.0);
    }
}
