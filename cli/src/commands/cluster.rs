//! `sdsi cluster FRAGMENTS.txt`: which cluster each fragment joins.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use sdsi::evolution::{Embedder, Pool, PoolConfig, redact, sanitize_fragment};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::output::{Format, Outcome, Status};
use crate::{embedder, input};

/// Arguments of `cluster`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One fragment per line; `-` reads standard input.
    #[arg(value_name = "FRAGMENTS")]
    pub fragments: PathBuf,

    /// Similarity to join a cluster: the mean cosine to its members (default: the embedder's recommendation).
    #[arg(long)]
    pub threshold: Option<f32>,

    /// A sentence-transformer directory (`config.json`, `tokenizer.json`,
    /// `model.safetensors`; see scripts/fetch-model.sh) to embed with,
    /// instead of the hashing embedder.
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,
}

/// Lines embedded together: one forward pass of a model per chunk.
const CHUNK: usize = 64;

/// Prints one JSON object per input line, `{"line", "fragment", "cluster",
/// "new"}` (plus `"merged"` when a drifting cluster was folded in), then a
/// summary; cluster ids count up from 0 in order of creation.
pub fn run(args: &Args, format: Format) -> Outcome {
    let unusable = |code: &str, message: String| {
        let entry = json!({"code": code, "path": "", "message": message});
        Outcome::new(Status::Unusable, &json!({"errors": [entry]}), format)
    };
    let reader = match input::lines(&args.fragments) {
        Ok(reader) => reader,
        Err(entry) => return Outcome::new(Status::Unusable, &json!({"errors": [entry]}), format),
    };
    let embedder = match embedder::load(args.model.as_deref()) {
        Ok(embedder) => embedder,
        Err(message) => return unusable("unreadable", message),
    };
    let threshold = args
        .threshold
        .unwrap_or_else(|| embedder.recommended_threshold());
    let mut config = PoolConfig::new(embedder.dimension(), threshold);
    config.max_clusters = usize::MAX;
    let mut clustering = match Pool::new(config) {
        Ok(pool) => Clustering {
            pool,
            ids: HashMap::new(),
        },
        Err(error) => return unusable("invalid_option", error.to_string()),
    };
    let mut out = io::stdout().lock();
    let mut lines = 0usize;
    let mut chunk: Vec<(usize, String)> = Vec::with_capacity(CHUNK);
    let mut reader = reader.lines().enumerate();
    loop {
        chunk.clear();
        for (number, line) in reader.by_ref() {
            let Ok(line) = line else { break };
            chunk.push((number + 1, line));
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
        if chunk.len() < CHUNK {
            break;
        }
    }
    let summary = json!({"summary": {
        "lines": lines, "clusters": clustering.pool.len(), "threshold": threshold
    }});
    if writeln!(out, "{summary}").is_err() {
        return Outcome::streamed(Status::Unusable);
    }
    Outcome::streamed(Status::Valid)
}

/// The pool and the small ids the output gives its clusters.
struct Clustering {
    pool: Pool,
    ids: HashMap<u64, usize>,
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
        let texts: Vec<&str> = cleaned.iter().flatten().map(|(t, _)| t.as_str()).collect();
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
                if let (Some((text, flagged)), Some(vector)) = (clean, vector) {
                    if let Ok(ingested) = self.pool.ingest(&vector, text, *flagged, "cli", now) {
                        let next = self.ids.len();
                        let id = *self.ids.entry(ingested.cluster).or_insert(next);
                        record.insert("cluster".into(), json!(id));
                        record.insert("new".into(), json!(ingested.created));
                        if let Some(merged) = ingested.merged.and_then(|m| self.ids.get(&m)) {
                            record.insert("merged".into(), json!(merged));
                        }
                    }
                }
                Value::Object(record)
            })
            .collect()
    }
}
