//! One cluster's bookkeeping (its centroid lives in the pool's contiguous
//! storage): heat, the dual gate's exact windowed counts in bounded memory,
//! the per-client heat cap, and representative fragments.

use serde::{Deserialize, Serialize};

use super::heat::Heat;

/// The pool's numbers a cluster needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClusterLimits {
    pub(crate) increment: f64,
    pub(crate) half_life: f64,
    pub(crate) client_cap: f64,
    pub(crate) window: f64,
    pub(crate) min_clients: usize,
    pub(crate) min_occurrences: usize,
    pub(crate) max_exemplars: usize,
    pub(crate) max_tracked_clients: usize,
}

/// A fragment kept as an example of what a cluster means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Exemplar {
    /// The sanitized fragment.
    pub text: String,
    /// How often it was seen (an upper bound once the exemplar list was full).
    pub count: u64,
    /// Whether it looked like prompt injection; flagged text never reaches a
    /// generated description.
    pub flagged: bool,
    /// The client that first sent it: one client may hold at most a quarter
    /// of a cluster's exemplar slots, so it cannot write the description alone.
    #[serde(default)]
    pub client: String,
}

/// The heat one client added to a cluster, grant by grant, as far back as
/// the sliding window reaches: the per-client cap counts what it added in
/// the `window` seconds before each request, not per calendar window, so a
/// client cannot pass twice the cap across a window's edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ClientHeat {
    client: String,
    /// (when, heat granted), oldest first; at most `MAX_GRANTS`.
    grants: Vec<(f64, f64)>,
}

/// What a client may still add, given the `room` left under its cap: at
/// most `increment`, and nothing when the room is rounding noise. Grants
/// that fill the cap exactly sum to it give or take an ulp, depending on the
/// order they are added in; a grant of that size adds no heat worth the
/// name but would move the heat's latest instant, which a clock gone back
/// reads the heat at (found by `per_client_cap_matches_reference`).
fn cap_room(room: f64, increment: f64) -> f64 {
    if room > increment * 1e-9 {
        room.min(increment)
    } else {
        0.0
    }
}

/// Grants kept per client; past it the two oldest are added together (kept
/// at the later time, so the cap errs on the strict side).
const MAX_GRANTS: usize = 64;

impl ClientHeat {
    /// What the client added in the window ending at `at` (grants stamped
    /// after `at`, from a clock that went back, count too).
    fn recent(&self, at: f64, window: f64) -> f64 {
        self.grants
            .iter()
            .filter(|(t, _)| *t > at - window)
            .map(|(_, g)| g)
            .sum()
    }

    fn latest(&self) -> f64 {
        self.grants
            .iter()
            .map(|(t, _)| *t)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn grant(&mut self, at: f64, amount: f64, window: f64) {
        self.grants.push((at, amount));
        self.tidy(window);
    }

    /// Takes in another replica's grants for the same client. All at once,
    /// then tidied: folding them in one by one compacted at every step, so
    /// the result depended on which side was merged into which (found by
    /// the `pool_ops` fuzz target).
    fn absorb(&mut self, other: Vec<(f64, f64)>, window: f64) {
        self.grants.extend(other);
        self.tidy(window);
    }

    /// Drops grants older than the window before the latest, sorts, and
    /// adds the oldest together past `MAX_GRANTS`: a function of the set of
    /// grants alone.
    fn tidy(&mut self, window: f64) {
        let horizon = self.latest() - window;
        // The same set whatever order grants arrive in (replica merges stay commutative).
        self.grants.retain(|(t, _)| *t > horizon);
        self.grants
            .sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.total_cmp(&b.1)));
        while self.grants.len() > MAX_GRANTS {
            let merged = match (self.grants.first(), self.grants.get(1)) {
                (Some(a), Some(b)) => (a.0.max(b.0), a.1 + b.1),
                _ => break,
            };
            self.grants.drain(..2);
            self.grants.insert(0, merged);
        }
    }
}

/// A cluster's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClusterState {
    /// The cluster's running sum, present only in a snapshot: the pool keeps
    /// sums in one contiguous buffer and moves them here to serialize. (A
    /// `#[serde(flatten)]` wrapper did the same with the sum beside the state,
    /// but made restoring a pool buffer every cluster's fields first, which
    /// cost more than the parse itself.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) sum: Vec<f32>,
    pub(crate) id: u64,
    pub(crate) created_at: f64,
    pub(crate) occurrences: u64,
    /// Vectors summed into the cluster's running sum (every fragment, not
    /// only the first of a request): the divisor of its mean. 0 in snapshots
    /// written before it was kept (the pool then estimates it).
    #[serde(default)]
    pub(crate) members: u64,
    pub(crate) heat: Heat,
    /// The `min_occurrences` latest occurrence times, ascending.
    recent_times: Vec<f64>,
    /// The `min_clients` most recently seen distinct clients, with when.
    recent_clients: Vec<(String, f64)>,
    /// Heat per client per window, for the cap; bounded, oldest dropped.
    client_heat: Vec<ClientHeat>,
    pub(crate) exemplars: Vec<Exemplar>,
    /// The key proposed from this cluster, once its trigger fired.
    pub(crate) proposed: Option<String>,
    /// The last request counted, (client, when): further fragments of the
    /// same request (one message's `other` list) join without counting again.
    #[serde(default)]
    last_request: Option<(String, f64)>,
    /// When a deferred proposal may be tried again (seconds), after the
    /// inducer proposed nothing or the store could not answer.
    #[serde(default)]
    pub(crate) retry_at: Option<f64>,
    /// How many proposals were deferred, for the backoff.
    #[serde(default)]
    pub(crate) failures: u32,
}

/// Keeps the `keep` largest values of `values` (ascending, total order).
fn keep_latest(values: &mut Vec<f64>, keep: usize) {
    values.sort_by(f64::total_cmp);
    let excess = values.len().saturating_sub(keep);
    values.drain(..excess);
}

/// Keeps the `keep` most recent distinct clients (each at its latest time),
/// ties broken by name.
fn keep_recent_clients(clients: &mut Vec<(String, f64)>, keep: usize) {
    // Group each client's entries, latest first, and keep only that one.
    clients.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.total_cmp(&a.1)));
    clients.dedup_by(|later, earlier| later.0 == earlier.0);
    clients.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    clients.truncate(keep);
}

impl ClusterState {
    pub(crate) fn new(id: u64, at: f64) -> Self {
        Self {
            sum: Vec::new(),
            id,
            created_at: at,
            occurrences: 0,
            members: 0,
            heat: Heat::default(),
            recent_times: Vec::new(),
            recent_clients: Vec::new(),
            client_heat: Vec::new(),
            exemplars: Vec::new(),
            proposed: None,
            last_request: None,
            retry_at: None,
            failures: 0,
        }
    }

    /// Records one fragment from `client` at `at`. A request is a (client,
    /// instant) pair: the draft's gate counts requests, so the fragments of
    /// one message after the first add no occurrence and no heat here, only
    /// their text.
    pub(crate) fn observe(
        &mut self,
        text: &str,
        flagged: bool,
        client: &str,
        at: f64,
        limits: &ClusterLimits,
    ) {
        self.remember(text, flagged, 1, client, limits.max_exemplars);
        let same_request = self
            .last_request
            .as_ref()
            .is_some_and(|(c, t)| c == client && t.to_bits() == at.to_bits());
        if same_request {
            return;
        }
        self.last_request = Some((client.to_owned(), at));
        self.occurrences = self.occurrences.saturating_add(1);
        let increment = self.capped_increment(client, at, limits);
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

    /// The increment `client` may still add in the sliding window ending at `at`.
    fn capped_increment(&mut self, client: &str, at: f64, limits: &ClusterLimits) -> f64 {
        let index = match self.client_heat.iter().position(|e| e.client == client) {
            Some(i) => i,
            None => {
                if self.client_heat.len() >= limits.max_tracked_clients.max(1) {
                    // Forget the client whose last grant is oldest.
                    if let Some(oldest) = (0..self.client_heat.len()).min_by(|&a, &b| {
                        let latest = |i: usize| {
                            self.client_heat
                                .get(i)
                                .map_or(f64::INFINITY, ClientHeat::latest)
                        };
                        latest(a).total_cmp(&latest(b))
                    }) {
                        self.client_heat.remove(oldest);
                    }
                }
                self.client_heat.push(ClientHeat {
                    client: client.to_owned(),
                    grants: Vec::new(),
                });
                self.client_heat.len() - 1
            }
        };
        let Some(entry) = self.client_heat.get_mut(index) else {
            return 0.0;
        };
        let allowed = cap_room(
            limits.client_cap - entry.recent(at, limits.window),
            limits.increment,
        );
        if allowed > 0.0 {
            entry.grant(at, allowed, limits.window);
        }
        allowed
    }

    /// Space-saving heavy hitters: a bounded list whose counts over-estimate
    /// by at most the smallest count.
    fn remember(&mut self, text: &str, flagged: bool, count: u64, client: &str, max: usize) {
        if let Some(e) = self.exemplars.iter_mut().find(|e| e.text == text) {
            e.count = e.count.saturating_add(count);
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

    /// Whether the dual gate is open at `at`: heat ≥ `threshold` and, within
    /// the window, ≥ `min_clients` distinct clients or ≥ `min_occurrences` fragments.
    pub(crate) fn gate_open(&self, at: f64, threshold: f64, limits: &ClusterLimits) -> bool {
        let since = at - limits.window;
        let clients = self
            .recent_clients
            .iter()
            .filter(|(_, t)| *t > since && *t <= at)
            .count();
        let occurrences = self
            .recent_times
            .iter()
            .filter(|t| **t > since && **t <= at)
            .count();
        self.heat.value(at, limits.half_life) >= threshold
            && (clients >= limits.min_clients || occurrences >= limits.min_occurrences)
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
        self.created_at = self.created_at.min(other.created_at);
        self.occurrences = self.occurrences.saturating_add(other.occurrences);
        self.members = self.members.saturating_add(other.members);
        self.heat = self.heat.combine(other.heat, limits.half_life);
        self.recent_times.extend(other.recent_times);
        keep_latest(&mut self.recent_times, limits.min_occurrences);
        self.recent_clients.extend(other.recent_clients);
        keep_recent_clients(&mut self.recent_clients, limits.min_clients);
        for entry in other.client_heat {
            match self
                .client_heat
                .iter_mut()
                .find(|e| e.client == entry.client)
            {
                Some(mine) => mine.absorb(entry.grants, limits.window),
                None => self.client_heat.push(entry),
            }
        }
        self.client_heat.sort_by(|a, b| {
            b.latest()
                .total_cmp(&a.latest())
                .then_with(|| a.client.cmp(&b.client))
        });
        self.client_heat.truncate(limits.max_tracked_clients.max(1));
        // The later of the two last requests (ties by client), symmetric.
        self.last_request = match (self.last_request.take(), other.last_request) {
            (Some(a), Some(b)) => Some(if (b.1, &b.0) > (a.1, &a.0) { b } else { a }),
            (a, b) => a.or(b),
        };
        for e in other.exemplars {
            match self.exemplars.iter_mut().find(|mine| mine.text == e.text) {
                Some(mine) => {
                    mine.count = mine.count.saturating_add(e.count);
                    mine.flagged |= e.flagged;
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
        self.proposed = match (self.proposed.take(), other.proposed) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The later retry and the longer backoff: symmetric, so merge stays commutative.
        self.retry_at = match (self.retry_at, other.retry_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.failures = self.failures.max(other.failures);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Grants as merges leave them: few distinct instants (merged grants
    /// take the later time, so ties are common) and sizes that vary.
    fn grants() -> impl Strategy<Value = Vec<(f64, f64)>> {
        prop::collection::vec((0u8..8, 1u8..8), 0..80).prop_map(|v| {
            let mut heat = ClientHeat {
                client: "agent-1".to_owned(),
                grants: Vec::new(),
            };
            for (t, g) in v {
                heat.grant(f64::from(t), f64::from(g) / 2.0, 1e6);
            }
            heat.grants
        })
    }

    proptest! {
        /// Found by `pool_ops` as a non-commutative replica merge: grants
        /// folded in one by one were compacted at every step.
        #[test]
        fn absorbing_grants_is_commutative(a in grants(), b in grants()) {
            let heat = |grants: &Vec<(f64, f64)>| ClientHeat {
                client: "agent-1".to_owned(),
                grants: grants.clone(),
            };
            let (mut ab, mut ba) = (heat(&a), heat(&b));
            ab.absorb(b.clone(), 1e6);
            ba.absorb(a.clone(), 1e6);
            prop_assert_eq!(ab, ba);
        }
    }
}
