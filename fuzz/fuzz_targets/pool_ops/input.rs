//! `pool_ops`'s input decoding, tables and memories, and helpers of its checks.

use std::cell::RefCell;
use std::collections::HashMap;

use sdsi::evolution::{
    ClusterView, Embedder, HashingEmbedder, MAX_FRAGMENT_CHARS, Pool, PoolError, sanitize_fragment,
};
use sdsi_fuzz::check;
use time::{Duration, OffsetDateTime};

pub(crate) const THRESHOLDS: [f32; 10] = [0.9, 0.75, 0.5, 0.3, 0.0, -0.5, -1.0, 1.0, f32::NAN, 1.5];
pub(crate) const HALF_LIVES: [f64; 12] = [
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
pub(crate) const SANE_HALF_LIVES: [f64; 6] = [86_400.0, 60.0, 3_600.0, 1.0, 1e7, 1e300];
pub(crate) const INCREMENTS: [f64; 5] = [1.0, 0.37, 2.5, 0.0, 1e-3];
pub(crate) const CAPS: [f64; 7] = [15.0, 1e9, 0.0, 2.5, f64::NAN, -1.0, f64::MAX];
pub(crate) const T0: OffsetDateTime = time::macros::datetime!(2026-05-01 0:00 UTC);
/// An ingest dated far ahead (tag byte bits 3-4 = 1).
pub(crate) const FAR_AHEAD: OffsetDateTime = time::macros::datetime!(9999-12-31 23:59:59 UTC);
/// An ingest dated far back (tag byte bits 3-4 = 3).
pub(crate) const FAR_BACK: OffsetDateTime = time::macros::datetime!(-9999-01-01 0:00 UTC);
/// Texts for bit 6 of `b7` (texts may repeat).
pub(crate) const TEXTS: [&str; 4] = [
    "window seat",
    "vegetarian meal",
    "late checkout",
    "pet in cabin",
];
pub(crate) const PROTOS: [[f32; 8]; 4] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.8, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.6, 0.8, 0.0, 0.0],
];
pub(crate) const SPECIALS: [f32; 10] = [
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
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

impl Bytes<'_> {
    pub(crate) fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    pub(crate) fn i16(&mut self) -> i16 {
        i16::from_le_bytes([self.u8(), self.u8()])
    }
    pub(crate) fn i32(&mut self) -> i32 {
        i32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    pub(crate) fn f32(&mut self) -> f32 {
        f32::from_bits(self.i32() as u32)
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub(crate) fn pick<T: Copy>(&mut self, table: &[T]) -> T {
        table[usize::from(self.u8()) % table.len()]
    }
    /// A clock step: an even value is that many half-minutes, an odd one milliseconds.
    pub(crate) fn step(&mut self) -> Duration {
        let v = self.i16();
        if v % 2 == 0 {
            Duration::seconds(i64::from(v) * 30)
        } else {
            Duration::milliseconds(i64::from(v))
        }
    }
}

pub(crate) fn secs(t: OffsetDateTime) -> f64 {
    t.unix_timestamp() as f64 + f64::from(t.nanosecond()) / 1e9
}

pub(crate) fn client(b: u8) -> &'static str {
    const CLIENTS: [&str; 6] = [
        "agent-0", "agent-1", "agent-2", "agent-3", "agent-4", "agent-5",
    ];
    CLIENTS[usize::from(b % 6)]
}

/// A vector: a prototype plus noise, raw bits, special values, or a wrong length.
pub(crate) fn vector(b: &mut Bytes<'_>, dim: usize) -> Vec<f32> {
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

pub(crate) fn expected_error(v: &[f32], dim: usize) -> Option<PoolError> {
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

pub(crate) fn well_scaled(v: &[f32]) -> bool {
    let norm2: f64 = v.iter().map(|x| f64::from(*x).powi(2)).sum();
    (1e-30..1e30).contains(&norm2)
}

pub(crate) fn zero_sum(e: &dyn std::fmt::Display) -> bool {
    e.to_string().contains("vector is zero")
}

/// One fragment the reference heat knows about.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record {
    pub(crate) increment: f64,
    pub(crate) when: OffsetDateTime,
}

/// An instant with its Unix nanoseconds (what probes are ordered by:
/// comparing `OffsetDateTime`s and converting nanoseconds back to them
/// were a tenth of the checks).
pub(crate) type Instant = (i128, OffsetDateTime);

pub(crate) fn instant(t: OffsetDateTime) -> Instant {
    (t.unix_timestamp_nanos(), t)
}

/// Texts each memory below holds. Once full, each new text evicts one, so
/// an input frees about as many blocks as it allocates: an input that
/// allocates more is run a second time by libFuzzer's leak detection (a
/// memory that filled up to 16,384 texts and then started over made that
/// 5 % of the time).
pub(crate) const TEXTS_REMEMBERED: usize = 1024;

/// Inserts into a memory, evicting one entry once it holds `TEXTS_REMEMBERED`.
fn remember<K: Clone + Eq + std::hash::Hash, V>(memo: &mut HashMap<K, V>, key: K, value: V) {
    if memo.len() >= TEXTS_REMEMBERED {
        let evicted = memo.keys().next().cloned();
        if let Some(evicted) = evicted {
            memo.remove(&evicted);
        }
    }
    memo.insert(key, value);
}

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
pub(crate) fn sanitized(raw: &[u8]) -> Option<String> {
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
        remember(memo, raw.to_vec(), clean.clone());
    });
    clean
}

/// The hashing embedder's vector for `text` at `dimension`, checked the
/// first time this process embeds it (the embedder is a function of its
/// dimension and the text: it hashes with FNV-1a, no random state).
pub(crate) fn embedded(embedder: &HashingEmbedder, dimension: usize, text: &str) -> Vec<f32> {
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
        remember(memo, key, v.clone());
    });
    v
}

/// Whether `SDSI_FUZZ_TRACE` is set: then every operation and ingest is
/// printed (for reading a reproducer).
pub(crate) fn trace() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("SDSI_FUZZ_TRACE").is_some())
}

/// The first cluster (in canonical order) that differs between two pools.
pub(crate) fn first_difference(a: &Pool, b: &Pool) -> String {
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
pub(crate) fn null_heat(bytes: &[u8]) -> bool {
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
pub(crate) fn heat_nonfinite(pool: &Pool) -> bool {
    pool.clusters().any(|c| !c.heat_is_finite())
}

/// The time of a cluster's latest heat increment, in seconds (`heat_latest`
/// exists only under `cfg(fuzzing)`; a plain `cargo check` of the target
/// gets −∞, and `pool-heat-latest` checks nothing).
#[cfg(fuzzing)]
pub(crate) fn heat_latest(c: &ClusterView<'_>) -> f64 {
    c.heat_latest()
}

#[cfg(not(fuzzing))]
pub(crate) fn heat_latest(_: &ClusterView<'_>) -> f64 {
    f64::NEG_INFINITY
}

#[cfg(not(fuzzing))]
pub(crate) fn heat_nonfinite(pool: &Pool) -> bool {
    serde_json::to_vec(pool).is_ok_and(|b| null_heat(&b))
}

pub(crate) fn ids(pool: &Pool) -> Vec<u64> {
    pool.clusters().map(|c| c.id()).collect()
}

/// Whether cluster ids are unique (`buffer` is scratch space).
pub(crate) fn ids_unique(pool: &Pool, buffer: &mut Vec<u64>) -> bool {
    buffer.clear();
    buffer.extend(pool.clusters().map(|c| c.id()));
    buffer.sort_unstable();
    buffer.windows(2).all(|w| w.first() != w.get(1))
}
