//! `sdsi evolve --schema TEMPLATE EVENTS.jsonl`: replay a traffic log through
//! validation and the default evolution engine, printing what it would do.

use std::io::{self, Write};
use std::path::PathBuf;

use sdsi::SchemaStore;
use sdsi::evolution::{
    Branching, Evolution, EvolutionConfig, EvolutionEngine, IntentInducer, Lending, PoolConfig,
    RuleInducer,
};
use sdsi::patch::{DenySensitive, LifecyclePolicy};
use sdsi::validate::ValidateOptions;
use sdsi_llm::{LlmConfig, LlmInducer, ResponseFormat};
use sdsi_report::{History, Report, render, rfc3339};
use sdsi_sqlite::SqliteState;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use self::engine::{Engine, Event, put_in_place, shared_pools};
use crate::log_cursor::{Cursor, LastLine, Lines, Reopen, Resumed};
use crate::output::{Entry, Outcome, Status, entries};
use crate::{duration, embedder, input, instant, progress, template};

mod engine;
mod replica;
mod replica_name;

/// Which inducer names, types and describes the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Inducer {
    /// The rule-based inducer (no model).
    Rules,
    /// An OpenAI-compatible chat-completions endpoint (--llm-url,
    /// --llm-model; a bearer token from SDSI_LLM_API_KEY), falling back to
    /// the rules when it fails.
    Llm,
}

/// How the reply's JSON schema is sent to the LLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LlmFormat {
    /// OpenAI's `{"type": "json_schema", "json_schema": {"strict": true, ...}}`.
    JsonSchema,
    /// `{"type": "json_object", "schema": ...}` (llama-cpp-python's server).
    JsonObject,
}

/// What becomes of the heat a need lent to a neighbour proposed with its
/// help (`sdsi::evolution::Lending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LendingArg {
    /// The lender lends no more and is never supported again.
    Silence,
    /// The lender books the heat it held then; what it gains later counts.
    Book,
}

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  every line was replayed
  1  some lines could not be read (each an {\"event\":\"error\",\"line\":N} line);
     replicas: a logged row did not read, or was refused for being dated
     more than 30 days past the database's clock (an error event with its seq)
  2  the template, the log, the model, the state or the report cannot be
     used or written (the stream ends with {\"event\":\"error\",\"errors\":[...]});
     a usage error";

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

    /// What becomes of the heat a need lent to a neighbour whose key was
    /// proposed with its help (default: the embedder's recommendation,
    /// `book` for --model, `silence` for the hashing embedder).
    #[arg(long, value_enum)]
    pub lending: Option<LendingArg>,

    /// A sentence-transformer directory (`config.json`, `tokenizer.json`,
    /// `model.safetensors`; see scripts/fetch-model.sh) to embed with,
    /// instead of the hashing embedder. A `--state` file remembers which:
    /// resuming with another embedder is refused.
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,

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

    /// Who induces a key when a need's gate opens.
    #[arg(long, value_enum, default_value = "rules")]
    pub inducer: Inducer,

    /// With `--inducer llm`: the API base, up to and including `/v1`.
    #[arg(long, value_name = "URL", required_if_eq("inducer", "llm"))]
    pub llm_url: Option<String>,

    /// With `--inducer llm`: the model name the endpoint serves.
    #[arg(long, value_name = "NAME", required_if_eq("inducer", "llm"))]
    pub llm_model: Option<String>,

    /// With `--inducer llm`: how the reply's schema is sent (default:
    /// json-schema).
    #[arg(long, value_enum)]
    pub llm_format: Option<LlmFormat>,

    /// With `--inducer llm`: seconds one request may take (default: 60).
    #[arg(long, value_name = "SECONDS")]
    pub llm_timeout: Option<u64>,

    /// Keep the store and the engine in this SQLite file: a later run with
    /// the same file and log resumes after the last line saved, with the same
    /// output as one uninterrupted run. A `postgres://` or `postgresql://`
    /// URL shares them in PostgreSQL between replicas (see --replica).
    #[arg(long, value_name = "PATH|URL")]
    pub state: Option<PathBuf>,

    /// With a PostgreSQL --state: this process's name among the replicas
    /// sharing it. Each appends its lines to the shared observation log;
    /// one at a time folds the log and prints what that did (docs/replicas.md).
    /// Give each replica a name of its own, and the same name again to a
    /// replica restarted in its place (default: one made up per process,
    /// HOST-PID-RANDOM, which the summary names).
    #[arg(long, value_name = "NAME")]
    pub replica: Option<String>,

    /// With a PostgreSQL --state: a replica not heard of for this long
    /// (it died, or its input went quiet) no longer holds back the folding
    /// of the others' lines, and the folding replica deletes its row
    /// (default: 30s).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub replica_timeout: Option<Duration>,

    /// With `--state`: save the state as one blob (as builds before rows
    /// read it) instead of the default, where each fine cluster, need and
    /// counter is a row of its own and a save writes only what changed
    /// (docs/replicas.md, "The state as rows"). Any state loads with or
    /// without it.
    #[arg(long, requires = "state")]
    pub whole_state: bool,

    /// With a SQLite `--state`: save after every N lines (and at the end),
    /// so a run that is killed loses at most N lines of work, which the next
    /// run replays (default: 1000). Replicas save after each fold instead.
    #[arg(long, value_name = "N", requires = "state")]
    pub save_every: Option<u64>,

    /// Accept one jump of the clock past the store's bound (30 days after
    /// its last evaluation): for a state resumed after a long pause, or a
    /// log with a quiet month. Without it such lines are refused
    /// (`clock_refused`) and the store does not move.
    #[arg(long)]
    pub after_pause: bool,

    /// Refuse lines dated after this time (RFC 3339; default: this
    /// machine's clock plus five minutes). A line from the future would
    /// date the store and a need's heat ahead of every real line, so it is
    /// reported (`clock_refused`) and not counted.
    #[arg(long, value_name = "RFC3339", value_parser = instant::parse)]
    pub not_after: Option<OffsetDateTime>,

    /// Write an HTML report of the run to this file at the end (see
    /// `sdsi report` for one from a saved state); the summary names it.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

/// Where the state lives and how far it got.
struct Saving {
    db: SqliteState,
    /// The state file, as messages name it.
    place: String,
    scenario: String,
    /// The version last read or written (`None`: nothing saved yet).
    version: Option<u64>,
    /// How far in its log an earlier run got (`None`: nothing read yet).
    log: Option<Cursor>,
    every: u64,
    /// What the report shows, kept beside the state.
    history: History,
}

impl Saving {
    /// Opens the state and puts a saved store and engine in place, if any.
    fn open(
        path: &std::path::Path,
        store: &mut SchemaStore,
        engine: &mut Engine,
        every: u64,
        state_as_rows: bool,
    ) -> Result<Self, String> {
        let mut db = SqliteState::open(path).map_err(|e| e.to_string())?;
        db.keep_state_as_rows(state_as_rows);
        let scenario = store.base().scenario.clone();
        let mut saving = Saving {
            db,
            place: path.display().to_string(),
            scenario,
            version: None,
            log: None,
            every: every.max(1),
            history: History::new(),
        };
        if let Some(saved) = saving
            .db
            .load(&saving.scenario)
            .map_err(|e| e.to_string())?
        {
            let place = path.display().to_string();
            put_in_place(saved.store, saved.engine, store, engine, &place)?;
            saving.version = Some(saved.version);
            saving.history = crate::history::load(&mut saving.db, &saving.scenario)?;
            let log = crate::history::load_cursor(&mut saving.db, &saving.scenario)?;
            saving.log = matching(log, saved.cursor)?;
        }
        Ok(saving)
    }

    /// The stream's error line for a save that failed with `message`.
    fn unsaved(&self, message: String) -> Outcome {
        Outcome::stream_error(&[Entry::unwritable(&self.place, message)])
    }

    /// Saves the state with its report history and its log cursor, in one
    /// transaction: a save that fails or is killed leaves all three as the
    /// last save left them, so the next run resumes where the state is.
    fn save(
        &mut self,
        store: &SchemaStore,
        engine: &Engine,
        history: &History,
        cursor: &Cursor,
    ) -> Result<(), String> {
        let (history_name, history) = crate::history::to_attachment(history)?;
        let (cursor_name, log) = crate::history::cursor_attachment(cursor)?;
        let version = self
            .db
            .save_with_attachments(
                &self.scenario,
                self.version,
                cursor.line,
                store,
                &engine.state(),
                &[(history_name, &history), (cursor_name, &log)],
            )
            .map_err(|e| e.to_string())?;
        self.version = Some(version);
        Ok(())
    }
}

/// The saved log cursor, checked against the state's own line count
/// `line`. They are saved in one transaction, so they match; a state past
/// line 0 without a matching cursor (saved before cursors were tied to
/// their log, or by a save of an earlier build that stopped between the
/// state and its cursor) is refused: which log it read, and how far, cannot
/// be checked, and skipping a bare count of lines of whatever log is given
/// would lose them unread.
fn matching(log: Option<Cursor>, line: u64) -> Result<Option<Cursor>, String> {
    match log {
        Some(cursor) if cursor.line == line => Ok(Some(cursor)),
        None if line == 0 => Ok(None),
        found => Err(format!(
            "the state was saved after line {line} of its log, but its log cursor {}: which \
             log it read cannot be checked; replay the logs into a new state file",
            match found {
                Some(cursor) => format!("is at line {}", cursor.line),
                None => "is missing".to_owned(),
            }
        )),
    }
}

/// The flags that mean nothing with these others, as a usage error's
/// message: clap cannot say "only with `--inducer llm`" or "only with a
/// SQLite `--state`" itself.
pub fn misused(args: &Args) -> Option<String> {
    let llm_flags = [
        ("--llm-url", args.llm_url.is_some()),
        ("--llm-model", args.llm_model.is_some()),
        ("--llm-format", args.llm_format.is_some()),
        ("--llm-timeout", args.llm_timeout.is_some()),
    ];
    if args.inducer != Inducer::Llm {
        if let Some((flag, _)) = llm_flags.iter().find(|(_, given)| *given) {
            return Some(format!("{flag} is used only with --inducer llm"));
        }
    }
    let replicas = args.state.as_deref().and_then(postgres_url).is_some();
    if replicas && args.save_every.is_some() {
        return Some(
            "--save-every is for a SQLite --state: replicas save after each fold".to_owned(),
        );
    }
    if replicas && args.not_after.is_some() {
        return Some(
            "--not-after is for a single process: replicas refuse rows dated more than 30 days \
             past the database's clock"
                .to_owned(),
        );
    }
    if args.replica.is_some() && !replicas {
        return Some("--replica needs a PostgreSQL --state (postgresql://...)".to_owned());
    }
    if args.replica_timeout.is_some() && !replicas {
        return Some("--replica-timeout needs a PostgreSQL --state (postgresql://...)".to_owned());
    }
    None
}

/// Runs the command: exit 0 when every line was replayed, 1 when some lines
/// could not be read (each reported as an `error` event), 2 when the
/// template, the log, the state or the report cannot be used: the stream
/// then ends with its error line.
pub fn run(args: &Args) -> Outcome {
    let options = ValidateOptions::default();
    let template = match input::read_capped(&args.schema, options.limits.max_bytes) {
        Err(entry) => return Outcome::stream_error(&[entry]),
        Ok(bytes) => match template::load(&bytes, options) {
            Ok(usable) => usable.template,
            Err(rejected) => return Outcome::stream_error(&rejected.errors()),
        },
    };
    let reader = match input::lines(&args.events) {
        Ok(reader) => progress::track(&args.events, reader),
        Err(entry) => return Outcome::stream_error(&[entry]),
    };
    let mut store = match SchemaStore::new(template, LifecyclePolicy::default()) {
        Ok(store) => store,
        Err(error) => return Outcome::stream_error(&entries(error.errors())),
    };
    let url = args.state.as_deref().and_then(postgres_url);
    // Made up only for a replica: a name of its own per process.
    let replica_name = match (&args.replica, url) {
        (Some(name), _) => name.clone(),
        (None, Some(_)) => replica_name::generated(),
        (None, None) => String::new(),
    };
    let joined = match url {
        None => None,
        Some(url) => {
            let settings = replica::Settings {
                url,
                replica: &replica_name,
                heard_within: args
                    .replica_timeout
                    .map_or(replica::HEARD_WITHIN, |d| d.unsigned_abs()),
                embedder: embedder::tag(args.model.as_deref()),
                log_vectors: args.model.is_some(),
                forget_after: args.window,
                report: args.report.as_deref(),
                after_pause: args.after_pause,
                state_as_rows: !args.whole_state,
            };
            match replica::join(&settings, &store.base().scenario) {
                Ok(db) => Some((settings, db)),
                Err(message) => {
                    return Outcome::stream_error(&[Entry::unreadable("--state", message)]);
                }
            }
        }
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
    if let Some(threshold) = args.need_threshold {
        config = config.need_threshold(threshold);
    }
    if let Some(contrast) = args.need_contrast {
        config = config.need_contrast(contrast);
    }
    if let Some(lending) = args.lending {
        config = config.lending(match lending {
            LendingArg::Silence => Lending::Silence,
            LendingArg::Book => Lending::Book,
        });
    }
    if args.per_client {
        config = config.branching(Branching::GlobalAndPerClient);
    }
    let given = embedder::Given {
        threshold: args.threshold,
        need_threshold: args.need_threshold,
        need_contrast: args.need_contrast,
    };
    let embedder = match embedder::load_or_fail(args.model.as_deref(), given) {
        Ok(embedder) => embedder,
        Err(outcome) => return outcome,
    };
    let inducer: Box<dyn IntentInducer> = match args.inducer {
        Inducer::Rules => Box::new(RuleInducer),
        Inducer::Llm => {
            let reply_format = match args.llm_format.unwrap_or(LlmFormat::JsonSchema) {
                LlmFormat::JsonSchema => ResponseFormat::JsonSchema,
                LlmFormat::JsonObject => ResponseFormat::JsonObject,
            };
            let config = LlmConfig::new(
                args.llm_url.clone().unwrap_or_default(),
                args.llm_model.clone().unwrap_or_default(),
            )
            .api_key(std::env::var("SDSI_LLM_API_KEY").ok())
            .format(reply_format)
            .timeout(std::time::Duration::from_secs(
                args.llm_timeout.unwrap_or(60).max(1),
            ));
            match LlmInducer::new(config) {
                Ok(inducer) => Box::new(inducer),
                Err(error) => {
                    return Outcome::stream_error(&[Entry::unreadable("--llm-url", error)]);
                }
            }
        }
    };
    let mut engine = Evolution::new(embedder, inducer, config);
    if let Some((settings, db)) = joined {
        return replica::run(&settings, db, reader, &mut store, &mut engine);
    }
    let saving = match &args.state {
        None => None,
        Some(path) => match Saving::open(
            path,
            &mut store,
            &mut engine,
            args.save_every.unwrap_or(1000),
            !args.whole_state,
        ) {
            Ok(saving) => Some(saving),
            Err(message) => {
                return Outcome::stream_error(&[Entry::unreadable(
                    &path.display().to_string(),
                    message,
                )]);
            }
        },
    };
    let reopen: Option<Reopen> = if input::is_stdin(&args.events) {
        None
    } else {
        let path = args.events.clone();
        Some(Box::new(move || {
            input::lines(&path)
                .map(|reader| progress::track(&path, reader))
                .map_err(|entry| io::Error::other(format!("{entry:?}")))
        }))
    };
    let saved = saving.as_ref().and_then(|s| s.log.as_ref());
    // With a state a later run reads a last line once its newline is
    // written; without one, no later run will.
    let last_line = if saving.is_some() {
        LastLine::Wait
    } else {
        LastLine::Read
    };
    let lines = match Lines::resume(reader, saved, reopen, last_line) {
        Ok(lines) => lines,
        Err(message) => {
            let what = input::describe(&args.events);
            return Outcome::stream_error(&[Entry::unreadable(&what, message)]);
        }
    };
    let report = args.report.as_deref();
    let clock = Clock {
        after_pause: args.after_pause,
        not_after: not_after(args.not_after),
    };
    replay(lines, &mut store, &mut engine, saving, report, clock)
}

/// How the replay treats the log's times.
struct Clock {
    /// Accept one jump past the store's bound (`--after-pause`).
    after_pause: bool,
    /// Lines dated later are refused (`--not-after`).
    not_after: OffsetDateTime,
}

/// The latest time a line may carry: `given`, or this machine's clock
/// plus the skew patches are allowed.
fn not_after(given: Option<OffsetDateTime>) -> OffsetDateTime {
    given.unwrap_or_else(|| {
        OffsetDateTime::now_utc().saturating_add(LifecyclePolicy::default().clock_skew)
    })
}

/// Replays the log, streaming one JSON object per line of output.
fn replay(
    mut reader: Lines,
    store: &mut SchemaStore,
    engine: &mut Engine,
    mut saving: Option<Saving>,
    report: Option<&std::path::Path>,
    clock: Clock,
) -> Outcome {
    let Clock {
        mut after_pause,
        not_after,
    } = clock;
    let mut out = io::stdout().lock();
    let mut emit = |value: Value| writeln!(out, "{value}").is_ok();
    let (mut lines, mut bad, mut triggers, mut proposals, mut held) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    // Kept only when someone will read it: a report, or a saved state.
    let keep_history = report.is_some() || saving.is_some();
    let mut history = saving
        .as_mut()
        .map(|s| std::mem::take(&mut s.history))
        .unwrap_or_default();
    let resumed = reader.resumed;
    while let Some((number, line)) = reader.next() {
        let number = usize::try_from(number).unwrap_or(usize::MAX);
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
        if event.at > not_after {
            let refused = json!({"now": rfc3339(event.at), "not_after": rfc3339(not_after)});
            emit(with_line(
                json!({"event": "clock_refused", "clock": refused}),
                number,
            ));
            continue;
        }
        let mut resumed_at = None;
        if after_pause && store.lifecycle().clock_jump(event.at).is_some() {
            // Once, as asked: the store moves to this line's time.
            after_pause = false;
            resumed_at = Some(store.evaluate_after_pause(event.at, &DenySensitive));
        }
        let happenings = engine.observe(store, &event.message, &event.client, event.at);
        for happened in &happenings {
            let value = serde_json::to_value(happened).unwrap_or(Value::Null);
            match value.get("event").and_then(Value::as_str) {
                Some("triggered") => triggers += 1,
                Some("proposed") => proposals += 1,
                Some("held") => held += 1,
                _ => {}
            }
            if !emit(with_line(value, number)) {
                return Outcome::streamed(Status::Unusable);
            }
        }
        // The pipeline submits with `DenySensitive`; releases are held to the same rule.
        let mut evaluation = store.evaluate(event.at, &DenySensitive);
        if let Some(mut first) = resumed_at {
            first.transitions.append(&mut evaluation.transitions);
            evaluation.transitions = first.transitions;
        }
        if keep_history {
            history.record(
                event.at,
                &happenings,
                &evaluation.transitions,
                store,
                shared_pools(engine),
            );
        }
        if let Some(jump) = &evaluation.clock_refused {
            // The line's time lies too far past the store's last evaluation.
            let value = serde_json::to_value(jump).unwrap_or(Value::Null);
            emit(with_line(
                json!({"event": "clock_refused", "clock": value}),
                number,
            ));
        }
        for transition in evaluation.transitions {
            let value = serde_json::to_value(&transition).unwrap_or(Value::Null);
            emit(with_line(
                json!({"event": "transition", "transition": value}),
                number,
            ));
        }
        if let Some(saving) = saving.as_mut() {
            let cursor = reader.cursor();
            if cursor.line % saving.every == 0 {
                if let Err(message) = saving.save(store, engine, &history, &cursor) {
                    return saving.unsaved(message);
                }
            }
        }
    }
    if let Some(saving) = saving.as_mut() {
        if let Err(message) = saving.save(store, engine, &history, &reader.cursor()) {
            return saving.unsaved(message);
        }
    }
    let written = match report {
        None => None,
        Some(path) => {
            let at = history.last_at.unwrap_or(OffsetDateTime::UNIX_EPOCH);
            let page = render(&Report::gather(store, shared_pools(engine), &history, at));
            if let Err(error) = std::fs::write(path, page) {
                let what = path.display().to_string();
                return Outcome::stream_error(&[Entry::unwritable(&what, error)]);
            }
            Some(path.display().to_string())
        }
    };
    let mut summary = json!({"event": "summary", "lines": lines, "unreadable_lines": bad,
                "triggers": triggers, "patches_proposed": proposals, "patches_held": held});
    if let Some(object) = summary.as_object_mut() {
        match resumed {
            Resumed::After(line) if line > 0 => {
                object.insert("resumed_after_line".to_owned(), json!(line));
            }
            Resumed::NewLog => {
                object.insert("new_log".to_owned(), json!(true));
            }
            _ => {}
        }
        if let Some(line) = reader.unfinished() {
            object.insert("unfinished_line".to_owned(), json!(line));
        }
        if let Some(path) = written {
            object.insert("report".to_owned(), json!(path));
        }
    }
    emit(summary);
    Outcome::streamed(if bad == 0 {
        Status::Valid
    } else {
        Status::Invalid
    })
}

/// `state` when it is a PostgreSQL URL.
fn postgres_url(state: &std::path::Path) -> Option<&str> {
    let text = state.to_str()?;
    (text.starts_with("postgres://") || text.starts_with("postgresql://")).then_some(text)
}

fn with_line(mut value: Value, line: usize) -> Value {
    if let Some(object) = value.as_object_mut() {
        object.insert("line".to_owned(), json!(line));
    }
    value
}
