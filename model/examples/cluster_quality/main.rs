//! How well an embedder plus the pool groups paraphrases into needs,
//! measured on two labelled corpora from different domains: Banking77
//! (online banking, 77 intents) and HWU64 (a home assistant, 64 intents).
//!
//! Thresholds are chosen on the calibration split of both corpora (intents
//! at even positions in name order; Banking77's `train.csv`, HWU64's folds
//! 1-5) and reported on the held-out split of both (the other intents;
//! `test.csv`, folds 6-10), so the reported figures are on needs the choice
//! never saw. Three groupings are compared for each embedder:
//!
//! - `leader`: plain online leader clustering, the baseline (its threshold
//!   chosen the same way);
//! - `clusters`: the pool's fine clusters;
//! - `needs`: the pool's needs, what the gate acts on.
//!
//! ```text
//! cargo run --release -p sdsi-model --example cluster_quality -- \
//!     --banking77 DIR --hwu64 DIR [--model MODEL_DIR] [--only NAME] \
//!     [--calibrate] [--orders N] [--seed S] [--dump-vectors DIR]
//! ```
//!
//! `--calibrate` prints the sweeps on the calibration split; without it,
//! the held-out tables and the sensitivity to each threshold (±0.05, ±0.1).
//! `--only` keeps the embedders whose name contains NAME (`default`,
//! `model`). `--dump-vectors DIR` writes each split's vectors instead
//! (`dump.rs`).

mod corpus;
mod dump;
mod methods;
mod metrics;

use std::path::PathBuf;
use std::process::ExitCode;

use corpus::{Corpus, Labelled, Split};
use metrics::{COLUMNS, Scores, row, summarize};
use sdsi::evolution::{Embedder, HashingEmbedder, PoolConfig, redact, sanitize_fragment};
use sdsi_model::SentenceModel;

const USAGE: &str = "usage: cluster_quality --banking77 DIR --hwu64 DIR [--model MODEL_DIR] \
     [--only NAME] [--calibrate] [--orders N] [--seed S] [--dump-vectors DIR]";

struct Args {
    corpora: Vec<Corpus>,
    calibrate: bool,
    orders: usize,
    seed: u64,
    model: Option<PathBuf>,
    only: Option<String>,
    dump: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        corpora: Vec::new(),
        calibrate: false,
        orders: 3,
        seed: 77,
        model: None,
        only: None,
        dump: None,
    };
    let mut argv = std::env::args().skip(1);
    while let Some(arg) = argv.next() {
        let mut value = || argv.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--banking77" => args.corpora.push(Corpus::Banking77(value()?.into())),
            "--hwu64" => args.corpora.push(Corpus::Hwu64(value()?.into())),
            "--model" => args.model = Some(value()?.into()),
            "--only" => args.only = Some(value()?),
            "--calibrate" => args.calibrate = true,
            "--dump-vectors" => args.dump = Some(value()?.into()),
            "--orders" => {
                args.orders = value()?.parse::<usize>().map_err(|e| e.to_string())?.max(1)
            }
            "--seed" => {
                args.seed = value()?
                    .parse()
                    .map_err(|e: std::num::ParseIntError| e.to_string())?
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unexpected argument {arg}\n{USAGE}")),
        }
    }
    if args.corpora.is_empty() {
        return Err(format!("name at least one corpus\n{USAGE}"));
    }
    Ok(args)
}

/// An embedder and the name the tables give it.
type Named = (&'static str, Box<dyn Embedder>);

fn embedders(args: &Args) -> Result<Vec<Named>, String> {
    let mut list: Vec<Named> = vec![("default (hashing)", Box::new(HashingEmbedder::default()))];
    if let Some(dir) = &args.model {
        let model = SentenceModel::load(dir).map_err(|e| e.to_string())?;
        list.push(("model (all-MiniLM-L6-v2)", Box::new(model)));
    }
    if let Some(only) = &args.only {
        list.retain(|(name, _)| name.contains(only.as_str()));
    }
    Ok(list)
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

/// One corpus split, cleaned and redacted as the pipeline does, embedded
/// once, with its shuffled orders.
struct Prepared {
    name: &'static str,
    set: Labelled,
    vectors: Vec<Vec<f32>>,
    orders: Vec<Vec<usize>>,
}

fn prepare(
    corpus: &Corpus,
    split: Split,
    embedder: &dyn Embedder,
    args: &Args,
) -> Result<Prepared, String> {
    let mut set = corpus.load(split)?;
    for text in &mut set.texts {
        *text = sanitize_fragment(text).map_or_else(String::new, |clean| redact(&clean.text).text);
    }
    let texts: Vec<&str> = set.texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed_batch(&texts);
    let mut rng = SplitMix(args.seed);
    let orders = (0..args.orders)
        .map(|_| {
            let mut order: Vec<usize> = (0..set.texts.len()).collect();
            rng.shuffle(&mut order);
            order
        })
        .collect();
    Ok(Prepared {
        name: corpus.name(),
        set,
        vectors,
        orders,
    })
}

/// What to measure.
#[derive(Clone, Copy)]
enum Method {
    Leader(f32),
    Clusters(f32),
    /// Fine threshold, need threshold (fixed, or until the background is
    /// measured), need contrast (adaptive when set).
    Needs(f32, f32, Option<f32>),
}

fn run(data: &Prepared, embedder: &dyn Embedder, method: Method) -> Result<Vec<Scores>, String> {
    let mut runs = Vec::new();
    for order in &data.orders {
        let grouping = match method {
            Method::Leader(t) => methods::leader(&data.vectors, order, t),
            Method::Clusters(fine) | Method::Needs(fine, ..) => {
                let (need, contrast) = match method {
                    Method::Needs(_, need, contrast) => (need, contrast),
                    _ => (fine, None),
                };
                let config = PoolConfig::new(embedder.dimension(), fine)
                    .with_need_threshold(need)
                    .with_need_contrast(contrast);
                let (clusters, needs) =
                    methods::pool(&data.vectors, &data.set.texts, order, config)?;
                if matches!(method, Method::Needs(..)) {
                    needs
                } else {
                    clusters
                }
            }
        };
        runs.push(metrics::score(&data.set.labels, &grouping));
    }
    Ok(runs)
}

/// Thresholds `centre` ± `span` in steps of 0.02, rounded to hundredths.
fn around(centre: f32, span: f32) -> Vec<f32> {
    let steps = (span / 0.02).round() as i32;
    (-steps..=steps)
        .map(|k| ((centre + k as f32 * 0.02) * 100.0).round() / 100.0)
        .collect()
}

/// Sweeps `thresholds` over every corpus; prints a table of each corpus's
/// ARI and their mean; returns the threshold with the best mean.
fn sweep(
    title: &str,
    data: &[Prepared],
    embedder: &dyn Embedder,
    thresholds: &[f32],
    method: impl Fn(f32) -> Method,
) -> Result<f32, String> {
    let names: Vec<&str> = data.iter().map(|d| d.name).collect();
    println!(
        "{title}\n\n| threshold | {} | mean ARI | intents ≥ 80 % in one group |",
        names.join(" ARI | ") + " ARI"
    );
    println!("|---|{}---|---|", "---|".repeat(names.len()));
    let mut best: Option<(f32, f64)> = None;
    for &t in thresholds {
        let mut aris = Vec::new();
        let mut whole = Vec::new();
        for d in data {
            let s = summarize(&run(d, embedder, method(t))?);
            aris.push(s[0]);
            whole.push(format!("{:.0} %", s[5].0 * 100.0));
        }
        let mean = aris.iter().map(|a| a.0).sum::<f64>() / aris.len().max(1) as f64;
        if best.is_none_or(|(_, b)| mean > b) {
            best = Some((t, mean));
        }
        let cells: Vec<String> = aris
            .iter()
            .map(|a| format!("{:.3} ± {:.3}", a.0, a.1))
            .collect();
        println!(
            "| {t:.2} | {} | {mean:.3} | {} |",
            cells.join(" | "),
            whole.join(" / ")
        );
    }
    let (t, mean) = best.ok_or("no threshold to sweep")?;
    println!("\nbest mean ARI {mean:.3} at {t:.2}\n");
    Ok(t)
}

fn calibrate(args: &Args) -> Result<(), String> {
    for (name, embedder) in embedders(args)? {
        let e = embedder.as_ref();
        let data = args
            .corpora
            .iter()
            .map(|c| prepare(c, Split::Calibration, e, args))
            .collect::<Result<Vec<_>, _>>()?;
        let sizes: Vec<String> = data
            .iter()
            .map(|d| {
                format!(
                    "{} {} texts / {} intents",
                    d.name,
                    d.set.texts.len(),
                    d.set.intents()
                )
            })
            .collect();
        println!(
            "## {name}: calibration split ({}; {} orders)\n",
            sizes.join(", "),
            args.orders
        );
        let fine = e.recommended_threshold();
        let need = e.recommended_need_threshold();
        sweep(
            "`leader` (baseline):",
            &data,
            e,
            &around(fine, 0.12),
            Method::Leader,
        )?;
        sweep(
            "`clusters` (fine level):",
            &data,
            e,
            &around(fine, 0.12),
            Method::Clusters,
        )?;
        sweep(
            &format!("`needs` at the fine threshold {fine:.2}, fixed need threshold:"),
            &data,
            e,
            &around(need, 0.16),
            |t| Method::Needs(fine, t, None),
        )?;
        if let Some(contrast) = e.recommended_need_contrast() {
            let contrasts: Vec<f32> = (-6..=6).map(|k| contrast + k as f32 * 0.25).collect();
            sweep(
                &format!(
                    "`needs` at the fine threshold {fine:.2}, need threshold adapting \
                     (the first column is the contrast):"
                ),
                &data,
                e,
                &contrasts,
                |c| Method::Needs(fine, need, Some(c)),
            )?;
        }
    }
    Ok(())
}

fn measure(args: &Args) -> Result<(), String> {
    for (name, embedder) in embedders(args)? {
        let e = embedder.as_ref();
        let (fine, need) = (e.recommended_threshold(), e.recommended_need_threshold());
        let contrast = e.recommended_need_contrast();
        // The baseline's threshold, chosen on the calibration split as ours were.
        let calibration = args
            .corpora
            .iter()
            .map(|c| prepare(c, Split::Calibration, e, args))
            .collect::<Result<Vec<_>, _>>()?;
        let mut best_leader: Option<(f32, f64)> = None;
        for t in around(fine, 0.12) {
            let mut mean = 0.0;
            for d in &calibration {
                mean += summarize(&run(d, e, Method::Leader(t))?)[0].0 / calibration.len() as f64;
            }
            if best_leader.is_none_or(|(_, b)| mean > b) {
                best_leader = Some((t, mean));
            }
        }
        let leader = best_leader.map_or(fine, |(t, _)| t);
        for corpus in &args.corpora {
            let d = prepare(corpus, Split::HeldOut, e, args)?;
            println!(
                "### {name}, {} held-out split: {} texts, {} intents ({} orders)\n",
                d.name,
                d.set.texts.len(),
                d.set.intents(),
                args.orders
            );
            println!("| | {COLUMNS}");
            println!(
                "{}",
                row(
                    &format!("`leader` @ {leader:.2} (baseline)"),
                    &run(&d, e, Method::Leader(leader))?
                )
            );
            println!(
                "{}",
                row(
                    &format!("`clusters` @ {fine:.2}"),
                    &run(&d, e, Method::Clusters(fine))?
                )
            );
            let main = match contrast {
                Some(c) => format!("**`needs` @ {fine:.2} / {c:.2} × background**"),
                None => format!("**`needs` @ {fine:.2} / {need:.2}**"),
            };
            println!(
                "{}",
                row(&main, &run(&d, e, Method::Needs(fine, need, contrast))?)
            );
            if let Some(c) = contrast {
                for offset in [-0.5f32, -0.25, 0.25, 0.5] {
                    let k = c + offset;
                    println!(
                        "{}",
                        row(
                            &format!(
                                "`needs` @ {fine:.2} / {k:.2} × background (contrast {offset:+.2})"
                            ),
                            &run(&d, e, Method::Needs(fine, need, Some(k)))?
                        )
                    );
                }
            }
            for offset in [-0.10f32, -0.05, 0.0, 0.05, 0.10] {
                let t = need + offset;
                println!(
                    "{}",
                    row(
                        &format!("`needs` @ {fine:.2} / {t:.2} fixed (need {offset:+.2})"),
                        &run(&d, e, Method::Needs(fine, t, None))?
                    )
                );
            }
            for offset in [-0.10f32, -0.05, 0.05, 0.10] {
                let t = fine + offset;
                println!(
                    "{}",
                    row(
                        &format!("`needs` @ {t:.2} (fine {offset:+.2})"),
                        &run(&d, e, Method::Needs(t, need, contrast))?
                    )
                );
            }
            println!();
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|args| {
        if let Some(dir) = &args.dump {
            dump::dump(&args, dir)
        } else if args.calibrate {
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
