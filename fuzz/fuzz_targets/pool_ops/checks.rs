//! `pool_ops`'s checks after every operation and at the end of an input.

use sdsi_fuzz::check;
use time::Duration;

use super::input::*;
use super::{Run, Scratch};

impl Run {
    /// Invariants that hold after every operation.
    pub(super) fn check(&mut self) {
        if trace() {
            eprintln!("ids {:?}", ids(&self.pool));
        }
        if std::mem::replace(&mut self.dirty, false) {
            self.check_structure();
        }
        self.check_heat();
    }

    /// The invariants of the pool's structure: ids, clients, needs. They
    /// read nothing but the pool.
    fn check_structure(&mut self) {
        let pool = &self.pool;
        let Scratch {
            ids, pairs, named, ..
        } = &mut self.scratch;
        check!(
            "pool-ids-unique",
            ids_unique(pool, ids),
            "duplicate cluster ids: {:?}",
            self::ids(pool)
        );
        // At most `min_clients` (≤ 7) clients each: pairwise, no allocation.
        for c in pool.clusters() {
            let distinct = c
                .clients()
                .enumerate()
                .all(|(i, a)| c.clients().skip(i + 1).all(|b| b != a));
            check!(
                "pool-clients-distinct",
                distinct,
                "cluster {}: {:?}",
                c.id(),
                c.clients().collect::<Vec<_>>()
            );
        }
        // Needs: ids unique; every cluster in exactly the need it names;
        // a need's vectors are its clusters' members; a cluster's proposal
        // is its need's; no need without a cluster.
        ids.clear();
        pairs.clear();
        let mut views = 0;
        for need in pool.needs() {
            views += 1;
            ids.push(need.id());
            let mut members = 0u64;
            let mut clusters = 0;
            for c in need.clusters() {
                clusters += 1;
                members = members.saturating_add(c.members());
                pairs.push((c.id(), need.id()));
                check!(
                    "pool-need-proposed",
                    c.proposed() == need.proposed(),
                    "cluster {} proposed {:?}, its need {} {:?}",
                    c.id(),
                    c.proposed(),
                    need.id(),
                    need.proposed()
                );
            }
            check!(
                "pool-need-vectors",
                need.vectors() == members && clusters > 0,
                "need {}: {} vectors, its {clusters} clusters' members {members}",
                need.id(),
                need.vectors()
            );
        }
        ids.sort_unstable();
        let unique = ids.windows(2).all(|w| w.first() != w.get(1));
        check!(
            "pool-need-ids",
            unique && views == pool.need_count(),
            "need ids {ids:?}, need_count {}",
            pool.need_count()
        );
        named.clear();
        named.extend(pool.clusters().map(|c| (c.id(), c.need())));
        named.sort_unstable();
        pairs.sort_unstable();
        check!(
            "pool-need-membership",
            named == pairs,
            "clusters name (cluster, need) {named:?}, needs hold {pairs:?}"
        );
        // Forget what is gone (its id may come back on another cluster or need).
        self.proposed.retain(|id| pool.cluster(*id).is_some());
        self.deferred.retain(|id, _| ids.binary_search(id).is_ok());
        check!(
            "pool-heat-nonfinite",
            !heat_nonfinite(pool),
            "a heat's log-sum is not finite (half-life {:e})",
            self.config.half_life_secs
        );
    }

    /// Heat at every probe time: finite, not negative, not growing with
    /// time, and in reference mode equal to the naive sum.
    fn check_heat(&mut self) {
        let h = self.config.half_life_secs;
        let probes = &mut self.scratch.probes;
        probes.clear();
        // Every instant seen, thinned to at most 24 (each probe costs a
        // reference sum per cluster), plus `now` and some around it.
        let stride = self.times.len().div_ceil(24).max(1);
        probes.extend(self.times.iter().step_by(stride).copied());
        probes.extend(self.times.last().copied());
        probes.push(instant(self.now));
        probes.extend(T0.checked_sub(Duration::days(400)).map(instant));
        probes.extend(self.now.checked_add(Duration::days(400)).map(instant));
        if h.is_finite() {
            for k in [0.5, 1.0, 4.0] {
                if let Some(t) = self
                    .now
                    .checked_add(Duration::seconds_f64((h * k).min(1e9)))
                {
                    probes.push(instant(t));
                }
            }
        }
        probes.sort_unstable_by_key(|p| p.0);
        for c in self.pool.clusters() {
            // Before its latest increment (however out of order or far
            // ahead the increments were dated), a cluster's heat reads as
            // at it: one value. A second's margin: the pool's seconds are
            // an f64 of the instant.
            let latest = heat_latest(&c);
            let mut before: Option<f64> = None;
            for &(_, t) in probes.iter().take_while(|p| secs(p.1) < latest - 1.0) {
                let heat = c.heat(t);
                let first = *before.get_or_insert(heat);
                check!(
                    "pool-heat-latest",
                    heat.to_bits() == first.to_bits(),
                    "cluster {}: {heat} at {t}, {first} earlier, both before its latest increment at {latest} s",
                    c.id()
                );
            }
            let mut previous = f64::INFINITY;
            for &(_, t) in probes.iter() {
                let heat = c.heat(t);
                check!(
                    "pool-heat-finite",
                    heat.is_finite() && heat >= 0.0,
                    "cluster {}: {heat} at {t}",
                    c.id()
                );
                check!(
                    "pool-heat-monotone",
                    heat <= previous,
                    "cluster {}: {previous} then {heat} at {t}",
                    c.id()
                );
                previous = heat;
            }
            if self.reference {
                let mine = &mut self.scratch.records;
                mine.clear();
                mine.extend(
                    c.exemplars()
                        .iter()
                        .filter_map(|e| self.records.get(&e.text).copied()),
                );
                check!(
                    "pool-heat-reference",
                    mine.len() as u64 == c.occurrences(),
                    "cluster {}: {} occurrences, {} known fragments",
                    c.id(),
                    c.occurrences(),
                    mine.len()
                );
                let Some(latest) = mine.iter().map(|r| r.when).max() else {
                    continue;
                };
                let span = mine.iter().map(|r| secs(r.when).abs()).fold(0.0, f64::max);
                for &(_, t) in probes.iter() {
                    let now = secs(latest.max(t));
                    let want: f64 = mine
                        .iter()
                        .map(|r| r.increment * 2f64.powf(-(now - secs(r.when)) / h))
                        .sum();
                    let got = c.heat(t);
                    let t_over_h = span.max(secs(t).abs()) / h;
                    let tol =
                        1e-12 + (mine.len() as f64 + 4.0) * 4.0 * f64::EPSILON * (t_over_h + 1.0);
                    check!(
                        "pool-heat-reference",
                        (got - want).abs() <= tol * want + 1e-300,
                        "cluster {}: heat {got} at {t}, reference {want}",
                        c.id()
                    );
                }
                if let Some(before) = latest.checked_sub(Duration::days(1)) {
                    check!(
                        "pool-heat-monotone",
                        c.heat(before).to_bits() == c.heat(latest).to_bits(),
                        "cluster {}: before the latest increment",
                        c.id()
                    );
                }
            }
        }
    }

    /// Once per input (two copies of the pool, too dear after every
    /// operation): `canonical()` keeps every cluster and is idempotent.
    pub(super) fn check_canonical(&self) {
        if heat_nonfinite(&self.pool) {
            return; // a NaN heat is unequal to itself (reported by `check`)
        }
        let canonical = self.pool.canonical();
        check!(
            "pool-roundtrip",
            canonical.same_clusters(&self.pool) && canonical.canonical() == canonical,
            "canonical"
        );
    }
}
