//! The dual gate (§6.2.1), on needs: heat at or above the threshold and,
//! within the window, enough distinct clients or requests. Everything is
//! summed over the need's clusters when read, so it is exact whatever way
//! the clusters were grouped.
//!
//! One need's paraphrases may still be spread over a few needs that the
//! grouping keeps apart (a need phrased in two distinct ways). So a need
//! that holds at least [`super::PoolConfig::support_share`] of the heat
//! threshold itself, and is the hottest of the needs not yet proposed within
//! [`super::PoolConfig::support_threshold`] of it, is gated on the sum of
//! that neighbourhood: its heat, clients and requests, each client's share
//! held to the per-client cap across the whole neighbourhood. The key comes
//! from the need itself. The neighbours that lent their heat lend it no more
//! and trigger on their own heat alone from then on: two needs that are
//! close but distinct each get their key, while the pieces of one need do
//! not propose it again.

use std::collections::BTreeMap;

use super::cap::allowance;
use super::heat::Heat;
use super::needs::count_distinct;
use super::pool::Pool;

/// How a need's gate stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gate {
    Closed,
    /// Open on the need's own heat and traffic.
    Own,
    /// Open only with its neighbours' heat and traffic.
    Supported,
}

impl Pool {
    /// Need `need`'s heat at `at`: its clusters' heats added (in id order).
    pub(super) fn need_heat(&self, need: usize, at: f64) -> f64 {
        let half_life = self.config.half_life_secs;
        let Some(state) = self.needs.states.get(need) else {
            return 0.0;
        };
        let heat = state
            .clusters
            .iter()
            .filter_map(|id| self.position(*id).and_then(|i| self.clusters.get(i)))
            .fold(Heat::default(), |sum, c| sum.combine(c.heat, half_life));
        heat.value(at, half_life)
    }

    /// Starts counting a request from `client` at `at` in need `need`:
    /// `None` if the need already counted it (another fragment of the same
    /// message), else the heat it adds, which the per-client cap holds to
    /// what the client has not yet been granted across the need's clusters.
    pub(super) fn begin_request(&mut self, need: usize, client: &str, at: f64) -> Option<f64> {
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
    ) -> impl Iterator<Item = &'a super::cluster::ClusterState> + 'a {
        needs
            .iter()
            .filter_map(|&n| self.needs.states.get(n))
            .flat_map(|state| state.clusters.iter())
            .filter_map(|id| self.position(*id).and_then(|i| self.clusters.get(i)))
    }

    /// Distinct clients within the window ending at `at` over the needs at
    /// `needs`, counted up to the gate's minimum.
    pub(super) fn window_clients(&self, needs: &[usize], at: f64) -> usize {
        let window = self.config.window_secs;
        count_distinct(
            self.members(needs)
                .flat_map(|c| c.recent_clients_in(at, window)),
            self.config.min_clients,
        )
    }

    /// Requests within the window ending at `at` over the needs at `needs`,
    /// counted up to the gate's minimum.
    pub(super) fn window_requests(&self, needs: &[usize], at: f64) -> usize {
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

    /// Whether need `need` triggers at `at`: not proposed, not waiting for a
    /// retry, and its gate (or its neighbourhood's, see the module) open.
    pub(super) fn gate_opens(&self, need: usize, at: f64) -> Gate {
        let Some(state) = self.needs.states.get(need) else {
            return Gate::Closed;
        };
        if state.proposed.is_some() || state.retry_at.is_some_and(|retry| at < retry) {
            return Gate::Closed;
        }
        let threshold = self.config.heat_threshold;
        let own = self.need_heat(need, at);
        if own >= threshold && self.enough_traffic(&[need], at) {
            return Gate::Own;
        }
        if state.lent || own < self.config.support_share * threshold {
            return Gate::Closed;
        }
        let Some(region) = self.neighbourhood(need, own, at) else {
            return Gate::Closed; // a hotter need leads this neighbourhood
        };
        if region.len() < 2 {
            return Gate::Closed;
        }
        let heat: f64 = region
            .iter()
            .map(|&n| {
                if n == need {
                    own
                } else {
                    self.need_heat(n, at)
                }
            })
            .sum();
        if heat - self.excess_over_cap(&region, at) >= threshold && self.enough_traffic(&region, at)
        {
            Gate::Supported
        } else {
            Gate::Closed
        }
    }

    /// The needs that may lend need `need` their heat: not proposed, not
    /// already lent, within the support threshold.
    pub(super) fn lenders(&self, need: usize) -> impl Iterator<Item = usize> + '_ {
        let support = self.support_threshold();
        (0..self.needs.len()).filter(move |&other| {
            other != need
                && self
                    .needs
                    .states
                    .get(other)
                    .is_some_and(|s| s.proposed.is_none() && !s.lent)
                && self.needs.link(need, other) >= support
        })
    }

    /// Need `need` and the needs that may lend it their heat, or `None`
    /// when one of them is hotter (ties: the smaller id leads).
    fn neighbourhood(&self, need: usize, own: f64, at: f64) -> Option<Vec<usize>> {
        let id = self.needs.states.get(need)?.id;
        let mut region = vec![need];
        for other in self.lenders(need) {
            let heat = self.need_heat(other, at);
            let other_id = self.needs.states.get(other).map_or(u64::MAX, |s| s.id);
            if heat > own || (heat == own && other_id < id) {
                return None;
            }
            region.push(other);
        }
        Some(region)
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
