//! The lifecycle and its records as a store kept as rows writes them: a
//! key row's body and the split header's lifecycle, each without the counts
//! and clients the count and adoption rows hold (what stands for a window
//! is its length), written from the lifecycle's own parts rather than
//! serialized whole only to be stripped.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Serialize, Serializer};
use time::OffsetDateTime;

use super::day_window::DayWindow;
use super::policy::LifecyclePolicy;
use super::records::{KeyRecord, Lifecycle};
use super::serialized::{scope_pairs, sorted};
use super::state::KeyState;
use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::patch::schema_patch::PatchScope;

/// The member of [`WindowLength`], as [`super::counted::fill`] reads it.
pub(super) const WINDOW_DAYS: &str = "window_days";

/// What stands for a window in a split header or a key row: its length.
#[derive(Serialize)]
struct WindowLength {
    window_days: usize,
}

impl From<&DayWindow> for WindowLength {
    fn from(window: &DayWindow) -> Self {
        Self {
            window_days: window.window_len(),
        }
    }
}

/// A key record without its counts and clients (what stands for them: the
/// window's length), serialized as a key row's body and in a split
/// header: every member of [`KeyRecord`] but `counts`, in its order.
#[derive(Serialize)]
pub(crate) struct RecordHeader<'a> {
    scope: &'a PatchScope,
    key_name: &'a KeyName,
    key_type: KeyType,
    definition: &'a KeyDefinition,
    patch_id: &'a str,
    state: KeyState,
    #[serde(with = "time::serde::iso8601")]
    introduced_at: OffsetDateTime,
    #[serde(with = "time::serde::iso8601")]
    offer_ends_at: OffsetDateTime,
    #[serde(with = "time::serde::iso8601")]
    state_since: OffsetDateTime,
    counts: WindowLength,
}

impl KeyRecord {
    /// The record as a key row's body holds it.
    pub(crate) fn header(&self) -> RecordHeader<'_> {
        RecordHeader {
            scope: &self.scope,
            key_name: &self.key_name,
            key_type: self.key_type,
            definition: &self.definition,
            patch_id: &self.patch_id,
            state: self.state,
            introduced_at: self.introduced_at,
            offer_ends_at: self.offer_ends_at,
            state_since: self.state_since,
            counts: WindowLength::from(&self.counts.present),
        }
    }
}

/// The lifecycle as a split header holds it: every member of [`Lifecycle`],
/// in its order, with the records' counts and the message totals standing
/// as their windows' lengths ([`super::counted::fill`] puts them back from the rows).
#[derive(Serialize)]
pub(crate) struct LifecycleHeader<'a> {
    policy: &'a LifecyclePolicy,
    records: Vec<RecordHeader<'a>>,
    #[serde(serialize_with = "sorted_ref")]
    global: &'a FxHashMap<Box<str>, usize>,
    #[serde(serialize_with = "nested_ref")]
    personal: &'a FxHashMap<String, FxHashMap<Box<str>, usize>>,
    totals: WindowLength,
    client_totals: BTreeMap<&'a str, WindowLength>,
    #[serde(with = "time::serde::iso8601::option")]
    evaluated_at: Option<OffsetDateTime>,
    #[serde(serialize_with = "pairs_ref")]
    experimental: &'a FxHashMap<PatchScope, Vec<usize>>,
    live: &'a [usize],
    live_global: &'a [usize],
    #[serde(serialize_with = "sorted_ref")]
    by_name: &'a FxHashMap<Box<str>, Vec<usize>>,
}

impl Lifecycle {
    /// The lifecycle as a split header holds it.
    pub(crate) fn header(&self) -> LifecycleHeader<'_> {
        LifecycleHeader {
            policy: &self.policy,
            records: self.records.iter().map(KeyRecord::header).collect(),
            global: &self.global,
            personal: &self.personal,
            totals: WindowLength::from(&self.totals),
            client_totals: self
                .client_totals
                .iter()
                .map(|(client, window)| (client.as_str(), WindowLength::from(window)))
                .collect(),
            evaluated_at: self.evaluated_at,
            experimental: &self.experimental,
            live: &self.live,
            live_global: &self.live_global,
            by_name: &self.by_name,
        }
    }
}

fn sorted_ref<K: Ord + Serialize, V: Serialize, S: Serializer>(
    map: &&FxHashMap<K, V>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    sorted::map(map, serializer)
}

fn nested_ref<S: Serializer>(
    map: &&FxHashMap<String, FxHashMap<Box<str>, usize>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    sorted::nested(map, serializer)
}

fn pairs_ref<S: Serializer>(
    map: &&FxHashMap<PatchScope, Vec<usize>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    scope_pairs::serialize(map, serializer)
}
