//! `sdsi evolve --schema TEMPLATE EVENTS.jsonl`: replay a traffic log through
//! validation and the default evolution engine, printing what it would do.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use sdsi::SchemaStore;
use sdsi::evolution::{
    Branching, Evolution, EvolutionConfig, EvolutionEngine, HashingEmbedder, PoolConfig,
    RuleInducer,
};
use sdsi::patch::{DenySensitive, LifecyclePolicy};
use sdsi::validate::ValidateOptions;
use serde::Deserialize;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::output::{Entry, Format, Outcome, Status};
use crate::{duration, input, template};

/// Arguments of `evolve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The base schema template (JSON).
    #[arg(long, short = 's', value_name = "TEMPLATE")]
    pub schema: PathBuf,

    /// The log: one JSON object per line, `{"at": RFC 3339, "client": ID,
    /// "message": {"schema_id", "payload"}}`; `-` reads standard input.
    #[arg(value_name = "EVENTS")]
    pub events: PathBuf,

    /// Similarity to join a cluster: the mean cosine to its members (default: the embedder's recommendation).
    #[arg(long)]
    pub threshold: Option<f32>,

    /// Half-life of heat (e.g. 24h).
    #[arg(long, value_parser = duration::parse, default_value = "24h")]
    pub half_life: Duration,

    /// Heat at which the first gate opens.
    #[arg(long, default_value_t = 50.0)]
    pub heat_threshold: f64,

    /// Distinct clients within the window that open the second gate.
    #[arg(long, default_value_t = 5)]
    pub min_clients: usize,

    /// Fragments within the window that open the second gate.
    #[arg(long, default_value_t = 10)]
    pub min_occurrences: usize,

    /// The gate's window (e.g. 7d).
    #[arg(long, value_parser = duration::parse, default_value = "7d")]
    pub window: Duration,

    /// Most heat one client may add to a cluster per window.
    #[arg(long, default_value_t = 15.0)]
    pub client_cap: f64,

    /// Also keep a pool per client, proposing patches scoped to that client.
    #[arg(long)]
    pub per_client: bool,
}

/// One line of the log.
#[derive(Deserialize)]
struct Event {
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    client: String,
    message: Value,
}

/// Runs the command: exit 0 when every line was replayed, 1 when some lines
/// could not be read (each reported as an `error` event), 2 when the
/// template or the log cannot be used at all.
pub fn run(args: &Args, format: Format) -> Outcome {
    let options = ValidateOptions::default();
    let template = match input::read_capped(&args.schema, options.limits.max_bytes) {
        Err(entry) => return unusable(vec![entry], format),
        Ok(bytes) => match template::load(&bytes, options) {
            Ok(usable) => usable.template,
            Err(rejected) => return unusable(rejected.errors(), format),
        },
    };
    let reader = match input::lines(&args.events) {
        Ok(reader) => reader,
        Err(entry) => return unusable(vec![entry], format),
    };
    let Ok(mut store) = SchemaStore::new(template, LifecyclePolicy::default()) else {
        return unusable(Vec::new(), format);
    };
    let mut pool = PoolConfig::new(1, 0.5);
    pool.half_life_secs = args.half_life.as_seconds_f64();
    pool.heat_threshold = args.heat_threshold;
    pool.min_clients = args.min_clients;
    pool.min_occurrences = args.min_occurrences;
    pool.window_secs = args.window.as_seconds_f64();
    pool.client_heat_cap = args.client_cap;
    let mut config = EvolutionConfig::default().pool(pool);
    if let Some(threshold) = args.threshold {
        config = config.threshold(threshold);
    }
    if args.per_client {
        config = config.branching(Branching::GlobalAndPerClient);
    }
    let mut engine = Evolution::new(HashingEmbedder::default(), RuleInducer, config);
    replay(reader, &mut store, &mut engine)
}

/// Replays the log, streaming one JSON object per line of output.
fn replay(
    reader: Box<dyn BufRead>,
    store: &mut SchemaStore,
    engine: &mut impl EvolutionEngine,
) -> Outcome {
    let mut out = io::stdout().lock();
    let mut emit = |value: Value| writeln!(out, "{value}").is_ok();
    let (mut lines, mut bad, mut triggers, mut proposals) = (0u64, 0u64, 0u64, 0u64);
    for (number, line) in reader.lines().enumerate() {
        let number = number + 1;
        let line = match line {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => line,
            Err(error) => {
                bad += 1;
                emit(
                    json!({"event": "error", "line": number, "message": format!("cannot read line: {error}")}),
                );
                break;
            }
        };
        lines += 1;
        let event: Event = match serde_json::from_str(&line) {
            Ok(event) => event,
            Err(error) => {
                bad += 1;
                emit(json!({"event": "error", "line": number, "message": error.to_string()}));
                continue;
            }
        };
        for happened in engine.observe(store, &event.message, &event.client, event.at) {
            let value = serde_json::to_value(&happened).unwrap_or(Value::Null);
            match value.get("event").and_then(Value::as_str) {
                Some("triggered") => triggers += 1,
                Some("proposed") => proposals += 1,
                _ => {}
            }
            if !emit(with_line(value, number)) {
                return Outcome::streamed(Status::Unusable);
            }
        }
        // The pipeline submits with `DenySensitive`; releases are held to the same rule.
        let evaluation = store.evaluate(event.at, &DenySensitive);
        for transition in evaluation.transitions {
            let value = serde_json::to_value(&transition).unwrap_or(Value::Null);
            emit(with_line(
                json!({"event": "transition", "transition": value}),
                number,
            ));
        }
    }
    emit(
        json!({"event": "summary", "lines": lines, "unreadable_lines": bad,
                "triggers": triggers, "patches_proposed": proposals}),
    );
    Outcome::streamed(if bad == 0 {
        Status::Valid
    } else {
        Status::Invalid
    })
}

fn with_line(mut value: Value, line: usize) -> Value {
    if let Some(object) = value.as_object_mut() {
        object.insert("line".to_owned(), json!(line));
    }
    value
}

fn unusable(errors: Vec<Entry<'_>>, format: Format) -> Outcome {
    Outcome::new(
        Status::Unusable,
        &json!({"event": "error", "errors": errors}),
        format,
    )
}
