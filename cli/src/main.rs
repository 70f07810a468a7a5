//! `sdsi`: validate structured payloads and schema templates from the command line.
//!
//! Every command prints JSON on stdout and exits 0 (valid), 1 (invalid) or 2
//! (an input could not be read or parsed, the template is unusable, or a
//! usage error). See `docs/cli.md` for the contract, and "The scheme" there
//! for how commands and flags are named.
//!
//! Layout: `commands/<name>.rs` holds one command each (its clap `Args`, its
//! `EXIT_STATUS` text and its `run`); the helpers they share sit beside
//! `main.rs` (`input.rs` reads files, `output.rs` prints and picks the exit
//! status, `template.rs` loads a template, `schema_arg.rs` is the
//! `--schema` flag, `patches.rs` the patch flags and the effective schema,
//! `validate_lines.rs` validates JSON Lines,
//! `deprecated.rs` the old names and forms, `duration.rs` parses durations,
//! `history.rs` keeps the report's history and the log cursor in a state
//! file, `log_cursor.rs` ties the resume point to the log, `progress.rs`
//! draws progress bars on a terminal). Commands use helpers, never each
//! other.
//!
//! Adding a command: write `commands/<name>.rs` with an `Args` struct (clap
//! derive), an `EXIT_STATUS` text and a `run` function returning an
//! `Outcome`, declare it in `commands/mod.rs`, then add a variant to
//! [`Command`] and an arm to [`Command::run`]. Name it a verb (followed by
//! its object when the verb alone is ambiguous); take a template as
//! `--schema` (flatten `schema_arg::SchemaArg`); give every enumerated
//! option a `clap::ValueEnum`.

mod commands;
mod deprecated;
mod duration;
mod embedder;
mod hex;
mod history;
mod input;
mod instant;
mod log_cursor;
mod output;
mod patches;
mod progress;
mod schema_arg;
mod template;
mod validate_lines;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::{
    check_compat, check_envelope, check_template, cluster, evolve, export, import, report, review,
    validate,
};
use crate::output::{Format, Outcome};

/// The exit statuses every command shares; each command's `--help` says
/// what 0 and 1 mean for it.
const EXIT_STATUS: &str = "\
Exit status:
  0  valid (compatible, done)
  1  the input was read and parsed, and is invalid: `errors` says why
  2  unusable: an input cannot be read or parsed, the template is unusable,
     a file cannot be written, or a usage error (message on stderr)

A command-level error (exit 2) is JSON on stdout with an `errors` member:
the command's own object, or in the streaming modes (validate --jsonl,
cluster, evolve) the last line {\"event\":\"error\",\"errors\":[...]}.
See docs/cli.md.";

/// Validate agent structured payloads against schema templates
/// (draft-zhou-structured-data-schema-interaction-00).
///
/// Prints JSON on stdout: one object, or one per line in the streaming
/// modes. The template is always given as `--schema TEMPLATE`.
#[derive(Debug, Parser)]
#[command(name = "sdsi", version, after_help = EXIT_STATUS)]
struct Cli {
    /// Indent the JSON output instead of printing one line (not with the
    /// streaming modes: `validate --jsonl`, `cluster`, `evolve`).
    #[arg(long, global = true)]
    pretty: bool,

    /// The command to run.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands; one module each. Names are verbs, with their object
/// when the verb alone is ambiguous (`check-template`, `check-envelope`,
/// `check-compat`); old names stay as hidden aliases for one release.
#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a message `{"schema_id", "payload"}` against a schema template.
    #[command(after_help = validate::EXIT_STATUS)]
    Validate(validate::Args),
    /// Check that a schema template is usable, and report its warnings.
    #[command(after_help = check_template::EXIT_STATUS)]
    CheckTemplate(check_template::Args),
    /// Check a Universal Schema envelope (and, with --schema, the structured
    /// payload inside).
    #[command(alias = "envelope", after_help = check_envelope::EXIT_STATUS)]
    CheckEnvelope(check_envelope::Args),
    /// Check that a new template version is compatible with earlier ones
    /// (schema-registry modes: backward, forward, full, and transitive forms).
    #[command(alias = "compat", after_help = check_compat::EXIT_STATUS)]
    CheckCompat(check_compat::Args),
    /// Export a schema template as JSON Schema, MCP, strict decoding, A2A or
    /// prompt text.
    #[command(after_help = export::EXIT_STATUS)]
    Export(export::Args),
    /// Make a schema template from a JSON Schema object or an MCP tool,
    /// listing what the template cannot express.
    #[command(after_help = import::EXIT_STATUS)]
    Import(import::Args),
    /// Replay a traffic log through validation and schema evolution; print
    /// every trigger and proposed patch (one JSON object per line).
    #[command(after_help = evolve::EXIT_STATUS)]
    Evolve(evolve::Args),
    /// Cluster fragments (one per line) with the default embedder; print the
    /// cluster each joins (one JSON object per line).
    #[command(after_help = cluster::EXIT_STATUS)]
    Cluster(cluster::Args),
    /// List the proposals `evolve --state` held for an operator, or approve
    /// or deny one.
    #[command(after_help = review::EXIT_STATUS)]
    Review(review::Args),
    /// Write the HTML report of what `evolve --state` did: needs against
    /// the gate, heat over time, key lifecycles, proposals awaiting review.
    #[command(after_help = report::EXIT_STATUS)]
    Report(report::Args),
}

impl Command {
    /// The name `--help` shows, for messages.
    fn name(&self) -> &'static str {
        match self {
            Command::Validate(_) => "validate",
            Command::CheckTemplate(_) => "check-template",
            Command::CheckEnvelope(_) => "check-envelope",
            Command::CheckCompat(_) => "check-compat",
            Command::Export(_) => "export",
            Command::Import(_) => "import",
            Command::Evolve(_) => "evolve",
            Command::Cluster(_) => "cluster",
            Command::Review(_) => "review",
            Command::Report(_) => "report",
        }
    }

    /// Whether the command prints JSON Lines, one object per line.
    fn streams(&self) -> bool {
        match self {
            Command::Validate(args) => args.jsonl,
            Command::Evolve(_) | Command::Cluster(_) => true,
            _ => false,
        }
    }

    /// A combination of flags clap cannot refuse by itself, as the message
    /// of a usage error: no flag is silently ignored.
    fn misused(&self, pretty: bool) -> Option<String> {
        if pretty && self.streams() {
            return Some(format!(
                "--pretty cannot be used with `{}`{}: it prints JSON Lines, one object per line",
                self.name(),
                if matches!(self, Command::Validate(_)) {
                    " --jsonl"
                } else {
                    ""
                }
            ));
        }
        match self {
            Command::Evolve(args) => evolve::misused(args),
            Command::Export(args) => export::misused(args),
            _ => None,
        }
    }

    /// The warning for a template given in the old positional form.
    fn positional_template(&self) -> Option<String> {
        let (given, instead) = match self {
            Command::CheckTemplate(args) => (args.template.is_legacy(), "--schema TEMPLATE"),
            Command::Export(args) => (args.template.is_legacy(), "--schema TEMPLATE"),
            Command::CheckCompat(args) => (
                !args.legacy_templates.is_empty(),
                "--schema NEW --against OLD...",
            ),
            _ => (false, ""),
        };
        given.then(|| deprecated::positional(self.name(), instead))
    }

    /// Runs the command.
    fn run(&self, format: Format) -> Outcome {
        match self {
            Command::Validate(args) => validate::run(args, format),
            Command::CheckTemplate(args) => check_template::run(args, format),
            Command::CheckEnvelope(args) => check_envelope::run(args, format),
            Command::CheckCompat(args) => check_compat::run(args, format),
            Command::Export(args) => export::run(args, format),
            Command::Import(args) => import::run(args, format),
            Command::Evolve(args) => evolve::run(args),
            Command::Cluster(args) => cluster::run(args),
            Command::Review(args) => review::run(args, format),
            Command::Report(args) => report::run(args, format),
        }
    }
}

fn main() -> ExitCode {
    // Usage errors exit 2 and `--help`/`--version` exit 0, both from clap.
    let cli = Cli::parse();
    if let Some(message) = cli.command.misused(cli.pretty) {
        // As clap words its own usage errors, with the subcommand's usage.
        let mut command = Cli::command();
        command.build();
        let error = match command.find_subcommand(cli.command.name()).cloned() {
            Some(mut sub) => sub.error(ErrorKind::ArgumentConflict, message),
            None => command.error(ErrorKind::ArgumentConflict, message),
        };
        error.exit();
    }
    let typed = deprecated::typed_subcommand(std::env::args_os());
    if let Some(warning) = typed.as_deref().and_then(deprecated::renamed) {
        deprecated::warn(&warning);
    }
    if let Some(warning) = cli.command.positional_template() {
        deprecated::warn(&warning);
    }
    let format = if cli.pretty {
        Format::Pretty
    } else {
        Format::Compact
    };
    cli.command.run(format).emit()
}
