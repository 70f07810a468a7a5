//! Arbitrary operation sequences on a Differential Semantic Pool: ingest
//! vectors (zero, NaN, infinite, wrong length, badly scaled) or text (through
//! `sanitize` and the hashing embedder), move the clock forward or back,
//! snapshot → restore, merge with a replica built from more operations, mark
//! clusters proposed; under arbitrary configurations (half-life 0, 1e-300 or
//! 1e300, NaN thresholds, ...).
//!
//! Input layout (decoded by hand, so seeds can be written; missing bytes read
//! as zero, so every input is valid):
//!
//! - 8 header bytes: `dimension = 1 + b0 % 8`; `b1` threshold, `b2` half-life,
//!   `b3` increment, `b4` client cap (each an index into a table below, `b1`
//!   past its table is `b1 / 127.5 - 1`); `b5 % 8` max clusters (7 → 10,000),
//!   `b5` bit 3 centroid linkage (else average);
//!   `b6` max exemplars (low nibble, 0 → 8) and tracked clients (high, 0 → 64);
//!   `b7` bits 0-2 min clients, bits 3-5 min occurrences (0 → default),
//!   bit 6 texts may repeat, bit 7 reference mode (no client cap, 1,000
//!   exemplars, sane half-lives: the heat is checked against a naive sum).
//! - then operations, one tag byte each (`tag % 8`): 0-1 ingest a vector,
//!   2 ingest text, 3 clock step, 4 snapshot → restore, 5 merge a replica,
//!   6 mark a cluster proposed, 7 clock jump of up to ±68 years.
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
//! | `pool-proposed` | a cluster marked proposed does not trigger again |
//! | `sanitize-clean` | sanitized text is non-empty, ≤ `MAX_FRAGMENT_CHARS`, without control characters |
//! | `embed-unit` | the embedding is finite and unit-norm or all zero |
#![no_main]

use std::collections::{BTreeSet, HashMap, HashSet};

use libfuzzer_sys::fuzz_target;
use sdsi::evolution::{
    Embedder, HashingEmbedder, Linkage, MAX_FRAGMENT_CHARS, Pool, PoolConfig, PoolError,
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

fn client(b: u8) -> String {
    format!("agent-{}", b % 6)
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
    /// Every instant seen, as Unix nanoseconds (kept sorted: sorting
    /// `OffsetDateTime`s after each operation was a twentieth of the run).
    times: BTreeSet<i128>,
    proposed: HashSet<u64>,
    /// Whether this input already checked merging with an empty pool and a
    /// foreign configuration (three pool copies; once per input is enough,
    /// the commutativity check runs at every merge).
    identity_checked: bool,
}

impl Run {
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
        let proposed = &self.proposed;
        // (`proposed` holds ids of the run's pool; a replica proposes nothing.)
        let replica_trace = replica.is_some();
        let pool = match replica {
            Some(p) => p,
            None => &mut self.pool,
        };
        let before = pool.len();
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
                    pool.cluster(got.cluster).is_some()
                        && pool.len() + shrank == before + usize::from(got.created)
                        && pool.len() <= config.max_clusters
                        && !(got.created && got.merged.is_some()),
                    "{got:?}: {before} -> {} clusters",
                    pool.len()
                );
                check!(
                    "pool-proposed",
                    replica_trace || !(got.triggered && proposed.contains(&got.cluster)),
                    "cluster {} was proposed and triggered again",
                    got.cluster
                );
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
                let mut who = client(b.u8());
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
                let raw = String::from_utf8_lossy(&raw);
                let Some(clean) = sanitize_fragment(&raw) else {
                    return;
                };
                check!(
                    "sanitize-clean",
                    !clean.text.is_empty()
                        && clean.text.chars().count() <= MAX_FRAGMENT_CHARS
                        && !clean.text.chars().any(char::is_control),
                    "{raw:?} -> {clean:?}"
                );
                if !self.repeat_texts
                    && !self
                        .used
                        .insert((clean.text.clone(), self.now.unix_timestamp_nanos()))
                {
                    return;
                }
                // The reference identifies fragments by text: each may occur once.
                if self.reference && !self.texts.insert(clean.text.clone()) {
                    return;
                }
                let v = self.embedder.embed(&clean.text);
                let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
                check!(
                    "embed-unit",
                    v.iter().all(|x| x.is_finite()) && (norm == 0.0 || (norm - 1.0).abs() < 1e-4),
                    "{:?} -> {v:?}",
                    clean.text
                );
                let who = if self.reference {
                    format!("{who}-{}", clean.text)
                } else {
                    who
                };
                self.ingest(None, &v, &clean.text, &who, self.now);
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
            4 => {
                let bytes = serde_json::to_vec(&self.pool);
                check!("pool-roundtrip", bytes.is_ok(), "{bytes:?}");
                let Ok(bytes) = bytes else { return };
                if null_heat(&bytes) {
                    // Reported by `check` after every operation.
                    return;
                }
                match serde_json::from_slice::<Pool>(&bytes) {
                    Ok(restored) => {
                        check!(
                            "pool-roundtrip",
                            restored == self.pool,
                            "restored pool differs: {:?}",
                            String::from_utf8_lossy(&bytes)
                        );
                        self.pool = restored;
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
            5 => {
                let n = b.u8() % 9;
                let mut other = Pool::new(self.config).unwrap_or_else(|_| self.pool.clone());
                let mut at = self.now;
                for _ in 0..n {
                    let mut who = client(b.u8());
                    at = at.checked_add(b.step()).unwrap_or(at);
                    self.times.insert(at.unix_timestamp_nanos());
                    let v = vector(b, dim);
                    let text = self.text(b, "g", at);
                    if self.reference {
                        who = format!("{who}-{text}");
                    }
                    self.ingest(Some(&mut other), &v, &text, &who, at);
                }
                self.merge(&other);
            }
            _ => {
                let k = usize::from(b.u8());
                let len = self.pool.len();
                if len > 0 {
                    let id = self.pool.clusters().nth(k % len).map(|c| c.id());
                    if let Some(id) = id {
                        if self.pool.mark_proposed(id, "seat_preference") {
                            self.proposed.insert(id);
                        }
                    }
                }
            }
        }
        self.times.insert(self.now.unix_timestamp_nanos());
    }

    fn merge(&mut self, other: &Pool) {
        let a = &self.pool;
        // Ids clashing across the two pools are the merge's to settle; ids
        // duplicated within one pool (`pool-ids-unique`) make `canonical()`
        // ambiguous.
        let unique = ids_unique(a) && ids_unique(other);
        // (and so do duplicates a merge creates, reported below).
        let (mut ab, mut ba) = (a.clone(), other.clone());
        let (r1, r2) = (ab.merge(other), ba.merge(a));
        match (&r1, &r2) {
            (Ok(()), Ok(())) => {
                // A NaN heat is unequal to itself (`pool-heat-nonfinite`).
                check!(
                    "pool-ids-unique",
                    ids_unique(&ab) && ids_unique(&ba),
                    "a.merge(b): {:?}, b.merge(a): {:?}",
                    ids(&ab),
                    ids(&ba)
                );
                let unique = unique && ids_unique(&ab) && ids_unique(&ba);
                if unique && !heat_nonfinite(&ab) && !heat_nonfinite(&ba) {
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
        if let (true, true, Ok(empty)) = (check_identity, ids_unique(a), Pool::new(self.config)) {
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
                Err(e) if zero_sum(&e) => check!("pool-zero-sum", false, "empty.merge(a): {e}"),
                Err(e) => check!("pool-merge-empty", false, "empty.merge(a): {e}"),
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
    fn check(&self) {
        if trace() {
            eprintln!("ids {:?}", ids(&self.pool));
        }
        check!(
            "pool-ids-unique",
            ids_unique(&self.pool),
            "duplicate cluster ids: {:?}",
            ids(&self.pool)
        );
        let h = self.config.half_life_secs;
        // Every instant seen, thinned to at most 24 (each probe costs a
        // reference sum per cluster), plus `now` and some around it.
        let stride = self.times.len().div_ceil(24).max(1);
        let instant = |n: &i128| OffsetDateTime::from_unix_timestamp_nanos(*n).ok();
        let mut probes: Vec<OffsetDateTime> = self
            .times
            .iter()
            .step_by(stride)
            .filter_map(instant)
            .collect();
        probes.extend(self.times.last().and_then(instant));
        probes.push(self.now);
        probes.extend(T0.checked_sub(Duration::days(400)));
        probes.extend(self.now.checked_add(Duration::days(400)));
        if h.is_finite() {
            for k in [0.5, 1.0, 4.0] {
                if let Some(t) = self
                    .now
                    .checked_add(Duration::seconds_f64((h * k).min(1e9)))
                {
                    probes.push(t);
                }
            }
        }
        probes.sort();
        for c in self.pool.clusters() {
            let clients: Vec<&str> = c.clients().collect();
            let distinct: HashSet<&str> = clients.iter().copied().collect();
            check!(
                "pool-clients-distinct",
                distinct.len() == clients.len(),
                "cluster {}: {clients:?}",
                c.id()
            );
            let mut previous = f64::INFINITY;
            for &t in &probes {
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
                let mine: Vec<Record> = c
                    .exemplars()
                    .iter()
                    .filter_map(|e| self.records.get(&e.text).copied())
                    .collect();
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
                for &t in &probes {
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
        let nonfinite = heat_nonfinite(&self.pool);
        check!(
            "pool-heat-nonfinite",
            !nonfinite,
            "a heat's log-sum is not finite (half-life {:e})",
            self.config.half_life_secs
        );
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
    format!("{} vs {} clusters", x.len(), y.len())
}

/// Whether a serialized pool holds a heat whose log-sum is not finite
/// (serde_json writes NaN and ±∞ as `null`).
fn null_heat(bytes: &[u8]) -> bool {
    // `str::contains` (std's two-way search, not instrumented) rather than a
    // `memcmp` per window, which libFuzzer's hook made a quarter of the run.
    std::str::from_utf8(bytes).is_ok_and(|text| text.contains(r#""heat":{"sum":[null"#))
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

fn ids_unique(pool: &Pool) -> bool {
    let all = ids(pool);
    all.iter().collect::<HashSet<_>>().len() == all.len()
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
    config.increment = b.pick(&INCREMENTS);
    config.client_heat_cap = b.pick(&CAPS);
    let b5 = b.u8();
    config.max_clusters = match b5 % 8 {
        7 => 10_000,
        n => usize::from(n),
    };
    if b5 & 8 != 0 {
        config.linkage = Linkage::Centroid;
    }
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
        times: BTreeSet::from([T0.unix_timestamp_nanos()]),
        proposed: HashSet::new(),
        identity_checked: false,
    };
    let mut ops = 0;
    while !b.is_empty() && ops < 64 {
        run.op(&mut b);
        run.check();
        ops += 1;
    }
    run.check_canonical();
});
