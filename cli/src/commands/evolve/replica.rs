//! `sdsi evolve --state postgresql://… [--replica NAME]`: one replica of
//! several sharing a PostgreSQL state (docs/replicas.md). It turns its
//! lines into observations and appends them to the shared log; whichever
//! replica holds the evaluator lock folds the log into the pools and the
//! store, and prints what that did. At the end of its input a replica waits
//! for the lock and folds what is left, so the last one to finish leaves
//! nothing unfolded.

use std::io::{self, BufRead, Write};
use std::time::{Duration as Elapsed, Instant};

use sdsi::SchemaStore;
use sdsi::patch::DenySensitive;
use sdsi_postgres::{Horizon, Logged, PgState, Watch};
use sdsi_report::{History, Report, render};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::engine::{Engine, Event, put_in_place, shared_pools};
use crate::output::{Entry, Outcome, Status};

/// Lines appended in one transaction.
const APPEND_BATCH: usize = 256;
/// A partial batch is appended once it is this old (a slow stream).
const APPEND_AFTER: Elapsed = Elapsed::from_millis(500);
/// Observations folded per saved state.
const FOLD_BATCH: u32 = 1024;
/// By default a replica not heard of for 30 s no longer holds the others'
/// folding back (it died, or its input went quiet) and its row is deleted
/// (`--replica-timeout`).
pub const HEARD_WITHIN: Elapsed = Elapsed::from_secs(30);
/// A row waits half a second in the log before it is folded, so a replica
/// starting as others fold has that long to join.
const SETTLE: Elapsed = Elapsed::from_millis(500);
/// Folds while reading are at least this far apart: each saves the state,
/// so a fast replay saves once a second rather than once per batch.
const FOLD_EVERY: Elapsed = Elapsed::from_secs(1);
/// How far past the database server's clock a line may be dated (as far
/// as the store lets its clock jump in one step, `max_clock_jump`'s
/// default): a later one is refused, not folded, so a line dated 9999 can
/// neither be counted nor make the log forget what it holds.
const AHEAD: time::Duration = time::Duration::days(30);
/// Connection attempts before a lost server is an error.
const RECONNECTS: u32 = 5;

/// What the replica was asked to do.
pub struct Settings<'a> {
    /// The database URL.
    pub url: &'a str,
    /// The replica's name, in the log and in the events it prints.
    pub replica: &'a str,
    /// A replica not heard of for this long no longer holds the fold back,
    /// and its row is deleted ([`Watch::heard_within`]).
    pub heard_within: Elapsed,
    /// Which embedder made the vectors it logs.
    pub embedder: String,
    /// Whether to log the vectors (worth it for a model, whose embedding
    /// is the costly part; the hashing embedder's are cheaper to make
    /// again than to store, send and read: the evaluator does).
    pub log_vectors: bool,
    /// Folded observations are forgotten (a repeat counts again) this long
    /// (in message time) after the newest one folded and counted, or the
    /// database server's clock when that is earlier ([`Horizon`]).
    pub forget_after: time::Duration,
    /// An HTML report of the state at the end.
    pub report: Option<&'a std::path::Path>,
    /// Accept one clock jump past the store's bound.
    pub after_pause: bool,
    /// Keep the state as rows (see `PgState::keep_state_as_rows`).
    pub state_as_rows: bool,
}

/// A replica's counts, for its summary line.
#[derive(Default)]
struct Counts {
    lines: u64,
    unreadable: u64,
    logged: u64,
    already_logged: u64,
    folded: u64,
    unreadable_rows: u64,
    /// Rows dated too far past the database's clock to be folded.
    refused_rows: u64,
    triggers: u64,
    proposals: u64,
    held: u64,
}

/// The replica: its connection, what it loaded, and what it printed.
struct Replica<'a> {
    settings: &'a Settings<'a>,
    db: PgState,
    scenario: String,
    /// The state version the store and engine in memory are.
    version: Option<u64>,
    /// The store and engine as they were before any fold, while nothing
    /// is saved: what a fold whose save failed goes back to.
    pristine: Option<(SchemaStore, sdsi::evolution::EvolutionState)>,
    history: History,
    batch: Vec<Logged>,
    since: Instant,
    /// When this replica last tried to fold.
    folded_at: Instant,
    counts: Counts,
    after_pause: bool,
    out: io::StdoutLock<'static>,
}

/// Connects to the state database and joins `scenario`'s replicas (before
/// anything slow, such as loading a model: the others wait for a replica
/// only once it has joined).
pub fn join(settings: &Settings<'_>, scenario: &str) -> Result<PgState, String> {
    let mut db = connect(settings)?;
    db.join(scenario, settings.replica)
        .map_err(|e| format!("the state database: {e}"))?;
    Ok(db)
}

/// Runs the replica over `reader` on `db` (from [`join`]); exit statuses
/// as `evolve`'s.
pub fn run(
    settings: &Settings<'_>,
    db: PgState,
    reader: Box<dyn BufRead>,
    store: &mut SchemaStore,
    engine: &mut Engine,
) -> Outcome {
    let mut replica = match Replica::open(settings, db, store, engine) {
        Ok(replica) => replica,
        Err(message) => return Outcome::stream_error(&[Entry::unreadable("--state", message)]),
    };
    match replica.replay(reader, store, engine) {
        Ok(()) => replica.finish(store, engine),
        Err(message) => unwritable(message),
    }
}

impl<'a> Replica<'a> {
    fn open(
        settings: &'a Settings<'a>,
        db: PgState,
        store: &mut SchemaStore,
        engine: &mut Engine,
    ) -> Result<Self, String> {
        let mut replica = Replica {
            settings,
            db,
            scenario: store.base().scenario.clone(),
            version: None,
            pristine: None,
            history: History::new(),
            batch: Vec::new(),
            since: Instant::now(),
            folded_at: Instant::now(),
            counts: Counts::default(),
            after_pause: settings.after_pause,
            out: io::stdout().lock(),
        };
        replica.refresh(store, engine)?;
        if replica.version.is_none() {
            replica.pristine = Some((store.clone(), engine.state()));
        }
        Ok(replica)
    }

    fn emit(&mut self, value: Value) -> bool {
        writeln!(self.out, "{value}").is_ok()
    }

    /// Loads the saved state when it is newer than the one in memory.
    fn refresh(&mut self, store: &mut SchemaStore, engine: &mut Engine) -> Result<(), String> {
        let saved_version = self.retrying(|db, scenario| db.version(scenario))?;
        if saved_version.is_none() || saved_version == self.version {
            return Ok(());
        }
        let scenario = self.scenario.clone();
        let Some(saved) = self.db.load_saved(&scenario).map_err(|e| e.to_string())? else {
            return Ok(());
        };
        put_in_place(saved.store, saved.engine, store, engine, "the database")?;
        self.version = Some(saved.version);
        self.history = crate::history::load(&mut self.db, &scenario)?;
        Ok(())
    }

    /// `action` on the connection, connecting again (up to [`RECONNECTS`]
    /// times) when the server went away: every action here is safe to
    /// repeat (appends are idempotent by message id, folds by version).
    fn retrying<T>(
        &mut self,
        mut action: impl FnMut(&mut PgState, &str) -> Result<T, sdsi_postgres::Error>,
    ) -> Result<T, String> {
        let mut attempt = 0;
        loop {
            match action(&mut self.db, &self.scenario) {
                Ok(value) => return Ok(value),
                Err(_) if self.db.is_closed() && attempt < RECONNECTS => {
                    attempt += 1;
                    std::thread::sleep(Elapsed::from_millis(200 * u64::from(attempt)));
                    if let Ok(db) = connect(self.settings) {
                        self.db = db;
                    }
                }
                Err(error) => return Err(error.to_string()),
            }
        }
    }

    fn replay(
        &mut self,
        reader: Box<dyn BufRead>,
        store: &mut SchemaStore,
        engine: &mut Engine,
    ) -> Result<(), String> {
        for (index, line) in reader.lines().enumerate() {
            let number = index.saturating_add(1);
            let line = match line {
                Ok(line) if line.trim().is_empty() => continue,
                Ok(line) => line,
                Err(error) => {
                    self.counts.unreadable += 1;
                    self.emit(json!({"event": "error", "line": number,
                        "message": format!("cannot read line: {error}")}));
                    break;
                }
            };
            self.counts.lines += 1;
            let event: Event = match serde_json::from_str(&line) {
                Ok(event) => event,
                Err(error) => {
                    self.counts.unreadable += 1;
                    self.emit(
                        json!({"event": "error", "line": number, "message": error.to_string()}),
                    );
                    continue;
                }
            };
            let mut observation = engine.observation(&event.message, &event.client, event.at);
            if !self.settings.log_vectors {
                for fragment in &mut observation.fragments {
                    fragment.vector = Vec::new();
                }
            }
            self.batch.push(Logged::new(
                message_id(line.trim()),
                self.settings.embedder.as_str(),
                observation,
            ));
            if self.batch.len() >= APPEND_BATCH || self.since.elapsed() >= APPEND_AFTER {
                self.append()?;
                if self.folded_at.elapsed() >= FOLD_EVERY {
                    self.fold(store, engine, false)?;
                }
            }
        }
        self.append()
    }

    /// Appends the lines read since the last append.
    fn append(&mut self) -> Result<(), String> {
        self.since = Instant::now();
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        let replica = self.settings.replica;
        let new = self.retrying(|db, scenario| db.append(scenario, replica, &batch))?;
        let total = u64::try_from(batch.len()).unwrap_or(u64::MAX);
        self.counts.logged += new;
        self.counts.already_logged += total.saturating_sub(new);
        Ok(())
    }

    /// Folds the log, if this replica is (or, with `wait`, becomes) the
    /// evaluator.
    fn fold(
        &mut self,
        store: &mut SchemaStore,
        engine: &mut Engine,
        wait: bool,
    ) -> Result<(), String> {
        self.folded_at = Instant::now();
        if !self.retrying(|db, scenario| db.lead(scenario, wait))? {
            return Ok(());
        }
        self.refresh(store, engine)?;
        let replica = self.settings.replica;
        loop {
            self.retrying(|db, scenario| db.heartbeat(scenario, replica))?;
            // The clock every replica shares bounds the lines' own times.
            let now = self.retrying(|db, _| db.now())?;
            let mut horizon = Horizon::new(now, AHEAD, self.settings.forget_after);
            let watch = Watch::new(self.settings.heard_within, SETTLE);
            let rows = self.retrying(|db, scenario| db.unfolded(scenario, FOLD_BATCH, watch))?;
            if rows.is_empty() {
                return Ok(());
            }
            let mut seqs = Vec::with_capacity(rows.len());
            let mut printed = Vec::new();
            let before = (
                self.counts.triggers,
                self.counts.proposals,
                self.counts.held,
                self.counts.unreadable_rows,
                self.counts.refused_rows,
            );
            for row in rows {
                seqs.push(row.seq);
                let mut observation = match row.observation {
                    Ok(observation) => observation,
                    Err(message) => {
                        self.counts.unreadable_rows += 1;
                        printed.push(
                            json!({"event": "error", "replica": row.replica, "seq": row.seq,
                            "message": format!("a logged observation does not read: {message}")}),
                        );
                        continue;
                    }
                };
                if let Err(ahead) = horizon.admit(observation.at) {
                    // Marked folded with the others and deleted by the save.
                    self.counts.refused_rows += 1;
                    printed.push(json!({"event": "error", "replica": row.replica,
                        "seq": row.seq, "message": ahead.to_string()}));
                    continue;
                }
                if row.embedder != self.settings.embedder {
                    // Another embedder's vectors: fold re-embeds the text.
                    for fragment in &mut observation.fragments {
                        fragment.vector.clear();
                    }
                }
                let at = observation.at;
                let mut resumed = None;
                if self.after_pause && store.lifecycle().clock_jump(at).is_some() {
                    self.after_pause = false;
                    resumed = Some(store.evaluate_after_pause(at, &DenySensitive));
                }
                let happenings = engine.fold(store, observation);
                let mut evaluation = store.evaluate(at, &DenySensitive);
                if let Some(mut first) = resumed {
                    first.transitions.append(&mut evaluation.transitions);
                    evaluation.transitions = first.transitions;
                }
                if evaluation.clock_refused.is_none() {
                    horizon.counted(at);
                }
                self.history.record(
                    at,
                    &happenings,
                    &evaluation.transitions,
                    store,
                    shared_pools(engine),
                );
                let from = |value: Value| {
                    let mut value = value;
                    if let Some(object) = value.as_object_mut() {
                        object.insert("replica".to_owned(), json!(row.replica));
                        object.insert("seq".to_owned(), json!(row.seq));
                    }
                    value
                };
                for happened in &happenings {
                    let value = serde_json::to_value(happened).unwrap_or(Value::Null);
                    match value.get("event").and_then(Value::as_str) {
                        Some("triggered") => self.counts.triggers += 1,
                        Some("proposed") => self.counts.proposals += 1,
                        Some("held") => self.counts.held += 1,
                        _ => {}
                    }
                    printed.push(from(value));
                }
                if let Some(jump) = &evaluation.clock_refused {
                    let clock = serde_json::to_value(jump).unwrap_or(Value::Null);
                    printed.push(from(json!({"event": "clock_refused", "clock": clock})));
                }
                for transition in evaluation.transitions {
                    let value = serde_json::to_value(&transition).unwrap_or(Value::Null);
                    printed.push(from(json!({"event": "transition", "transition": value})));
                }
            }
            let (name, history) = crate::history::to_attachment(&self.history)?;
            let version = self.version;
            let saved = self.db.save_folded(
                &self.scenario.clone(),
                version,
                0,
                store,
                &engine.state(),
                &seqs,
                &[(name, &history)],
                Some(&horizon),
            );
            match saved {
                Ok(version) => {
                    self.version = Some(version);
                    self.pristine = None;
                    // Refused rows are marked folded (and deleted), not counted.
                    let refused = self.counts.refused_rows.saturating_sub(before.4);
                    let marked = u64::try_from(seqs.len()).unwrap_or(u64::MAX);
                    self.counts.folded += marked.saturating_sub(refused);
                    for value in printed {
                        if !self.emit(value) {
                            return Err("standard output closed".to_owned());
                        }
                    }
                }
                Err(error) if error.is_retryable() => {
                    // Our lock went with a lost connection and another
                    // replica folded meanwhile: nothing of this batch was
                    // saved; start again from the state it saved.
                    (
                        self.counts.triggers,
                        self.counts.proposals,
                        self.counts.held,
                        self.counts.unreadable_rows,
                        self.counts.refused_rows,
                    ) = before;
                    if self.db.is_closed() {
                        self.db = connect(self.settings)?;
                    }
                    self.version = None;
                    if !self.retrying(|db, scenario| db.lead(scenario, true))? {
                        return Ok(());
                    }
                    self.refresh(store, engine)?;
                    if self.version.is_none() {
                        // Nothing saved yet: undo the unsaved fold itself.
                        if let Some((pristine_store, pristine_engine)) = self.pristine.clone() {
                            *store = pristine_store;
                            engine.restore(pristine_engine).map_err(|e| e.to_string())?;
                        }
                        self.history = History::new();
                    }
                }
                Err(error) => return Err(error.to_string()),
            }
        }
    }

    /// Folds what is left (waiting for the evaluator lock), writes the
    /// report, and prints the summary.
    fn finish(mut self, store: &mut SchemaStore, engine: &mut Engine) -> Outcome {
        let replica = self.settings.replica;
        let finished = self.retrying(|db, scenario| db.finish(scenario, replica));
        // The last rows must settle before they can be folded.
        std::thread::sleep(SETTLE);
        let folded = finished.and_then(|()| self.fold(store, engine, true));
        if let Err(message) = folded {
            return unwritable(message);
        }
        let written = match self.settings.report {
            None => None,
            Some(path) => {
                let at = self.history.last_at.unwrap_or(OffsetDateTime::UNIX_EPOCH);
                let page = render(&Report::gather(
                    store,
                    shared_pools(engine),
                    &self.history,
                    at,
                ));
                if let Err(error) = std::fs::write(path, page) {
                    let what = path.display().to_string();
                    return Outcome::stream_error(&[Entry::unwritable(&what, error)]);
                }
                Some(path.display().to_string())
            }
        };
        let scenario = self.scenario.clone();
        let _ = self.db.resign(&scenario);
        let c = &self.counts;
        let mut summary = json!({"event": "summary", "replica": self.settings.replica,
            "lines": c.lines, "unreadable_lines": c.unreadable,
            "observations_logged": c.logged, "already_logged": c.already_logged,
            "observations_folded": c.folded, "unreadable_log_rows": c.unreadable_rows,
            "refused_log_rows": c.refused_rows,
            "triggers": c.triggers, "patches_proposed": c.proposals, "patches_held": c.held});
        if let (Some(path), Some(object)) = (written, summary.as_object_mut()) {
            object.insert("report".to_owned(), json!(path));
        }
        let bad = c.unreadable + c.unreadable_rows + c.refused_rows;
        self.emit(summary);
        Outcome::streamed(if bad == 0 {
            Status::Valid
        } else {
            Status::Invalid
        })
    }
}

/// The stream's error line for a shared state that could not be written
/// (or read back while folding): `message` says which.
fn unwritable(message: String) -> Outcome {
    Outcome::stream_error(&[Entry::unwritable("--state", message)])
}

fn connect(settings: &Settings<'_>) -> Result<PgState, String> {
    let mut db = PgState::connect(settings.url).map_err(|e| format!("the state database: {e}"))?;
    db.keep_state_as_rows(settings.state_as_rows);
    Ok(db)
}

/// A line's message id: its SHA-256, so a line sent twice (a retry after a
/// lost connection, a log replayed again) counts once.
fn message_id(line: &str) -> String {
    crate::hex::hex(&Sha256::digest(line.as_bytes()))
}
