//! How many clusters each client founded in its current window: a client
//! that sends thousands of distinct fragments would otherwise fill the pool
//! and evict what others are building.

use serde::{Deserialize, Serialize};

/// One client's count: clusters founded since `since` (seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Founded {
    client: String,
    since: f64,
    count: u64,
}

/// Per-client counts of clusters founded, each in a window that starts at
/// the client's first founding after the previous window ended. Kept for at
/// most `max_clusters` clients (a client with no cluster founded in the
/// window has nothing to remember), so memory stays bounded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct CreationQuota {
    /// By client name.
    clients: Vec<Founded>,
}

impl CreationQuota {
    fn find(&self, client: &str) -> Result<usize, usize> {
        self.clients
            .binary_search_by(|f| f.client.as_str().cmp(client))
    }

    /// Whether `client` may found another cluster at `at`.
    pub(crate) fn allows(&self, client: &str, at: f64, window: f64, limit: usize) -> bool {
        match self.find(client).ok().and_then(|i| self.clients.get(i)) {
            Some(f) if at - f.since < window => f.count < limit as u64,
            _ => true,
        }
    }

    /// Counts a cluster founded by `client` at `at`.
    pub(crate) fn record(&mut self, client: &str, at: f64, window: f64, max_clients: usize) {
        match self.find(client) {
            Ok(i) => {
                if let Some(f) = self.clients.get_mut(i) {
                    if at - f.since >= window || at < f.since - window {
                        f.since = at;
                        f.count = 0;
                    }
                    f.count = f.count.saturating_add(1);
                }
            }
            Err(i) => {
                self.clients.insert(
                    i,
                    Founded {
                        client: client.to_owned(),
                        since: at,
                        count: 1,
                    },
                );
                self.bound(at, window, max_clients);
            }
        }
    }

    /// Forgets clients whose window has passed, then the oldest windows,
    /// until at most `max_clients` remain.
    fn bound(&mut self, at: f64, window: f64, max_clients: usize) {
        let max_clients = max_clients.max(1);
        if self.clients.len() <= max_clients {
            return;
        }
        self.clients.retain(|f| at - f.since < window);
        while self.clients.len() > max_clients {
            let oldest = self
                .clients
                .iter()
                .enumerate()
                .min_by(|(_, a), (_, b)| a.since.total_cmp(&b.since).then(a.client.cmp(&b.client)))
                .map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    self.clients.remove(i);
                }
                None => break,
            }
        }
    }

    /// Takes in another replica's counts: for a client both know, the
    /// earlier window start and the two counts added. Symmetric.
    pub(crate) fn absorb(&mut self, other: &CreationQuota, max_clients: usize) {
        for theirs in &other.clients {
            match self.find(&theirs.client) {
                Ok(i) => {
                    if let Some(mine) = self.clients.get_mut(i) {
                        mine.since = mine.since.min(theirs.since);
                        mine.count = mine.count.saturating_add(theirs.count);
                    }
                }
                Err(i) => self.clients.insert(i, theirs.clone()),
            }
        }
        let latest = self
            .clients
            .iter()
            .map(|f| f.since)
            .fold(f64::NEG_INFINITY, f64::max);
        // Without a clock here, bound by the oldest windows alone.
        self.bound(latest, f64::INFINITY, max_clients);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_founds_at_most_the_limit_per_window() {
        let mut quota = CreationQuota::default();
        for t in 0..3 {
            assert!(quota.allows("a", f64::from(t), 100.0, 3));
            quota.record("a", f64::from(t), 100.0, 10);
        }
        assert!(!quota.allows("a", 50.0, 100.0, 3));
        assert!(quota.allows("b", 50.0, 100.0, 3));
        // The window started at 0: from 100 on, a new one.
        assert!(quota.allows("a", 100.0, 100.0, 3));
        quota.record("a", 100.0, 100.0, 10);
        assert!(quota.allows("a", 101.0, 100.0, 3));
    }

    #[test]
    fn memory_is_bounded_by_forgetting_the_oldest() {
        let mut quota = CreationQuota::default();
        for c in 0..10 {
            quota.record(&format!("c{c}"), f64::from(c), 1e9, 4);
        }
        assert_eq!(quota.clients.len(), 4);
        assert!(quota.find("c9").is_ok() && quota.find("c0").is_err());
    }

    #[test]
    fn absorbing_is_symmetric() {
        let (mut a, mut b) = (CreationQuota::default(), CreationQuota::default());
        a.record("x", 5.0, 100.0, 10);
        a.record("y", 1.0, 100.0, 10);
        b.record("x", 3.0, 100.0, 10);
        b.record("z", 2.0, 100.0, 10);
        let mut ab = a.clone();
        ab.absorb(&b, 10);
        let mut ba = b.clone();
        ba.absorb(&a, 10);
        assert_eq!(ab, ba);
        assert_eq!(ab.clients.len(), 3);
    }
}
