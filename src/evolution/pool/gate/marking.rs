//! What the pipeline tells a pool about a need whose gate opened: put off
//! after a failure (with a backoff), proposed (its clusters marked and the
//! neighbours that lent it heat charged), or reopened after an operator
//! denied the key.

use time::OffsetDateTime;

use crate::evolution::pool::config::Lending;
use crate::evolution::pool::data::Pool;
use crate::evolution::pool::heat::seconds;

impl Pool {
    /// Puts off proposing from need `id` after a failure (the inducer
    /// proposed nothing, the store could not answer): it may trigger again
    /// after a backoff of one hour, doubling with each failure up to a week,
    /// counted from `now`: the latest deferral sets the instant, also when
    /// the clock went back since an earlier one. Returns when, or `None` for
    /// an unknown need.
    pub fn defer(&mut self, id: u64, now: OffsetDateTime) -> Option<OffsetDateTime> {
        const HOUR: f64 = 3600.0;
        const WEEK: f64 = 7.0 * 24.0 * HOUR;
        let state = self.needs.state_mut(id)?;
        state.failures = state.failures.saturating_add(1);
        let backoff = (HOUR * 2f64.powi(state.failures.saturating_sub(1).min(16) as i32)).min(WEEK);
        state.retry_at = Some(seconds(now) + backoff);
        Some(
            now.checked_add(time::Duration::seconds_f64(backoff))
                .unwrap_or(now),
        )
    }

    /// Keeps need `id` from triggering before `until` without counting a
    /// failure: its key is being induced off the message path, and if the
    /// answer never comes (a restart) the need opens again then. False
    /// for an unknown need.
    pub fn wait(&mut self, id: u64, until: OffsetDateTime) -> bool {
        let Some(state) = self.needs.state_mut(id) else {
            return false;
        };
        state.retry_at = Some(seconds(until));
        true
    }

    /// Records that a key was proposed from need `id` (applied, queued or
    /// held for an operator), so it triggers no more unless a review is
    /// scheduled with [`Pool::defer`]; its clusters are
    /// marked, and the mark stays with them and with any need they later
    /// form or join, until [`Pool::reopen`].
    pub fn mark_proposed(&mut self, id: u64, key_name: &str) -> bool {
        let Some(state) = self.needs.state_mut(id) else {
            return false;
        };
        state.proposed = Some(key_name.to_owned());
        // Proposed needs trigger no more, until a review is scheduled
        // (`Pool::defer` after this, as the engine does for an applied key).
        state.retry_at = None;
        let supported = std::mem::take(&mut state.supported);
        let supported_at = std::mem::take(&mut state.supported_at);
        self.mark_clusters(id, Some(key_name));
        if supported {
            self.charge_lenders(id, supported_at);
        }
        true
    }

    /// Charges the needs that lent to need `id`, now proposed with their
    /// help: every need that may lend and lies within the claim threshold
    /// (from the pool's centre under [`Lending::Silence`](crate::evolution::Lending::Silence)), whether
    /// the region took it or not, so the pieces of one need do not
    /// open a second proposal together on the same requests. Under
    /// [`Lending::Book`](crate::evolution::Lending::Book) each of their clusters books the heat it
    /// held unlent at the opening (`opened`, seconds; or at its latest
    /// fragment, if later); under [`Lending::Silence`](crate::evolution::Lending::Silence), or for a
    /// state saved before the opening time was kept, each need is marked as
    /// lent and lends no more.
    fn charge_lenders(&mut self, id: u64, opened: Option<f64>) {
        let Some(need) = self.needs.position(id) else {
            return;
        };
        let claim = self.claim_threshold();
        let half_life = self.config.half_life_secs;
        let silences = self.config.lending != Lending::Book || opened.is_none();
        // A silenced need lends no more, ever, so the claim must take only
        // pieces of the proposed need: linked from the pool's centre (see
        // `centred_claim`). A booked need keeps what it gains later, so
        // there the claim stays on the plain scale, which measured better
        // for booking (docs/evolution.md, "The centred need linkage").
        let centred_claim = self.centred_claim();
        let claimed: Vec<usize> = self
            .lenders(need)
            .filter(|&l| {
                if silences {
                    self.centred_need_link(need, l) >= centred_claim
                } else {
                    self.needs.plain_link(need, l) >= claim
                }
            })
            .collect();
        let Some(opened) = opened.filter(|_| self.config.lending == Lending::Book) else {
            for lender in claimed {
                if let Some(state) = self.needs.states.get_mut(lender) {
                    state.lent = true;
                }
            }
            return;
        };
        let clusters: Vec<u64> = claimed
            .iter()
            .filter_map(|&l| self.needs.states.get(l))
            .flat_map(|state| state.clusters.iter().copied())
            .collect();
        for cluster in clusters {
            let Some(state) = self
                .position(cluster)
                .and_then(|i| self.clusters.get_mut(i))
            else {
                continue;
            };
            // Booked at the instant its heat is read, so that the booking
            // decays as that heat does.
            let at = opened.max(state.heat.latest());
            let unlent = state.heat.value(at, half_life) - state.lent_heat.value(at, half_life);
            state.lent_heat.add(unlent, at, half_life);
        }
    }

    /// The claim threshold on the centred scale: linked from the pool's
    /// centre, as the need level links, a need sharing only the domain's
    /// common words ("my card") is no piece of another, and one no more
    /// alike than the domain's requests are (a centred link of 0 or less)
    /// never is. (Carried to the centred scale, a threshold only falls;
    /// off, the centre gives the plain one back, unclamped.)
    fn centred_claim(&self) -> f32 {
        let claim = self.claim_threshold();
        match self.background.centre.threshold(claim) {
            carried if carried < claim => carried.max(0.0),
            plain => plain,
        }
    }

    /// Clears the mark of key `key_name` from every need and cluster that
    /// carries it (an operator denied the proposal): those needs may
    /// trigger again. Returns how many needs were reopened.
    pub fn reopen(&mut self, key_name: &str) -> usize {
        let marked = |proposed: &Option<String>| proposed.as_deref() == Some(key_name);
        for cluster in &mut self.clusters {
            if marked(&cluster.proposed) {
                cluster.proposed = None;
            }
        }
        let mut reopened = 0;
        for state in &mut self.needs.states {
            if marked(&state.proposed) {
                state.proposed = None;
                reopened += 1;
            }
        }
        reopened
    }
}
