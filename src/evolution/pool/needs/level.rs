//! The need level of the pool: fine clusters grouped into needs.
//!
//! A need is a set of fine clusters whose members are, on average, as
//! similar as [`PoolConfig::need_threshold`](crate::evolution::PoolConfig::need_threshold) asks (average linkage
//! over the clusters' running sums: `S_A · S_B / (n_A n_B)` is the mean
//! cosine between the two groups' fragments). The grouping is kept current
//! at bounded cost per fragment, as stream clustering keeps its macro level
//! (CluStream, DenStream), but online rather than on demand: a new cluster
//! joins the best need among those of the fragment's nearest clusters, a
//! cluster that no longer fits its need leaves it, and needs that grew
//! within the threshold of each other merge. Only the clusters the
//! fragment's scan already ranked are looked at, so an ingest costs a few
//! more dot products, not another scan.
//!
//! What the gate needs is summed over a need's clusters when it is read
//! (heat, requests and clients in the window, exemplars), so it is always
//! the exact aggregate of the clusters, whichever way they were grouped. The
//! state that belongs to the need itself is kept here: the per-client heat
//! cap, the request being counted, the proposal and its backoff.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::evolution::embed::vectors::link;
use crate::evolution::pool::ids::unused_id;
use crate::evolution::pool::mark::merged_proposal;

/// What a need remembers of its own (everything else is its clusters' sum).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct NeedState {
    /// The need's running sum, present only in a snapshot (as a cluster's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(in crate::evolution::pool) sum: Vec<f32>,
    pub(in crate::evolution::pool) id: u64,
    /// Vectors summed into the need's running sum (its clusters' members).
    pub(in crate::evolution::pool) vectors: u64,
    /// Its clusters' ids, ascending (rebuilt from the clusters on restore).
    #[serde(skip)]
    pub(in crate::evolution::pool) clusters: Vec<u64>,
    /// The request last counted, (client, when): further fragments of the
    /// same request (one message's `other` list) add no occurrence or heat
    /// anywhere in the need.
    pub(in crate::evolution::pool) last_request: Option<(String, f64)>,
    /// The key proposed from the need (`other` when the inducer left it there).
    pub(in crate::evolution::pool) proposed: Option<String>,
    /// When a deferred proposal may be tried again (seconds).
    pub(in crate::evolution::pool) retry_at: Option<f64>,
    /// How many proposals were deferred, for the backoff.
    pub(in crate::evolution::pool) failures: u32,
    /// Whether the need's gate last opened only with its neighbours' heat.
    pub(in crate::evolution::pool) supported: bool,
    /// When the need's gate last opened with its neighbours' help
    /// (seconds; `None` unless `supported`): the moment at which their heat
    /// is booked as lent once a key is proposed from the need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(in crate::evolution::pool) supported_at: Option<f64>,
    /// Whether the need lent its heat to a neighbour that was proposed, under
    /// [`Lending::Silence`](crate::evolution::Lending::Silence): it lends no more and triggers on its own
    /// heat alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(in crate::evolution::pool) lent: bool,
}

impl NeedState {
    /// The need's id.
    pub(in crate::evolution) fn id(&self) -> u64 {
        self.id
    }

    pub(crate) fn new(id: u64) -> Self {
        Self {
            sum: Vec::new(),
            id,
            vectors: 0,
            clusters: Vec::new(),
            last_request: None,
            proposed: None,
            retry_at: None,
            failures: 0,
            supported: false,
            supported_at: None,
            lent: false,
        }
    }

    /// The state a need split off from `self` starts with: the proposal and
    /// its backoff (a split keeps its history).
    pub(crate) fn split_off(&self, id: u64) -> Self {
        Self {
            proposed: self.proposed.clone(),
            retry_at: self.retry_at,
            failures: self.failures,
            lent: self.lent,
            ..Self::new(id)
        }
    }

    /// Folds in another need's own state. Symmetric, so that replica merges
    /// commute: the proposal as [`merged_proposal`] keeps it, the later
    /// request, the later retry.
    pub(crate) fn absorb(&mut self, other: &NeedState) {
        self.last_request = match (self.last_request.take(), other.last_request.clone()) {
            (Some(a), Some(b)) => Some(if (b.1, &b.0) > (a.1, &a.0) { b } else { a }),
            (a, b) => a.or(b),
        };
        self.proposed = merged_proposal(self.proposed.take(), other.proposed.clone());
        self.retry_at = match (self.retry_at, other.retry_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.failures = self.failures.max(other.failures);
        self.supported |= other.supported;
        self.supported_at = match (self.supported_at, other.supported_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.lent |= other.lent;
    }

    /// Starts counting a request from `client` at `at`: `false` if the need
    /// already counted it (another fragment of the same message).
    pub(crate) fn begin_request(&mut self, client: &str, at: f64) -> bool {
        let same = self
            .last_request
            .as_ref()
            .is_some_and(|(c, t)| c == client && t.to_bits() == at.to_bits());
        if !same {
            self.last_request = Some((client.to_owned(), at));
        }
        !same
    }
}

/// The needs of one pool: their own states and running sums (contiguous,
/// `dimension` floats each, same order).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Needs {
    dimension: usize,
    pub(in crate::evolution::pool) states: Vec<NeedState>,
    pub(in crate::evolution::pool) sums: Vec<f32>,
    /// Need id → position.
    index: FxHashMap<u64, usize>,
}

impl Needs {
    pub(crate) fn new(dimension: usize) -> Self {
        Self {
            dimension,
            states: Vec::new(),
            sums: Vec::new(),
            index: FxHashMap::default(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    pub(crate) fn position(&self, id: u64) -> Option<usize> {
        self.index.get(&id).copied()
    }

    /// The state of the need whose id is `id`.
    pub(crate) fn state_mut(&mut self, id: u64) -> Option<&mut NeedState> {
        let need = self.position(id)?;
        self.states.get_mut(need)
    }

    pub(crate) fn sum(&self, need: usize) -> Option<&[f32]> {
        let dim = self.dimension;
        self.sums.get(need * dim..(need + 1) * dim)
    }

    fn sum_mut(&mut self, need: usize) -> Option<&mut [f32]> {
        let dim = self.dimension;
        self.sums.get_mut(need * dim..(need + 1) * dim)
    }

    /// `id`, or the next id after it no need has.
    pub(crate) fn unused_id(&self, id: u64) -> u64 {
        unused_id(id, |id| self.index.contains_key(&id))
    }

    /// Adds a need with running sum `sum`; returns its position.
    pub(crate) fn push(&mut self, state: NeedState, sum: &[f32]) -> usize {
        let at = self.states.len();
        self.index.insert(state.id, at);
        self.states.push(state);
        self.sums.extend(
            sum.iter()
                .copied()
                .chain(std::iter::repeat(0.0))
                .take(self.dimension),
        );
        at
    }

    /// Removes need `need` (the last one takes its place).
    pub(crate) fn remove(&mut self, need: usize) -> Option<NeedState> {
        let dim = self.dimension;
        if need >= self.states.len() {
            return None;
        }
        let state = self.states.swap_remove(need);
        self.index.remove(&state.id);
        let last = self.states.len();
        if need != last {
            self.sums
                .copy_within(last * dim..(last + 1) * dim, need * dim);
            if let Some(moved) = self.states.get(need) {
                self.index.insert(moved.id, need);
            }
        }
        self.sums.truncate(last * dim);
        Some(state)
    }

    /// Adds `count` vectors summing to `sum` to need `need`.
    pub(crate) fn add(&mut self, need: usize, sum: &[f32], count: u64) {
        if let Some(s) = self.sum_mut(need) {
            s.iter_mut().zip(sum).for_each(|(a, b)| *a += b);
        }
        if let Some(state) = self.states.get_mut(need) {
            state.vectors = state.vectors.saturating_add(count);
        }
    }

    /// Takes `count` vectors summing to `sum` out of need `need`.
    pub(crate) fn subtract(&mut self, need: usize, sum: &[f32], count: u64) {
        if let Some(s) = self.sum_mut(need) {
            s.iter_mut().zip(sum).for_each(|(a, b)| *a -= b);
        }
        if let Some(state) = self.states.get_mut(need) {
            state.vectors = state.vectors.saturating_sub(count);
        }
    }

    /// Sets need `need`'s running sum (after its last-but-one cluster left:
    /// the remaining cluster's own sum, without the subtractions' rounding).
    pub(crate) fn set_sum(&mut self, need: usize, sum: &[f32], count: u64) {
        if let Some(s) = self.sum_mut(need) {
            s.copy_from_slice(sum);
        }
        if let Some(state) = self.states.get_mut(need) {
            state.vectors = count;
        }
    }

    /// Positions in id order.
    fn by_id(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.states.len()).collect();
        order.sort_by_key(|&i| self.states.get(i).map_or(u64::MAX, |s| s.id));
        order
    }

    /// The same needs in id order.
    pub(crate) fn canonical(&self) -> Needs {
        let mut out = Needs::new(self.dimension);
        for i in self.by_id() {
            if let (Some(state), Some(sum)) = (self.states.get(i), self.sum(i)) {
                out.push(state.clone(), sum);
            }
        }
        out
    }

    /// Whether both hold the same needs (states and sums, bit for bit) in
    /// any order.
    pub(crate) fn same(&self, other: &Needs) -> bool {
        self.states.len() == other.states.len()
            && self.by_id().into_iter().zip(other.by_id()).all(|(i, j)| {
                self.states.get(i) == other.states.get(j) && self.sum(i) == other.sum(j)
            })
    }

    /// Mean similarity between the fragments of needs `a` and `b`, plain
    /// (not centred on the pool's mean: that is the pool's
    /// `centred_need_link`).
    pub(crate) fn plain_link(&self, a: usize, b: usize) -> f32 {
        self.pair(a, b)
            .map_or(f32::NEG_INFINITY, |(x, p, y, q)| link(x, p, y, q))
    }

    /// The running sums and counts of needs `a` and `b`.
    pub(crate) fn pair(&self, a: usize, b: usize) -> Option<(&[f32], u64, &[f32], u64)> {
        Some((
            self.sum(a)?,
            self.states.get(a)?.vectors,
            self.sum(b)?,
            self.states.get(b)?.vectors,
        ))
    }
}

/// Distinct clients in `clients`, counted up to `enough`.
pub(crate) fn count_distinct<'a>(clients: impl Iterator<Item = &'a str>, enough: usize) -> usize {
    let mut seen = BTreeSet::new();
    for client in clients {
        seen.insert(client);
        if seen.len() >= enough {
            break;
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_a_need_keeps_the_index_right() {
        let mut needs = Needs::new(2);
        for id in [7, 8, 9] {
            needs.push(NeedState::new(id), &[id as f32, 0.0]);
        }
        let gone = needs.remove(0).map(|s| s.id);
        assert_eq!(gone, Some(7));
        assert_eq!(needs.position(9), Some(0));
        assert_eq!(needs.sum(0), Some(&[9.0, 0.0][..]));
        assert_eq!(needs.position(8), Some(1));
        assert_eq!(needs.position(7), None);
    }
}
