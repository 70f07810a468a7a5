//! The per-client heat cap: what one client added to one cluster, grant by
//! grant, within a sliding window; summed over a need's clusters, it keeps a
//! single agent from forcing an evolution.

use serde::{Deserialize, Serialize};

use crate::evolution::pool::limits::ClusterLimits;

/// The heat one client added to a need, grant by grant, as far back as the
/// sliding window reaches: the cap counts what it added in the `window`
/// seconds before each request, not per calendar window, so a client cannot
/// pass twice the cap across a window's edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ClientHeat {
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

    /// Takes in another record's grants for the same client. All at once,
    /// then tidied: folding them in one by one compacted at every step, so
    /// the result depended on which side was merged into which (found by
    /// the `pool_ops` fuzz target).
    fn absorb(&mut self, other: &[(f64, f64)], window: f64) {
        self.grants.extend_from_slice(other);
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

/// Every tracked client's recent grants to one cluster. The cap acts on
/// needs: what a client may still add to a need is the cap less what it was
/// granted across the need's clusters, so the limit holds however the
/// clusters are later grouped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct ClientCap {
    clients: Vec<ClientHeat>,
}

/// What `client` may still add given what it was granted in the window
/// (`used`): at most the increment, nothing when the room is rounding noise.
pub(crate) fn allowance(used: f64, limits: &ClusterLimits) -> f64 {
    cap_room(limits.client_cap - used, limits.increment)
}

impl ClientCap {
    /// What `client` was granted in the window ending at `at`.
    pub(crate) fn recent(&self, client: &str, at: f64, window: f64) -> f64 {
        self.clients
            .iter()
            .find(|e| e.client == client)
            .map_or(0.0, |e| e.recent(at, window))
    }

    /// Records a grant of `amount` to `client` at `at`.
    pub(crate) fn record(&mut self, client: &str, at: f64, amount: f64, limits: &ClusterLimits) {
        let index = match self.clients.iter().position(|e| e.client == client) {
            Some(i) => i,
            None => {
                if self.clients.len() >= limits.max_tracked_clients.max(1) {
                    // Forget the client whose last grant is oldest.
                    if let Some(oldest) = (0..self.clients.len()).min_by(|&a, &b| {
                        let latest = |i: usize| {
                            self.clients
                                .get(i)
                                .map_or(f64::INFINITY, ClientHeat::latest)
                        };
                        latest(a).total_cmp(&latest(b))
                    }) {
                        self.clients.remove(oldest);
                    }
                }
                self.clients.push(ClientHeat {
                    client: client.to_owned(),
                    grants: Vec::new(),
                });
                self.clients.len() - 1
            }
        };
        if let Some(entry) = self.clients.get_mut(index) {
            entry.grant(at, amount, limits.window);
        }
    }

    /// Takes in another cluster's records (a merge, or another replica's):
    /// symmetric, so `a.absorb(b)` equals `b.absorb(a)`.
    pub(crate) fn absorb(&mut self, other: &ClientCap, limits: &ClusterLimits) {
        for entry in &other.clients {
            match self.clients.iter_mut().find(|e| e.client == entry.client) {
                Some(mine) => mine.absorb(&entry.grants, limits.window),
                None => self.clients.push(entry.clone()),
            }
        }
        self.clients.sort_by(|a, b| {
            b.latest()
                .total_cmp(&a.latest())
                .then_with(|| a.client.cmp(&b.client))
        });
        self.clients.truncate(limits.max_tracked_clients.max(1));
    }

    /// Each client's grants in the window ending at `at`, added into
    /// `totals` (client → (heat granted, that heat decayed to `at` with
    /// half-life `half_life`)).
    pub(crate) fn add_recent(
        &self,
        at: f64,
        window: f64,
        half_life: f64,
        totals: &mut std::collections::BTreeMap<String, (f64, f64)>,
    ) {
        for entry in &self.clients {
            let (mut granted, mut decayed) = (0.0, 0.0);
            for (t, g) in entry.grants.iter().filter(|(t, _)| *t > at - window) {
                granted += g;
                // A grant stamped after `at` (a clock gone back) counts whole.
                decayed += g * (-(at - t).max(0.0) / half_life * std::f64::consts::LN_2).exp();
            }
            if granted > 0.0 {
                let total = totals.entry(entry.client.clone()).or_insert((0.0, 0.0));
                total.0 += granted;
                total.1 += decayed;
            }
        }
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
            ab.absorb(&b, 1e6);
            ba.absorb(&a, 1e6);
            prop_assert_eq!(ab, ba);
        }
    }
}
