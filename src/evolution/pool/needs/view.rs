//! A read-only view of one need: what an inducer, an event or a report
//! reads, summed over the need's clusters.

use time::OffsetDateTime;

use crate::evolution::pool::data::Pool;
use crate::evolution::pool::fine::exemplar::Exemplar;
use crate::evolution::pool::fine::exemplar::combined_exemplars;
use crate::evolution::pool::fine::view::ClusterView;
use crate::evolution::pool::heat::seconds;

/// One need: a group of fine clusters that, on average, mean the same.
#[derive(Debug, Clone)]
pub struct NeedView<'p> {
    pool: &'p Pool,
    index: usize,
    exemplars: Vec<Exemplar>,
    centroid: Vec<f32>,
}

impl<'p> NeedView<'p> {
    pub(in crate::evolution) fn new(pool: &'p Pool, index: usize) -> Option<Self> {
        let state = pool.needs.states.get(index)?;
        let sum = pool.needs.sum(index)?;
        let scale = 1.0 / (state.vectors.max(1) as f32);
        let max = pool.config.max_exemplars;
        let clusters: Vec<ClusterView<'p>> = state
            .clusters
            .iter()
            .filter_map(|id| pool.cluster(*id))
            .collect();
        let exemplars = combined_exemplars(clusters.iter().map(|c| c.exemplars()), max);
        Some(Self {
            pool,
            index,
            exemplars,
            centroid: sum.iter().map(|x| x * scale).collect(),
        })
    }

    /// The need's stable id (the id of the cluster that founded it, unless
    /// another need had it).
    pub fn id(&self) -> u64 {
        self.pool.needs.states.get(self.index).map_or(0, |s| s.id)
    }

    /// Its fine clusters, in id order.
    pub fn clusters(&self) -> impl Iterator<Item = ClusterView<'p>> + 'p {
        let pool = self.pool;
        pool.needs
            .states
            .get(self.index)
            .into_iter()
            .flat_map(|s| s.clusters.iter())
            .filter_map(move |id| pool.cluster(*id))
    }

    /// Fragments summed into it.
    pub fn vectors(&self) -> u64 {
        self.pool
            .needs
            .states
            .get(self.index)
            .map_or(0, |s| s.vectors)
    }

    /// Requests it has received (a message counts once however many of its
    /// fragments reached the need).
    pub fn occurrences(&self) -> u64 {
        self.clusters()
            .fold(0u64, |n, c| n.saturating_add(c.occurrences()))
    }

    /// Its heat at `now`.
    pub fn heat(&self, now: OffsetDateTime) -> f64 {
        self.pool.need_heat(self.index, seconds(now))
    }

    /// Distinct clients within the gate window ending at `now`, counted up
    /// to the gate's minimum.
    pub fn recent_clients(&self, now: OffsetDateTime) -> usize {
        self.pool.window_clients(&[self.index], seconds(now))
    }

    /// Requests within the gate window ending at `now`, counted up to the
    /// gate's minimum ([`PoolConfig::min_occurrences`](crate::evolution::PoolConfig::min_occurrences)).
    pub fn recent_requests(&self, now: OffsetDateTime) -> usize {
        self.pool.window_requests(&[self.index], seconds(now))
    }

    /// Distinct clients it has recently seen (each cluster remembers its
    /// most recent ones).
    pub fn clients(&self) -> Vec<&'p str> {
        let mut all: Vec<&'p str> = self
            .clusters()
            .flat_map(|c| c.clients().collect::<Vec<_>>())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Representative fragments of all its clusters, most frequent first
    /// (one client holds at most a quarter of the slots).
    pub fn exemplars(&self) -> &[Exemplar] {
        &self.exemplars
    }

    /// How many distinct clients must have sent a text (or used a word)
    /// before a proposal may quote it (or be named with it):
    /// [`PoolConfig::min_quote_clients`](crate::evolution::PoolConfig::min_quote_clients).
    pub fn min_quote_clients(&self) -> usize {
        self.pool.config.min_quote_clients
    }

    /// The exemplars a proposal may quote, or send to a model: sent by at
    /// least [`NeedView::min_quote_clients`] distinct clients, and not
    /// flagged; most frequent first. (A flagged exemplar's text already lost
    /// what spoke to the system, see
    /// [`sanitize_fragment`](crate::evolution::sanitize_fragment); it is
    /// still not quoted, should a caller have fed the pool directly.)
    pub fn quotable(&self) -> impl Iterator<Item = &Exemplar> + '_ {
        let min = self.min_quote_clients();
        self.exemplars
            .iter()
            .filter(move |e| !e.flagged && e.distinct_clients() >= min)
    }

    /// The pool it belongs to: an inducer weighs the need's words against
    /// the pool's other needs (see [`RuleInducer`](crate::evolution::RuleInducer)).
    pub fn pool(&self) -> &'p Pool {
        self.pool
    }

    /// The mean of its fragments' unit vectors.
    pub fn centroid(&self) -> &[f32] {
        &self.centroid
    }

    /// Until when it may not trigger, after a deferral or a withholding
    /// (`None` when it may, or the time is not representable).
    pub fn retry_at(&self) -> Option<OffsetDateTime> {
        let at = self.pool.needs.states.get(self.index)?.retry_at?;
        if !at.is_finite() {
            return None;
        }
        OffsetDateTime::from_unix_timestamp(at.ceil() as i64).ok()
    }

    /// The key proposed from it, if any (`other` when the inducer left it in `other`).
    pub fn proposed(&self) -> Option<&'p str> {
        self.pool
            .needs
            .states
            .get(self.index)
            .and_then(|s| s.proposed.as_deref())
    }
}

impl Pool {
    /// The need with id `id`.
    pub fn need(&self, id: u64) -> Option<NeedView<'_>> {
        NeedView::new(self, self.needs.position(id)?)
    }

    /// Every need, in storage order.
    pub fn needs(&self) -> impl Iterator<Item = NeedView<'_>> {
        (0..self.needs.len()).filter_map(|i| NeedView::new(self, i))
    }

    /// How many needs the pool holds.
    pub fn need_count(&self) -> usize {
        self.needs.len()
    }
}
