//! Taking a patch: its window, its id (a replay answers as the first time,
//! a reused id is refused), its own rules and every client view it reaches,
//! then the convergence guard, which applies it or queues it.

use std::collections::BTreeSet;

use time::OffsetDateTime;

use super::schema_store::{SchemaStore, Taken, Waiting};
use crate::digest::canonical_digest;
use crate::issue::{Issue, IssueCode};
use crate::patch::compile_error::CompileError;
use crate::patch::lifecycle::policy::GuardScope;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::schema_patch::{PatchError, PatchScope, SchemaPatch};
use crate::patch::security::PatchAuthorizer;

/// What became of a submitted patch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Submission {
    /// The patch applies from its timestamp on; its new keys are experimental.
    Applied,
    /// The convergence guard is full for the patch's scope: the patch waits,
    /// first in, first out, until promotions or deprecations make room.
    Queued {
        /// Patches ahead of it in its scope's queue.
        ahead: usize,
    },
}

impl SchemaStore {
    /// Checks `patch` (its window, its id, its own rules, the authorizer,
    /// and every client view it reaches), then applies it or queues it behind
    /// the convergence guard.
    ///
    /// Submitting a patch the store already took, unchanged, is a replay: it
    /// changes nothing and answers as the first time did (`Applied`, or
    /// `Queued` while it waits). Another patch with a taken id is refused
    /// (`duplicate_patch_id`), whatever its scope and however long ago.
    pub fn submit(
        &mut self,
        patch: SchemaPatch,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<Submission, CompileError> {
        self.submit_by(patch, None, now, authorizer)
    }

    /// [`SchemaStore::submit`] on behalf of `submitter` (an operator, a
    /// service, `"sdsi:evolution"`), whom the authorizer is told about
    /// through [`PatchAuthorizer::authorize_by`], now and on release from
    /// the guard's queue.
    pub fn submit_by(
        &mut self,
        patch: SchemaPatch,
        submitter: Option<&str>,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<Submission, CompileError> {
        self.take(patch, submitter, now, authorizer, false)
    }

    /// `submit_by`, for a patch an operator `approved` (see
    /// [`SchemaStore::approve`]): it is then authorized on release from the
    /// guard's queue too, whatever authorizer `evaluate` is given.
    pub(super) fn take(
        &mut self,
        patch: SchemaPatch,
        submitter: Option<&str>,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
        approved: bool,
    ) -> Result<Submission, CompileError> {
        if let Some(signer) = &self.signer {
            if let Err(error) = signer.check(&patch) {
                return Err(refusal(
                    &patch,
                    IssueCode::InvalidSignature,
                    "/signature",
                    error.to_string(),
                ));
            }
        }
        let digest = match canonical_digest(&patch) {
            Ok(digest) => digest,
            Err(error) => {
                return Err(refusal(
                    &patch,
                    IssueCode::NotCanonical,
                    "",
                    error.to_string(),
                ));
            }
        };
        if let Some(taken) = self.seen.get(&patch.patch_id) {
            if taken.digest != digest {
                return Err(refusal(
                    &patch,
                    IssueCode::DuplicatePatchId,
                    "/patch_id",
                    "the store already took another patch with this id".to_owned(),
                ));
            }
            if taken.dropped {
                return Err(refusal(
                    &patch,
                    IssueCode::DuplicatePatchId,
                    "/patch_id",
                    "the store dropped this patch earlier; submit it under a new id".to_owned(),
                ));
            }
            let position = self
                .queue
                .iter()
                .position(|w| w.patch.patch_id == patch.patch_id);
            return Ok(match position {
                Some(position) => Submission::Queued {
                    ahead: self
                        .queue
                        .iter()
                        .take(position)
                        .filter(|w| self.guard_shared(&w.patch, &patch))
                        .count(),
                },
                None => Submission::Applied,
            });
        }
        self.check_window(&patch, now)?;
        let limit = self.lifecycle.policy().max_experimental;
        if patch.new_keys.len() > limit {
            let issue = Issue::limit(
                "/new_keys",
                "new keys in one patch (the convergence guard)",
                limit as u64,
            );
            return Err(PatchError::new(Some(patch.patch_id.clone()), vec![issue]).into());
        }
        self.check(&patch, submitter, now, authorizer)?;
        let taken = Taken {
            digest,
            dropped: false,
        };
        self.seen.insert(patch.patch_id.clone(), taken);
        let ahead = self
            .queue
            .iter()
            .filter(|w| self.guard_shared(&w.patch, &patch))
            .count();
        if ahead == 0 && self.has_room(&patch, now) {
            self.accept(patch, now);
            Ok(Submission::Applied)
        } else {
            self.queue.push_back(Waiting {
                patch,
                submitter: submitter.map(str::to_owned),
                approved,
            });
            Ok(Submission::Queued { ahead })
        }
    }

    /// A patch must start no later than `now` plus the allowed clock skew,
    /// and end after both its start and `now`.
    fn check_window(&self, patch: &SchemaPatch, now: OffsetDateTime) -> Result<(), CompileError> {
        let skew = self.lifecycle.policy().clock_skew;
        let latest_start = now.checked_add(skew).unwrap_or(now);
        let problem = if patch.expires_at <= patch.timestamp {
            Some((
                "/expires_at",
                "the patch expires at or before its own timestamp".to_owned(),
            ))
        } else if patch.expires_at <= now {
            Some(("/expires_at", "the patch has already expired".to_owned()))
        } else if patch.timestamp > latest_start {
            Some((
                "/timestamp",
                format!("the patch starts more than {skew} after now; submit it when it starts"),
            ))
        } else {
            None
        };
        match problem {
            Some((path, message)) => {
                Err(refusal(patch, IssueCode::InvalidPatchWindow, path, message))
            }
            None => Ok(()),
        }
    }

    /// The patch's own rules and the authorizer, then its entries against
    /// every client view it reaches, as of when it starts to apply.
    pub(super) fn check(
        &self,
        patch: &SchemaPatch,
        submitter: Option<&str>,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<(), CompileError> {
        let views: Vec<Option<&str>> = match &patch.scope {
            PatchScope::Client(client) => vec![Some(client.as_str())],
            // The global view, and the views of clients whose own patches
            // name a key this patch names: no other view can conflict.
            PatchScope::Global => {
                let clients: BTreeSet<&str> = patch
                    .new_keys
                    .iter()
                    .chain(&patch.modified_keys)
                    .filter_map(|k| self.personal_names.get(&k.key_name))
                    .flatten()
                    .map(String::as_str)
                    .collect();
                std::iter::once(None)
                    .chain(clients.into_iter().map(Some))
                    .collect()
            }
        };
        for client in views {
            // The view's own patches were authorized; only the candidate is asked.
            self.effective(client)
                .check_candidate(patch, now, authorizer, submitter)?;
        }
        Ok(())
    }

    /// Whether two patches wait in one line of the guard's queue.
    fn guard_shared(&self, a: &SchemaPatch, b: &SchemaPatch) -> bool {
        self.lifecycle.policy().guard == GuardScope::Scenario || a.scope == b.scope
    }

    /// Whether the guard lets the patch's new keys in now. Entries that
    /// refine a key already in force are not new keys.
    pub(super) fn has_room(&self, patch: &SchemaPatch, now: OffsetDateTime) -> bool {
        let fresh = patch
            .new_keys
            .iter()
            .filter(|k| {
                self.base.key(k.key_name.as_str()).is_none()
                    && self
                        .lifecycle
                        .state_at(&patch.scope, k.key_name.as_str(), now)
                        .is_none_or(|s| s >= KeyState::Withdrawn)
                    && self
                        .lifecycle
                        .state_at(&PatchScope::Global, k.key_name.as_str(), now)
                        .is_none_or(|s| s >= KeyState::Withdrawn)
            })
            .count();
        let experimental = self.lifecycle.experimental_count(&patch.scope, now);
        experimental + fresh <= self.lifecycle.policy().max_experimental
    }

    pub(super) fn accept(&mut self, patch: SchemaPatch, now: OffsetDateTime) {
        self.generation += 1;
        self.lifecycle.track(&patch, now);
        if let PatchScope::Client(client) = &patch.scope {
            for key in patch.new_keys.iter().chain(&patch.modified_keys) {
                self.personal_names
                    .entry(key.key_name.clone())
                    .or_default()
                    .insert(client.clone());
            }
        }
        match &patch.scope {
            PatchScope::Global => self.global.push(patch),
            PatchScope::Client(client) => {
                self.personal.entry(client.clone()).or_default().push(patch)
            }
        }
    }
}

/// A refusal of `patch` with one issue.
pub(super) fn refusal(
    patch: &SchemaPatch,
    code: IssueCode,
    path: &str,
    message: String,
) -> CompileError {
    PatchError::new(
        Some(patch.patch_id.clone()),
        vec![Issue::new(code, path, message)],
    )
    .into()
}
