//! `sdsi cluster FRAGMENTS.txt`: which cluster each fragment joins.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use sdsi::evolution::{Embedder, HashingEmbedder, Pool, PoolConfig, redact, sanitize_fragment};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::input;
use crate::output::{Format, Outcome, Status};

/// Arguments of `cluster`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One fragment per line; `-` reads standard input.
    #[arg(value_name = "FRAGMENTS")]
    pub fragments: PathBuf,

    /// Similarity to join a cluster: the mean cosine to its members (default: the embedder's recommendation).
    #[arg(long)]
    pub threshold: Option<f32>,
}

/// Prints one JSON object per input line, `{"line", "fragment", "cluster",
/// "new"}` (plus `"merged"` when a drifting cluster was folded in), then a
/// summary; cluster ids count up from 0 in order of creation.
pub fn run(args: &Args, format: Format) -> Outcome {
    let reader = match input::lines(&args.fragments) {
        Ok(reader) => reader,
        Err(entry) => return Outcome::new(Status::Unusable, &json!({"errors": [entry]}), format),
    };
    let embedder = HashingEmbedder::default();
    let threshold = args
        .threshold
        .unwrap_or_else(|| embedder.recommended_threshold());
    let mut config = PoolConfig::new(embedder.dimension(), threshold);
    config.max_clusters = usize::MAX;
    let mut pool = match Pool::new(config) {
        Ok(pool) => pool,
        Err(error) => {
            let entry = json!({"code": "invalid_option", "path": "", "message": error.to_string()});
            return Outcome::new(Status::Unusable, &json!({"errors": [entry]}), format);
        }
    };
    let mut out = io::stdout().lock();
    let mut ids: HashMap<u64, usize> = HashMap::new();
    let mut vector = vec![0.0; embedder.dimension()];
    let mut lines = 0usize;
    let now = OffsetDateTime::UNIX_EPOCH;
    for (number, line) in reader.lines().enumerate() {
        let Ok(line) = line else { break };
        lines += 1;
        let mut record = Map::new();
        record.insert("line".into(), json!(number + 1));
        record.insert("fragment".into(), json!(line));
        record.insert("cluster".into(), Value::Null);
        if let Some(mut clean) = sanitize_fragment(&line) {
            // As the evolution pipeline does: values become placeholders first.
            clean.text = redact(&clean.text).text;
            embedder.embed_into(&clean.text, &mut vector);
            if let Ok(ingested) = pool.ingest(&vector, &clean.text, clean.flagged, "cli", now) {
                let next = ids.len();
                let id = *ids.entry(ingested.cluster).or_insert(next);
                record.insert("cluster".into(), json!(id));
                record.insert("new".into(), json!(ingested.created));
                if let Some(merged) = ingested.merged.and_then(|m| ids.get(&m)) {
                    record.insert("merged".into(), json!(merged));
                }
            }
        }
        let record = Value::Object(record);
        if writeln!(out, "{record}").is_err() {
            return Outcome::streamed(Status::Unusable);
        }
    }
    let summary =
        json!({"summary": {"lines": lines, "clusters": pool.len(), "threshold": threshold}});
    if writeln!(out, "{summary}").is_err() {
        return Outcome::streamed(Status::Unusable);
    }
    Outcome::streamed(Status::Valid)
}
