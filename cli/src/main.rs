//! `sdsi`: validate structured payloads and schema templates from the command line.
//!
//! Every command prints exactly one JSON object on stdout and exits 0 (valid),
//! 1 (invalid) or 2 (an input could not be read or parsed, or the template is
//! unusable). See `docs/cli.md` for the contract.
//!
//! Layout: `commands/<name>.rs` holds one command each (its clap `Args` and
//! its `run`); the helpers they share sit beside `main.rs` (`input.rs` reads
//! files, `output.rs` prints and picks the exit status, `template.rs` loads
//! a template, `patches.rs` the patch flags and the effective schema,
//! `duration.rs` parses durations, `history.rs` keeps the report's history
//! and the log cursor in a state file, `log_cursor.rs` ties the resume
//! point to the log, `progress.rs` draws progress bars on a terminal). Commands use helpers, never each other.
//!
//! Adding a command: write `commands/<name>.rs` with an `Args` struct (clap
//! derive) and a `run(&Args, Format) -> Outcome` function, declare it in
//! `commands/mod.rs`, then add a variant to [`Command`] and an arm to the
//! `match` in `main`. A new flag goes on that `Args` struct (or a flattened
//! helper struct such as `patches::PatchArgs` when several commands share
//! it), or on [`Cli`] with `global = true` when every command takes it.

mod commands;
mod duration;
mod embedder;
mod hex;
mod history;
mod input;
mod log_cursor;
mod output;
mod patches;
mod progress;
mod template;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands::{
    check_template, cluster, compat, envelope, evolve, export, import, report, review, validate,
};
use crate::output::Format;

/// Validate agent structured payloads against schema templates
/// (draft-zhou-structured-data-schema-interaction-00).
///
/// Prints one JSON object on stdout. Exit status: 0 valid, 1 invalid,
/// 2 unreadable or unparseable input, unusable template, or usage error.
#[derive(Debug, Parser)]
#[command(name = "sdsi", version)]
struct Cli {
    /// Indent the JSON output instead of printing one line.
    #[arg(long, global = true)]
    pretty: bool,

    /// The command to run.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands; one module each.
#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a message `{"schema_id", "payload"}` against a schema template.
    Validate(validate::Args),
    /// Check that a schema template is usable, and report its warnings.
    CheckTemplate(check_template::Args),
    /// Check a Universal Schema envelope (and, with --schema, the structured payload inside).
    Envelope(envelope::Args),
    /// Export a schema template as JSON Schema, MCP, strict decoding, A2A or prompt text.
    Export(export::Args),
    /// Replay a traffic log through validation and schema evolution; print
    /// every trigger and proposed patch (one JSON object per line).
    Evolve(evolve::Args),
    /// Make a schema template from a JSON Schema object or an MCP tool,
    /// listing what the template cannot express.
    Import(import::Args),
    /// Check that a new template version is compatible with earlier ones
    /// (schema-registry modes: backward, forward, full, and transitive forms).
    Compat(compat::Args),
    /// Cluster fragments (one per line) with the default embedder; print the
    /// cluster each joins (one JSON object per line).
    Cluster(cluster::Args),
    /// List the proposals `evolve --state` held for an operator, or approve
    /// or deny one.
    Review(review::Args),
    /// Write the HTML report of what `evolve --state` did: needs against
    /// the gate, heat over time, key lifecycles, proposals awaiting review.
    Report(report::Args),
}

fn main() -> ExitCode {
    // Usage errors exit 2 and `--help`/`--version` exit 0, both from clap.
    let cli = Cli::parse();
    let format = if cli.pretty {
        Format::Pretty
    } else {
        Format::Compact
    };
    let outcome = match &cli.command {
        Command::Validate(args) => validate::run(args, format),
        Command::CheckTemplate(args) => check_template::run(args, format),
        Command::Envelope(args) => envelope::run(args, format),
        Command::Export(args) => export::run(args, format),
        Command::Evolve(args) => evolve::run(args, format),
        Command::Cluster(args) => cluster::run(args, format),
        Command::Compat(args) => compat::run(args, format),
        Command::Import(args) => import::run(args, format),
        Command::Review(args) => review::run(args, format),
        Command::Report(args) => report::run(args, format),
    };
    outcome.emit()
}
