//! The lifecycle as a split header writes it (a store kept as rows): every
//! member but the records' counts and the message totals, which the count
//! rows hold. Only the evolution engine's split state writes one.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Serialize, Serializer};
use time::OffsetDateTime;

use super::policy::LifecyclePolicy;
use super::records::{KeyRecord, Lifecycle};
use super::serialized::{scope_pairs, sorted};
use super::split_header::{RecordHeader, WindowLength};
use crate::patch::schema_patch::PatchScope;

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
