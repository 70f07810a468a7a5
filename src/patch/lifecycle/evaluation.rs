//! The evaluation machine: the forward-only moves `now` allows a key's
//! state, applied ([`Lifecycle::evaluate`]) or only projected (what a
//! reader at `now` sees), and what a gone key leaves behind.

use rustc_hash::FxHashMap;
use serde::Serialize;
use time::{Duration, OffsetDateTime};

use super::records::{KeyRecord, Lifecycle};
use super::state::KeyState;
use crate::key::KeyName;
use crate::patch::schema_patch::PatchScope;

/// A state change made by [`Lifecycle::evaluate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Transition {
    /// Who the key is for.
    pub scope: PatchScope,
    /// The key.
    pub key_name: KeyName,
    /// The patch that introduced it.
    pub patch_id: String,
    /// The state it left.
    pub from: KeyState,
    /// The state it entered.
    pub to: KeyState,
    /// When: `now` for a decision on metrics, the window's end for a timed move.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

impl Lifecycle {
    /// Moves every key as far forward as `now` allows and returns the moves.
    ///
    /// - experimental, once the trial is over: promoted when every metric
    ///   reaches `promote_at`; deprecated when any falls below
    ///   `deprecate_below`, or when it has been experimental a whole
    ///   observation window without qualifying (so the guard's queue moves);
    /// - stable, a whole window after promotion: deprecated by the same rule;
    /// - deprecated → withdrawn when the grace period ends;
    /// - withdrawn → gone when the backward-compatibility window ends.
    ///
    /// Timed moves (grace, backward compatibility, the undecided deadline) are
    /// stamped with the window's end, so one late call gives the same history
    /// of timed moves as many punctual ones. Decisions on metrics are stamped
    /// `now`, since the metrics are those of `now`'s window.
    pub fn evaluate(&mut self, now: OffsetDateTime) -> Vec<Transition> {
        if self.evaluated_at.is_some_and(|last| now < last) {
            return Vec::new(); // time only moves forward
        }
        self.evaluated_at = Some(now);
        let mut moves = Vec::new();
        self.live.sort_unstable();
        self.live.dedup();
        for index in self.live.clone() {
            while let Some((record, (to, at))) = self.records.get(index).and_then(|r| {
                if now < r.introduced_at {
                    return None;
                }
                Some((r, self.next_move(r, (r.state, r.state_since), now)?))
            }) {
                moves.push(Transition {
                    scope: record.scope.clone(),
                    key_name: record.key_name.clone(),
                    patch_id: record.patch_id.clone(),
                    from: record.state,
                    to,
                    at,
                });
                if let Some(record) = self.records.get_mut(index) {
                    record.state = to;
                    record.state_since = at;
                }
            }
        }
        let records = &self.records;
        for list in self.experimental.values_mut() {
            list.retain(|&i| {
                records
                    .get(i)
                    .is_some_and(|r| r.state == KeyState::Experimental)
            });
        }
        self.experimental.retain(|_, list| !list.is_empty());
        self.live
            .retain(|&i| records.get(i).is_some_and(|r| r.state < KeyState::Gone));
        self.live_global
            .retain(|&i| records.get(i).is_some_and(|r| r.state < KeyState::Gone));
        if moves.iter().any(|m| m.to == KeyState::Gone) {
            self.forget_gone_clients();
        }
        moves
    }

    /// The record's state and since when, as of `now`.
    pub(super) fn project(
        &self,
        record: &KeyRecord,
        now: OffsetDateTime,
    ) -> Option<(KeyState, OffsetDateTime)> {
        if now < record.introduced_at {
            return None;
        }
        let mut state = (record.state, record.state_since);
        // Each move goes strictly forward through five states.
        for _ in 0..5 {
            match self.next_move(record, state, now) {
                Some(next) => state = next,
                None => break,
            }
        }
        Some(state)
    }

    /// Per-client data of gone keys goes: who was told and who sent them
    /// (no metric is read for a gone key), and the payload totals of
    /// clients left with no personal key that is not gone. What stays of a
    /// gone key is its record without clients: its name and type, reserved.
    fn forget_gone_clients(&mut self) {
        for record in self
            .records
            .iter_mut()
            .filter(|r| r.state == KeyState::Gone)
        {
            record.counts.delivered_to = FxHashMap::default();
            record.counts.adopted_by = FxHashMap::default();
        }
        let records = &self.records;
        let personal = &self.personal;
        self.client_totals.retain(|client, _| {
            personal.get(client).is_some_and(|names| {
                names
                    .values()
                    .any(|&i| records.get(i).is_some_and(|r| r.state < KeyState::Gone))
            })
        });
    }

    /// The move after `(state, since)` that `now` allows, and when it happened.
    fn next_move(
        &self,
        record: &KeyRecord,
        (state, since): (KeyState, OffsetDateTime),
        now: OffsetDateTime,
    ) -> Option<(KeyState, OffsetDateTime)> {
        let p = &self.policy;
        // A window that ends past the representable range never ends.
        let reached = |start: OffsetDateTime, length: Duration| {
            start.checked_add(length).filter(|end| now >= *end)
        };
        match state {
            KeyState::Experimental => {
                let undecided = reached(record.introduced_at, p.observation_window)
                    .map(|end| (KeyState::Deprecated, end));
                if record.offer_ends_at <= now {
                    // The offer ended (its patch expired) while on trial:
                    // withdrawn then, unless a whole undecided window ended first.
                    return match undecided {
                        Some(early) if early.1 < record.offer_ends_at => Some(early),
                        _ => Some((KeyState::Withdrawn, record.offer_ends_at)),
                    };
                }
                reached(record.introduced_at, p.trial)?;
                let m = self.metrics_of(record, now);
                if m.promotes(&p.promote_at) {
                    Some((KeyState::Stable, now))
                } else if m.deprecates(&p.deprecate_below) {
                    Some((KeyState::Deprecated, now))
                } else {
                    // Undecided for a whole window: deprecated, stamped when the window ended.
                    undecided
                }
            }
            KeyState::Stable => {
                reached(since, p.observation_window)?;
                self.metrics_of(record, now)
                    .deprecates(&p.deprecate_below)
                    .then_some((KeyState::Deprecated, now))
            }
            KeyState::Deprecated => reached(since, p.grace).map(|end| (KeyState::Withdrawn, end)),
            KeyState::Withdrawn => {
                reached(since, p.backward_compatibility).map(|end| (KeyState::Gone, end))
            }
            KeyState::Gone => None,
        }
    }
}
