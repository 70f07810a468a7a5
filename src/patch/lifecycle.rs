//! The key lifecycle (§6.2.3): states, per-key metrics and the
//! forward-only evaluation driven by `now` (its policy: `patch/policy.rs`).

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};

use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::patch::metrics::{DayWindow, day_of};
use crate::patch::policy::{GuardScope, LifecyclePolicy, Thresholds};
use crate::patch::schema_patch::{PatchScope, SchemaPatch};

mod clock;
mod counted;
mod serialized;

pub use clock::ClockJump;
pub(crate) use counted::fill as fill_counts;
use serialized::{scope_pairs, sorted};

/// Where a patch key is in its life. States only move forward (the order of
/// the variants): experimental → stable, or experimental (or stable) →
/// deprecated → withdrawn → gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyState {
    /// On trial, advertised with `"experimental": true`.
    Experimental,
    /// Part of the long-term schema.
    Stable,
    /// Still in the schema with `"deprecated": true` during the grace period.
    Deprecated,
    /// Removed from the schema; still accepted (with warning `withdrawn_key`)
    /// during the backward-compatibility window.
    Withdrawn,
    /// Past every window: an `unknown_key`. Its name stays reserved for its type.
    Gone,
}

/// A key's metrics over the observation window; `None` where nothing was
/// observed yet (no payloads, no judgments).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct KeyMetrics {
    /// Payloads carrying the key / payloads of the scenario (of the client,
    /// for a personal key), since the key was introduced.
    pub usage_frequency: Option<f64>,
    /// Judged correct / judged, from [`Lifecycle::record_alignment`].
    pub semantic_alignment_accuracy: Option<f64>,
    /// Payloads whose value had the key's type / payloads carrying the key.
    pub value_type_correctness: Option<f64>,
    /// Clients it was delivered to (by the window's end) that sent it
    /// well-typed inside the window / clients it was delivered to (so at most 1).
    pub client_adoption_rate: Option<f64>,
}

impl KeyMetrics {
    fn promotes(&self, t: &Thresholds) -> bool {
        let at_least = |m: Option<f64>, t: f64| m.is_some_and(|m| m >= t);
        at_least(self.usage_frequency, t.usage_frequency)
            && at_least(
                self.semantic_alignment_accuracy,
                t.semantic_alignment_accuracy,
            )
            && at_least(self.value_type_correctness, t.value_type_correctness)
    }

    fn deprecates(&self, t: &Thresholds) -> bool {
        let below = |m: Option<f64>, t: f64| m.is_some_and(|m| m < t);
        below(self.usage_frequency, t.usage_frequency)
            || below(
                self.semantic_alignment_accuracy,
                t.semantic_alignment_accuracy,
            )
            || below(self.value_type_correctness, t.value_type_correctness)
    }
}

/// Raw windowed counts behind [`KeyMetrics`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Counts {
    present: DayWindow,
    well_typed: DayWindow,
    judged: DayWindow,
    aligned: DayWindow,
    /// Client → the day the key was first delivered to it.
    #[serde(serialize_with = "sorted::map")]
    delivered_to: FxHashMap<String, i64>,
    /// Client → the latest day it sent the key well-typed.
    #[serde(serialize_with = "sorted::map")]
    adopted_by: FxHashMap<String, i64>,
}

impl Counts {
    fn new(days: usize) -> Self {
        Self {
            present: DayWindow::new(days),
            well_typed: DayWindow::new(days),
            judged: DayWindow::new(days),
            aligned: DayWindow::new(days),
            delivered_to: FxHashMap::default(),
            adopted_by: FxHashMap::default(),
        }
    }
}

/// One patch key's life: one record per (scope, key name), which the merge
/// reads for the key's definition and state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct KeyRecord {
    /// Who the key is for.
    pub scope: PatchScope,
    /// The key.
    pub key_name: KeyName,
    /// Its type; a withdrawn or gone key's name stays reserved for it.
    pub key_type: KeyType,
    /// The key as its patch introduced it (without lifecycle flags).
    pub definition: KeyDefinition,
    /// The patch that introduced it.
    pub patch_id: String,
    /// Its state as of the last [`Lifecycle::evaluate`] (see
    /// [`Lifecycle::state_at`] for the state at any later time).
    pub state: KeyState,
    /// When its trial started: when its patch was accepted (or released from
    /// the guard's queue), not before the patch's own timestamp.
    #[serde(with = "time::serde::iso8601")]
    pub introduced_at: OffsetDateTime,
    /// When its patch expires: an offer still experimental then is withdrawn.
    #[serde(with = "time::serde::iso8601")]
    pub offer_ends_at: OffsetDateTime,
    /// When it entered its current state.
    #[serde(with = "time::serde::iso8601")]
    pub state_since: OffsetDateTime,
    counts: Counts,
}

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

/// The lifecycle of every patch key of one scenario: states, metrics, evaluation.
///
/// Pure: it never reads a clock. Feed it payloads ([`Lifecycle::record_payload`])
/// and judgments ([`Lifecycle::record_alignment`]), and call
/// [`Lifecycle::evaluate`] with `now` whenever convenient; the result depends
/// only on what was recorded and on `now`.
///
/// Serializable (with the store's snapshot, see `SchemaStore`): every field,
/// indexes included, so a restored lifecycle is the same value, and
/// [`Lifecycle::is_consistent`] checks a deserialized one before use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lifecycle {
    policy: LifecyclePolicy,
    records: Vec<KeyRecord>,
    /// Global key name → the newest record for that key.
    #[serde(serialize_with = "sorted::map")]
    global: FxHashMap<Box<str>, usize>,
    /// Client → personal key name → the newest record for that key.
    #[serde(serialize_with = "sorted::nested")]
    personal: FxHashMap<String, FxHashMap<Box<str>, usize>>,
    totals: DayWindow,
    #[serde(serialize_with = "sorted::map")]
    client_totals: FxHashMap<String, DayWindow>,
    /// The latest `now` [`Lifecycle::evaluate`] ran at: time never goes back.
    #[serde(with = "time::serde::iso8601::option")]
    evaluated_at: Option<OffsetDateTime>,
    /// Records experimental as of the last evaluation (a key never becomes
    /// experimental again), so the guard counts without scanning history.
    /// (A list of pairs when serialized: a scope is not a JSON object key.)
    #[serde(with = "scope_pairs")]
    experimental: FxHashMap<PatchScope, Vec<usize>>,
    /// Records not gone as of the last evaluation: the only ones that can move.
    live: Vec<usize>,
    /// The global ones among them: what every client sees.
    live_global: Vec<usize>,
    /// Key name → its records in every scope.
    #[serde(serialize_with = "sorted::map")]
    by_name: FxHashMap<Box<str>, Vec<usize>>,
}

impl Lifecycle {
    /// Whether every index the lifecycle keeps points at one of its
    /// records: true of every lifecycle built through its methods; checked
    /// on a deserialized one, which could come from a damaged file.
    pub fn is_consistent(&self) -> bool {
        let n = self.records.len();
        let ok = |i: &usize| *i < n;
        self.global.values().all(ok)
            && self.personal.values().flat_map(|m| m.values()).all(ok)
            && self.experimental.values().flatten().all(ok)
            && self.live.iter().all(ok)
            && self.live_global.iter().all(ok)
            && self.by_name.values().flatten().all(ok)
    }

    /// An empty lifecycle under `policy`.
    pub fn new(policy: LifecyclePolicy) -> Self {
        Self {
            policy,
            records: Vec::new(),
            global: FxHashMap::default(),
            personal: FxHashMap::default(),
            totals: DayWindow::new(policy.window_days()),
            client_totals: FxHashMap::default(),
            evaluated_at: None,
            experimental: FxHashMap::default(),
            live: Vec::new(),
            live_global: Vec::new(),
            by_name: FxHashMap::default(),
        }
    }

    /// The policy in force.
    pub fn policy(&self) -> &LifecyclePolicy {
        &self.policy
    }

    /// The latest `now` [`Lifecycle::evaluate`] ran at.
    pub fn evaluated_at(&self) -> Option<OffsetDateTime> {
        self.evaluated_at
    }

    /// Every key record, in the order keys were introduced.
    pub fn records(&self) -> &[KeyRecord] {
        &self.records
    }

    /// Starts tracking the keys `patch` introduces, each on trial from
    /// `at` (not before the patch's timestamp) until its patch expires. A key
    /// already tracked in the scope and not gone is a refinement, not a new
    /// key, and is skipped; a gone key's name taken again (by the same type:
    /// the store refuses another) starts a new record, also when it is gone
    /// only by projection (no `evaluate` since its windows passed). Returns how many
    /// keys were added.
    pub fn track(&mut self, patch: &SchemaPatch, at: OffsetDateTime) -> usize {
        let days = self.policy.window_days();
        let start = at.max(patch.timestamp);
        let mut added = 0;
        for key in &patch.new_keys {
            let name = key.key_name.as_str();
            let existing = self.record_index(&patch.scope, name);
            // Gone as stored, or by projection: the store answers by the
            // projected state, which evaluate has not caught up with yet.
            let reusable = existing.and_then(|i| self.records.get(i)).is_some_and(|r| {
                r.state == KeyState::Gone
                    || self
                        .project(r, start)
                        .is_some_and(|(state, _)| state == KeyState::Gone)
            });
            if existing.is_some() && !reusable {
                continue;
            }
            let mut definition = key.clone();
            definition
                .extra
                .shift_remove(crate::key::EXPERIMENTAL_MEMBER);
            definition.extra.shift_remove(crate::key::DEPRECATED_MEMBER);
            let record = KeyRecord {
                scope: patch.scope.clone(),
                key_name: key.key_name.clone(),
                key_type: key.key_type,
                definition,
                patch_id: patch.patch_id.clone(),
                state: KeyState::Experimental,
                introduced_at: start,
                offer_ends_at: patch.expires_at,
                state_since: start,
                counts: Counts::new(days),
            };
            let index = match existing.filter(|_| reusable) {
                Some(index) => {
                    if let Some(slot) = self.records.get_mut(index) {
                        *slot = record;
                    }
                    // A record gone only by projection is still listed as
                    // moving; it is listed once, anew, below.
                    self.live.retain(|&i| i != index);
                    self.live_global.retain(|&i| i != index);
                    for listed in self.experimental.values_mut() {
                        listed.retain(|&i| i != index);
                    }
                    index
                }
                None => {
                    self.records.push(record);
                    self.records.len() - 1
                }
            };
            self.experimental
                .entry(patch.scope.clone())
                .or_default()
                .push(index);
            self.live.push(index);
            if patch.scope.is_global() {
                self.live_global.push(index);
            }
            let named = self.by_name.entry(name.into()).or_default();
            if !named.contains(&index) {
                named.push(index);
            }
            match &patch.scope {
                PatchScope::Global => self.global.insert(name.into(), index),
                PatchScope::Client(client) => self
                    .personal
                    .entry(client.clone())
                    .or_default()
                    .insert(name.into(), index),
            };
            if let PatchScope::Client(client) = &patch.scope {
                self.client_totals
                    .entry(client.clone())
                    .or_insert_with(|| DayWindow::new(days));
            }
            added += 1;
        }
        added
    }

    fn record_index(&self, scope: &PatchScope, name: &str) -> Option<usize> {
        match scope {
            PatchScope::Global => self.global.get(name).copied(),
            PatchScope::Client(client) => self.personal.get(client)?.get(name).copied(),
        }
    }

    /// The record of the key `name` in `scope`.
    pub fn record(&self, scope: &PatchScope, name: &str) -> Option<&KeyRecord> {
        self.record_index(scope, name)
            .and_then(|i| self.records.get(i))
    }

    /// The state of the key `name` in `scope` at `now`: what
    /// [`Lifecycle::evaluate`] at `now` would make it, without changing
    /// anything, so that readers get the same answer whether or not
    /// `evaluate` ran. `None` when the key is not tracked or its trial
    /// starts after `now`.
    pub fn state_at(
        &self,
        scope: &PatchScope,
        name: &str,
        now: OffsetDateTime,
    ) -> Option<KeyState> {
        let record = self.record(scope, name)?;
        self.project(record, now).map(|(state, _)| state)
    }

    /// The record's state and since when, as of `now`.
    fn project(
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

    /// Every patch key `client` sees at `now` (the global ones and its own),
    /// with its state at `now`, in the order they were introduced.
    pub fn keys_at(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Vec<(&KeyDefinition, KeyState)> {
        self.visible_at(client, now)
            .into_iter()
            .filter_map(|(i, state)| Some((&self.records.get(i)?.definition, state)))
            .collect()
    }

    /// The records `client` sees at `now` (not gone), by index, with their
    /// state: what a merge reads from the lifecycle, so equal lists mean
    /// equal merges.
    pub(crate) fn visible_at(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Vec<(usize, KeyState)> {
        // Through the indexes, so the cost follows what this client sees,
        // not every client's history; gone stays gone, so skip it first.
        let personal = client.and_then(|c| self.personal.get(c));
        let mut indices: Vec<usize> = self
            .live_global
            .iter()
            .chain(personal.into_iter().flat_map(|m| m.values()))
            .copied()
            .filter(|&i| {
                self.records
                    .get(i)
                    .is_some_and(|r| r.state != KeyState::Gone)
            })
            .collect();
        indices.sort_unstable();
        indices.dedup();
        indices
            .into_iter()
            .filter_map(|i| Some((i, self.project(self.records.get(i)?, now)?.0)))
            .filter(|(_, state)| *state != KeyState::Gone)
            .collect()
    }

    /// Whether a new key `name` of type `key_type` in `scope` would take a
    /// reserved name: one whose key is withdrawn (any type: it is still
    /// accepted from clients) or gone with another type, in any scope that
    /// shares clients with `scope` at `now`. Returns the reserving record.
    pub fn reservation(
        &self,
        scope: &PatchScope,
        name: &KeyName,
        key_type: KeyType,
        now: OffsetDateTime,
    ) -> Option<&KeyRecord> {
        let reserves = |r: &&KeyRecord| {
            r.key_name == *name
                && match self.project(r, now).map(|(state, _)| state) {
                    Some(KeyState::Withdrawn) => true,
                    Some(KeyState::Gone) => r.key_type != key_type,
                    _ => false,
                }
        };
        match scope {
            // A client's view holds the global keys and its own: two lookups.
            PatchScope::Client(_) => [PatchScope::Global, scope.clone()]
                .iter()
                .filter_map(|s| self.record(s, name.as_str()))
                .find(reserves),
            // A global key reaches every client: every record of the name.
            PatchScope::Global => self
                .by_name
                .get(name.as_str())?
                .iter()
                .filter_map(|&i| self.records.get(i))
                .find(reserves),
        }
    }

    /// The type a withdrawn or gone key `name` keeps its name reserved for
    /// in `scope` (as last evaluated).
    pub fn reserved_type(&self, scope: &PatchScope, name: &KeyName) -> Option<KeyType> {
        self.record(scope, name.as_str())
            .filter(|r| r.state >= KeyState::Withdrawn)
            .map(|r| r.key_type)
    }

    /// How many keys are experimental at `now`: in `scope` alone, or in the
    /// whole scenario, as the policy's [`GuardScope`] says.
    pub fn experimental_count(&self, scope: &PatchScope, now: OffsetDateTime) -> usize {
        let lists: Vec<&Vec<usize>> = match self.policy.guard {
            GuardScope::Scenario => self.experimental.values().collect(),
            GuardScope::PerScope => self.experimental.get(scope).into_iter().collect(),
        };
        lists
            .into_iter()
            .flatten()
            .filter_map(|&i| self.records.get(i))
            .filter(|r| {
                self.project(r, now)
                    .is_some_and(|(s, _)| s == KeyState::Experimental)
            })
            .count()
    }

    /// Records one payload from `client`: O(members of the payload).
    pub fn record_payload(
        &mut self,
        payload: &Map<String, Value>,
        client: &str,
        now: OffsetDateTime,
    ) {
        let day = day_of(now);
        self.totals.add(day, 1);
        if let Some(totals) = self.client_totals.get_mut(client) {
            totals.add(day, 1);
        }
        if self.records.is_empty() {
            return;
        }
        let personal = self.personal.get(client);
        for (name, value) in payload {
            let index = self
                .global
                .get(name.as_str())
                .or_else(|| personal?.get(name.as_str()))
                .copied();
            let Some(record) = index.and_then(|i| self.records.get_mut(i)) else {
                continue;
            };
            if value.is_null() {
                continue; // `null` on an optional key means "not given"
            }
            record.counts.present.add(day, 1);
            if record.key_type.matches(value) {
                record.counts.well_typed.add(day, 1);
                if record.state == KeyState::Gone {
                    continue; // no metric is read for it: remember no client
                }
                match record.counts.adopted_by.get_mut(client) {
                    Some(latest) => *latest = (*latest).max(day),
                    None => {
                        record.counts.adopted_by.insert(client.to_owned(), day);
                    }
                }
            }
        }
    }

    /// Records a judgment of whether a payload's value for `name` matched the
    /// user's intent (from an LLM judge or an audit sampler outside the crate).
    /// Returns false when the key is not tracked.
    pub fn record_alignment(
        &mut self,
        scope: &PatchScope,
        name: &str,
        aligned: bool,
        now: OffsetDateTime,
    ) -> bool {
        let day = day_of(now);
        let Some(record) = self
            .record_index(scope, name)
            .and_then(|i| self.records.get_mut(i))
        else {
            return false;
        };
        record.counts.judged.add(day, 1);
        if aligned {
            record.counts.aligned.add(day, 1);
        }
        true
    }

    /// Records that the key `name` was delivered to `client` at `now` (the
    /// denominator of the adoption rate). Returns false when the key is not tracked.
    pub fn record_delivery(
        &mut self,
        scope: &PatchScope,
        name: &str,
        client: &str,
        now: OffsetDateTime,
    ) -> bool {
        let Some(record) = self
            .record_index(scope, name)
            .and_then(|i| self.records.get_mut(i))
        else {
            return false;
        };
        let day = day_of(now);
        record
            .counts
            .delivered_to
            .entry(client.to_owned())
            .and_modify(|first| *first = (*first).min(day))
            .or_insert(day);
        true
    }

    /// The metrics of the key `name` in `scope` over the observation window
    /// ending at `now` (and starting no earlier than the key's introduction).
    pub fn metrics(
        &self,
        scope: &PatchScope,
        name: &str,
        now: OffsetDateTime,
    ) -> Option<KeyMetrics> {
        let record = self
            .record_index(scope, name)
            .and_then(|i| self.records.get(i))?;
        Some(self.metrics_of(record, now))
    }

    fn metrics_of(&self, record: &KeyRecord, now: OffsetDateTime) -> KeyMetrics {
        let to = day_of(now);
        let from = day_of(record.introduced_at).max(to - self.policy.window_days() as i64 + 1);
        let totals = match &record.scope {
            PatchScope::Global => Some(&self.totals),
            PatchScope::Client(client) => self.client_totals.get(client),
        };
        let c = &record.counts;
        // Count only days every window still holds, so that a window that
        // has moved further (a clock that went back) cannot skew a ratio.
        let from = [
            totals.map_or(i64::MIN, DayWindow::oldest),
            c.present.oldest(),
            c.judged.oldest(),
        ]
        .into_iter()
        .fold(from, i64::max);
        let ratio = |num: u64, den: u64| (den > 0).then(|| num as f64 / den as f64);
        let present = c.present.sum(from, to);
        KeyMetrics {
            usage_frequency: ratio(present, totals.map_or(0, |t| t.sum(from, to))),
            semantic_alignment_accuracy: ratio(c.aligned.sum(from, to), c.judged.sum(from, to)),
            value_type_correctness: ratio(c.well_typed.sum(from, to), present),
            client_adoption_rate: {
                // Clients told about the key by the window's end, and those of
                // them that sent it well-typed inside the window.
                let told: Vec<&String> = c
                    .delivered_to
                    .iter()
                    .filter(|(_, day)| **day <= to)
                    .map(|(client, _)| client)
                    .collect();
                let adopted = told
                    .iter()
                    .filter(|client| {
                        c.adopted_by
                            .get(client.as_str())
                            .is_some_and(|day| (from..=to).contains(day))
                    })
                    .count();
                ratio(adopted as u64, told.len() as u64)
            },
        }
    }

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

    /// The (client, key name) of every personal key that is not gone as of
    /// the last evaluation: served from its record even after its patch
    /// expired.
    pub(crate) fn personal_live_names(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.personal.iter().flat_map(move |(client, names)| {
            names
                .iter()
                .filter(move |(_, i)| {
                    self.records
                        .get(**i)
                        .is_some_and(|r| r.state < KeyState::Gone)
                })
                .map(move |(name, _)| (client.as_str(), &**name))
        })
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

impl Default for Lifecycle {
    fn default() -> Self {
        Self::new(LifecyclePolicy::default())
    }
}
