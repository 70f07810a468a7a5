//! Arbitrary operation sequences on a Differential Semantic Pool: ingest
//! vectors (zero, NaN, infinite, wrong length, badly scaled) or text (through
//! `sanitize` and the hashing embedder), move the clock forward or back,
//! snapshot → restore, merge with a replica built from more operations, mark
//! needs proposed or defer them; under arbitrary configurations (half-life 0, 1e-300 or
//! 1e300, NaN thresholds, ...).
//!
//! Input layout (decoded by hand, so seeds can be written; missing bytes read
//! as zero, so every input is valid):
//!
//! - 8 header bytes: `dimension = 1 + b0 % 8`; `b1` threshold, `b2` half-life,
//!   `b3` increment, `b4` client cap (each an index into a table below, `b1`
//!   past its table is `b1 / 127.5 - 1`; `b3` bit 7 also books lent heat,
//!   `Lending::Book`, else silence); `b5 % 8` max clusters (7 → 10,000),
//!   `b5` bits 3-7 unused;
//!   `b6` max exemplars (low nibble, 0 → 8) and tracked clients (high, 0 → 64);
//!   `b7` bits 0-2 min clients, bits 3-5 min occurrences (0 → default),
//!   bit 6 texts may repeat, bit 7 reference mode (no client cap, 1,000
//!   exemplars, sane half-lives: the heat is checked against a naive sum).
//! - then operations, one tag byte each (`tag % 8`): 0-1 ingest a vector,
//!   2 ingest text, 3 clock step, 4 snapshot → restore, 5 merge a replica,
//!   6 mark a need proposed or defer it (named by a need's id or by a
//!   cluster's, which is a need's id only when that cluster founded it),
//!   7 clock jump of up to ±68 years. Bits 3-4 of an ingest's tag byte
//!   (0-2) date it: 0 at the clock after its step; else the clock stays and
//!   the fragment is dated 1 9999-12-31 23:59:59, 2 `|step|` before the
//!   clock (out of order), 3 -9999-01-01. The pool has no clock guard (the
//!   engine's store has one; the `pipeline` target checks it): every
//!   invariant below holds for such dates as for any, after every operation.
//!
//! Classes (see `sdsi_fuzz`'s docs for `SDSI_FUZZ_TOLERATE`):
//!
//! | class | property |
//! |---|---|
//! | `pool-config` | `Pool::new` refuses only with `PoolError::Config`, and accepts the defaults with any dimension ≥ 1 |
//! | `pool-ingest-error` | a wrong length, NaN/∞ or all-zero vector gets its typed error; a well-scaled vector is accepted |
//! | `pool-scaled-zero` | a finite non-zero vector whose squared norm over/underflows f32 is refused as "zero" (fixed in de29964) |
//! | `pool-ingest-outcome` | the outcome's cluster exists; the size changes by created − merged − evicted; never above `max_clusters` |
//! | `pool-heat-finite` | every cluster's heat is finite and ≥ 0 at every probe time |
//! | `pool-heat-monotone` | heat never grows as `now` advances without ingest (and reads the latest increment's heat before it) |
//! | `pool-heat-latest` | before its latest increment (however out of order or far ahead increments were dated) a cluster's heat is one value: it reads as at the latest |
//! | `pool-heat-reference` | in reference mode (one client per fragment, so each fragment is its own request), heat equals Σ inc·2^(−Δt/h) over the fragments the cluster holds |
//! | `pool-roundtrip` | `serde_json` snapshot → restore succeeds and gives an equal pool |
//! | `pool-heat-nonfinite` | a heat's log-sum is finite, so it serializes (half-lives below ~1e-298 s overflowed `t/h`; fixed in de29964) |
//! | `pool-zero-sum` | a restore or merge fails because a cluster's running sum cancelled to zero (threshold -1; fixed in de29964) |
//! | `pool-merge-commutative` | `a.merge(b)` and `b.merge(a)` have equal `canonical()` forms |
//! | `pool-merge-empty` | merging an empty pool, either way, leaves `canonical()` unchanged |
//! | `pool-merge-error` | merging two pools of the same configuration succeeds; another configuration is refused and changes nothing |
//! | `pool-ids-unique` | cluster ids are unique within a pool, also after merges (a paired cluster could take an id the pool already used; fixed in 4dbaebc) |
//! | `pool-clients-distinct` | a cluster lists each recent client once (fixed in de29964) |
//! | `pool-proposed` | a cluster marked proposed does not trigger again unless its need was deferred after (a review) |
//! | `pool-deferred` | a deferred need does not trigger before the instant its latest `defer` returned |
//! | `pool-need-api` | `mark_proposed` and `defer` succeed exactly on an existing need; `defer` answers an instant not before now |
//! | `pool-need-ids` | need ids are unique and `need_count` counts them |
//! | `pool-need-membership` | every cluster is in exactly the need it names |
//! | `pool-need-vectors` | a need's vector count is its clusters' members; no need is empty |
//! | `pool-need-proposed` | a cluster's proposal is its need's (an absorbed need's clusters stayed unmarked; fixed in a409d40) |
//! | `pool-client-quota` | `ClientQuota` refuses a client only after it founded its quota of clusters, and changes nothing |
//! | `sanitize-clean` | sanitized text is non-empty, ≤ `MAX_FRAGMENT_CHARS`, without control characters |
//! | `embed-unit` | the embedding is finite and unit-norm or all zero |
#![no_main]

use std::collections::{HashMap, HashSet};

use libfuzzer_sys::fuzz_target;
use sdsi::evolution::{HashingEmbedder, Lending, Pool, PoolConfig, PoolError};
use sdsi_fuzz::check;
use time::{Duration, OffsetDateTime};

#[path = "pool_ops/checks.rs"]
mod checks;
#[path = "pool_ops/input.rs"]
mod input;

use input::*;

struct Run {
    config: PoolConfig,
    pool: Pool,
    now: OffsetDateTime,
    embedder: HashingEmbedder,
    repeat_texts: bool,
    reference: bool,
    used: HashSet<(String, i128)>,
    texts: HashSet<String>,
    serial: u64,
    records: HashMap<String, Record>,
    /// Every instant seen, sorted by nanoseconds, each once.
    times: Vec<Instant>,
    /// Clusters of needs marked proposed (ids of the run's pool).
    proposed: HashSet<u64>,
    /// Needs deferred, with the instant the latest `defer` said they may
    /// trigger again.
    deferred: HashMap<u64, OffsetDateTime>,
    /// Clusters each client founded, in the run's pool and in replicas (an
    /// upper bound on what the creation quota can count).
    founded: HashMap<String, u64>,
    /// Whether this input already checked merging with an empty pool and a
    /// foreign configuration (three pool copies; once per input is enough,
    /// the commutativity check runs at every merge).
    identity_checked: bool,
    /// Whether the pool may have changed since the last `check`: an
    /// operation that only reads the pool (a clock step, a text the
    /// sanitizer drops) leaves every invariant of the pool alone as it was
    /// checked, so `check` only re-reads the heat at the new probe times.
    dirty: bool,
    /// The bytes the pool was restored from by the last snapshot operation,
    /// while nothing has touched it since; and whether it was seen to
    /// serialize back to them (see `snapshot`).
    restored_from: Option<Vec<u8>>,
    fixed_point: bool,
    /// Buffers reused across operations (an allocation under ASan costs
    /// about as much as a few hundred instructions).
    scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
    ids: Vec<u64>,
    pairs: Vec<(u64, u64)>,
    named: Vec<(u64, u64)>,
    probes: Vec<Instant>,
    records: Vec<Record>,
    snapshot: Vec<u8>,
}

impl Run {
    /// Something may have changed the pool.
    fn touched(&mut self) {
        self.dirty = true;
        self.fixed_point = false;
        if let Some(bytes) = self.restored_from.take() {
            self.scratch.snapshot = bytes;
        }
    }

    fn see(&mut self, t: OffsetDateTime) {
        let at = instant(t);
        if let Err(i) = self.times.binary_search_by_key(&at.0, |p| p.0) {
            self.times.insert(i, at);
        }
    }

    fn text(&mut self, b: &mut Bytes<'_>, prefix: &str, at: OffsetDateTime) -> String {
        if self.repeat_texts {
            return b.pick(&TEXTS).to_owned();
        }
        loop {
            self.serial += 1;
            let t = format!("{prefix}{}", self.serial);
            // In reference mode a text names one fragment: skip names a text
            // operation already used.
            if (!self.reference || !self.texts.contains(&t))
                && self.used.insert((t.clone(), at.unix_timestamp_nanos()))
            {
                self.texts.insert(t.clone());
                return t;
            }
        }
    }

    /// Ingests into `pool` (the run's, or a replica) and checks the outcome.
    fn ingest(
        &mut self,
        replica: Option<&mut Pool>,
        v: &[f32],
        text: &str,
        who: &str,
        at: OffsetDateTime,
    ) {
        let config = self.config;
        // (`proposed` and `deferred` hold ids of the run's pool; a replica
        // proposes and defers nothing.)
        let replica_trace = replica.is_some();
        let pool = match replica {
            Some(p) => p,
            None => {
                self.touched();
                &mut self.pool
            }
        };
        let (before, needs_before) = (pool.len(), pool.need_count());
        let out = pool.ingest(v, text, false, who, at);
        if trace() {
            eprintln!(
                "ingest{} {v:?} {text:?} {who} at {at}: {out:?}",
                if replica_trace { " (replica)" } else { "" }
            );
        }
        match (expected_error(v, config.dimension), out) {
            (Some(e), got) => check!(
                "pool-ingest-error",
                got.as_ref().err() == Some(&e),
                "{v:?}: {got:?}, expected {e:?}"
            ),
            (None, Err(PoolError::ClientQuota { limit })) => {
                let founded = self.founded.get(who).copied().unwrap_or(0);
                check!(
                    "pool-client-quota",
                    limit == config.max_new_clusters_per_client
                        && founded >= limit as u64
                        && pool.len() == before
                        && pool.need_count() == needs_before,
                    "{who} refused at quota {limit} (configured {}) after founding {founded}; \
                     {before} -> {} clusters, {needs_before} -> {} needs",
                    config.max_new_clusters_per_client,
                    pool.len(),
                    pool.need_count()
                );
            }
            (None, Err(got)) => {
                if well_scaled(v) {
                    check!("pool-ingest-error", false, "{v:?} refused: {got:?}");
                } else {
                    check!("pool-scaled-zero", false, "{v:?} refused: {got:?}");
                }
            }
            (None, Ok(got)) => {
                let shrank = usize::from(got.merged.is_some()) + usize::from(got.evicted.is_some());
                check!(
                    "pool-ingest-outcome",
                    pool.cluster(got.cluster)
                        .is_some_and(|c| c.need() == got.need)
                        && pool.len() + shrank == before + usize::from(got.created)
                        && pool.len() <= config.max_clusters
                        && !(got.created && got.merged.is_some())
                        && (got.triggered || !got.supported),
                    "{got:?}: {before} -> {} clusters",
                    pool.len()
                );
                if got.created {
                    *self.founded.entry(who.to_owned()).or_insert(0) += 1;
                }
                if !replica_trace {
                    // An evicted cluster's id may be founded again (the same
                    // text at the same instant): that cluster is a new one.
                    if let Some(evicted) = got.evicted {
                        self.proposed.remove(&evicted);
                    }
                    let tracked =
                        self.proposed.contains(&got.cluster) && got.evicted != Some(got.cluster);
                    // A proposed need opens again only for a review the
                    // caller scheduled with `defer` after proposing it.
                    check!(
                        "pool-proposed",
                        !(got.triggered
                            && (tracked
                                || pool.need(got.need).is_some_and(|n| {
                                    n.proposed().is_some() && n.retry_at().is_none()
                                }))),
                        "cluster {} (need {}) was proposed and triggered again",
                        got.cluster,
                        got.need
                    );
                    // Within a second of the retry instant the pool's f64
                    // seconds and `OffsetDateTime` may round apart.
                    let waiting = self.deferred.get(&got.need).is_some_and(|&retry| {
                        at.checked_add(Duration::SECOND).is_some_and(|t| t < retry)
                    });
                    check!(
                        "pool-deferred",
                        !(got.triggered && waiting),
                        "need {} triggered at {at}, deferred until {:?}",
                        got.need,
                        self.deferred.get(&got.need)
                    );
                }
                if self.reference
                    && pool
                        .clusters()
                        .any(|c| c.exemplars().iter().any(|e| e.text == text))
                {
                    self.records.insert(
                        text.to_owned(),
                        Record {
                            increment: config.increment,
                            when: at,
                        },
                    );
                }
            }
        }
    }

    /// When an ingest with the tag byte's bits 3-4 `mode` and clock step
    /// `step` is dated: 0 the clock moves by the step and the fragment is
    /// dated there; else the clock stays and the fragment is dated 1 far
    /// ahead (9999-12-31 23:59:59), 2 `|step|` before the clock (out of
    /// order), 3 far back (-9999-01-01). The pool has no clock guard (the
    /// engine's store has it): what holds for such dates is what holds for
    /// any, checked after every operation, and `pool-heat-latest`.
    fn dated(&mut self, mode: u8, step: Duration) -> OffsetDateTime {
        let at = match mode {
            1 => FAR_AHEAD,
            2 => self.now.checked_sub(step.abs()).unwrap_or(self.now),
            3 => FAR_BACK,
            _ => {
                self.now = self.now.checked_add(step).unwrap_or(self.now);
                self.now
            }
        };
        self.see(at);
        at
    }

    fn op(&mut self, b: &mut Bytes<'_>) {
        let dim = self.config.dimension;
        let left = b.0.len();
        let byte = b.u8();
        let (tag, mode) = (byte % 8, (byte >> 3) & 3);
        if trace() {
            eprintln!(
                "op {tag} (date mode {mode}, {left} bytes before the end) at {}",
                self.now
            );
        }
        match tag {
            0 | 1 => {
                let mut who = client(b.u8()).to_owned();
                let step = b.step();
                let at = self.dated(mode, step);
                let v = vector(b, dim);
                let text = self.text(b, "f", at);
                if self.reference {
                    // One request per fragment, so each adds its increment
                    // (fragments of one request count once; see the pool's tests).
                    who = format!("{who}-{text}");
                }
                self.ingest(None, &v, &text, &who, at);
            }
            2 => {
                let who = client(b.u8());
                let step = b.step();
                let at = self.dated(mode, step);
                let len = usize::from(b.u8());
                let raw: Vec<u8> = (0..len).map(|_| b.u8()).collect();
                let Some(text) = sanitized(&raw) else {
                    return;
                };
                if !self.repeat_texts
                    && !self.used.insert((text.clone(), at.unix_timestamp_nanos()))
                {
                    return;
                }
                // The reference identifies fragments by text: each may occur once.
                if self.reference && !self.texts.insert(text.clone()) {
                    return;
                }
                let v = embedded(&self.embedder, dim, &text);
                let who = if self.reference {
                    format!("{who}-{text}")
                } else {
                    who.to_owned()
                };
                self.ingest(None, &v, &text, &who, at);
            }
            3 | 7 => {
                let step = if tag == 7 {
                    Duration::seconds(i64::from(b.i32()))
                } else {
                    b.step()
                };
                let later = self.now.checked_add(step).unwrap_or(self.now);
                for c in self.pool.clusters() {
                    let (h0, h1) = (c.heat(self.now), c.heat(later));
                    check!(
                        "pool-heat-monotone",
                        if later >= self.now {
                            h1 <= h0
                        } else {
                            h1 >= h0
                        },
                        "cluster {}: {h0} at {} -> {h1} at {later}",
                        c.id(),
                        self.now
                    );
                }
                self.now = later;
            }
            4 => self.snapshot(),
            5 => {
                let n = b.u8() % 9;
                let mut other = Pool::new(self.config).unwrap_or_else(|_| self.pool.clone());
                let mut at = self.now;
                for _ in 0..n {
                    let mut who = client(b.u8()).to_owned();
                    at = at.checked_add(b.step()).unwrap_or(at);
                    self.see(at);
                    let v = vector(b, dim);
                    let text = self.text(b, "g", at);
                    if self.reference {
                        who = format!("{who}-{text}");
                    }
                    self.ingest(Some(&mut other), &v, &text, &who, at);
                }
                self.merge(&other);
            }
            _ => self.propose_or_defer(b.u8()),
        }
        let now = self.now;
        self.see(now);
    }

    /// Op 6: `k` bit 7 clear marks a need proposed, set defers one; bit 6
    /// names it by a cluster's id (which is a need's id only when that
    /// cluster founded the need), else by a need id the clusters name.
    fn propose_or_defer(&mut self, k: u8) {
        let index = usize::from(k & 0x3f);
        let id = if k & 0x40 != 0 {
            let len = self.pool.len();
            match (len > 0).then(|| self.pool.clusters().nth(index % len)) {
                Some(Some(c)) => c.id(),
                _ => return,
            }
        } else {
            let ids = &mut self.scratch.ids;
            ids.clear();
            ids.extend(self.pool.clusters().map(|c| c.need()));
            ids.sort_unstable();
            ids.dedup();
            match ids.get(index % ids.len().max(1)) {
                Some(&id) => id,
                None => return,
            }
        };
        let exists = self.pool.need(id).is_some();
        self.touched();
        if k & 0x80 == 0 {
            let marked = self.pool.mark_proposed(id, "seat_preference");
            let now_proposed = self
                .pool
                .need(id)
                .and_then(|n| n.proposed().map(str::to_owned));
            check!(
                "pool-need-api",
                marked == exists && (!marked || now_proposed.as_deref() == Some("seat_preference")),
                "mark_proposed({id}) = {marked}, need exists: {exists}, now {now_proposed:?}"
            );
            if marked {
                let members = self
                    .pool
                    .clusters()
                    .filter(|c| c.need() == id)
                    .map(|c| c.id());
                self.proposed.extend(members);
            }
        } else {
            let retry = self.pool.defer(id, self.now);
            check!(
                "pool-need-api",
                retry.is_some() == exists && retry.is_none_or(|t| t >= self.now),
                "defer({id}) at {} = {retry:?}, need exists: {exists}",
                self.now
            );
            if retry.is_some() {
                // Deferring a proposed need schedules its review: its
                // clusters may open again once the retry passes.
                let members: Vec<u64> = self
                    .pool
                    .clusters()
                    .filter(|c| c.need() == id)
                    .map(|c| c.id())
                    .collect();
                for member in members {
                    self.proposed.remove(&member);
                }
            }
            if let Some(retry) = retry {
                // The latest deferral is the promise: after the clock went
                // back, deferring again gives an earlier instant than one
                // deferral made before the jump, and the need keeps that one.
                self.deferred.insert(id, retry);
            }
        }
    }

    /// Op 4: snapshot → restore through `serde_json`, continuing with the
    /// restored pool.
    ///
    /// Inputs often repeat this operation with nothing in between that
    /// touches the pool (libFuzzer rewarded the repeats: each one ran the
    /// parser's loops more times). Then the pool is `R = restore(B)` for the
    /// bytes `B` of the previous round trip, which passed `R == P` against
    /// the pool `P` it came from (so `R` holds no NaN). When `R` serializes
    /// to `B` again (compared as bytes), restoring would parse the same
    /// bytes into the same pool, bit for bit (the parse is deterministic),
    /// and `restore(B) == R` is `R == R`, true without NaN: the check fails
    /// exactly when the plain one would (never, or under a tolerated
    /// `pool-roundtrip` failure, silently both ways), so the parse is
    /// skipped. Once `R` is seen to serialize to `B`, the same holds for
    /// every further repeat, and serializing is skipped too (serializing is
    /// deterministic: a pool's members are vectors, written in order).
    fn snapshot(&mut self) {
        if self.fixed_point {
            return;
        }
        let mut bytes = std::mem::take(&mut self.scratch.snapshot);
        bytes.clear();
        let written = serde_json::to_writer(&mut bytes, &self.pool);
        check!("pool-roundtrip", written.is_ok(), "{written:?}");
        if written.is_ok() && self.restored_from.as_ref() == Some(&bytes) {
            self.fixed_point = true;
            self.scratch.snapshot = bytes;
            return;
        }
        // A non-finite heat is reported by `check` after every operation.
        if written.is_ok() && !null_heat(&bytes) {
            match serde_json::from_slice::<Pool>(&bytes) {
                Ok(restored) => {
                    // `Pool: PartialEq` is derived over every field: the
                    // clusters, their sums and what fragments are scored
                    // against, the needs with their own state and sums, the
                    // creation quota, and the id → position maps.
                    check!(
                        "pool-roundtrip",
                        restored == self.pool,
                        "restored pool differs: {:?}",
                        String::from_utf8_lossy(&bytes)
                    );
                    self.pool = restored;
                    self.touched();
                    self.restored_from = Some(bytes);
                    return;
                }
                Err(e) if zero_sum(&e) => check!("pool-zero-sum", false, "restore: {e}"),
                Err(e) => check!(
                    "pool-roundtrip",
                    false,
                    "restore: {e}: {:?}",
                    String::from_utf8_lossy(&bytes)
                ),
            }
        }
        self.scratch.snapshot = bytes;
    }

    fn merge(&mut self, other: &Pool) {
        self.touched();
        // Ids clashing across the two pools are the merge's to settle: a
        // tracked proposed cluster may hand its id to the other pool's.
        for c in other.clusters() {
            self.proposed.remove(&c.id());
        }
        let a = &self.pool;
        // Ids clashing across the two pools are the merge's to settle; ids
        // duplicated within one pool (`pool-ids-unique`) make `canonical()`
        // ambiguous.
        let unique =
            ids_unique(a, &mut self.scratch.ids) && ids_unique(other, &mut self.scratch.ids);
        // (and so do duplicates a merge creates, reported below).
        let (mut ab, mut ba) = (a.clone(), other.clone());
        let (r1, r2) = (ab.merge(other), ba.merge(a));
        match (&r1, &r2) {
            (Ok(()), Ok(())) => {
                let both_unique = ids_unique(&ab, &mut self.scratch.ids)
                    && ids_unique(&ba, &mut self.scratch.ids);
                check!(
                    "pool-ids-unique",
                    both_unique,
                    "a.merge(b): {:?}, b.merge(a): {:?}",
                    ids(&ab),
                    ids(&ba)
                );
                // A NaN heat is unequal to itself (`pool-heat-nonfinite`).
                if unique && both_unique && !heat_nonfinite(&ab) && !heat_nonfinite(&ba) {
                    // `same_clusters` is `a.canonical() == b.canonical()`
                    // (clusters in id order, needs in id order, the quota)
                    // without copying either pool.
                    check!(
                        "pool-merge-commutative",
                        ab.same_clusters(&ba),
                        "a.merge(b) != b.merge(a): {} vs {} clusters{}",
                        ab.len(),
                        ba.len(),
                        first_difference(&ab, &ba)
                    );
                }
            }
            (Err(e), _) | (_, Err(e)) if zero_sum(e) => {
                check!("pool-zero-sum", false, "merge: {e}")
            }
            _ => check!("pool-merge-error", false, "{r1:?} {r2:?}"),
        }
        // Pushing a pool with duplicate ids into an empty one settles them.
        let check_identity = !std::mem::replace(&mut self.identity_checked, true);
        let a = &self.pool;
        if check_identity && ids_unique(a, &mut self.scratch.ids) {
            if let Ok(empty) = Pool::new(self.config) {
                let mut a_empty = a.clone();
                let r = a_empty.merge(&empty);
                check!(
                    "pool-merge-empty",
                    r.is_ok() && a_empty.same_clusters(a),
                    "a.merge(empty): {r:?}"
                );
                let mut empty_a = empty.clone();
                match empty_a.merge(a) {
                    Ok(()) => check!(
                        "pool-merge-empty",
                        empty_a.same_clusters(a),
                        "empty.merge(a) differs: {}",
                        first_difference(&empty_a.canonical(), &a.canonical())
                    ),
                    Err(e) if zero_sum(&e) => {
                        check!("pool-zero-sum", false, "empty.merge(a): {e}")
                    }
                    Err(e) => check!("pool-merge-empty", false, "empty.merge(a): {e}"),
                }
            }
            let mut other_config = self.config;
            other_config.half_life_secs *= 2.0;
            if let Ok(foreign) = Pool::new(other_config) {
                let mut mismatched = a.clone();
                let r = mismatched.merge(&foreign);
                check!(
                    "pool-merge-error",
                    r == Err(PoolError::ConfigMismatch) && mismatched == *a,
                    "{r:?}"
                );
            }
        }
        if r1.is_ok() {
            self.pool = ab;
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let dimension = 1 + usize::from(b.u8() % 8);
    let t = b.u8();
    let threshold = THRESHOLDS
        .get(usize::from(t))
        .copied()
        .unwrap_or(f32::from(t) / 127.5 - 1.0);
    let mut config = PoolConfig::new(dimension, threshold);
    config.half_life_secs = b.pick(&HALF_LIVES);
    let increment = b.u8();
    config.increment = INCREMENTS[usize::from(increment) % INCREMENTS.len()];
    if increment & 0x80 != 0 {
        config.lending = Lending::Book;
    }
    config.client_heat_cap = b.pick(&CAPS);
    let b5 = b.u8();
    config.max_clusters = match b5 % 8 {
        7 => 10_000,
        n => usize::from(n),
    };
    let sizes = b.u8();
    config.max_exemplars = match sizes & 0xf {
        0 => 8,
        n => usize::from(n),
    };
    config.max_tracked_clients = match sizes >> 4 {
        0 => 64,
        n => usize::from(n),
    };
    let flags = b.u8();
    // High nibble of `b5`: 0 and 15 keep the defaults (15 so that inputs
    // written before it, such as an all-ones header, keep their meaning);
    // otherwise bits 4-5 the creation quota, bits 6-7 the need threshold
    // (2: adaptive, twice the pool's background, half the fine threshold
    // until it is measured).
    let extra = b5 >> 4;
    if extra != 0 && extra != 15 {
        config.max_new_clusters_per_client = match extra & 3 {
            0 => config.max_new_clusters_per_client,
            1 => 1,
            2 => 3,
            _ => 10,
        };
        config = match extra >> 2 {
            0 => config,
            1 => config.with_need_threshold(threshold),
            2 => config
                .with_need_threshold(threshold * 0.5)
                .with_need_contrast(Some(2.0)),
            _ => config.with_need_threshold(-1.0),
        };
    }
    if flags & 0b111 != 0 {
        config.min_clients = usize::from(flags & 0b111);
    }
    if (flags >> 3) & 0b111 != 0 {
        config.min_occurrences = usize::from((flags >> 3) & 0b111);
    }
    config.heat_threshold = 3.0;
    let repeat_texts = flags & 0x40 != 0;
    let reference = flags & 0x80 != 0 && !repeat_texts;
    if reference {
        config.client_heat_cap = 1e9;
        config.max_exemplars = 1_000;
        config.max_clusters = 10_000;
        if !SANE_HALF_LIVES.contains(&config.half_life_secs) {
            config.half_life_secs = SANE_HALF_LIVES[usize::from(sizes) % SANE_HALF_LIVES.len()];
        }
        if !(config.increment > 0.0) {
            config.increment = 1.0;
        }
    }

    let pool = match Pool::new(config) {
        Ok(pool) => pool,
        Err(e) => {
            check!("pool-config", matches!(e, PoolError::Config(_)), "{e:?}");
            check!(
                "pool-config",
                Pool::new(PoolConfig::new(dimension, 0.5)).is_ok(),
                "the defaults are refused at dimension {dimension}"
            );
            return;
        }
    };
    let mut run = Run {
        config,
        pool,
        now: T0,
        embedder: HashingEmbedder::default().with_dimension(dimension),
        repeat_texts,
        reference,
        used: HashSet::new(),
        texts: HashSet::new(),
        serial: 0,
        records: HashMap::new(),
        times: vec![instant(T0)],
        proposed: HashSet::new(),
        deferred: HashMap::new(),
        founded: HashMap::new(),
        identity_checked: false,
        dirty: true,
        restored_from: None,
        fixed_point: false,
        scratch: Scratch::default(),
    };
    let mut ops = 0;
    while !b.is_empty() && ops < 64 {
        run.op(&mut b);
        run.check();
        ops += 1;
    }
    run.check_canonical();
});
