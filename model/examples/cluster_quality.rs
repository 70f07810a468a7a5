//! How well an embedder plus the pool's online clustering groups paraphrases,
//! measured on a labelled set of short requests (Banking77: `text,category`).
//!
//! For the default [`HashingEmbedder`], the plain character-trigram
//! baseline and, with `--model DIR`, a [`SentenceModel`] such as
//! all-MiniLM-L6-v2, each at its own recommended threshold, it clusters the test set
//! in several shuffled orders and reports the adjusted Rand index,
//! homogeneity, completeness, V-measure and cluster count (mean ± std), and
//! how many clusters reach 10 fragments (smaller ones never propose a key
//! under the pool's default gate). `--calibrate` sweeps thresholds on the training set only, which is how the
//! recommended thresholds were chosen.
//!
//! ```text
//! cargo run --release -p sdsi-model --example cluster_quality -- DATA_DIR \
//!     [--calibrate] [--model MODEL_DIR] [--only NAME] [--orders N] [--seed S]
//! ```
//!
//! `DATA_DIR` holds `train.csv` and `test.csv`; `MODEL_DIR` is what
//! `scripts/fetch-model.sh` prints; `--only` keeps the embedders whose
//! name contains NAME (`default`, `baseline`, `model`). To measure another
//! embedder, add it to `embedders()` below.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use sdsi::evolution::{
    Embedder, HashingEmbedder, Linkage, Pool, PoolConfig, PoolError, redact, sanitize_fragment,
};
use sdsi_model::SentenceModel;
use time::Duration;
use time::macros::datetime;

const USAGE: &str = "usage: cluster_quality DATA_DIR [--calibrate] [--redact] [--model MODEL_DIR] \
     [--only NAME] [--linkage average|centroid] [--range FROM:TO:STEP] [--orders N] [--seed S]";

/// Thresholds the calibration tries: by default 0.20 to 0.70 in steps of
/// 0.02 (a division, so 0.42 is the same `f32` as the literal).
fn sweep(range: Option<(u8, u8, u8)>) -> Vec<f32> {
    match range {
        Some((from, to, step)) => (from..=to)
            .step_by(usize::from(step))
            .map(|i| f32::from(i) / 100.0)
            .collect(),
        None => (10..=35u8).map(|i| f32::from(i) / 50.0).collect(),
    }
}

struct Args {
    dir: PathBuf,
    calibrate: bool,
    /// Sanitize and redact every text first, as the evolution pipeline does,
    /// and list the texts redaction changed.
    redact: bool,
    orders: usize,
    seed: u64,
    linkage: Linkage,
    /// Overrides the sweep: (from, to, step) in hundredths.
    range: Option<(u8, u8, u8)>,
    /// A sentence-transformer directory to measure beside the hashing embedders.
    model: Option<PathBuf>,
    /// Keep only the embedders whose name contains this.
    only: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut dir = None;
    let mut calibrate = false;
    let mut redact = false;
    let mut orders = 5;
    let mut seed = 77;
    let mut linkage = Linkage::default();
    let mut range = None;
    let mut model = None;
    let mut only = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--calibrate" => calibrate = true,
            "--model" => {
                model = Some(PathBuf::from(
                    args.next().ok_or("--model needs a directory")?,
                ))
            }
            "--only" => only = Some(args.next().ok_or("--only needs a name")?),
            "--redact" => redact = true,
            "--linkage" => {
                linkage = match args.next().as_deref() {
                    Some("average") => Linkage::Average,
                    Some("centroid") => Linkage::Centroid,
                    _ => return Err("--linkage needs average or centroid".to_owned()),
                }
            }
            "--range" => {
                let value = args.next().unwrap_or_default();
                let parts: Vec<u8> = value.split(':').filter_map(|p| p.parse().ok()).collect();
                match parts.as_slice() {
                    [from, to, step] if from <= to && *step > 0 => {
                        range = Some((*from, *to, *step))
                    }
                    _ => {
                        return Err(
                            "--range needs FROM:TO:STEP in hundredths, e.g. 30:60:2".to_owned()
                        );
                    }
                }
            }
            "--orders" | "--seed" => {
                let value = args
                    .next()
                    .and_then(|v| v.parse::<u64>().ok())
                    .ok_or(format!("{arg} needs a whole number"))?;
                if arg == "--orders" {
                    orders = usize::try_from(value.max(1)).map_err(|e| e.to_string())?;
                } else {
                    seed = value;
                }
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ if dir.is_none() => dir = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument {arg}\n{USAGE}")),
        }
    }
    let dir = dir.ok_or(format!("missing DATA_DIR\n{USAGE}"))?;
    if !dir.is_dir() {
        return Err(format!("data directory {} not found", dir.display()));
    }
    Ok(Args {
        dir,
        calibrate,
        redact,
        orders,
        seed,
        linkage,
        range,
        model,
        only,
    })
}

/// A labelled set: texts and the index of each one's category.
struct Labelled {
    texts: Vec<String>,
    labels: Vec<usize>,
    /// Category names, by index.
    names: Vec<String>,
}

/// Which half of the categories: thresholds are chosen on one half and
/// reported on the other, so the reported figure is on needs the choice
/// never saw.
#[derive(Clone, Copy, PartialEq)]
enum Half {
    /// Categories at even positions in name order.
    Calibration,
    /// Categories at odd positions.
    HeldOut,
}

impl Labelled {
    /// The categories in `half`, with their texts.
    fn half(&self, half: Half) -> Labelled {
        let mut sorted: Vec<&String> = self.names.iter().collect();
        sorted.sort();
        let keep: Vec<bool> = self
            .names
            .iter()
            .map(|n| {
                let rank = sorted.binary_search(&n).unwrap_or(0);
                (rank % 2 == 0) == (half == Half::Calibration)
            })
            .collect();
        let mut out = Labelled {
            texts: Vec::new(),
            labels: Vec::new(),
            names: self.names.clone(),
        };
        for (text, &label) in self.texts.iter().zip(&self.labels) {
            if keep.get(label) == Some(&true) {
                out.texts.push(text.clone());
                out.labels.push(label);
            }
        }
        out
    }

    /// How many categories have at least one text.
    fn categories(&self) -> usize {
        let mut seen: Vec<usize> = self.labels.clone();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }
}

/// Reads a `text,category` CSV (RFC 4180: quoted fields may hold commas,
/// doubled quotes and line breaks), skipping the header.
fn read_csv(path: &Path) -> Result<Labelled, String> {
    let data = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = data.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, _) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, _) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut set = Labelled {
        texts: Vec::new(),
        labels: Vec::new(),
        names: Vec::new(),
    };
    for (line, row) in rows.into_iter().enumerate().skip(1) {
        let [text, category] = <[String; 2]>::try_from(row).map_err(|r| {
            format!(
                "{}: record {} has {} fields, expected 2",
                path.display(),
                line + 1,
                r.len()
            )
        })?;
        let next = names.len();
        set.labels.push(*names.entry(category).or_insert(next));
        set.texts.push(text);
    }
    if set.texts.is_empty() {
        return Err(format!("{} holds no records", path.display()));
    }
    set.names = vec![String::new(); names.len()];
    for (name, index) in names {
        if let Some(slot) = set.names.get_mut(index) {
            *slot = name;
        }
    }
    Ok(set)
}

/// splitmix64: a tiny deterministic generator, enough for shuffling.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fisher–Yates; the modulo bias is negligible for a few thousand items.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// Clusters `vectors` in `order` with a fresh pool; returns each item's final
/// cluster (following drift merges), or `None` for a vector the pool refused
/// (nothing to embed), which then counts as a cluster of its own.
fn cluster(
    vectors: &[Vec<f32>],
    texts: &[String],
    order: &[usize],
    dimension: usize,
    threshold: f32,
    linkage: Linkage,
) -> Result<Vec<Option<u64>>, String> {
    let mut config = PoolConfig::new(dimension, threshold);
    config.linkage = linkage;
    // Never evict: every fragment must keep its cluster to be scored.
    config.max_clusters = 1_000_000;
    let mut pool = Pool::new(config).map_err(|e| e.to_string())?;
    let start = datetime!(2026-11-22 0:00 UTC);
    let mut joined = vec![None; vectors.len()];
    // A merged cluster's id → the id of the cluster that absorbed it.
    let mut absorbed: HashMap<u64, u64> = HashMap::new();
    for (step, &i) in order.iter().enumerate() {
        let (Some(vector), Some(text)) = (vectors.get(i), texts.get(i)) else {
            continue;
        };
        // One fragment a second, as traffic arrives.
        let now = start + Duration::seconds(step as i64);
        let outcome = match pool.ingest(vector, text, false, "client", now) {
            Ok(outcome) => outcome,
            // Nothing to embed (all stopwords): scored as a singleton.
            Err(PoolError::ZeroVector) => continue,
            Err(e) => return Err(e.to_string()),
        };
        if let Some(gone) = outcome.merged {
            absorbed.insert(gone, outcome.cluster);
        }
        if let Some(slot) = joined.get_mut(i) {
            *slot = Some(outcome.cluster);
        }
    }
    let root = |mut id: u64| {
        // Merges form chains (an absorbed id is gone for good); the bound
        // only guards against a reused id closing a cycle.
        for _ in 0..=absorbed.len() {
            match absorbed.get(&id) {
                Some(&next) => id = next,
                None => break,
            }
        }
        id
    };
    Ok(joined.into_iter().map(|c| c.map(root)).collect())
}

/// Agreement between the true labels and a clustering.
#[derive(Debug, Clone, Copy)]
struct Scores {
    ari: f64,
    homogeneity: f64,
    completeness: f64,
    v_measure: f64,
    clusters: f64,
    /// Clusters of at least [`LARGE`] fragments: the ones that may trigger.
    large: f64,
    /// Share of fragments in those clusters.
    covered: f64,
}

/// Under the pool's default gate (heat 50, so some 50 fragments, and 5
/// clients or 10 fragments) a cluster of fewer than 10 never proposes a key.
const LARGE: u64 = 10;

fn choose2(n: u64) -> f64 {
    let n = n as f64;
    n * (n - 1.0) / 2.0
}

/// Shannon entropy (nats) of a distribution given by counts summing to `total`.
fn entropy<'a>(counts: impl Iterator<Item = &'a u64>, total: f64) -> f64 {
    counts
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / total;
            -p * p.ln()
        })
        .sum()
}

/// ARI (Hubert & Arabie), homogeneity, completeness and V-measure
/// (Rosenberg & Hirschberg) from the contingency table of `labels` × `clusters`.
fn score(labels: &[usize], clusters: &[Option<u64>]) -> Scores {
    let mut cells: HashMap<(usize, u64), u64> = HashMap::new();
    let mut by_label: HashMap<usize, u64> = HashMap::new();
    let mut by_cluster: HashMap<u64, u64> = HashMap::new();
    // Refused items become singletons, with ids no pool cluster uses here.
    let mut singleton = 0u64;
    for (&label, cluster) in labels.iter().zip(clusters) {
        let cluster = cluster.map_or_else(
            || {
                singleton += 1;
                u64::MAX - singleton
            },
            |c| c,
        );
        *cells.entry((label, cluster)).or_default() += 1;
        *by_label.entry(label).or_default() += 1;
        *by_cluster.entry(cluster).or_default() += 1;
    }
    let n = labels.len().min(clusters.len()) as u64;
    let total = n as f64;

    let index: f64 = cells.values().map(|&c| choose2(c)).sum();
    let rows: f64 = by_label.values().map(|&c| choose2(c)).sum();
    let cols: f64 = by_cluster.values().map(|&c| choose2(c)).sum();
    let expected = rows * cols / choose2(n);
    let max = (rows + cols) / 2.0;
    let ari = if max == expected {
        1.0
    } else {
        (index - expected) / (max - expected)
    };

    let h_labels = entropy(by_label.values(), total);
    let h_clusters = entropy(by_cluster.values(), total);
    // H(C|K) and H(K|C) from the joint: H(C,K) - H(K), H(C,K) - H(C).
    let h_joint = entropy(cells.values(), total);
    let homogeneity = if h_labels == 0.0 {
        1.0
    } else {
        1.0 - (h_joint - h_clusters) / h_labels
    };
    let completeness = if h_clusters == 0.0 {
        1.0
    } else {
        1.0 - (h_joint - h_labels) / h_clusters
    };
    let v_measure = if homogeneity + completeness == 0.0 {
        0.0
    } else {
        2.0 * homogeneity * completeness / (homogeneity + completeness)
    };
    let large = by_cluster.values().filter(|&&c| c >= LARGE);
    Scores {
        ari,
        homogeneity,
        completeness,
        v_measure,
        clusters: by_cluster.len() as f64,
        large: large.clone().count() as f64,
        covered: large.sum::<u64>() as f64 / total,
    }
}

/// Mean and (population) standard deviation of each score.
fn summarize(runs: &[Scores]) -> [(f64, f64); 7] {
    let stat = |f: fn(&Scores) -> f64| {
        let n = runs.len().max(1) as f64;
        let mean = runs.iter().map(f).sum::<f64>() / n;
        let var = runs.iter().map(|s| (f(s) - mean).powi(2)).sum::<f64>() / n;
        (mean, var.sqrt())
    };
    [
        stat(|s| s.ari),
        stat(|s| s.homogeneity),
        stat(|s| s.completeness),
        stat(|s| s.v_measure),
        stat(|s| s.clusters),
        stat(|s| s.large),
        stat(|s| s.covered),
    ]
}

/// Clusters `set` with `embedder` at `threshold` in `orders` shuffled orders
/// (the same orders for every call with the same seed).
fn evaluate(
    embedder: &dyn Embedder,
    threshold: f32,
    set: &Labelled,
    vectors: &[Vec<f32>],
    orders: usize,
    seed: u64,
    linkage: Linkage,
) -> Result<Vec<Scores>, String> {
    let mut rng = SplitMix(seed);
    let mut runs = Vec::with_capacity(orders);
    for _ in 0..orders {
        let mut order: Vec<usize> = (0..set.texts.len()).collect();
        rng.shuffle(&mut order);
        let clusters = cluster(
            vectors,
            &set.texts,
            &order,
            embedder.dimension(),
            threshold,
            linkage,
        )?;
        runs.push(score(&set.labels, &clusters));
    }
    Ok(runs)
}

fn embed_all(embedder: &dyn Embedder, texts: &[String]) -> Vec<Vec<f32>> {
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    embedder.embed_batch(&texts)
}

fn row(name: &str, runs: &[Scores], categories: usize) -> String {
    let [ari, h, c, v, k, large, covered] = summarize(runs);
    format!(
        "| {name} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.1} ± {:.1} ({:.1}) | {:.1} ± {:.1} ({:.0} %) |",
        ari.0,
        ari.1,
        h.0,
        h.1,
        c.0,
        c.1,
        v.0,
        v.1,
        k.0,
        k.1,
        k.0 / categories.max(1) as f64,
        large.0,
        large.1,
        covered.0 * 100.0
    )
}

/// The table's columns after the first; the last counts clusters of at least
/// [`LARGE`] fragments, with the share of fragments they hold.
const COLUMNS: &str = "ARI | homogeneity | completeness | V-measure | clusters (per category) \
     | clusters ≥ 10 (share of texts) |\n|---|---|---|---|---|---|---|";

/// The embedders compared, each at its own recommended threshold. To try
/// your own model, add it here: anything that implements [`Embedder`].
/// An embedder and the name the tables give it.
type Named = (&'static str, Box<dyn Embedder>);

fn embedders(args: &Args) -> Result<Vec<Named>, String> {
    let mut list: Vec<Named> = vec![
        (
            "default `HashingEmbedder::default()`",
            Box::new(HashingEmbedder::default()),
        ),
        (
            "baseline `HashingEmbedder::char_ngrams()`",
            Box::new(HashingEmbedder::char_ngrams()),
        ),
    ];
    if let Some(dir) = &args.model {
        let model = SentenceModel::load(dir).map_err(|e| e.to_string())?;
        list.push(("model `SentenceModel` (all-MiniLM-L6-v2)", Box::new(model)));
    }
    if let Some(only) = &args.only {
        list.retain(|(name, _)| name.contains(only.as_str()));
    }
    Ok(list)
}

fn calibrate(args: &Args) -> Result<(), String> {
    let mut train = read_csv(&args.dir.join("train.csv"))?.half(Half::Calibration);
    if args.redact {
        redact_all(&mut train);
    }
    let categories = train.categories();
    println!(
        "train.csv, calibration half of the categories: {} texts, {categories} categories; \
         {} shuffled order(s), seed {}, {:?} linkage\n",
        train.texts.len(),
        args.orders,
        args.seed,
        args.linkage
    );
    for (name, embedder) in embedders(args)? {
        let vectors = embed_all(embedder.as_ref(), &train.texts);
        println!(
            "{name}, dimension {}, recommended threshold {:.2}\n",
            embedder.dimension(),
            embedder.recommended_threshold()
        );
        println!("| threshold | {COLUMNS}");
        let mut best: Option<(f32, f64)> = None;
        let started = Instant::now();
        for threshold in sweep(args.range) {
            let runs = evaluate(
                embedder.as_ref(),
                threshold,
                &train,
                &vectors,
                args.orders,
                args.seed,
                args.linkage,
            )?;
            let ari = summarize(&runs)[0].0;
            if best.is_none_or(|(_, b)| ari > b) {
                best = Some((threshold, ari));
            }
            println!("{}", row(&format!("{threshold:.2}"), &runs, categories));
        }
        eprintln!(
            "{name}: sweep took {:.0} s",
            started.elapsed().as_secs_f64()
        );
        if let Some((threshold, ari)) = best {
            println!("\nbest ARI on the calibration half: {ari:.3} at threshold {threshold:.2}\n");
        }
    }
    Ok(())
}

/// Runs every text through `sanitize_fragment` and `redact` as the pipeline
/// does, and prints how many (and which) texts redaction changed and the
/// sanitizer flagged as prompt injection (in a set of genuine requests,
/// every flag is a false positive).
fn redact_all(set: &mut Labelled) {
    let mut changed = Vec::new();
    let mut flagged = Vec::new();
    for text in &mut set.texts {
        let Some(clean) = sanitize_fragment(text) else {
            continue;
        };
        if clean.flagged {
            flagged.push(format!("- `{}`", clean.text));
        }
        let redacted = redact(&clean.text);
        if redacted.text != clean.text {
            changed.push(format!("- `{}` → `{}`", clean.text, redacted.text));
        }
        *text = redacted.text;
    }
    print_share("redaction changed", &changed, set.texts.len());
    print_share("flagged as prompt injection:", &flagged, set.texts.len());
}

/// `WHAT n of total texts (p %):` and the lines.
fn print_share(what: &str, lines: &[String], total: usize) {
    println!(
        "{what} {} of {total} texts ({:.2} %):\n",
        lines.len(),
        100.0 * lines.len() as f64 / total.max(1) as f64
    );
    for line in lines {
        println!("{line}");
    }
    println!();
}

/// Offsets from the recommended threshold in the sensitivity table.
const OFFSETS: [f32; 5] = [-0.10, -0.05, 0.0, 0.05, 0.10];

fn measure(args: &Args) -> Result<(), String> {
    let mut test = read_csv(&args.dir.join("test.csv"))?;
    if args.redact {
        redact_all(&mut test);
    }
    let sets = [
        ("held-out categories", test.half(Half::HeldOut)),
        ("all categories", test),
    ];
    println!(
        "test.csv; {} shuffled order(s), seed {}, {:?} linkage\n",
        args.orders, args.seed, args.linkage
    );
    for (label, set) in &sets {
        let categories = set.categories();
        println!(
            "### {label}: {} texts, {categories} categories\n",
            set.texts.len()
        );
        let mut lines = Vec::new();
        let mut sensitivity = Vec::new();
        for (name, embedder) in embedders(args)? {
            let started = Instant::now();
            let vectors = embed_all(embedder.as_ref(), &set.texts);
            let embedding = started.elapsed();
            let refused = vectors
                .iter()
                .filter(|v| v.iter().all(|&x| x == 0.0))
                .count();
            let recommended = embedder.recommended_threshold();
            for offset in OFFSETS {
                let threshold = recommended + offset;
                let runs = evaluate(
                    embedder.as_ref(),
                    threshold,
                    set,
                    &vectors,
                    args.orders,
                    args.seed,
                    args.linkage,
                )?;
                if offset == 0.0 {
                    eprintln!(
                        "{name}: dimension {}, threshold {threshold:.2}, {refused} texts with \
                         nothing to embed; embedding {:.1} ms",
                        embedder.dimension(),
                        embedding.as_secs_f64() * 1e3,
                    );
                    lines.push(row(&format!("{name} @ {threshold:.2}"), &runs, categories));
                }
                sensitivity.push(row(
                    &format!("{name} @ {threshold:.2} ({offset:+.2})"),
                    &runs,
                    categories,
                ));
            }
        }
        println!("| | {COLUMNS}");
        for line in lines {
            println!("{line}");
        }
        println!("\nAround the recommended threshold:\n\n| | {COLUMNS}");
        for line in sensitivity {
            println!("{line}");
        }
        println!();
    }
    Ok(())
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|args| {
        if args.calibrate {
            calibrate(&args)
        } else {
            measure(&args)
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("cluster_quality: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(labels: &[usize], clusters: &[u64]) -> Scores {
        let clusters: Vec<Option<u64>> = clusters.iter().copied().map(Some).collect();
        score(labels, &clusters)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Values from scikit-learn's documentation of the same metrics.
    #[test]
    fn metrics_match_scikit_learn() {
        let s = scores(&[0, 0, 1, 1], &[0, 0, 1, 2]);
        assert!(close(s.ari, 0.571_428_571_428_571_5), "{s:?}");
        assert!(close(s.homogeneity, 1.0), "{s:?}");
        assert!(close(s.v_measure, 0.8), "{s:?}");
        let s = scores(&[0, 0, 1, 1], &[1, 1, 0, 0]);
        assert!(close(s.ari, 1.0) && close(s.v_measure, 1.0), "{s:?}");
        let s = scores(&[0, 0, 1, 1], &[0, 1, 0, 1]);
        assert!(close(s.ari, -0.5) && close(s.v_measure, 0.0), "{s:?}");
        let s = scores(&[0, 0, 1, 1], &[0, 0, 0, 0]);
        assert!(
            close(s.homogeneity, 0.0) && close(s.completeness, 1.0),
            "{s:?}"
        );
        assert!(close(s.ari, 0.0) && close(s.clusters, 1.0), "{s:?}");
    }

    #[test]
    fn refused_items_are_singletons() {
        let s = score(&[0, 0, 1], &[Some(5), None, None]);
        assert!(close(s.clusters, 3.0), "{s:?}");
    }

    #[test]
    fn csv_fields_may_hold_commas_quotes_and_line_breaks() {
        let path = std::env::temp_dir().join("cluster_quality_test.csv");
        let data = "text,category\r\n\"a, \"\"b\"\"\nc\",x\r\nplain,y\r\n";
        std::fs::write(&path, data)
            .map_err(|e| e.to_string())
            .unwrap();
        let set = read_csv(&path).unwrap();
        assert_eq!(set.texts, ["a, \"b\"\nc", "plain"]);
        assert_eq!(set.labels, [0, 1]);
    }
}
