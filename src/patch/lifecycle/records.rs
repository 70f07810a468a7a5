//! The lifecycle's records and the indexes kept over them: one record per
//! (scope, key name) with its raw windowed counts, the [`Lifecycle`] value
//! holding them beside every index, and the tracking of new keys and the
//! lookups that keep those indexes right.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::day_window::DayWindow;
use super::policy::LifecyclePolicy;
use super::serialized::{scope_pairs, sorted};
use super::state::KeyState;
use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::patch::schema_patch::{PatchScope, SchemaPatch};

/// Raw windowed counts behind a key's [`crate::patch::KeyMetrics`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Counts {
    pub(super) present: DayWindow,
    pub(super) well_typed: DayWindow,
    pub(super) judged: DayWindow,
    pub(super) aligned: DayWindow,
    /// Client → the day the key was first delivered to it.
    #[serde(serialize_with = "sorted::map")]
    pub(super) delivered_to: FxHashMap<String, i64>,
    /// Client → the latest day it sent the key well-typed.
    #[serde(serialize_with = "sorted::map")]
    pub(super) adopted_by: FxHashMap<String, i64>,
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
    pub(super) counts: Counts,
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
    pub(super) policy: LifecyclePolicy,
    pub(super) records: Vec<KeyRecord>,
    /// Global key name → the newest record for that key.
    #[serde(serialize_with = "sorted::map")]
    pub(super) global: FxHashMap<Box<str>, usize>,
    /// Client → personal key name → the newest record for that key.
    #[serde(serialize_with = "sorted::nested")]
    pub(super) personal: FxHashMap<String, FxHashMap<Box<str>, usize>>,
    pub(super) totals: DayWindow,
    #[serde(serialize_with = "sorted::map")]
    pub(super) client_totals: FxHashMap<String, DayWindow>,
    /// The latest `now` [`Lifecycle::evaluate`] ran at: time never goes back.
    #[serde(with = "time::serde::iso8601::option")]
    pub(super) evaluated_at: Option<OffsetDateTime>,
    /// Records experimental as of the last evaluation (a key never becomes
    /// experimental again), so the guard counts without scanning history.
    /// (A list of pairs when serialized: a scope is not a JSON object key.)
    #[serde(with = "scope_pairs")]
    pub(super) experimental: FxHashMap<PatchScope, Vec<usize>>,
    /// Records not gone as of the last evaluation: the only ones that can move.
    pub(super) live: Vec<usize>,
    /// The global ones among them: what every client sees.
    pub(super) live_global: Vec<usize>,
    /// Key name → its records in every scope.
    #[serde(serialize_with = "sorted::map")]
    pub(super) by_name: FxHashMap<Box<str>, Vec<usize>>,
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

    pub(super) fn record_index(&self, scope: &PatchScope, name: &str) -> Option<usize> {
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
}

impl Default for Lifecycle {
    fn default() -> Self {
        Self::new(LifecyclePolicy::default())
    }
}
