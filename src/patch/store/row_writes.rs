//! Planning a save of the store's rows that change with every message —
//! counters, adoptions, delivered keys — against what the back end last
//! wrote or read ([`KnownRows`]): a counter moves by what was counted since,
//! a row that did not change is not sent, and a table holding a row per
//! client costs a save only the clients that moved. (Patches, key records
//! and pending proposals change seldom and are few: a back end sends them
//! all and its upsert skips the unchanged.)

use std::collections::HashMap;
use std::hash::Hash;

use super::rows::{DeliveredRow, StoreRows};
use crate::patch::lifecycle::count_rows::{AdoptionRow, CountName, CountRow};

/// An adoption row's name: (scope, key name, client).
pub type AdoptionName = (String, String, String);

/// A delivered row's name: (client, key name).
pub type DeliveredName = (String, String);

/// The counter, adoption and delivered rows a back end last wrote or read,
/// with their values, so that its next save writes only what changed
/// ([`StoreRows::writes`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnownRows {
    counts: HashMap<CountName, i64>,
    adoptions: HashMap<AdoptionName, (Option<i64>, Option<i64>)>,
    delivered: HashMap<DeliveredName, String>,
}

/// What a save of the changing rows writes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StoreWrites<'a> {
    /// The stored rows are not known: delete the scenario's counter,
    /// adoption and delivered rows first (every row is then listed below,
    /// counters with their whole count).
    pub replace_all: bool,
    /// Counters and what to add to their stored count (a row not stored
    /// yet is inserted with it): only those that moved.
    pub counts: Vec<(&'a CountRow, i64)>,
    /// Counters to delete (their day left the window, or their key went).
    pub counts_gone: Vec<CountName>,
    /// Adoption rows to insert or rewrite.
    pub adoptions: Vec<&'a AdoptionRow>,
    /// Adoption rows to delete.
    pub adoptions_gone: Vec<AdoptionName>,
    /// Delivered rows to insert or rewrite.
    pub delivered: Vec<&'a DeliveredRow>,
    /// Delivered rows to delete.
    pub delivered_gone: Vec<DeliveredName>,
    /// The rows stored once the save commits: keep them for the next.
    pub known: KnownRows,
}

/// The rows whose value differs from the one stored (with it, if any),
/// the names stored but no longer there (sorted), and the values after.
type Plan<'a, R, K, V> = (Vec<(&'a R, Option<V>)>, Vec<K>, HashMap<K, V>);

fn plan<'a, R, K, V>(
    rows: &'a [R],
    named: impl Fn(&R) -> (K, V),
    known: Option<&HashMap<K, V>>,
) -> Plan<'a, R, K, V>
where
    K: Hash + Eq + Ord + Clone,
    V: PartialEq + Clone,
{
    let mut after = HashMap::with_capacity(rows.len());
    let mut changed = Vec::new();
    for row in rows {
        let (name, value) = named(row);
        let stored = known.and_then(|k| k.get(&name));
        if stored != Some(&value) {
            changed.push((row, stored.cloned()));
        }
        after.insert(name, value);
    }
    let mut gone: Vec<K> = known
        .into_iter()
        .flat_map(HashMap::keys)
        .filter(|name| !after.contains_key(*name))
        .cloned()
        .collect();
    gone.sort();
    (changed, gone, after)
}

impl StoreRows {
    /// What a save writes over the stored rows `known` (`None` when the
    /// back end does not know them: every row is written, after the old ones
    /// are deleted).
    pub fn writes(&self, known: Option<&KnownRows>) -> StoreWrites<'_> {
        let (counts, counts_gone, count_values) = plan(
            &self.counts,
            |r| (r.name(), r.count),
            known.map(|k| &k.counts),
        );
        let (adoptions, adoptions_gone, adoption_values) =
            plan(&self.adoptions, adoption_name, known.map(|k| &k.adoptions));
        let (delivered, delivered_gone, delivered_values) =
            plan(&self.delivered, delivered_name, known.map(|k| &k.delivered));
        StoreWrites {
            replace_all: known.is_none(),
            counts: counts
                .into_iter()
                .map(|(row, stored)| (row, row.count.saturating_sub(stored.unwrap_or(0))))
                .collect(),
            counts_gone,
            adoptions: adoptions.into_iter().map(|(row, _)| row).collect(),
            adoptions_gone,
            delivered: delivered.into_iter().map(|(row, _)| row).collect(),
            delivered_gone,
            known: KnownRows {
                counts: count_values,
                adoptions: adoption_values,
                delivered: delivered_values,
            },
        }
    }

    /// These rows, as a back end knows them after reading them.
    pub fn known(&self) -> KnownRows {
        self.writes(None).known
    }
}

fn adoption_name(row: &AdoptionRow) -> (AdoptionName, (Option<i64>, Option<i64>)) {
    (
        (row.scope.clone(), row.key_name.clone(), row.client.clone()),
        (row.delivered_day, row.adopted_day),
    )
}

fn delivered_name(row: &DeliveredRow) -> (DeliveredName, String) {
    ((row.client.clone(), row.key_name.clone()), row.tag.clone())
}
