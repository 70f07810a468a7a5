//! Property tests for the Differential Semantic Pool: generated operation
//! sequences (ingest vectors or text, move the clock forward and back,
//! snapshot → restore, merge with an independently built replica) over small
//! dimensions, with the heat checked against a naive reference computation;
//! plus the sanitizer, the hashing embedder and the engine on arbitrary text.
//!
//! The named regression tests near the end reproduce bugs these properties
//! found (all fixed). Set `PROPTEST_CASES` for a longer run of every property.

use std::collections::{HashMap, HashSet};

use crate::common::{MIDNIGHT as T0, flight_store};
use proptest::prelude::*;
use sdsi::evolution::{
    ClusterView, Embedder, Evolution, EvolutionEngine, HashingEmbedder, MAX_FRAGMENT_CHARS, Pool,
    PoolConfig, PoolError, sanitize_fragment,
};
use serde_json::json;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

/// Vector dimension of the generated pools.
const D: usize = 6;
const DAY: f64 = 86_400.0;

/// `n`, or `PROPTEST_CASES` when set (for long runs).
fn cases(n: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

/// Seconds since the epoch, computed the way the pool does.
fn secs(t: OffsetDateTime) -> f64 {
    t.unix_timestamp() as f64 + f64::from(t.nanosecond()) / 1e9
}

/// Directions clusters form around; the first two are 0.8 apart, so clusters
/// around them drift into each other at thresholds up to about 0.8.
const PROTOS: [[f32; D]; 4] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.8, 0.6, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.6, 0.8],
];

/// A generated vector.
#[derive(Debug, Clone)]
enum Vector {
    /// A prototype plus noise: most ingests, so clusters form and merge.
    Near(usize, f32, [f32; D]),
    /// Any direction.
    Random([f32; D]),
    /// Zero, non-finite, wrong length, or badly scaled.
    Special(Special),
}

#[derive(Debug, Clone, Copy)]
enum Special {
    Zero,
    Nan(usize),
    Inf(usize, bool),
    Length(usize),
    /// Finite, non-zero, with every component scaled by 10^exp.
    Scaled(i32),
}

impl Vector {
    fn build(&self) -> Vec<f32> {
        match self {
            Vector::Near(p, scale, noise) => PROTOS[*p]
                .iter()
                .zip(noise)
                .map(|(x, n)| x + scale * n)
                .collect(),
            Vector::Random(v) => v.to_vec(),
            Vector::Special(s) => {
                let mut v = vec![0.3f32, -0.2, 0.5, 0.1, 0.0, 0.7];
                match *s {
                    Special::Zero => v.iter_mut().for_each(|x| *x = 0.0),
                    Special::Nan(i) => v[i % D] = f32::NAN,
                    Special::Inf(i, neg) => {
                        v[i % D] = if neg {
                            f32::NEG_INFINITY
                        } else {
                            f32::INFINITY
                        }
                    }
                    Special::Length(n) => v.resize(n, 0.25),
                    Special::Scaled(e) => v.iter_mut().for_each(|x| *x *= 10f32.powi(e)),
                }
                v
            }
        }
    }
}

/// What the pool must say about `v`, when the answer is certain.
fn expected_error(v: &[f32]) -> Option<PoolError> {
    if v.len() != D {
        Some(PoolError::Dimension {
            expected: D,
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

fn vector() -> impl Strategy<Value = Vector> {
    let noise = prop::array::uniform6(-1.0f32..1.0);
    let special = prop_oneof![
        Just(Special::Zero),
        (0..D).prop_map(Special::Nan),
        (0..D, any::<bool>()).prop_map(|(i, n)| Special::Inf(i, n)),
        prop_oneof![Just(0usize), Just(D - 1), Just(D + 1), Just(64)].prop_map(Special::Length),
        (-45i32..39).prop_map(Special::Scaled),
    ];
    prop_oneof![
        14 => (0..PROTOS.len(), 0.0f32..0.6, noise.clone()).prop_map(|(p, s, n)| Vector::Near(p, s, n)),
        3 => noise.prop_map(Vector::Random),
        3 => special.prop_map(Vector::Special),
    ]
}

/// A clock step in milliseconds: mostly forward, sometimes back, sometimes a jump.
fn step() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 0i64..7_200_000,
        2 => -7_200_000i64..0,
        1 => Just(0i64),
        1 => -40 * 86_400_000i64..40 * 86_400_000,
    ]
}

/// Short texts made of a few words, so the embedder gives related vectors
/// (and sometimes nothing: stopwords only, or no word at all).
fn text() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "window",
        "seat",
        "aisle",
        "meal",
        "vegetarian",
        "pet",
        "cat",
        "the",
        "a",
        "please",
        "late",
        "checkout",
        "card",
        "declined",
        "!!",
        "  ",
        "\u{7}",
        "シート",
        "窓側",
    ]);
    prop::collection::vec(words, 0..5).prop_map(|w| w.join(" "))
}

#[derive(Debug, Clone)]
enum Op {
    /// Ingest a pre-embedded vector from client `client` after moving the clock by `step` ms.
    Vector(Vector, u8, i64),
    /// Sanitize, embed with `HashingEmbedder` (dimension `D`) and ingest.
    Text(String, u8, i64),
    /// Move the clock by `step` ms (either way) without ingesting.
    Clock(i64),
    /// Replace the pool by `serde_json` round trip of itself.
    Snapshot,
    /// Build another replica from these ingests and merge it in.
    Merge(Vec<(Vector, u8, i64)>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (vector(), 0u8..6, step()).prop_map(|(v, c, s)| Op::Vector(v, c, s)),
        3 => (text(), 0u8..6, step()).prop_map(|(t, c, s)| Op::Text(t, c, s)),
        2 => step().prop_map(Op::Clock),
        1 => Just(Op::Snapshot),
        1 => prop::collection::vec((vector(), 0u8..6, step()), 0..8).prop_map(Op::Merge),
    ]
}

/// A pool configuration: any threshold, half-lives from the minimum (1 ms)
/// to 1e300 s, small pools so eviction happens, and the default per-client
/// cap, none, or one that stops everything.
fn config() -> impl Strategy<Value = PoolConfig> {
    (
        prop_oneof![
            Just(0.3f32),
            Just(0.6),
            Just(0.75),
            Just(0.9),
            0.05f32..0.99,
            -0.99f32..0.05,
            Just(-1.0),
            Just(1.0)
        ],
        prop::sample::select(vec![1e-3, 60.0, 3_600.0, DAY, 1e7, 1e300]),
        prop::sample::select(vec![1.0, 0.37, 2.5]),
        prop_oneof![Just(15.0), Just(1e9), Just(0.0), 0.5f64..20.0],
        prop_oneof![Just(10_000usize), 1usize..6],
        prop_oneof![Just(8usize), 1usize..4],
        prop_oneof![Just(64usize), 1usize..4],
        (1usize..6, 1usize..12),
    )
        .prop_map(
            |(threshold, half_life, inc, cap, max_clusters, exemplars, tracked, gate)| {
                let mut c = PoolConfig::new(D, threshold);
                c.half_life_secs = half_life;
                c.increment = inc;
                c.client_heat_cap = cap;
                c.max_clusters = max_clusters;
                c.max_exemplars = exemplars;
                c.max_tracked_clients = tracked;
                c.min_clients = gate.0;
                c.min_occurrences = gate.1;
                c.heat_threshold = 3.0;
                c
            },
        )
}

fn client(c: u8) -> String {
    format!("agent-{c}")
}

fn roundtrip(pool: &Pool) -> Pool {
    let bytes = serde_json::to_vec(pool).unwrap();
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("a snapshot must restore: {e}\n{pool:?}"))
}

/// Heat probes for every cluster: finite, not negative, and never growing as
/// `now` moves forward over `times` (sorted here).
fn check_heat(pool: &Pool, times: &mut [OffsetDateTime]) {
    times.sort();
    for c in pool.clusters() {
        let mut previous = f64::INFINITY;
        for &t in times.iter() {
            let h = c.heat(t);
            assert!(h.is_finite() && h >= 0.0, "heat {h} at {t} of {}", c.id());
            assert!(
                h <= previous,
                "heat grew without ingest: {previous} then {h} at {t}, cluster {}",
                c.id()
            );
            previous = h;
        }
    }
}

fn probes(now: OffsetDateTime, half_life: f64) -> Vec<OffsetDateTime> {
    let h = Duration::seconds_f64(half_life.min(1e9));
    let mut out = vec![
        now,
        now - Duration::days(90),
        now + Duration::milliseconds(1),
        now + Duration::days(1),
        now + Duration::days(400),
        datetime!(1970-01-01 0:00 UTC),
        datetime!(2200-01-01 0:00 UTC),
    ];
    for k in [0.5, 1.0, 3.0, 50.0] {
        if let Some(t) = now.checked_add(h * k) {
            out.push(t);
        }
    }
    out
}

/// Everything an operation sequence runs against.
struct Run {
    config: PoolConfig,
    pool: Pool,
    now: OffsetDateTime,
    embedder: HashingEmbedder,
    /// `(text, time)` pairs used so far. A cluster's id is a digest of the
    /// text and time that founded it; the pool keeps ids unique, except in
    /// one open case (`paired_cluster_does_not_take_an_existing_id`), so
    /// unless `repeat` is set, texts are unique and that case cannot arise.
    used: HashSet<(String, i128)>,
    /// Texts repeat (three of them), so clusters founded at the same instant
    /// by the same text are common.
    repeat: bool,
    serial: usize,
    times: Vec<OffsetDateTime>,
    stats: Stats,
}

/// What the ingests of a run did, to check the generators reach every case.
#[derive(Debug, Default, Clone, Copy)]
struct Stats {
    refused: usize,
    created: usize,
    joined: usize,
    drift_merged: usize,
    evicted: usize,
    triggered: usize,
    replica_pairs: usize,
}

impl Run {
    fn new(config: PoolConfig) -> Self {
        Self {
            config,
            pool: Pool::new(config).unwrap(),
            now: T0,
            embedder: HashingEmbedder::default().with_dimension(D),
            used: HashSet::new(),
            repeat: false,
            serial: 0,
            times: vec![T0],
            stats: Stats::default(),
        }
    }

    fn advance(now: OffsetDateTime, ms: i64) -> OffsetDateTime {
        now.checked_add(Duration::milliseconds(ms)).unwrap_or(now)
    }

    /// Ingests `v` into `pool`, checking the outcome against the input.
    fn ingest_vector(
        config: &PoolConfig,
        pool: &mut Pool,
        v: &[f32],
        text: &str,
        who: &str,
        now: OffsetDateTime,
        stats: &mut Stats,
    ) {
        let before = pool.len();
        let out = pool.ingest(v, text, false, who, now);
        match (expected_error(v), out) {
            (Some(e), Err(got)) => {
                stats.refused += 1;
                assert_eq!(got, e, "{v:?}");
            }
            (Some(e), Ok(got)) => panic!("{v:?} must fail with {e:?}, got {got:?}"),
            (None, Err(got)) => panic!("{v:?} refused: {got:?}"),
            (None, Ok(got)) => {
                assert!(pool.len() <= config.max_clusters);
                assert!(pool.cluster(got.cluster).is_some(), "{got:?}");
                let grew = usize::from(got.created);
                let shrank = usize::from(got.merged.is_some()) + usize::from(got.evicted.is_some());
                assert_eq!(pool.len() + shrank, before + grew, "{got:?}");
                assert!(!(got.created && got.merged.is_some()));
                assert!(got.evicted.is_none() || before == config.max_clusters);
                stats.created += usize::from(got.created);
                stats.joined += usize::from(!got.created);
                stats.drift_merged += usize::from(got.merged.is_some());
                stats.evicted += usize::from(got.evicted.is_some());
                stats.triggered += usize::from(got.triggered);
            }
        }
    }

    fn fresh_text(&mut self, prefix: &str, now: OffsetDateTime) -> String {
        if self.repeat {
            self.serial += 1;
            let texts = ["window seat", "vegetarian meal", "late checkout"];
            return texts[self.serial % texts.len()].to_owned();
        }
        loop {
            self.serial += 1;
            let t = format!("{prefix}{}", self.serial);
            if self.used.insert((t.clone(), now.unix_timestamp_nanos())) {
                return t;
            }
        }
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Vector(v, c, ms) => {
                self.now = Self::advance(self.now, *ms);
                let text = self.fresh_text("f", self.now);
                let v = v.build();
                Self::ingest_vector(
                    &self.config,
                    &mut self.pool,
                    &v,
                    &text,
                    &client(*c),
                    self.now,
                    &mut self.stats,
                );
            }
            Op::Text(raw, c, ms) => {
                self.now = Self::advance(self.now, *ms);
                let Some(clean) = sanitize_fragment(raw) else {
                    return;
                };
                if !self
                    .used
                    .insert((clean.text.clone(), self.now.unix_timestamp_nanos()))
                {
                    return;
                }
                let v = self.embedder.embed(&clean.text);
                Self::ingest_vector(
                    &self.config,
                    &mut self.pool,
                    &v,
                    &clean.text,
                    &client(*c),
                    self.now,
                    &mut self.stats,
                );
            }
            Op::Clock(ms) => {
                let before: Vec<(u64, f64)> = self
                    .pool
                    .clusters()
                    .map(|c| (c.id(), c.heat(self.now)))
                    .collect();
                let later = Self::advance(self.now, *ms);
                for (id, h) in before {
                    let now = self.pool.cluster(id).unwrap().heat(later);
                    if later >= self.now {
                        assert!(now <= h, "heat grew without ingest: {h} -> {now}");
                    } else {
                        assert!(now >= h, "heat fell going back in time: {h} -> {now}");
                    }
                }
                self.now = later;
            }
            Op::Snapshot => {
                let restored = roundtrip(&self.pool);
                assert!(
                    restored == self.pool,
                    "snapshot -> restore changed the pool"
                );
                assert_eq!(restored.canonical(), self.pool.canonical());
                self.pool = restored;
            }
            Op::Merge(ops) => {
                let mut other = Pool::new(self.config).unwrap();
                let mut now = self.now;
                for (v, c, ms) in ops {
                    now = Self::advance(now, *ms);
                    self.times.push(now);
                    let text = self.fresh_text("g", now);
                    let v = v.build();
                    Self::ingest_vector(
                        &self.config,
                        &mut other,
                        &v,
                        &text,
                        &client(*c),
                        now,
                        &mut self.stats,
                    );
                }
                check_merge(&self.pool, &other);
                let (mine, theirs) = (self.pool.len(), other.len());
                self.pool.merge(&other).unwrap();
                if self.pool.len() < mine + theirs && mine + theirs <= self.config.max_clusters {
                    self.stats.replica_pairs += 1;
                }
                assert!(self.pool.len() <= self.config.max_clusters);
            }
        }
        self.times.push(self.now);
    }
}

/// `a.merge(b)` and `b.merge(a)` agree; an empty pool is neutral both ways;
/// a pool of another configuration is refused and changes nothing.
fn check_merge(a: &Pool, b: &Pool) {
    let mut ab = a.clone();
    ab.merge(b).unwrap();
    let mut ba = b.clone();
    ba.merge(a).unwrap();
    check_ids(&ab);
    check_ids(&ba);
    assert!(
        ab.canonical() == ba.canonical(),
        "merge is not commutative:\n{:?}\n{:?}",
        summary(&ab),
        summary(&ba)
    );
    let empty = Pool::new(*a.config()).unwrap();
    let mut a_empty = a.clone();
    a_empty.merge(&empty).unwrap();
    assert!(a_empty.canonical() == a.canonical());
    let mut empty_a = empty.clone();
    empty_a.merge(a).unwrap();
    assert!(empty_a.canonical() == a.canonical());

    let mut other_config = *a.config();
    other_config.half_life_secs *= 2.0;
    let mut mismatched = a.clone();
    assert_eq!(
        mismatched.merge(&Pool::new(other_config).unwrap()),
        Err(PoolError::ConfigMismatch)
    );
    assert!(mismatched == *a);
}

/// Cluster ids are unique within a pool, and so are need ids; every
/// cluster is in exactly the need it names, each need holds the vectors of
/// its clusters and shares its proposal with them.
fn check_ids(pool: &Pool) {
    let ids: Vec<u64> = pool.clusters().map(|c| c.id()).collect();
    let distinct: HashSet<&u64> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "duplicate cluster ids: {ids:?}");
    let needs: Vec<u64> = pool.needs().map(|n| n.id()).collect();
    let distinct: HashSet<&u64> = needs.iter().collect();
    assert_eq!(distinct.len(), needs.len(), "duplicate need ids: {needs:?}");
    let mut seen = 0;
    for need in pool.needs() {
        let members: Vec<_> = need.clusters().collect();
        assert!(!members.is_empty(), "an empty need");
        seen += members.len();
        assert!(members.iter().all(|c| c.need() == need.id()));
        let vectors: u64 = members.iter().map(|c| c.members()).sum();
        assert_eq!(vectors, need.vectors());
        assert!(members.iter().all(|c| c.proposed() == need.proposed()));
    }
    assert_eq!(seen, pool.len(), "a cluster in no need, or in two");
}

fn summary(p: &Pool) -> Vec<(u64, u64, Vec<String>)> {
    p.canonical()
        .clusters()
        .map(|c| {
            (
                c.id(),
                c.occurrences(),
                c.exemplars().iter().map(|e| e.text.clone()).collect(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(192), ..ProptestConfig::default() })]

    /// Arbitrary operation sequences: typed errors for bad vectors, no panic,
    /// heat finite, ≥ 0 and never growing without ingest, snapshot → restore
    /// is the identity, merge is commutative and an empty pool is neutral.
    #[test]
    fn operation_sequences(config in config(), ops in prop::collection::vec(op(), 1..40)) {
        let mut run = Run::new(config);
        for op in &ops {
            run.apply(op);
            check_ids(&run.pool);
            let mut times = probes(run.now, config.half_life_secs);
            times.extend(run.times.iter().copied());
            check_heat(&run.pool, &mut times);
        }
        let restored = roundtrip(&run.pool);
        prop_assert!(restored == run.pool);
        let canonical = run.pool.canonical();
        prop_assert!(roundtrip(&canonical) == canonical);
        prop_assert!(canonical.canonical() == canonical);
        prop_assert!(canonical.same_clusters(&run.pool) && run.pool.same_clusters(&canonical));
    }
}

proptest! {
    // Many cases: the failing shape needs a replica cluster founded by the
    // same text at the same instant as one of ours that pairs with another.
    #![proptest_config(ProptestConfig {
        cases: cases(3000), ..ProptestConfig::default() })]

    /// The same with three texts only, often at the same instant: cluster
    /// ids stay unique and merge stays commutative.
    #[test]
    fn ids_stay_unique_with_repeated_texts(
        config in config(),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let mut run = Run::new(config);
        run.repeat = true;
        for op in &ops {
            run.apply(op);
            check_ids(&run.pool);
        }
    }
}

/// The generators reach every case: refused vectors, new clusters, joins,
/// drift merges, evictions, triggers and replica merges that pair clusters.
#[test]
fn generators_reach_every_case() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (config(), prop::collection::vec(op(), 1..40));
    let mut total = Stats::default();
    for _ in 0..200 {
        let (config, ops) = strategy.new_tree(&mut runner).unwrap().current();
        let mut run = Run::new(config);
        for op in &ops {
            run.apply(op);
        }
        let s = run.stats;
        total.refused += s.refused;
        total.created += s.created;
        total.joined += s.joined;
        total.drift_merged += s.drift_merged;
        total.evicted += s.evicted;
        total.triggered += s.triggered;
        total.replica_pairs += s.replica_pairs;
    }
    println!("{total:?}");
    let Stats {
        refused,
        created,
        joined,
        drift_merged,
        evicted,
        triggered,
        replica_pairs,
    } = total;
    for (name, n) in [
        ("refused", refused),
        ("created", created),
        ("joined", joined),
        ("drift_merged", drift_merged),
        ("evicted", evicted),
        ("triggered", triggered),
        ("replica_pairs", replica_pairs),
    ] {
        assert!(n >= 10, "only {n} {name} in 200 runs: {total:?}");
    }
}

/// One recorded ingest for the reference heat.
#[derive(Debug, Clone, Copy)]
struct Record {
    increment: f64,
    when: OffsetDateTime,
}

/// Σ incrementᵢ · 2^(−(now − tᵢ)/h), with `now` no earlier than the latest tᵢ.
fn naive_heat(records: &[Record], now: OffsetDateTime, half_life: f64) -> f64 {
    let latest = records.iter().map(|r| r.when).max();
    let now = secs(latest.map_or(now, |l| l.max(now)));
    records
        .iter()
        .map(|r| r.increment * 2f64.powf(-(now - secs(r.when)) / half_life))
        .sum()
}

/// The log-domain sum keeps exponents `(t − landmark)/h · ln 2` in f64, the
/// landmark being one of the cluster's increments: its precision is relative
/// to the largest such exponent, so allow a few ulps of it per operation.
/// Instants are f64 seconds on both sides, but rounded along different
/// paths, so their ~0.24 µs resolution counts too.
fn tolerance(records: &[Record], now: OffsetDateTime, half_life: f64) -> f64 {
    let times = records.iter().map(|r| secs(r.when));
    let latest = times.clone().fold(secs(now), f64::max);
    let earliest = times.fold(latest, f64::min);
    let exponent = (latest - earliest) / half_life * std::f64::consts::LN_2;
    // The pool and the reference round instants to f64 seconds along
    // different paths; an ulp or two of ~1.8e9 s is a relative error of
    // that over the half-life (found with a 1 ms half-life).
    let instants = 2.0 * latest.abs() * f64::EPSILON / half_life * std::f64::consts::LN_2;
    1e-12 + (records.len() as f64 + 4.0) * 4.0 * f64::EPSILON * (exponent + 1.0) + instants
}

fn assert_heat_matches(
    view: &ClusterView<'_>,
    records: &[Record],
    now: OffsetDateTime,
    half_life: f64,
) {
    let got = view.heat(now);
    let want = naive_heat(records, now, half_life);
    let tol = tolerance(records, now, half_life);
    assert!(
        (got - want).abs() <= tol * want.abs() + 1e-300,
        "cluster {}: heat {got} at {now}, reference {want} (tolerance {tol}) from {records:?}",
        view.id()
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(160), ..ProptestConfig::default() })]

    /// With no per-client cap, each cluster's heat equals the naive sum over
    /// the fragments it holds, through drift merges, snapshots and replica
    /// merges, at any `now`; a `now` before the latest increment reads the
    /// heat at the latest increment, exactly.
    #[test]
    fn heat_equals_naive_reference(
        threshold in prop_oneof![Just(0.6f32), Just(0.75), 0.3f32..0.95],
        half_life in prop::sample::select(vec![1e-3, 0.05, 1.0, 60.0, 3_600.0, DAY, 1e7, 1e300]),
        increment in prop::sample::select(vec![1.0, 0.37, 2.5, 1e-3]),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let mut config = PoolConfig::new(D, threshold);
        config.half_life_secs = half_life;
        config.increment = increment;
        config.client_heat_cap = 1e9;
        // Exemplars identify the fragments a cluster holds: every text is
        // unique and none is forgotten.
        config.max_exemplars = 1_000;
        let mut run = Run::new(config);
        let mut records: HashMap<String, Record> = HashMap::new();
        let record = |records: &mut HashMap<String, Record>, pool: &Pool, text: &str, when| {
            if pool.clusters().any(|c| c.exemplars().iter().any(|e| e.text == text)) {
                records.insert(text.to_owned(), Record { increment, when });
            }
        };
        for op in &ops {
            match op {
                Op::Vector(v, c, ms) => {
                    run.now = Run::advance(run.now, *ms);
                    let text = run.fresh_text("f", run.now);
                    // A client per fragment: every ingest is its own request
                    // (the fragments of one request add no heat; tested below).
                    let who = format!("{}-{text}", client(*c));
                    let _ = run.pool.ingest(&v.build(), &text, false, &who, run.now);
                    record(&mut records, &run.pool, &text, run.now);
                }
                Op::Merge(ingests) => {
                    let mut other = Pool::new(config).unwrap();
                    let mut now = run.now;
                    for (v, c, ms) in ingests {
                        now = Run::advance(now, *ms);
                        let text = run.fresh_text("g", now);
                        let who = format!("{}-{text}", client(*c));
                        let _ = other.ingest(&v.build(), &text, false, &who, now);
                        record(&mut records, &other, &text, now);
                    }
                    run.pool.merge(&other).unwrap();
                }
                Op::Text(..) => {}
                other => run.apply(other),
            }
            let now = run.now;
            let span = Duration::seconds_f64(half_life.min(1e9));
            let mut held = 0;
            for view in run.pool.clusters() {
                let mine: Vec<Record> = view
                    .exemplars()
                    .iter()
                    .map(|e| records[&e.text])
                    .collect();
                held += mine.len();
                prop_assert_eq!(view.occurrences(), mine.len() as u64);
                let latest = mine.iter().map(|r| r.when).max().unwrap();
                let earliest = mine.iter().map(|r| r.when).min().unwrap();
                for probe in [now, latest, latest + span * 0.25, latest + span,
                              latest + Duration::days(40)] {
                    assert_heat_matches(&view, &mine, probe, half_life);
                }
                // Before the latest increment: the heat at the latest, bit for bit.
                let at_latest = view.heat(latest);
                prop_assert_eq!(view.heat(earliest - Duration::days(1)).to_bits(), at_latest.to_bits());
                prop_assert_eq!(view.heat(latest - Duration::milliseconds(1)).to_bits(), at_latest.to_bits());
            }
            // No cluster was evicted (max_clusters is 10,000): every fragment is held.
            prop_assert_eq!(held, records.len());
        }
    }

    /// With the per-client cap, a client adds at most `client_heat_cap` to a
    /// cluster within the sliding window before each request, increment by
    /// increment, in ingest order; a fragment from the same client at the
    /// same instant as the last is the same request and adds nothing; the
    /// heat equals the reference sum of what was allowed. (The reference
    /// forgets a client's grants older than its latest minus the window, as
    /// the pool does to stay bounded; with time that never goes back that
    /// loses nothing, and `any_window_holds_the_cap` checks the cap itself.)
    #[test]
    fn per_client_cap_matches_reference(
        cap in prop_oneof![Just(15.0), Just(0.0), Just(2.5), 0.1f64..10.0],
        increment in prop::sample::select(vec![1.0, 0.7, 4.0]),
        half_life in prop::sample::select(vec![1e-3, 3_600.0, DAY, 1e300]),
        ingests in prop::collection::vec((0u8..6, -3 * 86_400_000i64..3 * 86_400_000), 1..40),
    ) {
        let mut config = PoolConfig::new(2, 0.9);
        config.client_heat_cap = cap;
        config.increment = increment;
        config.half_life_secs = half_life;
        let window = config.window_secs;
        let mut pool = Pool::new(config).unwrap();
        let mut grants: HashMap<u8, Vec<(f64, f64)>> = HashMap::new();
        let mut last: Option<(u8, f64)> = None;
        let mut requests = 0u64;
        let mut records = Vec::new();
        let mut now = T0;
        for (i, (c, ms)) in ingests.iter().enumerate() {
            now = Run::advance(now, *ms);
            let t = secs(now);
            pool.ingest(&[1.0, 0.0], &format!("f{i}"), false, &client(*c), now).unwrap();
            if last != Some((*c, t)) {
                last = Some((*c, t));
                requests += 1;
                let mine = grants.entry(*c).or_default();
                let recent: f64 = mine.iter().filter(|(g, _)| *g > t - window).map(|(_, a)| a).sum();
                // As the pool: room under the cap that is rounding noise is none.
                let room = cap - recent;
                let allowed = if room > increment * 1e-9 { room.min(increment) } else { 0.0 };
                if allowed > 0.0 {
                    mine.push((t, allowed));
                    let latest = mine.iter().map(|(g, _)| *g).fold(f64::NEG_INFINITY, f64::max);
                    mine.retain(|(g, _)| *g > latest - window);
                    records.push(Record { increment: allowed, when: now });
                }
            }
            prop_assert_eq!(pool.len(), 1);
            let view = pool.clusters().next().unwrap();
            prop_assert_eq!(view.occurrences(), requests);
            assert_heat_matches(&view, &records, now, half_life);
            assert_heat_matches(&view, &records, now + Duration::days(1), half_life);
        }
    }

    /// Time moving forward, one client never adds more than the cap within
    /// any window's length, wherever the window starts.
    #[test]
    fn any_window_holds_the_cap(
        cap in prop_oneof![Just(15.0), Just(2.5), 0.1f64..10.0],
        increment in prop::sample::select(vec![1.0, 0.7, 4.0]),
        steps in prop::collection::vec(0i64..2 * 86_400_000, 1..60),
    ) {
        let mut config = PoolConfig::new(2, 0.9);
        config.client_heat_cap = cap;
        config.increment = increment;
        config.half_life_secs = 1e300;
        let window = config.window_secs;
        let mut pool = Pool::new(config).unwrap();
        let mut now = T0;
        let mut added: Vec<(f64, f64)> = Vec::new();
        let mut before = 0.0;
        for (i, ms) in steps.iter().enumerate() {
            now = Run::advance(now, (*ms).max(1));
            pool.ingest(&[1.0, 0.0], &format!("f{i}"), false, "agent-1", now).unwrap();
            let heat = pool.clusters().next().unwrap().heat(now);
            added.push((secs(now), heat - before));
            before = heat;
        }
        for (start, _) in &added {
            let total: f64 = added.iter().filter(|(t, _)| *t >= *start && *t < start + window).map(|(_, a)| a).sum();
            prop_assert!(total <= cap + 1e-6, "{} within a window from {}", total, start);
        }
    }
}

#[test]
fn the_cap_holds_one_client_to_fifteen_in_any_week() {
    let mut config = PoolConfig::new(2, 0.9);
    config.half_life_secs = 1e300; // no decay: the heat is the sum of what was added
    let heat_at = |pool: &Pool, t| pool.clusters().next().unwrap().heat(t);
    let mut pool = Pool::new(config).unwrap();
    // 2026-04-30 00:00 UTC is where a tumbling window would have started.
    let edge = datetime!(2026-04-30 0:00 UTC);
    // Twenty requests in the last twenty minutes before that edge, twenty in
    // the twenty after: a tumbling window let 15 + 15 through; a sliding one 15.
    for i in 0..40 {
        let at = edge - Duration::minutes(20) + Duration::minutes(i);
        pool.ingest(&[1.0, 0.0], "window seat", false, "agent-1", at)
            .unwrap();
    }
    let after = edge + Duration::minutes(20);
    assert!(
        (heat_at(&pool, after) - 15.0).abs() < 1e-9,
        "{}",
        heat_at(&pool, after)
    );
    // Another client is not held back by the first one's cap.
    pool.ingest(&[1.0, 0.0], "window seat", false, "agent-2", after)
        .unwrap();
    assert!((heat_at(&pool, after) - 16.0).abs() < 1e-9);
    // A week after its first grant, the first unit leaves agent-1's window.
    let week_on = edge - Duration::minutes(20) + Duration::days(7) + Duration::seconds(30);
    pool.ingest(&[1.0, 0.0], "window seat", false, "agent-1", week_on)
        .unwrap();
    assert!(
        (heat_at(&pool, week_on) - 17.0).abs() < 1e-9,
        "{}",
        heat_at(&pool, week_on)
    );
}

/// One message's fragments are one request: they add one occurrence and one
/// increment, not one each; the same client at another instant is another.
#[test]
fn fragments_of_one_request_count_once() {
    let mut config = PoolConfig::new(2, 0.9);
    config.half_life_secs = 1e300;
    let mut pool = Pool::new(config).unwrap();
    let at = datetime!(2026-05-01 8:00 UTC);
    for i in 0..20 {
        pool.ingest(&[1.0, 0.0], &format!("extra bag {i}"), false, "agent-1", at)
            .unwrap();
    }
    let view = pool.clusters().next().unwrap();
    assert_eq!(view.occurrences(), 1);
    assert!((view.heat(at) - 1.0).abs() < 1e-12);
    // Their texts are remembered, one client holding at most a quarter of
    // the 8 exemplar slots.
    assert_eq!(view.exemplars().len(), 2);
    pool.ingest(
        &[1.0, 0.0],
        "extra bag",
        false,
        "agent-1",
        at + Duration::seconds(1),
    )
    .unwrap();
    assert_eq!(pool.clusters().next().unwrap().occurrences(), 2);
}

/// A client that sends many phrasings cannot fill a cluster's exemplars (and
/// so write its description) alone: others' words keep their places.
#[test]
fn one_client_holds_at_most_a_quarter_of_the_exemplars() {
    let mut pool = Pool::new(PoolConfig::new(2, 0.9)).unwrap();
    let at = datetime!(2026-05-01 8:00 UTC);
    for i in 0..30 {
        let t = at + Duration::seconds(i);
        pool.ingest(&[1.0, 0.0], &format!("loud {i}"), false, "agent-loud", t)
            .unwrap();
    }
    for (i, c) in ["agent-a", "agent-b", "agent-c"].iter().enumerate() {
        let t = at + Duration::minutes(10 + i as i64);
        pool.ingest(&[1.0, 0.0], &format!("quiet {c}"), false, c, t)
            .unwrap();
    }
    let view = pool.clusters().next().unwrap();
    let loud = view
        .exemplars()
        .iter()
        .filter(|e| e.client == "agent-loud")
        .count();
    assert_eq!(loud, 2);
    assert_eq!(view.exemplars().len(), 5);
}

#[test]
fn configuration_errors_are_typed() {
    let bad = |f: &dyn Fn(&mut PoolConfig)| {
        let mut c = PoolConfig::new(4, 0.5);
        f(&mut c);
        match Pool::new(c) {
            Err(PoolError::Config(msg)) => {
                assert!(!msg.is_empty() && !msg.ends_with('.'));
                let text = PoolError::Config(msg).to_string();
                assert!(text.starts_with("invalid pool configuration: "), "{text}");
            }
            other => panic!("{c:?} must be refused, got {other:?}"),
        }
    };
    bad(&|c| c.half_life_secs = 0.0);
    bad(&|c| c.half_life_secs = -0.0);
    bad(&|c| c.half_life_secs = -1.0);
    bad(&|c| c.half_life_secs = f64::NAN);
    bad(&|c| c.half_life_secs = f64::INFINITY);
    bad(&|c| c.threshold = f32::NAN);
    bad(&|c| c.threshold = 1.5);
    bad(&|c| c.threshold = f32::NEG_INFINITY);
    bad(&|c| c.dimension = 0);
    bad(&|c| c.window_secs = 0.0);
    bad(&|c| c.increment = 0.0);
    bad(&|c| c.increment = f64::NAN);
    bad(&|c| c.client_heat_cap = f64::NAN);
    bad(&|c| c.client_heat_cap = -1.0);
    bad(&|c| c.heat_threshold = f64::INFINITY);
    bad(&|c| c.max_clusters = 0);
    bad(&|c| c.max_exemplars = 0);
    bad(&|c| c.min_clients = 0);
    bad(&|c| c.min_occurrences = 0);

    // A restore goes through the same checks.
    let mut snapshot = serde_json::to_value(Pool::new(PoolConfig::new(4, 0.5)).unwrap()).unwrap();
    snapshot["config"]["half_life_secs"] = json!(0.0);
    let err = serde_json::from_value::<Pool>(snapshot).unwrap_err();
    assert!(err.to_string().contains("half-life"), "{err}");
}

#[test]
fn enormous_half_life_means_no_decay() {
    let mut config = PoolConfig::new(2, 0.9);
    config.half_life_secs = 1e300;
    let mut pool = Pool::new(config).unwrap();
    pool.ingest(&[1.0, 0.0], "a", false, "agent-1", T0).unwrap();
    pool.ingest(
        &[1.0, 0.1],
        "b",
        false,
        "agent-2",
        T0 + Duration::days(3000),
    )
    .unwrap();
    let c = pool.clusters().next().unwrap();
    assert_eq!(c.heat(datetime!(9999-12-31 0:00 UTC)), 2.0);
    assert_eq!(c.heat(datetime!(-9999-01-01 0:00 UTC)), 2.0);
    assert!(roundtrip(&pool) == pool);
}

#[test]
fn extreme_instants_are_defined() {
    let mut pool = Pool::new(PoolConfig::new(2, 0.9)).unwrap();
    for (i, t) in [
        OffsetDateTime::UNIX_EPOCH,
        datetime!(-9999-01-01 0:00 UTC),
        datetime!(9999-12-31 23:59:59.999_999_999 UTC),
        T0,
    ]
    .into_iter()
    .enumerate()
    {
        pool.ingest(&[1.0, 0.0], &format!("f{i}"), false, "agent-1", t)
            .unwrap();
        let c = pool.clusters().next().unwrap();
        for probe in [
            t,
            OffsetDateTime::UNIX_EPOCH,
            datetime!(9999-12-31 0:00 UTC),
        ] {
            let h = c.heat(probe);
            assert!(h.is_finite() && h >= 0.0, "{h}");
        }
    }
    assert!(roundtrip(&pool) == pool);
}

#[test]
fn bad_vectors_get_typed_errors() {
    let mut pool = Pool::new(PoolConfig::new(3, 0.5)).unwrap();
    let cases: [(&[f32], PoolError); 6] = [
        (
            &[],
            PoolError::Dimension {
                expected: 3,
                found: 0,
            },
        ),
        (
            &[1.0, 0.0],
            PoolError::Dimension {
                expected: 3,
                found: 2,
            },
        ),
        (&[0.0, 0.0, 0.0], PoolError::ZeroVector),
        (&[-0.0, 0.0, -0.0], PoolError::ZeroVector),
        (&[f32::NAN, 1.0, 0.0], PoolError::NonFinite),
        (&[1.0, f32::NEG_INFINITY, 0.0], PoolError::NonFinite),
    ];
    for (v, e) in cases {
        assert_eq!(pool.ingest(v, "x", false, "agent", T0), Err(e), "{v:?}");
    }
    assert!(pool.is_empty());
    // The smallest and largest well-scaled vectors are fine.
    pool.ingest(&[1e-15, 0.0, 0.0], "x", false, "agent", T0)
        .unwrap();
    pool.ingest(&[0.0, 1e15, 0.0], "y", false, "agent", T0)
        .unwrap();
    assert_eq!(pool.len(), 2);
}

// Regression tests for bugs these properties and the `pool_ops` fuzz target
// found, all fixed.

/// A finite, non-zero vector whose squared norm over- or underflows f32
/// (`[1e20, 0, 0]`, `[1e-25, 0, 0]`) points somewhere and must be accepted
/// (it used to be refused as "vector is zero").
#[test]
fn badly_scaled_vectors_are_accepted() {
    let mut pool = Pool::new(PoolConfig::new(3, 0.5)).unwrap();
    for (i, v) in [
        [1e20f32, 0.0, 0.0],
        [1e-25, 0.0, 0.0],
        [0.0, f32::MAX, f32::MAX],
    ]
    .iter()
    .enumerate()
    {
        let got = pool.ingest(v, &format!("x{i}"), false, "agent", T0);
        assert!(got.is_ok(), "{v:?}: {got:?}");
    }
    assert!(roundtrip(&pool) == pool);
}

/// Two clusters founded by the same text at the same instant (pre-embedded
/// vectors that disagree) get distinct ids (they used to share one).
#[test]
fn same_text_same_instant_gets_distinct_ids() {
    let mut pool = Pool::new(PoolConfig::new(2, 0.9)).unwrap();
    let a = pool
        .ingest(&[1.0, 0.0], "window seat", false, "agent-1", T0)
        .unwrap();
    let b = pool
        .ingest(&[0.0, 1.0], "window seat", false, "agent-2", T0)
        .unwrap();
    assert!(a.created && b.created);
    assert_ne!(a.cluster, b.cluster, "two clusters, one id");
    assert_eq!(pool.cluster(b.cluster).unwrap().centroid(), [0.0, 1.0]);
}

/// Two replicas found a cluster from "window seat" at the same instant, but
/// their vectors disagree, so the clusters do not pair: the merged pool keeps
/// both with distinct ids, whichever way round it is merged.
#[test]
fn clashing_ids_across_replicas_stay_distinct_and_commutative() {
    let config = PoolConfig::new(2, 0.9);
    let mut a = Pool::new(config).unwrap();
    a.ingest(&[1.0, 0.0], "window seat", false, "agent-1", T0)
        .unwrap();
    let mut b = Pool::new(config).unwrap();
    b.ingest(&[0.0, 1.0], "window seat", false, "agent-2", T0)
        .unwrap();
    let mut ab = a.clone();
    ab.merge(&b).unwrap();
    let mut ba = b.clone();
    ba.merge(&a).unwrap();
    assert!(ab.canonical() == ba.canonical(), "merge is not commutative");
    let ids: HashSet<u64> = ab.clusters().map(|c| c.id()).collect();
    assert_eq!(ids.len(), ab.len(), "merged pool has duplicate ids");
}

/// A merged cluster lists each client once (`keep_recent_clients` used to
/// sort by time and then drop only adjacent equal names), so one client
/// never counts as several towards the gate's `min_clients`.
#[test]
fn merged_cluster_counts_each_client_once() {
    let config = PoolConfig::new(2, 0.9);
    let mut a = Pool::new(config).unwrap();
    let s = |x: i64| T0 + Duration::seconds(x);
    a.ingest(&[1.0, 0.0], "window seat", false, "agent-x", s(5))
        .unwrap();
    let mut b = Pool::new(config).unwrap();
    b.ingest(&[1.0, 0.0], "window seat please", false, "agent-x", s(3))
        .unwrap();
    b.ingest(&[1.0, 0.0], "window seat please", false, "agent-y", s(4))
        .unwrap();
    a.merge(&b).unwrap();
    assert_eq!(a.len(), 1);
    let c = a.clusters().next().unwrap();
    let clients: Vec<&str> = c.clients().collect();
    assert_eq!(clients, ["agent-x", "agent-y"]);
    assert_eq!(c.recent_clients(s(10)), 2);
}

/// The same, through a drift merge inside one pool.
#[test]
fn drift_merged_cluster_counts_each_client_once() {
    let mut config = PoolConfig::new(2, 0.8);
    config.min_clients = 3;
    let mut pool = Pool::new(config).unwrap();
    let s = |x: i64| T0 + Duration::seconds(x);
    // Two clusters 60° apart (cos 0.5, below the threshold of 0.8).
    let a = pool
        .ingest(&[1.0, 0.0], "a1", false, "agent-x", s(5))
        .unwrap();
    let b = pool
        .ingest(&[0.5, 0.866], "b1", false, "agent-x", s(3))
        .unwrap();
    pool.ingest(&[0.5, 0.866], "b2", false, "agent-y", s(4))
        .unwrap();
    assert!(a.created && b.created && pool.len() == 2);
    // Fragments in between (28° from the first, 32° from the second) join
    // the first and pull it within the threshold of the second (after five).
    let mut merged = None;
    for i in 0..8 {
        let out = pool
            .ingest(&[0.88, 0.47], &format!("m{i}"), false, "agent-x", s(6))
            .unwrap();
        merged = merged.or(out.merged);
    }
    assert!(merged.is_some(), "the clusters did not drift together");
    assert_eq!(pool.len(), 1);
    let c = pool.clusters().next().unwrap();
    let clients: Vec<&str> = c.clients().collect();
    assert_eq!(clients, ["agent-x", "agent-y"]);
}

/// Bug (open; found by the `pool_ops` fuzz target, reproducer
/// `fuzz/regressions/pool_ops/pool-ids-unique-paired-cluster-takes-existing-id`):
/// a cluster that pairs in a merge takes the smaller of the two ids
/// (`ClusterState::absorb`), and that id may already belong to *another*
/// cluster of the pool merged into. Replica B founded "window seat" at T0 on
/// `[0, 1]`; replica A founded "window seat" at T0 on `[1, 0]` and holds a
/// `[0, 1]` cluster with a larger id. B's cluster pairs with A's `[0, 1]`
/// one, which then takes the id of A's `[1, 0]` cluster: two clusters, one
/// id, and `a.merge(b)` no longer equals `b.merge(a)` (where the clash is
/// settled by `settle_id_clash`).
#[test]
fn paired_cluster_does_not_take_an_existing_id() {
    let config = PoolConfig::new(2, 0.9);
    let mut a = Pool::new(config).unwrap();
    let x = a
        .ingest(&[1.0, 0.0], "window seat", false, "agent-0", T0)
        .unwrap()
        .cluster;
    // A second cluster whose id sorts after the first one's.
    let later = T0 + Duration::milliseconds(1);
    let y = (0..)
        .map(|i| {
            let mut probe = a.clone();
            let text = format!("vegetarian meal {i}");
            let id = probe
                .ingest(&[0.0, 1.0], &text, false, "agent-1", later)
                .unwrap()
                .cluster;
            (text, id)
        })
        .find(|(_, id)| *id > x)
        .unwrap();
    a.ingest(&[0.0, 1.0], &y.0, false, "agent-1", later)
        .unwrap();
    let mut b = Pool::new(config).unwrap();
    let z = b
        .ingest(&[0.0, 1.0], "window seat", false, "agent-2", T0)
        .unwrap()
        .cluster;
    assert_eq!(z, x, "same text, same instant, fresh pool: same id");

    let mut ab = a.clone();
    ab.merge(&b).unwrap();
    let mut ba = b.clone();
    ba.merge(&a).unwrap();
    let ids: Vec<u64> = ab.clusters().map(|c| c.id()).collect();
    assert_eq!(
        ids.iter().collect::<HashSet<_>>().len(),
        ids.len(),
        "a.merge(b) has duplicate ids: {ids:?}"
    );
    assert!(ab.canonical() == ba.canonical(), "merge is not commutative");
}

/// Bug (open; found by the `pool_ops` fuzz target, reproducer
/// `fuzz/regressions/pool_ops/pool-merge-commutative-id-probe-chain`): a
/// clash is settled by moving one cluster to the next free id along
/// `id + k·φ`, but which ids are free depends on the order the clusters are
/// pushed, so three clusters founded by the same text at the same instant
/// (two in one replica, one in the other) end up with different ids in
/// `a.merge(b)` and `b.merge(a)`.
#[test]
fn id_clash_settling_is_commutative() {
    let config = PoolConfig::new(3, 0.9);
    let mut a = Pool::new(config).unwrap();
    let x = a
        .ingest(&[0.0, 1.0, 0.0], "window seat", false, "agent-0", T0)
        .unwrap()
        .cluster;
    let y = a
        .ingest(&[1.0, 0.0, 0.0], "window seat", false, "agent-1", T0)
        .unwrap()
        .cluster;
    assert_ne!(x, y);
    let mut b = Pool::new(config).unwrap();
    b.ingest(&[0.0, 0.0, 1.0], "window seat", false, "agent-2", T0)
        .unwrap();
    let mut ab = a.clone();
    ab.merge(&b).unwrap();
    let mut ba = b.clone();
    ba.merge(&a).unwrap();
    let ids = |p: &Pool| -> Vec<(u64, Vec<f32>)> {
        p.canonical()
            .clusters()
            .map(|c| (c.id(), c.centroid().to_vec()))
            .collect()
    };
    assert!(
        ab.canonical() == ba.canonical(),
        "a.merge(b): {:?}\nb.merge(a): {:?}",
        ids(&ab),
        ids(&ba)
    );
}

/// A threshold of -1 lets any vector join any cluster; a vector pointing
/// exactly the other way must not cancel a cluster's running sum to zero
/// (that pool could not be restored, nor merged into an empty one).
#[test]
fn threshold_minus_one_snapshot_restores() {
    let mut pool = Pool::new(PoolConfig::new(2, -1.0)).unwrap();
    pool.ingest(&[1.0, 0.0], "a", false, "agent-1", T0).unwrap();
    pool.ingest(&[-1.0, 0.0], "b", false, "agent-1", T0)
        .unwrap();
    pool.ingest(&[0.0, 1.0], "c", false, "agent-1", T0).unwrap();
    let mut empty = Pool::new(*pool.config()).unwrap();
    empty.merge(&pool).unwrap();
    assert!(empty.canonical() == pool.canonical());
    assert!(roundtrip(&pool) == pool);
    for c in pool.clusters() {
        // A mean of unit vectors is at most unit length.
        let norm: f32 = c.centroid().iter().map(|x| x * x).sum();
        assert!(norm > 0.0 && norm <= 1.0 + 1e-5, "{:?}", c.centroid());
    }
}

/// Half-lives under a millisecond are refused (they used to overflow `t/h`
/// into a non-finite heat that serialized as `null` and did not restore);
/// from a millisecond up the heat is precise and snapshots restore, even
/// across the whole range of instants.
#[test]
fn half_life_floor_is_typed_and_precise() {
    for half_life in [9e-4, 1e-6, 1e-300, f64::MIN_POSITIVE] {
        let mut config = PoolConfig::new(2, 0.9);
        config.half_life_secs = half_life;
        assert!(
            matches!(Pool::new(config), Err(PoolError::Config(_))),
            "half-life {half_life} accepted"
        );
    }
    for half_life in [1e-3, 1e-2, 1.0] {
        let mut config = PoolConfig::new(2, 0.9);
        config.half_life_secs = half_life;
        let mut pool = Pool::new(config).unwrap();
        pool.ingest(&[1.0, 0.0], "a", false, "agent-1", T0).unwrap();
        pool.ingest(&[1.0, 0.0], "b", false, "agent-2", T0).unwrap();
        let c = pool.clusters().next().unwrap();
        let heat = c.heat(T0);
        assert!((heat - 2.0).abs() < 1e-9, "half-life {half_life}: {heat}");
        let later = T0 + Duration::seconds_f64(half_life);
        // Instants become f64 seconds since the epoch, which resolve ~0.24 µs
        // in 2026: relative to a 1 ms half-life that is a 2e-4 error.
        let tol = 1e-9 + 2.0 * f64::EPSILON * secs(later) / half_life;
        assert!((c.heat(later) - 1.0).abs() < tol, "{}", c.heat(later));
        for t in [
            datetime!(-9999-01-01 0:00 UTC),
            datetime!(9999-12-31 23:59:59 UTC),
        ] {
            pool.ingest(&[1.0, 0.0], &format!("{t}"), false, "agent-3", t)
                .unwrap();
            let h = pool.clusters().next().unwrap().heat(t);
            assert!(h.is_finite() && h >= 0.0, "{h}");
            assert!(roundtrip(&pool) == pool);
        }
    }
}

/// A fragment whose first word is longer than `MAX_FRAGMENT_CHARS` (text
/// in a script without spaces, a long run of letters) is cut, not dropped;
/// a URL is taken out (it may carry an instruction in its query).
#[test]
fn long_unspaced_fragments_are_cut_not_dropped() {
    let cjk = "我想要一个靠窗的座位".repeat(60);
    let s = sanitize_fragment(&cjk).expect("600 characters of Chinese vanished");
    assert!(s.truncated);
    assert_eq!(s.text.chars().count(), MAX_FRAGMENT_CHARS);
    let long = format!("{} window seat", "a".repeat(600));
    assert_eq!(
        sanitize_fragment(&long).map(|s| s.text.chars().count()),
        Some(MAX_FRAGMENT_CHARS)
    );
    let url = "window seat https://example.com/?note=anything";
    assert_eq!(
        sanitize_fragment(url).map(|s| s.text),
        Some("window seat".to_owned())
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(512), ..ProptestConfig::default() })]

    /// The sanitizer never panics; its output has no control or invisible
    /// characters, no doubled or outer whitespace, at most `MAX_FRAGMENT_CHARS`.
    #[test]
    fn sanitize_output_is_clean(s in prop_oneof![
        any::<String>(),
        "(\\PC| |\\t|\\n|\\x00|\u{200B}|\u{202E}|\u{FEFF}){0,80}",
        (".{0,8}", 1usize..200).prop_map(|(w, n)| w.repeat(n)),
    ]) {
        if let Some(clean) = sanitize_fragment(&s) {
            let t = &clean.text;
            prop_assert!(!t.is_empty());
            prop_assert!(t.chars().count() <= MAX_FRAGMENT_CHARS);
            prop_assert!(!t.chars().any(char::is_control), "{:?}", t);
            prop_assert!(!t.chars().any(invisible), "{:?}", t);
            prop_assert!(!t.contains("  ") && t.trim() == t, "{:?}", t);
            let kept = |c: &char| !c.is_whitespace() && !c.is_control() && !invisible(*c);
            // Only a cut, a dropped part (flagged) or an identifier
            // (`a_b`, `isAdmin`) loses characters.
            let lost = t.chars().filter(kept).count() != s.chars().filter(kept).count();
            prop_assert!(!lost || clean.truncated || clean.flagged
                || s.contains('_') || s.chars().any(char::is_uppercase), "{:?} -> {:?}", s, t);
            // Sanitizing is idempotent: what is kept has nothing left to drop.
            let again = sanitize_fragment(t).unwrap();
            prop_assert_eq!(&again.text, t);
            prop_assert!(!again.flagged);
        }
    }

    /// The hashing embedder gives a finite vector of the right length that is
    /// unit-norm or all zero, for any text, with any dimension.
    #[test]
    fn embedder_output_is_unit_or_zero(
        s in prop_oneof![any::<String>(), "[a-z ]{0,60}", "(the |a |please )*"],
        dim in prop_oneof![Just(1024usize), 1usize..40],
    ) {
        let e = HashingEmbedder::default().with_dimension(dim);
        let v = e.embed(&s);
        prop_assert_eq!(v.len(), dim);
        check_unit_or_zero(&v);
        // embed_into overwrites whatever the buffer held.
        let mut buf = vec![f32::NAN; dim];
        e.embed_into(&s, &mut buf);
        prop_assert!(buf == v);
    }
}

/// Format and zero-width characters the sanitizer removes.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

fn check_unit_or_zero(v: &[f32]) {
    assert!(v.iter().all(|x| x.is_finite()), "{v:?}");
    let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    assert!(norm == 0.0 || (norm - 1.0).abs() < 1e-4, "norm {norm}");
}

#[test]
fn embedder_and_sanitizer_take_huge_and_empty_fragments() {
    let huge = [
        String::new(),
        " ".repeat(1 << 18),
        "window seat ".repeat(20_000),
        "a".repeat(1 << 17),
        "我想要一个靠窗的座位".repeat(10_000),
        "\u{0}\u{200B}".repeat(100_000),
        "x ".repeat(1 << 17),
    ];
    for s in &huge {
        check_unit_or_zero(&HashingEmbedder::default().embed(s));
        if let Some(clean) = sanitize_fragment(s) {
            assert!(clean.text.chars().count() <= MAX_FRAGMENT_CHARS);
        }
    }
    assert!(sanitize_fragment("").is_none());
    let mut empty: [f32; 0] = [];
    HashingEmbedder::default().embed_into("window seat", &mut empty);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(48), ..ProptestConfig::default() })]

    /// The engine takes any `other` (string, array, huge, empty, control
    /// characters), any client name and clocks going back, without panicking.
    #[test]
    fn engine_never_panics(
        messages in prop::collection::vec(
            (prop_oneof![any::<String>(), text(), Just("window seat".repeat(400))],
             any::<bool>(), ".{0,12}", -7 * 86_400i64..7 * 86_400),
            1..24),
    ) {
        let mut store = flight_store();
        let mut engine = Evolution::default();
        let mut now = T0;
        for (other, as_array, who, step) in messages {
            now += Duration::seconds(step);
            let other = if as_array { json!([other, 3, null]) } else { json!(other) };
            let message = json!({"schema_id": "flight_booking_v1", "payload": {
                "origin": "PEK", "destination": "SHA", "departure_date": "2026-05-04", "other": other}});
            let _ = engine.observe(&mut store, &message, &who, now);
        }
        for (_, pool) in engine.pools() {
            prop_assert!(roundtrip(pool) == *pool);
            for c in pool.clusters() {
                let h = c.heat(now);
                prop_assert!(h.is_finite() && h >= 0.0);
            }
        }
    }
}

/// A replica built from `(angle, seconds)` ingests, each its own request.
fn replica(ingests: &[(f64, i64)], tag: &str) -> Pool {
    let mut config = PoolConfig::new(2, 0.9);
    config.half_life_secs = 1e300;
    let mut pool = Pool::new(config).unwrap();
    for (i, (angle, s)) in ingests.iter().enumerate() {
        let v = [angle.cos() as f32, angle.sin() as f32];
        let at = T0 + Duration::seconds(*s);
        pool.ingest(
            &v,
            &format!("{tag}{i}"),
            false,
            &format!("{tag}-client-{i}"),
            at,
        )
        .unwrap();
    }
    pool
}

fn totals(pool: &Pool) -> (u64, f64) {
    let far = T0 + Duration::days(1);
    pool.clusters()
        .fold((0, 0.0), |(n, h), c| (n + c.occurrences(), h + c.heat(far)))
}

proptest! {
    /// Merging with different groupings may partition clusters differently,
    /// but no observation is lost or counted twice: occurrences and heat are
    /// conserved (docs/evolution.md, "Replicas").
    #[test]
    fn merge_conserves_observations_whatever_the_grouping(
        a in prop::collection::vec((0.0f64..6.3, 0i64..3600), 0..12),
        b in prop::collection::vec((0.0f64..6.3, 0i64..3600), 0..12),
        c in prop::collection::vec((0.0f64..6.3, 0i64..3600), 0..12),
    ) {
        let (pa, pb, pc) = (replica(&a, "a"), replica(&b, "b"), replica(&c, "c"));
        let mut left = pa.clone();
        left.merge(&pb).unwrap();
        left.merge(&pc).unwrap();
        let mut bc = pb.clone();
        bc.merge(&pc).unwrap();
        let mut right = pa.clone();
        right.merge(&bc).unwrap();
        let (n_left, h_left) = totals(&left);
        let (n_right, h_right) = totals(&right);
        let expected = (a.len() + b.len() + c.len()) as u64;
        prop_assert_eq!(n_left, expected);
        prop_assert_eq!(n_right, expected);
        prop_assert!((h_left - h_right).abs() <= 1e-9 * h_left.max(1.0), "{} vs {}", h_left, h_right);
    }
}

/// Merge adds observations: a pool merged with itself counts everything
/// twice. (Documented: ship each observation once.)
#[test]
fn merge_is_not_idempotent() {
    let pool = replica(&[(0.0, 0), (0.05, 10), (3.0, 20)], "x");
    let mut twice = pool.clone();
    twice.merge(&pool).unwrap();
    assert_eq!(totals(&twice).0, 2 * totals(&pool).0);
}

/// `same_clusters` ignores storage order and nothing else.
#[test]
fn same_clusters_ignores_order_only() {
    let mut a = Pool::new(PoolConfig::new(2, 0.9)).unwrap();
    a.ingest(&[1.0, 0.0], "window seat", false, "agent-1", T0)
        .unwrap();
    a.ingest(&[0.0, 1.0], "vegetarian meal", false, "agent-2", T0)
        .unwrap();
    // The same clusters pushed the other way round.
    let mut b = Pool::new(PoolConfig::new(2, 0.9)).unwrap();
    b.ingest(&[0.0, 1.0], "vegetarian meal", false, "agent-2", T0)
        .unwrap();
    b.ingest(&[1.0, 0.0], "window seat", false, "agent-1", T0)
        .unwrap();
    assert!(a != b && a.same_clusters(&b) && b.same_clusters(&a));
    let mut c = b.clone();
    c.ingest(&[0.0, 1.0], "a vegetarian meal", false, "agent-3", T0)
        .unwrap();
    assert!(!a.same_clusters(&c) && !c.same_clusters(&a));
    let mut d = Pool::new(PoolConfig::new(2, 0.8)).unwrap();
    d.ingest(&[1.0, 0.0], "window seat", false, "agent-1", T0)
        .unwrap();
    d.ingest(&[0.0, 1.0], "vegetarian meal", false, "agent-2", T0)
        .unwrap();
    assert!(!a.same_clusters(&d), "configurations differ");
}
