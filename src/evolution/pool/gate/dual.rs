//! The dual gate (§6.2.1), on needs: heat at or above the threshold and,
//! within the window, enough distinct clients or requests. Everything is
//! summed over the need's clusters when read, so it is exact whatever way
//! the clusters were grouped.
//!
//! One need's paraphrases may still be spread over a few needs that the
//! grouping keeps apart (a need phrased in two distinct ways). So a need
//! that holds at least [`PoolConfig::support_share`](crate::evolution::PoolConfig::support_share) of the heat
//! threshold itself may open with the help of its neighbours not yet
//! proposed within [`PoolConfig::support_threshold`](crate::evolution::PoolConfig::support_threshold) of it: taken
//! nearest first, just as many as bring the sum (heat, clients, requests,
//! each client's share held to the per-client cap across the region) to the
//! gate. It leads only if none of those is hotter; the key comes from the
//! need itself. When a key is proposed from a need whose gate opened that
//! way, every need that could lend and lies within
//! [`PoolConfig::claim_threshold`](crate::evolution::PoolConfig::claim_threshold) of it is charged, whether the
//! region took it or not, as [`PoolConfig::lending`](crate::evolution::PoolConfig::lending) says: silenced
//! (it lends no more and is never supported again; the claim then measured
//! from the pool's centre, so only the proposed need's pieces are), or its clusters' heat
//! then booked as lent (a decaying sum beside each one's heat, which never
//! supports another proposal, though what the need gains later may). Any
//! need still triggers on its own heat alone. So the pieces of one need do
//! not propose it twice on the same requests, and two needs that are close
//! but distinct each get their key.

use std::collections::BTreeMap;

use crate::evolution::pool::data::Pool;
use crate::evolution::pool::gate::cap::allowance;
use crate::evolution::pool::heat::Heat;
use crate::evolution::pool::needs::level::count_distinct;
use crate::key::OTHER_KEY;

/// How a need's gate stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::evolution) enum Gate {
    Closed,
    /// Open on the need's own heat and traffic.
    Own,
    /// Open only with its neighbours' heat and traffic.
    Supported,
}

impl Pool {
    /// Need `need`'s heat at `at`: its clusters' heats added (in id order).
    pub(in crate::evolution) fn need_heat(&self, need: usize, at: f64) -> f64 {
        self.summed(need, at, |c| c.heat)
    }

    /// The heat need `need` may still lend or be supported with at `at`:
    /// its clusters' heat less what they booked as lent to proposed
    /// neighbours (never negative).
    pub(in crate::evolution) fn unlent_heat(&self, need: usize, at: f64) -> f64 {
        (self.need_heat(need, at) - self.lent_heat(need, at)).max(0.0)
    }

    /// What need `need`'s clusters booked as lent, read at `at`.
    fn lent_heat(&self, need: usize, at: f64) -> f64 {
        self.summed(need, at, |c| c.lent_heat)
    }

    /// One heat of each of need `need`'s clusters (`heat_of`), added in id
    /// order and read at `at`.
    fn summed(
        &self,
        need: usize,
        at: f64,
        heat_of: impl Fn(&crate::evolution::pool::fine::cluster::ClusterState) -> Heat,
    ) -> f64 {
        let half_life = self.config.half_life_secs;
        let Some(state) = self.needs.states.get(need) else {
            return 0.0;
        };
        state
            .clusters
            .iter()
            .filter_map(|id| self.position(*id).and_then(|i| self.clusters.get(i)))
            .fold(Heat::default(), |sum, c| sum.combine(heat_of(c), half_life))
            .value(at, half_life)
    }

    /// Starts counting a request from `client` at `at` in need `need`:
    /// `None` if the need already counted it (another fragment of the same
    /// message), else the heat it adds, which the per-client cap holds to
    /// what the client has not yet been granted across the need's clusters.
    pub(in crate::evolution) fn begin_request(
        &mut self,
        need: usize,
        client: &str,
        at: f64,
    ) -> Option<f64> {
        let fresh = self
            .needs
            .states
            .get_mut(need)
            .is_some_and(|state| state.begin_request(client, at));
        if !fresh {
            return None;
        }
        let window = self.config.window_secs;
        let used: f64 = self
            .members(&[need])
            .map(|c| c.cap.recent(client, at, window))
            .sum();
        Some(allowance(used, &self.config.limits()))
    }

    /// The clusters of the needs at `needs`.
    fn members<'a>(
        &'a self,
        needs: &'a [usize],
    ) -> impl Iterator<Item = &'a crate::evolution::pool::fine::cluster::ClusterState> + 'a {
        needs
            .iter()
            .filter_map(|&n| self.needs.states.get(n))
            .flat_map(|state| state.clusters.iter())
            .filter_map(|id| self.position(*id).and_then(|i| self.clusters.get(i)))
    }

    /// Distinct clients within the window ending at `at` over the needs at
    /// `needs`, counted up to the gate's minimum.
    pub(in crate::evolution) fn window_clients(&self, needs: &[usize], at: f64) -> usize {
        let window = self.config.window_secs;
        count_distinct(
            self.members(needs)
                .flat_map(|c| c.recent_clients_in(at, window)),
            self.config.min_clients,
        )
    }

    /// Requests within the window ending at `at` over the needs at `needs`,
    /// counted up to the gate's minimum.
    pub(in crate::evolution) fn window_requests(&self, needs: &[usize], at: f64) -> usize {
        let window = self.config.window_secs;
        self.members(needs)
            .flat_map(|c| c.recent_times_in(at, window))
            .take(self.config.min_occurrences)
            .count()
    }

    /// The gate's second half: enough clients or enough requests.
    fn enough_traffic(&self, needs: &[usize], at: f64) -> bool {
        self.window_clients(needs, at) >= self.config.min_clients
            || self.window_requests(needs, at) >= self.config.min_occurrences
    }

    /// Whether need `need` triggers at `at`: not waiting for a retry, and
    /// its gate (or its neighbourhood's, see the module) open. A need
    /// already proposed whose review was scheduled ([`Pool::defer`] after
    /// [`Pool::mark_proposed`], as the engine does) opens again on its own
    /// heat alone once that time has passed, to be reviewed against its key
    /// (a new value is a refinement, a key gone a new proposal); one left
    /// in `other`, or never scheduled, does not.
    pub(in crate::evolution) fn gate_opens(&self, need: usize, at: f64) -> Gate {
        let Some(state) = self.needs.states.get(need) else {
            return Gate::Closed;
        };
        if state.retry_at.is_some_and(|retry| at < retry) {
            return Gate::Closed;
        }
        let threshold = self.config.heat_threshold;
        if let Some(proposed) = &state.proposed {
            let open = proposed != OTHER_KEY
                && state.retry_at.is_some()
                && self.need_heat(need, at) >= threshold
                && self.enough_traffic(&[need], at);
            return if open { Gate::Own } else { Gate::Closed };
        }
        let own = self.need_heat(need, at);
        if own >= threshold && self.enough_traffic(&[need], at) {
            return Gate::Own;
        }
        // A silenced lender (Lending::Silence) is never supported again. The
        // unlent heat is at most `own`: read what was lent only when `own`
        // alone could lead (most ingests stop here, on the hot path).
        let share = self.config.support_share * threshold;
        if state.lent || own < share {
            return Gate::Closed;
        }
        let unlent = (own - self.lent_heat(need, at)).max(0.0);
        if unlent < share {
            return Gate::Closed;
        }
        if self.supported_by_neighbours(need, unlent, at) {
            Gate::Supported
        } else {
            Gate::Closed
        }
    }

    /// The needs that may lend need `need` their heat: not proposed, not
    /// not silenced for lending, within the support threshold.
    pub(in crate::evolution) fn lenders(&self, need: usize) -> impl Iterator<Item = usize> + '_ {
        let support = self.support_threshold();
        (0..self.needs.len()).filter(move |&other| {
            other != need
                && self
                    .needs
                    .states
                    .get(other)
                    .is_some_and(|s| s.proposed.is_none() && !s.lent)
                && self.needs.plain_link(need, other) >= support
        })
    }

    /// Whether need `need` (with `own` heat unlent) opens with the help of
    /// its lenders, taken nearest first (by average linkage, ties by id),
    /// each with its unlent heat, until the heat, held to the per-client
    /// cap, reaches the threshold with enough traffic. Not when even all of
    /// them fall short, nor when a lender the region takes has more unlent
    /// heat than the need (ties: the smaller id), which then leads.
    fn supported_by_neighbours(&self, need: usize, own: f64, at: f64) -> bool {
        let Some(id) = self.needs.states.get(need).map(|s| s.id) else {
            return false;
        };
        let mut lenders: Vec<(f32, u64, usize)> = self
            .lenders(need)
            .map(|other| {
                let other_id = self.needs.states.get(other).map_or(u64::MAX, |s| s.id);
                (self.needs.plain_link(need, other), other_id, other)
            })
            .collect();
        lenders.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let threshold = self.config.heat_threshold;
        let mut region = vec![need];
        let mut heat = own;
        for (_, other_id, other) in lenders {
            let spare = self.unlent_heat(other, at);
            if spare <= 0.0 {
                continue;
            }
            if spare > own || (spare == own && other_id < id) {
                return false;
            }
            region.push(other);
            heat += spare;
            // The cap and the traffic are dearer to count: only once the
            // heat alone would do.
            if heat >= threshold
                && heat - self.excess_over_cap(&region, at) >= threshold
                && self.enough_traffic(&region, at)
            {
                return true;
            }
        }
        false
    }

    /// Heat the needs at `region` hold beyond the per-client cap when each
    /// client's grants are added up across all of them, so that one client
    /// cannot open a neighbourhood's gate by spreading its requests over
    /// several needs. A client's excess is its grants beyond the cap, decayed
    /// as its grants have decayed on average.
    fn excess_over_cap(&self, region: &[usize], at: f64) -> f64 {
        let mut totals = BTreeMap::new();
        for cluster in self.members(region) {
            cluster.cap.add_recent(
                at,
                self.config.window_secs,
                self.config.half_life_secs,
                &mut totals,
            );
        }
        totals
            .values()
            .filter(|(granted, _)| *granted > self.config.client_heat_cap)
            .map(|(granted, decayed)| (granted - self.config.client_heat_cap) * decayed / granted)
            .sum()
    }
}
