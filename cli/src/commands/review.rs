//! `sdsi review --state PATH`: the proposals `sdsi evolve` held for an
//! operator, and the operator's decision on one (`--approve` or `--deny`).

use std::path::PathBuf;

use sdsi::patch::{PendingProposal, ReviewError};
use sdsi_sqlite::{Saved, SqliteState};
use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::instant;
use crate::output::{Entry, Format, Outcome, Status};

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  the list was printed, or the decision recorded
  1  the store refused the approved patch now (it stays pending)
  2  the state cannot be used, no pending proposal has the id, or the
     decision cannot be taken; a usage error";

/// Arguments of `review`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("decision").args(["approve", "deny"]))]
pub struct Args {
    /// The state file of `sdsi evolve --state`.
    #[arg(long, value_name = "PATH")]
    pub state: PathBuf,

    /// Only this scenario's proposals (default: every scenario in the file).
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,

    /// Approve this pending proposal: its patch is submitted as the
    /// operator's, starting at --at.
    #[arg(long, value_name = "ID", conflicts_with = "deny", requires = "at")]
    pub approve: Option<String>,

    /// Deny this pending proposal (with --reason): the need behind it is
    /// not proposed again until its requests change materially.
    #[arg(long, value_name = "ID", requires_all = ["at", "reason"])]
    pub deny: Option<String>,

    /// When the decision is taken (RFC 3339); only with --approve or --deny.
    #[arg(long, value_name = "TIME", value_parser = instant::parse, requires = "decision")]
    pub at: Option<OffsetDateTime>,

    /// Who decides (recorded with the decision); only with --approve or
    /// --deny.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "operator",
        requires = "decision"
    )]
    pub by: String,

    /// Why the proposal is denied.
    #[arg(long, value_name = "TEXT", requires = "deny")]
    pub reason: Option<String>,
}

/// What to do with one proposal.
enum Decision<'a> {
    Approve,
    Deny(&'a str),
}

/// Runs the command: exit 0 when the list was printed or the decision
/// recorded, 1 when the store refused an approved patch (it stays
/// pending), 2 when the state cannot be used or no pending proposal has
/// the id.
pub fn run(args: &Args, format: Format) -> Outcome {
    let path = args.state.display().to_string();
    let unusable = |message: String| {
        Outcome::new(
            Status::Unusable,
            &json!({"errors": [Entry::unreadable(&path, message)]}),
            format,
        )
    };
    if !args.state.exists() {
        return unusable("no such file".to_owned());
    }
    let mut db = match SqliteState::open(&args.state) {
        Ok(db) => db,
        Err(error) => return unusable(error.to_string()),
    };
    let scenarios = match &args.scenario {
        Some(scenario) => vec![scenario.clone()],
        None => match db.scenarios() {
            Ok(scenarios) => scenarios,
            Err(error) => return unusable(error.to_string()),
        },
    };
    let mut states = Vec::new();
    for scenario in scenarios {
        match db.load(&scenario) {
            Ok(Some(saved)) => states.push((scenario, saved)),
            Ok(None) => {}
            Err(error) => return unusable(error.to_string()),
        }
    }
    let (id, decision) = match (&args.approve, &args.deny, &args.reason) {
        (Some(id), _, _) => (id, Decision::Approve),
        (None, Some(id), Some(reason)) => (id, Decision::Deny(reason)),
        _ => return list(&states, format),
    };
    let Some(at) = args.at else {
        return unusable("a decision needs --at".to_owned());
    };
    let Some((scenario, saved)) = states
        .iter_mut()
        .find(|(_, saved)| saved.store.pending().any(|p| p.proposal == *id))
    else {
        let error = ReviewError::UnknownProposal {
            proposal: id.clone(),
        };
        return Outcome::new(
            Status::Unusable,
            &json!({"errors": [Entry::tool("unknown_proposal", error.to_string())]}),
            format,
        );
    };
    let decided = match decision {
        Decision::Approve => saved
            .store
            .approve(id, &args.by, at)
            .map(|submission| json!({"proposal": id, "submission": submission})),
        Decision::Deny(reason) => saved
            .store
            .deny(id, &args.by, reason, at)
            .map(|denial| json!({"proposal": id, "denied": denial})),
    };
    let mut printed = match decided {
        Ok(printed) => printed,
        Err(ReviewError::Refused(error)) => {
            let errors: Vec<Entry<'_>> = error.errors().iter().map(Entry::Issue).collect();
            return Outcome::new(
                Status::Invalid,
                &json!({"proposal": id, "errors": errors}),
                format,
            );
        }
        Err(error) => {
            return Outcome::new(
                Status::Unusable,
                &json!({"errors": [Entry::tool("invalid_decision", error.to_string())]}),
                format,
            );
        }
    };
    if let Err(error) = db.save(
        scenario,
        Some(saved.version),
        saved.cursor,
        &saved.store,
        &saved.engine,
    ) {
        return unusable(error.to_string());
    }
    if let Some(object) = printed.as_object_mut() {
        object.insert("scenario".to_owned(), json!(scenario));
    }
    Outcome::new(Status::Valid, &printed, format)
}

/// `{"pending": [...]}`: every held proposal, oldest first.
fn list(states: &[(String, Saved)], format: Format) -> Outcome {
    let mut pending: Vec<(&str, &PendingProposal)> = states
        .iter()
        .flat_map(|(scenario, saved)| saved.store.pending().map(move |p| (scenario.as_str(), p)))
        .collect();
    pending.sort_by(|a, b| (a.1.held_at, &a.1.proposal).cmp(&(b.1.held_at, &b.1.proposal)));
    let pending: Vec<Value> = pending
        .into_iter()
        .map(|(scenario, proposal)| {
            let mut value = serde_json::to_value(proposal).unwrap_or(Value::Null);
            if let Some(object) = value.as_object_mut() {
                object.insert("scenario".to_owned(), json!(scenario));
            }
            value
        })
        .collect();
    Outcome::new(Status::Valid, &json!({"pending": pending}), format)
}
