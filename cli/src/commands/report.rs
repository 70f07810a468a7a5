//! `sdsi report --state PATH --output FILE.html`: the HTML report of what
//! `sdsi evolve --state` did, from the saved state and its history.

use std::path::PathBuf;

use sdsi_report::{Report, render, rfc3339};
use sdsi_sqlite::SqliteState;
use serde_json::json;
use time::OffsetDateTime;

use crate::instant;
use crate::output::{Entry, Format, Outcome, Status};

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  the page was written
  2  the state cannot be used (missing, no saved state, several scenarios
     without --scenario) or the page cannot be written; a usage error";

/// Arguments of `report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The state file of `sdsi evolve --state`.
    #[arg(long, value_name = "PATH")]
    pub state: PathBuf,

    /// Where to write the page.
    #[arg(long, short = 'o', value_name = "FILE.html")]
    pub output: PathBuf,

    /// The scenario to report on (needed when the file holds several).
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,

    /// The moment the report describes (RFC 3339; default: the last
    /// message replayed, else the lifecycle's last evaluation).
    #[arg(long, value_name = "TIME", value_parser = instant::parse)]
    pub at: Option<OffsetDateTime>,
}

/// Runs the command: exit 0 when the page was written, 2 when the state
/// cannot be used or the page cannot be written.
pub fn run(args: &Args, format: Format) -> Outcome {
    let path = args.state.display().to_string();
    let unusable = |what: &str, message: String| {
        Outcome::new(
            Status::Unusable,
            &json!({"errors": [Entry::unreadable(what, message)]}),
            format,
        )
    };
    if !args.state.exists() {
        return unusable(&path, "no such file".to_owned());
    }
    // A report reads: it must not migrate or otherwise write the file.
    let mut db = match SqliteState::open_read_only(&args.state) {
        Ok(db) => db,
        Err(error) => return unusable(&path, error.to_string()),
    };
    let scenario = match &args.scenario {
        Some(scenario) => scenario.clone(),
        None => match db.scenarios() {
            Ok(scenarios) => match scenarios.as_slice() {
                [one] => one.clone(),
                [] => return unusable(&path, "holds no saved state".to_owned()),
                many => {
                    return unusable(
                        &path,
                        format!(
                            "holds several scenarios ({}): choose one with --scenario",
                            many.join(", ")
                        ),
                    );
                }
            },
            Err(error) => return unusable(&path, error.to_string()),
        },
    };
    let saved = match db.load(&scenario) {
        Ok(Some(saved)) => saved,
        Ok(None) => return unusable(&path, format!("holds no state for scenario {scenario:?}")),
        Err(error) => return unusable(&path, error.to_string()),
    };
    let history = match crate::history::load(&mut db, &scenario) {
        Ok(history) => history,
        Err(message) => return unusable(&path, message),
    };
    let Some(at) = args
        .at
        .or(history.last_at)
        .or(saved.store.lifecycle().evaluated_at())
    else {
        return unusable(&path, "records no time to report at: give --at".to_owned());
    };
    let pools = saved
        .engine
        .pools()
        .filter(|(key, _)| key.client.is_none())
        .map(|(_, pool)| pool);
    let report = Report::gather(&saved.store, pools, &history, at);
    let output = args.output.display().to_string();
    if let Err(error) = std::fs::write(&args.output, render(&report)) {
        return Outcome::new(
            Status::Unusable,
            &json!({"errors": [Entry::unwritable(&output, error)]}),
            format,
        );
    }
    Outcome::new(
        Status::Valid,
        &json!({"report": output, "scenario": scenario, "at": rfc3339(at),
                "needs": report.summary.needs, "keys": report.keys.len(),
                "pending": report.pending.len()}),
        format,
    )
}
