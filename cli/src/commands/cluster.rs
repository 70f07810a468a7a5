//! `sdsi cluster FRAGMENTS.txt`: which cluster and need each fragment joins.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use sdsi::evolution::{Embedder, Pool, PoolConfig, Redaction, redact, sanitize_fragment};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::output::{Entry, Outcome, Status};
use crate::{embedder, input, progress};

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  every line was read and clustered
  2  the file or the model cannot be read, or a threshold is outside
     -1..=1 (the stream ends with {\"event\":\"error\",\"errors\":[...]});
     a usage error";

/// Arguments of `cluster`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One fragment per line; `-` reads standard input.
    #[arg(value_name = "FRAGMENTS")]
    pub fragments: PathBuf,

    /// Similarity to join a cluster: the mean cosine to its members (default: the embedder's recommendation).
    #[arg(long)]
    pub threshold: Option<f32>,

    /// Similarity at which clusters are one need: the mean cosine between
    /// their members. Given alone, it is fixed; by default the need
    /// threshold adapts to the traffic (see --need-contrast).
    #[arg(long)]
    pub need_threshold: Option<f32>,

    /// The need threshold as a multiple of the background similarity (the
    /// mean cosine between requests of different needs), so that it
    /// adapts to the domain (default: the embedder's recommendation, unless
    /// --need-threshold is given).
    #[arg(long)]
    pub need_contrast: Option<f32>,

    /// A sentence-transformer directory (`config.json`, `tokenizer.json`,
    /// `model.safetensors`; see scripts/fetch-model.sh) to embed with,
    /// instead of the hashing embedder.
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,
}

/// Lines embedded together: one forward pass of a model per chunk.
const CHUNK: usize = 64;

/// Prints one JSON object per input line, `{"line", "fragment", "cluster",
/// "need", "new"}` (plus `"merged"` when a drifting cluster was folded in),
/// then a summary, then `{"final": {"clusters": [...], "needs": [...]}}`:
/// for every input line in order, the cluster and need it belongs to once
/// the whole file is read. Cluster ids count up from 0 in order of
/// creation, need ids in order of first appearance. A command-level error
/// ends the stream with its error line (exit 2).
pub fn run(args: &Args) -> Outcome {
    let reader = match input::lines(&args.fragments) {
        Ok(reader) => progress::track(&args.fragments, reader),
        Err(entry) => return Outcome::stream_error(&[entry]),
    };
    let given = embedder::Given {
        threshold: args.threshold,
        need_threshold: args.need_threshold,
        need_contrast: args.need_contrast,
    };
    let embedder = match embedder::load_or_fail(args.model.as_deref(), given) {
        Ok(embedder) => embedder,
        Err(outcome) => return outcome,
    };
    let threshold = args
        .threshold
        .unwrap_or_else(|| embedder.recommended_threshold());
    let mut config = PoolConfig::new(embedder.dimension(), threshold).with_embedder_needs(
        embedder.as_ref(),
        args.need_threshold,
        args.need_contrast,
        None,
    );
    let need_contrast = config.need_contrast;
    // Every line is kept and scored: nothing is evicted, and the one
    // client the lines come from has no quota.
    config.max_clusters = usize::MAX;
    config.max_new_clusters_per_client = usize::MAX;
    let mut clustering = match Pool::new(config) {
        Ok(pool) => Clustering {
            pool,
            ids: HashMap::new(),
            founded: 0,
            need_ids: HashMap::new(),
            lines_of: HashMap::new(),
            joined: Vec::new(),
        },
        Err(error) => {
            return Outcome::stream_error(&[Entry::tool("invalid_option", error.to_string())]);
        }
    };
    let mut out = io::stdout().lock();
    let mut lines = 0usize;
    let mut chunk: Vec<(usize, String)> = Vec::with_capacity(CHUNK);
    let mut reader = reader.lines().enumerate();
    let mut unreadable = None;
    loop {
        chunk.clear();
        for (number, line) in reader.by_ref() {
            match line {
                Ok(line) => chunk.push((number + 1, line)),
                Err(error) => {
                    // The lines read so far are printed, then the error.
                    let what = format!(
                        "line {} of {}",
                        number + 1,
                        input::describe(&args.fragments)
                    );
                    unreadable = Some(Entry::unreadable(&what, error));
                    break;
                }
            }
            if chunk.len() == CHUNK {
                break;
            }
        }
        if chunk.is_empty() {
            break;
        }
        lines += chunk.len();
        for record in clustering.chunk(embedder.as_ref(), &chunk) {
            if writeln!(out, "{record}").is_err() {
                return Outcome::streamed(Status::Unusable);
            }
        }
        if chunk.len() < CHUNK || unreadable.is_some() {
            break;
        }
    }
    drop(out);
    if let Some(entry) = unreadable {
        return Outcome::stream_error(&[entry]);
    }
    let mut out = io::stdout().lock();
    let summary = json!({"summary": {
        "lines": lines, "clusters": clustering.pool.len(), "needs": clustering.pool.need_count(),
        "threshold": shortest(threshold),
        "need_threshold": shortest(clustering.pool.need_threshold()),
        "need_contrast": need_contrast.map(shortest),
        "background": clustering.pool.background().map(shortest)
    }});
    let last = json!({"final": clustering.finish()});
    if writeln!(out, "{summary}").is_err() || writeln!(out, "{last}").is_err() {
        return Outcome::streamed(Status::Unusable);
    }
    Outcome::streamed(Status::Valid)
}

/// `x` as the shortest decimal that reads back as it (0.29, not the f64
/// 0.28999999165534973 the f32 widens to).
fn shortest(x: f32) -> Value {
    x.to_string()
        .parse::<f64>()
        .map_or(Value::Null, |x| json!(x))
}

/// The pool, the small ids the output gives its clusters and needs, and
/// what each line joined.
struct Clustering {
    pool: Pool,
    /// Live clusters' small ids (the order they were founded in).
    ids: HashMap<u64, usize>,
    founded: usize,
    need_ids: HashMap<u64, usize>,
    /// The lines in each live cluster (by pool id), moved to the survivor
    /// when a cluster is merged: a merged cluster's id may later be given
    /// to a new cluster (same text, same instant), so ids are not followed.
    lines_of: HashMap<u64, Vec<usize>>,
    /// Each line's cluster once every line is read (`None`: it joined nothing).
    joined: Vec<Option<u64>>,
}

impl Clustering {
    /// Sanitizes, redacts (as the evolution pipeline does: values become
    /// placeholders first), embeds a chunk of lines in one batch and
    /// ingests them in order; one output record per line.
    fn chunk(&mut self, embedder: &dyn Embedder, lines: &[(usize, String)]) -> Vec<Value> {
        let cleaned: Vec<Option<(String, bool)>> = lines
            .iter()
            .map(|(_, line)| {
                sanitize_fragment(line).map(|clean| (redact(&clean.text).text, clean.flagged))
            })
            .collect();
        // As `sdsi evolve` embeds them: placeholders are not content.
        let embedded: Vec<String> = cleaned
            .iter()
            .flatten()
            .map(|(t, _)| Redaction::embedded(t).into_owned())
            .collect();
        let texts: Vec<&str> = embedded.iter().map(String::as_str).collect();
        let mut vectors = embedder.embed_batch(&texts).into_iter();
        let now = OffsetDateTime::UNIX_EPOCH;
        lines
            .iter()
            .zip(&cleaned)
            .map(|((number, line), clean)| {
                let mut record = Map::new();
                record.insert("line".into(), json!(number));
                record.insert("fragment".into(), json!(line));
                record.insert("cluster".into(), Value::Null);
                let vector = clean.as_ref().and_then(|_| vectors.next());
                let line = self.joined.len();
                self.joined.push(None);
                if let (Some((text, flagged)), Some(vector)) = (clean, vector) {
                    if let Ok(ingested) = self.pool.ingest(&vector, text, *flagged, "cli", now) {
                        if ingested.created {
                            self.ids.insert(ingested.cluster, self.founded);
                            self.founded += 1;
                        }
                        let id = self.ids.get(&ingested.cluster).copied();
                        record.insert("cluster".into(), json!(id));
                        record.insert("need".into(), json!(self.need_id(ingested.need)));
                        record.insert("new".into(), json!(ingested.created));
                        if let Some(merged) = ingested.merged {
                            if let Some(small) = self.ids.remove(&merged) {
                                record.insert("merged".into(), json!(small));
                            }
                            let moved = self.lines_of.remove(&merged).unwrap_or_default();
                            self.lines_of
                                .entry(ingested.cluster)
                                .or_default()
                                .extend(moved);
                        }
                        if let Some(evicted) = ingested.evicted {
                            self.lines_of.remove(&evicted);
                        }
                        self.lines_of
                            .entry(ingested.cluster)
                            .or_default()
                            .push(line);
                    }
                }
                Value::Object(record)
            })
            .collect()
    }

    /// The small id of need `need`, given in order of first appearance.
    fn need_id(&mut self, need: u64) -> usize {
        let next = self.need_ids.len();
        *self.need_ids.entry(need).or_insert(next)
    }

    /// Each line's cluster and need once every line is read: a cluster
    /// merged into another counts as the one that absorbed it.
    fn finish(&mut self) -> Value {
        for (id, lines) in &self.lines_of {
            for &line in lines {
                if let Some(slot) = self.joined.get_mut(line) {
                    *slot = Some(*id);
                }
            }
        }
        let mut clusters = Vec::with_capacity(self.joined.len());
        let mut needs = Vec::with_capacity(self.joined.len());
        for joined in std::mem::take(&mut self.joined) {
            let Some(id) = joined else {
                clusters.push(Value::Null);
                needs.push(Value::Null);
                continue;
            };
            clusters.push(self.ids.get(&id).map_or(Value::Null, |small| json!(small)));
            let need = self.pool.cluster(id).map(|c| c.need());
            needs.push(need.map_or(Value::Null, |n| json!(self.need_id(n))));
        }
        json!({"clusters": clusters, "needs": needs})
    }
}
