//! One fine cluster's bookkeeping (its centroid lives in the pool's
//! contiguous storage): heat, the dual gate's exact windowed counts in
//! bounded memory, and representative fragments. A need sums these over its
//! clusters (`needs.rs`).

use serde::{Deserialize, Serialize};

use crate::evolution::pool::fine::exemplar::{Exemplar, client_tag};
use crate::evolution::pool::gate::cap::ClientCap;
use crate::evolution::pool::heat::Heat;
use crate::evolution::pool::limits::ClusterLimits;
use crate::evolution::pool::mark::merged_proposal;

/// A cluster's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClusterState {
    /// The cluster's running sum, present only in a snapshot: the pool keeps
    /// sums in one contiguous buffer and moves them here to serialize. (A
    /// `#[serde(flatten)]` wrapper did the same with the sum beside the state,
    /// but made restoring a pool buffer every cluster's fields first, which
    /// cost more than the parse itself.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(in crate::evolution::pool) sum: Vec<f32>,
    pub(in crate::evolution::pool) id: u64,
    /// The need the cluster belongs to.
    pub(in crate::evolution::pool) need: u64,
    pub(in crate::evolution::pool) created_at: f64,
    pub(in crate::evolution::pool) occurrences: u64,
    /// Vectors summed into the cluster's running sum (every fragment, not
    /// only the first of a request): the divisor of its mean.
    pub(in crate::evolution::pool) members: u64,
    pub(in crate::evolution::pool) heat: Heat,
    /// Under [`Lending::Book`](crate::evolution::Lending::Book), the heat the cluster held when its
    /// need was charged for a neighbour proposed with its help, decaying as
    /// its heat does: only the rest may support a proposal again. Kept per
    /// cluster so that it moves with the cluster when needs split, merge
    /// or regroup.
    #[serde(default, skip_serializing_if = "Heat::is_empty")]
    pub(in crate::evolution::pool) lent_heat: Heat,
    /// The `min_occurrences` latest occurrence times, ascending.
    recent_times: Vec<f64>,
    /// The `min_clients` most recently seen distinct clients, with when.
    recent_clients: Vec<(String, f64)>,
    pub(in crate::evolution::pool) exemplars: Vec<Exemplar>,
    /// What each client was granted here, for the per-client cap (which
    /// acts on the cluster's need: see `cap.rs`).
    #[serde(rename = "client_heat")]
    pub(in crate::evolution::pool) cap: ClientCap,
    /// The key proposed from this cluster's need, once its trigger fired
    /// (`other` when the inducer left the need there).
    pub(in crate::evolution::pool) proposed: Option<String>,
}

/// Keeps the `keep` largest values of `values` (ascending, total order).
fn keep_latest(values: &mut Vec<f64>, keep: usize) {
    values.sort_by(f64::total_cmp);
    let excess = values.len().saturating_sub(keep);
    values.drain(..excess);
}

/// Keeps the `keep` most recent distinct clients (each at its latest time),
/// ties broken by name.
pub(crate) fn keep_recent_clients(clients: &mut Vec<(String, f64)>, keep: usize) {
    // Group each client's entries, latest first, and keep only that one.
    clients.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.total_cmp(&a.1)));
    clients.dedup_by(|later, earlier| later.0 == earlier.0);
    clients.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    clients.truncate(keep);
}

impl ClusterState {
    /// The cluster's id.
    pub(in crate::evolution) fn id(&self) -> u64 {
        self.id
    }

    pub(crate) fn new(id: u64, need: u64, at: f64) -> Self {
        Self {
            sum: Vec::new(),
            id,
            need,
            created_at: at,
            occurrences: 0,
            members: 0,
            heat: Heat::default(),
            lent_heat: Heat::default(),
            recent_times: Vec::new(),
            recent_clients: Vec::new(),
            exemplars: Vec::new(),
            cap: ClientCap::default(),
            proposed: None,
        }
    }

    /// Records one fragment from `client` at `at`. `request` is the heat
    /// the request adds when this fragment is the first of its request
    /// (one client at one instant) to reach the cluster's need, already
    /// capped for the client there (and recorded here as granted); later
    /// fragments of the same request add only their text, so the gate
    /// counts requests, as the draft words it.
    pub(crate) fn observe(
        &mut self,
        text: &str,
        flagged: bool,
        client: &str,
        at: f64,
        request: Option<f64>,
        limits: &ClusterLimits,
    ) {
        self.remember(text, flagged, 1, client, limits.max_exemplars);
        let Some(increment) = request else {
            return;
        };
        self.occurrences = self.occurrences.saturating_add(1);
        if increment > 0.0 {
            self.cap.record(client, at, increment, limits);
        }
        self.heat.add(increment, at, limits.half_life);
        self.recent_times.push(at);
        keep_latest(&mut self.recent_times, limits.min_occurrences);
        // The list never holds a client twice here, so re-ranking is enough;
        // `keep_recent_clients` (which also merges duplicates) serves `absorb`.
        match self.recent_clients.iter_mut().find(|(c, _)| c == client) {
            Some(entry) => entry.1 = entry.1.max(at),
            None => self.recent_clients.push((client.to_owned(), at)),
        }
        self.recent_clients
            .sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        self.recent_clients.truncate(limits.min_clients);
    }

    /// Space-saving heavy hitters: a bounded list whose counts over-estimate
    /// by at most the smallest count.
    fn remember(&mut self, text: &str, flagged: bool, count: u64, client: &str, max: usize) {
        if let Some(e) = self.exemplars.iter_mut().find(|e| e.text == text) {
            e.count = e.count.saturating_add(count);
            e.join_clients(&[client_tag(client)]);
            return;
        }
        // One client's words fill at most a quarter of the slots.
        let per_client = max.div_ceil(4).max(1);
        if self.exemplars.iter().filter(|e| e.client == client).count() >= per_client {
            return;
        }
        let fresh = |count| Exemplar {
            text: text.to_owned(),
            count,
            flagged,
            client: client.to_owned(),
            clients: vec![client_tag(client)],
        };
        if self.exemplars.len() < max {
            self.exemplars.push(fresh(count));
            return;
        }
        let weakest = self
            .exemplars
            .iter_mut()
            .min_by(|a, b| a.count.cmp(&b.count).then_with(|| b.text.cmp(&a.text)));
        if let Some(e) = weakest {
            *e = fresh(e.count.saturating_add(count));
        }
    }

    /// Request times within the window ending at `at`.
    pub(crate) fn recent_times_in(&self, at: f64, window: f64) -> impl Iterator<Item = f64> + '_ {
        self.recent_times
            .iter()
            .copied()
            .filter(move |t| *t > at - window && *t <= at)
    }

    /// Clients seen within the window ending at `at`.
    pub(crate) fn recent_clients_in(
        &self,
        at: f64,
        window: f64,
    ) -> impl Iterator<Item = &str> + '_ {
        self.recent_clients
            .iter()
            .filter(move |(_, t)| *t > at - window && *t <= at)
            .map(|(c, _)| c.as_str())
    }

    /// Distinct clients seen within the window ending at `at` (counted up to `min_clients`).
    pub(crate) fn recent_client_count(&self, at: f64, window: f64) -> usize {
        self.recent_clients
            .iter()
            .filter(|(_, t)| *t > at - window && *t <= at)
            .count()
    }

    /// The recently seen clients, most recent first.
    pub(crate) fn recent_clients(&self) -> impl Iterator<Item = &str> {
        self.recent_clients.iter().map(|(c, _)| c.as_str())
    }

    /// Folds `other` (the same intent seen by another replica, or a drifted
    /// neighbour) into this cluster. Symmetric: `a.absorb(b)` equals `b.absorb(a)`.
    pub(crate) fn absorb(&mut self, other: ClusterState, limits: &ClusterLimits) {
        self.id = self.id.min(other.id);
        self.need = self.need.min(other.need);
        self.created_at = self.created_at.min(other.created_at);
        self.occurrences = self.occurrences.saturating_add(other.occurrences);
        self.members = self.members.saturating_add(other.members);
        self.heat = self.heat.combine(other.heat, limits.half_life);
        self.lent_heat = self.lent_heat.combine(other.lent_heat, limits.half_life);
        self.recent_times.extend(other.recent_times);
        keep_latest(&mut self.recent_times, limits.min_occurrences);
        self.recent_clients.extend(other.recent_clients);
        keep_recent_clients(&mut self.recent_clients, limits.min_clients);
        self.cap.absorb(&other.cap, limits);
        for e in other.exemplars {
            match self.exemplars.iter_mut().find(|mine| mine.text == e.text) {
                Some(mine) => {
                    mine.count = mine.count.saturating_add(e.count);
                    mine.flagged |= e.flagged;
                    mine.join_clients(&e.clients);
                    if e.client < mine.client {
                        mine.client = e.client;
                    }
                }
                None => self.exemplars.push(e),
            }
        }
        self.exemplars
            .sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
        self.exemplars.truncate(limits.max_exemplars);
        self.proposed = merged_proposal(self.proposed.take(), other.proposed);
    }
}
