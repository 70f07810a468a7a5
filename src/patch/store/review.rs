//! The store's side of the operator loop: holding a proposal, listing what
//! waits, approving (the operator's patch) and denying (remembered).

use serde_json::Value;
use time::OffsetDateTime;

use super::schema_store::{SchemaStore, already_authorized};
use super::submission::Submission;
use crate::patch::review::HoldReason;
use crate::patch::review::{Denial, Evidence, MAX_PENDING, PendingProposal, ReviewError};
use crate::patch::schema_patch::SchemaPatch;

/// The member an approved patch carries naming the operator who approved it.
pub const APPROVED_BY_MEMBER: &str = "approved_by";

impl PendingProposal {
    /// A proposal of `patch`, held at `held_at` for `reason` (`detail`: the
    /// problem in words). Its id is the patch's id.
    pub fn new(
        patch: SchemaPatch,
        reason: HoldReason,
        detail: impl Into<String>,
        held_at: OffsetDateTime,
    ) -> Self {
        Self {
            proposal: patch.patch_id.clone(),
            reason,
            detail: detail.into(),
            patch,
            held_at,
            submitter: None,
            evidence: Evidence::default(),
        }
    }

    /// Names who proposed it.
    pub fn with_submitter(mut self, submitter: impl Into<String>) -> Self {
        self.submitter = Some(submitter.into());
        self
    }

    /// Records what it was induced from (see [`Evidence`]).
    pub fn with_evidence(mut self, evidence: Evidence) -> Self {
        self.evidence = evidence;
        self
    }
}

impl SchemaStore {
    /// Keeps `proposal` for an operator instead of applying it: listed by
    /// [`SchemaStore::pending`], saved with the store, until
    /// [`SchemaStore::approve`] or [`SchemaStore::deny`]. Refused when its id
    /// is already pending or taken by the store, or when [`MAX_PENDING`]
    /// proposals already wait (nothing held is ever dropped to make room).
    pub fn hold(&mut self, proposal: PendingProposal) -> Result<(), ReviewError> {
        let id = proposal.patch.patch_id.clone();
        if self.review.pending.contains_key(&id) || self.seen.contains_key(&id) {
            return Err(ReviewError::Taken { proposal: id });
        }
        if self.review.pending.len() >= MAX_PENDING {
            return Err(ReviewError::Full { limit: MAX_PENDING });
        }
        let mut proposal = proposal;
        proposal.proposal = id.clone();
        self.review.pending.insert(id, proposal);
        Ok(())
    }

    /// The proposals waiting for an operator, by id.
    pub fn pending(&self) -> impl Iterator<Item = &PendingProposal> {
        self.review.pending.values()
    }

    /// The denials remembered, oldest first (at most
    /// [`crate::patch::MAX_DENIALS`]).
    pub fn denials(&self) -> impl Iterator<Item = &Denial> {
        self.review.denied.iter()
    }

    /// The most recent denial that still covers a proposal of `patch` made
    /// from `evidence` (same scope, evidence not materially changed; see
    /// [`Denial::covers`]).
    pub fn denial_covering(&self, patch: &SchemaPatch, evidence: &Evidence) -> Option<&Denial> {
        self.review
            .denied
            .iter()
            .rev()
            .find(|d| d.covers(patch, evidence))
    }

    /// An operator, `by`, approves pending proposal `proposal` at `at`: its
    /// patch is submitted as theirs — restamped to start at `at` for the
    /// lifetime it was proposed with, carrying `approved_by`, signed with the
    /// store's key when it requires signatures — and authorized by the
    /// approval itself (now and on release from the guard's queue). If the
    /// store refuses it (another patch took its key meanwhile, the base
    /// changed), it stays pending and the error says why.
    pub fn approve(
        &mut self,
        proposal: &str,
        by: &str,
        at: OffsetDateTime,
    ) -> Result<Submission, ReviewError> {
        let pending = self.pending_at(proposal, at)?;
        let mut patch = pending.patch.clone();
        let lifetime = patch.expires_at - patch.timestamp;
        patch.timestamp = at;
        patch.expires_at = at.checked_add(lifetime).unwrap_or(patch.expires_at);
        patch
            .extra
            .insert(APPROVED_BY_MEMBER.to_owned(), Value::String(by.to_owned()));
        self.sign_own(&mut patch);
        let submission = self.take(patch, Some(by), at, &already_authorized, true)?;
        self.review.pending.remove(proposal);
        Ok(submission)
    }

    /// An operator, `by`, denies pending proposal `proposal` at `at`, for
    /// `reason`. The denial is remembered (see [`SchemaStore::denials`]):
    /// an engine reading it does not propose the same need again until the
    /// need's evidence changes materially.
    pub fn deny(
        &mut self,
        proposal: &str,
        by: &str,
        reason: &str,
        at: OffsetDateTime,
    ) -> Result<Denial, ReviewError> {
        self.pending_at(proposal, at)?;
        let Some(pending) = self.review.pending.remove(proposal) else {
            return Err(unknown(proposal));
        };
        Ok(self.review.remember(Denial {
            proposal: pending.proposal,
            patch: pending.patch,
            by: by.to_owned(),
            reason: reason.to_owned(),
            at,
            evidence: pending.evidence,
            sequence: 0,
        }))
    }

    /// Pending proposal `proposal`, if it exists and was held no later than `at`.
    fn pending_at(
        &self,
        proposal: &str,
        at: OffsetDateTime,
    ) -> Result<&PendingProposal, ReviewError> {
        let pending = self
            .review
            .pending
            .get(proposal)
            .ok_or_else(|| unknown(proposal))?;
        if at < pending.held_at {
            return Err(ReviewError::BeforeHeld {
                held_at: pending.held_at,
                at,
            });
        }
        Ok(pending)
    }
}

fn unknown(proposal: &str) -> ReviewError {
    ReviewError::UnknownProposal {
        proposal: proposal.to_owned(),
    }
}
