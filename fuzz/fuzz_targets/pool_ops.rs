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
//!   7 clock jump of up to ±68 years.
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

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use libfuzzer_sys::fuzz_target;
use sdsi::evolution::{
    Embedder, HashingEmbedder, Lending, MAX_FRAGMENT_CHARS, Pool, PoolConfig, PoolError,
    sanitize_fragment,
};
use sdsi_fuzz::check;
use time::{Duration, OffsetDateTime};

const THRESHOLDS: [f32; 10] = [0.9, 0.75, 0.5, 0.3, 0.0, -0.5, -1.0, 1.0, f32::NAN, 1.5];
const HALF_LIVES: [f64; 12] = [
    86_400.0,
    60.0,
    3_600.0,
    1.0,
    1e7,
    1e300,
    0.0,
    -1.0,
    f64::NAN,
    f64::INFINITY,
    1e-3,
    1e-300,
];
/// Half-lives the log-domain heat represents to ~1e-6 (see the
/// `tiny_half_life_keeps_heat_meaningful` test): the reference mode's choices.
const SANE_HALF_LIVES: [f64; 6] = [86_400.0, 60.0, 3_600.0, 1.0, 1e7, 1e300];
const INCREMENTS: [f64; 5] = [1.0, 0.37, 2.5, 0.0, 1e-3];
const CAPS: [f64; 7] = [15.0, 1e9, 0.0, 2.5, f64::NAN, -1.0, f64::MAX];
const T0: OffsetDateTime = time::macros::datetime!(2026-05-01 0:00 UTC);
/// Texts for bit 6 of `b7` (texts may repeat).
const TEXTS: [&str; 4] = [
    "window seat",
    "vegetarian meal",
    "late checkout",
    "pet in cabin",
];
const PROTOS: [[f32; 8]; 4] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.8, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.6, 0.8, 0.0, 0.0],
];
const SPECIALS: [f32; 10] = [
    0.0,
    -0.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e20,
    1e-25,
    f32::MIN_POSITIVE,
    f32::MAX,
    1.0,
];

/// Reads the input front to back; past the end, every byte is zero.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes([self.u8(), self.u8()])
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn f32(&mut self) -> f32 {
        f32::from_bits(self.i32() as u32)
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn pick<T: Copy>(&mut self, table: &[T]) -> T {
        table[usize::from(self.u8()) % table.len()]
    }
    /// A clock step: an even value is that many half-minutes, an odd one milliseconds.
    fn step(&mut self) -> Duration {
        let v = self.i16();
        if v % 2 == 0 {
            Duration::seconds(i64::from(v) * 30)
        } else {
            Duration::milliseconds(i64::from(v))
        }
    }
}

fn secs(t: OffsetDateTime) -> f64 {
    t.unix_timestamp() as f64 + f64::from(t.nanosecond()) / 1e9
}

fn client(b: u8) -> &'static str {
    const CLIENTS: [&str; 6] = [
        "agent-0", "agent-1", "agent-2", "agent-3", "agent-4", "agent-5",
    ];
    CLIENTS[usize::from(b % 6)]
}

/// A vector: a prototype plus noise, raw bits, special values, or a wrong length.
fn vector(b: &mut Bytes<'_>, dim: usize) -> Vec<f32> {
    match b.u8() % 4 {
        0 | 1 => {
            let proto = b.pick(&PROTOS);
            let scale = f32::from(b.u8()) / 400.0;
            (0..dim)
                .map(|i| {
                    proto.get(i).copied().unwrap_or(0.0) + scale * f32::from(b.u8() as i8) / 128.0
                })
                .collect()
        }
        2 => (0..dim).map(|_| b.pick(&SPECIALS)).collect(),
        _ => {
            let len = match b.u8() % 4 {
                0 => dim,
                1 => dim + 1,
                2 => dim.saturating_sub(1),
                _ => usize::from(b.u8() % 20),
            };
            (0..len).map(|_| b.f32()).collect()
        }
    }
}

fn expected_error(v: &[f32], dim: usize) -> Option<PoolError> {
    if v.len() != dim {
        Some(PoolError::Dimension {
            expected: dim,
            found: v.len(),
        })
    } else if v.iter().any(|x| !x.is_finite()) {
        Some(PoolError::NonFinite)
    } else if v.iter().all(|x| *x == 0.0) {
        Some(PoolError::ZeroVector)
    } else {
        None
    }
}

fn well_scaled(v: &[f32]) -> bool {
    let norm2: f64 = v.iter().map(|x| f64::from(*x).powi(2)).sum();
    (1e-30..1e30).contains(&norm2)
}

fn zero_sum(e: &dyn std::fmt::Display) -> bool {
    e.to_string().contains("vector is zero")
}

/// One fragment the reference heat knows about.
#[derive(Debug, Clone, Copy)]
struct Record {
    increment: f64,
    when: OffsetDateTime,
}

/// An instant with its Unix nanoseconds (what probes are ordered by:
/// comparing `OffsetDateTime`s and converting nanoseconds back to them
/// were a tenth of the checks).
type Instant = (i128, OffsetDateTime);

fn instant(t: OffsetDateTime) -> Instant {
    (t.unix_timestamp_nanos(), t)
}

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

    fn op(&mut self, b: &mut Bytes<'_>) {
        let dim = self.config.dimension;
        let tag = b.u8() % 8;
        if trace() {
            eprintln!("op {tag} at {}", self.now);
        }
        match tag {
            0 | 1 => {
                let mut who = client(b.u8()).to_owned();
                self.now = self.now.checked_add(b.step()).unwrap_or(self.now);
                let v = vector(b, dim);
                let text = self.text(b, "f", self.now);
                if self.reference {
                    // One request per fragment, so each adds its increment
                    // (fragments of one request count once; see the pool's tests).
                    who = format!("{who}-{text}");
                }
                self.ingest(None, &v, &text, &who, self.now);
            }
            2 => {
                let who = client(b.u8());
                self.now = self.now.checked_add(b.step()).unwrap_or(self.now);
                let len = usize::from(b.u8());
                let raw: Vec<u8> = (0..len).map(|_| b.u8()).collect();
                let Some(text) = sanitized(&raw) else {
                    return;
                };
                if !self.repeat_texts
                    && !self
                        .used
                        .insert((text.clone(), self.now.unix_timestamp_nanos()))
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
                self.ingest(None, &v, &text, &who, self.now);
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

    /// Invariants that hold after every operation.
    fn check(&mut self) {
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
    fn check_canonical(&self) {
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

/// Past this many remembered texts, a memory below starts over.
const TEXTS_REMEMBERED: usize = 1 << 14;

thread_local! {
    static SANITIZED: RefCell<HashMap<Vec<u8>, Option<String>>> = RefCell::new(HashMap::new());
    static EMBEDDED: RefCell<HashMap<(usize, String), Vec<f32>>> = RefCell::new(HashMap::new());
}

/// `sanitize_fragment` of the raw bytes (read as lossy UTF-8), checked the
/// first time this process sees those bytes. The sanitizer is a function of
/// its text alone, so a repeat would return the same text and pass the
/// same check; it is looked up instead (running it again was a tenth of
/// the target's time: libFuzzer mutates an input elsewhere and the text
/// operations repeat byte for byte).
fn sanitized(raw: &[u8]) -> Option<String> {
    if let Some(known) = SANITIZED.with_borrow(|memo| memo.get(raw).cloned()) {
        return known;
    }
    let text = String::from_utf8_lossy(raw);
    let clean = sanitize_fragment(&text).map(|clean| {
        check!(
            "sanitize-clean",
            !clean.text.is_empty()
                && clean.text.chars().count() <= MAX_FRAGMENT_CHARS
                && !clean.text.chars().any(char::is_control),
            "{text:?} -> {clean:?}"
        );
        clean.text
    });
    SANITIZED.with_borrow_mut(|memo| {
        if memo.len() >= TEXTS_REMEMBERED {
            memo.clear();
        }
        memo.insert(raw.to_vec(), clean.clone());
    });
    clean
}

/// The hashing embedder's vector for `text` at `dimension`, checked the
/// first time this process embeds it (the embedder is a function of its
/// dimension and the text: it hashes with FNV-1a, no random state).
fn embedded(embedder: &HashingEmbedder, dimension: usize, text: &str) -> Vec<f32> {
    let key = (dimension, text.to_owned());
    if let Some(known) = EMBEDDED.with_borrow(|memo| memo.get(&key).cloned()) {
        return known;
    }
    let v = embedder.embed(text);
    let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    check!(
        "embed-unit",
        v.iter().all(|x| x.is_finite()) && (norm == 0.0 || (norm - 1.0).abs() < 1e-4),
        "{text:?} -> {v:?}"
    );
    EMBEDDED.with_borrow_mut(|memo| {
        if memo.len() >= TEXTS_REMEMBERED {
            memo.clear();
        }
        memo.insert(key, v.clone());
    });
    v
}

/// Whether `SDSI_FUZZ_TRACE` is set: then every operation and ingest is
/// printed (for reading a reproducer).
fn trace() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("SDSI_FUZZ_TRACE").is_some())
}

/// The first cluster (in canonical order) that differs between two pools.
fn first_difference(a: &Pool, b: &Pool) -> String {
    let (x, y) = (a.canonical(), b.canonical());
    for (p, q) in x.clusters().zip(y.clusters()) {
        let (dp, dq) = (format!("{p:?}"), format!("{q:?}"));
        if dp != dq {
            return format!("\n{dp}\n{dq}");
        }
    }
    let (nx, ny): (Vec<String>, Vec<String>) = (
        x.needs().map(|n| format!("{n:?}")).collect(),
        y.needs().map(|n| format!("{n:?}")).collect(),
    );
    if nx != ny {
        return format!("\nneeds {nx:?}\nneeds {ny:?}");
    }
    format!("{} vs {} clusters", x.len(), y.len())
}

/// Whether a serialized pool holds a heat whose log-sum is not finite
/// (serde_json writes NaN and ±∞ as `null`).
fn null_heat(bytes: &[u8]) -> bool {
    // `str::contains` (std's two-way search, not instrumented) rather than a
    // `memcmp` per window, which libFuzzer's hook made a quarter of the run.
    std::str::from_utf8(bytes).is_ok_and(|text| {
        [
            r#""log_sum":null"#,
            r#""landmark":null"#,
            r#""latest":null"#,
        ]
        .iter()
        .any(|field| text.contains(field))
    })
}

/// Whether a heat's log-sum is not finite. `heat_is_finite` exists only
/// under `cfg(fuzzing)` (set by cargo-fuzz); a plain `cargo check` of the
/// target falls back to looking for the `null` it serializes as.
#[cfg(fuzzing)]
fn heat_nonfinite(pool: &Pool) -> bool {
    pool.clusters().any(|c| !c.heat_is_finite())
}

#[cfg(not(fuzzing))]
fn heat_nonfinite(pool: &Pool) -> bool {
    serde_json::to_vec(pool).is_ok_and(|b| null_heat(&b))
}

fn ids(pool: &Pool) -> Vec<u64> {
    pool.clusters().map(|c| c.id()).collect()
}

/// Whether cluster ids are unique (`buffer` is scratch space).
fn ids_unique(pool: &Pool, buffer: &mut Vec<u64>) -> bool {
    buffer.clear();
    buffer.extend(pool.clusters().map(|c| c.id()));
    buffer.sort_unstable();
    buffer.windows(2).all(|w| w.first() != w.get(1))
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
