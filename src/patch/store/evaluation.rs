//! The store's evaluation at `now`: the lifecycle's moves, expired patches
//! leaving the merge, what clients were told of gone keys forgotten, and
//! queued patches released as far as the convergence guard allows.

use time::OffsetDateTime;

use super::schema_store::{SchemaStore, Waiting, already_authorized};
use crate::issue::{Issue, IssueCode};
use crate::patch::compile_error::CompileError;
use crate::patch::lifecycle::clock::ClockJump;
use crate::patch::lifecycle::evaluation::Transition;
use crate::patch::lifecycle::policy::GuardScope;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::schema_patch::{PatchError, PatchScope};
use crate::patch::security::PatchAuthorizer;

/// What [`SchemaStore::evaluate`] did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Evaluation {
    /// Lifecycle moves, in order.
    pub transitions: Vec<Transition>,
    /// Queued patches that now apply.
    pub released: Vec<String>,
    /// Queued patches dropped, with the reasons: expired while waiting,
    /// refused by the authorizer, or no longer merging (another patch took
    /// their key meanwhile).
    pub dropped: Vec<PatchError>,
    /// Set when `now` lay too far past the last evaluation: nothing moved.
    pub clock_refused: Option<ClockJump>,
}

impl SchemaStore {
    fn drop_patch(&mut self, evaluation: &mut Evaluation, error: PatchError) {
        if let Some(taken) = error.patch_id().and_then(|id| self.seen.get_mut(id)) {
            taken.dropped = true;
        }
        evaluation.dropped.push(error);
    }

    /// Moves keys through their lifecycle at `now`, then releases queued
    /// patches, oldest first, as far as the guard allows; each is checked
    /// again (with `authorizer`) and its keys start their trial now. Patches
    /// that expired while waiting are dropped. A `now` earlier than a
    /// previous evaluation's changes nothing.
    ///
    /// A `now` more than the policy's
    /// [`LifecyclePolicy::max_clock_jump`] past the last evaluation is
    /// refused ([`Evaluation::clock_refused`]) and changes nothing; see
    /// [`SchemaStore::evaluate_after_pause`] for a server that really was
    /// away that long.
    ///
    /// [`LifecyclePolicy::max_clock_jump`]: crate::patch::LifecyclePolicy::max_clock_jump
    pub fn evaluate(
        &mut self,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Evaluation {
        if let Some(jump) = self.lifecycle.clock_jump(now) {
            return Evaluation {
                clock_refused: Some(jump),
                ..Evaluation::default()
            };
        }
        self.evaluate_after_pause(now, authorizer)
    }

    /// [`SchemaStore::evaluate`] without the bound on how far `now` may lie
    /// past the last evaluation: for a server restarted after a pause
    /// longer than [`LifecyclePolicy::max_clock_jump`], once, with a clock
    /// it trusts.
    ///
    /// [`LifecyclePolicy::max_clock_jump`]: crate::patch::LifecyclePolicy::max_clock_jump
    pub fn evaluate_after_pause(
        &mut self,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Evaluation {
        let mut evaluation = Evaluation {
            transitions: self.lifecycle.evaluate(now),
            ..Evaluation::default()
        };
        if self.lifecycle.evaluated_at() != Some(now) {
            return evaluation; // a clock that went back
        }
        // Expired patches leave the merge; their keys live on in the
        // lifecycle's records, and their ids in `seen`.
        self.generation += 1;
        self.global.retain(|p| p.expires_at > now);
        let personal_before: usize = self.personal.values().map(Vec::len).sum();
        for patches in self.personal.values_mut() {
            patches.retain(|p| p.expires_at > now);
        }
        self.personal.retain(|_, patches| !patches.is_empty());
        if self.personal.values().map(Vec::len).sum::<usize>() != personal_before {
            self.index_personal_names();
        }
        let personal_gone = evaluation
            .transitions
            .iter()
            .any(|t| t.to == KeyState::Gone && !t.scope.is_global());
        if personal_gone {
            self.index_personal_names();
        }
        self.forget_gone(&evaluation.transitions);
        let mut waiting = std::mem::take(&mut self.queue);
        let mut blocked: Vec<PatchScope> = Vec::new();
        let scenario = self.lifecycle.policy().guard == GuardScope::Scenario;
        while let Some(Waiting {
            patch,
            submitter,
            approved,
        }) = waiting.pop_front()
        {
            if patch.expires_at <= now {
                let error = PatchError::new(
                    Some(patch.patch_id.clone()),
                    vec![Issue::new(
                        IssueCode::InvalidPatchWindow,
                        "/expires_at",
                        "the patch expired while it waited for the convergence guard",
                    )],
                );
                self.drop_patch(&mut evaluation, error);
                continue;
            }
            let line_blocked = if scenario {
                !blocked.is_empty()
            } else {
                blocked.contains(&patch.scope)
            };
            if line_blocked || !self.has_room(&patch, now) {
                blocked.push(patch.scope.clone());
                self.queue.push_back(Waiting {
                    patch,
                    submitter,
                    approved,
                });
                continue;
            }
            let authorizer: &dyn PatchAuthorizer = if approved {
                &already_authorized
            } else {
                authorizer
            };
            match self.check(&patch, submitter.as_deref(), now, authorizer) {
                Ok(()) => {
                    evaluation.released.push(patch.patch_id.clone());
                    self.accept(patch, now);
                }
                Err(CompileError::Patch(error)) => self.drop_patch(&mut evaluation, error),
                Err(other) => {
                    let error =
                        PatchError::new(Some(patch.patch_id.clone()), other.errors().to_vec());
                    self.drop_patch(&mut evaluation, error);
                }
            }
        }
        evaluation
    }
}
