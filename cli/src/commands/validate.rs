//! `sdsi validate --schema TEMPLATE MESSAGE`: validate one message against a template.

use std::path::PathBuf;

use sdsi::validate::ValidateOptions;
use sdsi::{Issue, Report};

use crate::input;
use crate::output::{Entry, Format, Outcome, Status, ValidateOutput};
use crate::patches::{self, PatchArgs};
use crate::template;
use crate::validate_lines;

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  the message is valid (with --jsonl: every message is)
  1  the message is JSON and invalid (with --jsonl: a message is invalid or
     not JSON)
  2  an input cannot be read, the template is unusable, a patch is refused,
     --at is not an RFC 3339 time, the message is not JSON (without
     --jsonl); a usage error";

/// Arguments of `validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The schema template (JSON) to validate against; `-` reads standard input.
    #[arg(long, short = 's', value_name = "TEMPLATE")]
    pub schema: PathBuf,

    /// The message `{"schema_id", "payload"}` (JSON); `-` reads standard
    /// input. With `--jsonl`, a file of messages, one per line.
    #[arg(value_name = "MESSAGE")]
    pub message: PathBuf,

    /// Read MESSAGE as JSON Lines: validate each line against the one
    /// compiled schema and print one result per line (with its `line`
    /// number); a summary with messages per second goes to stderr. One
    /// object per line: not with --pretty.
    #[arg(long)]
    pub jsonl: bool,

    /// Patches on top of the template, and whose view of them to take.
    #[command(flatten)]
    pub patches: PatchArgs,
}

/// Runs the command: exit 0 valid, 1 invalid, 2 when an input cannot be read
/// or parsed or the template is unusable (the errors then refer to the
/// template or to the inputs, not to the message). With `--jsonl` such an
/// error is the stream's error line.
pub fn run(args: &Args, format: Format) -> Outcome {
    let shown = Shown {
        jsonl: args.jsonl,
        format,
    };
    let options = ValidateOptions::default();
    let max = options.limits.max_bytes;
    // A bad `--at` is refused whatever the other flags, before anything is read.
    if let Err(issue) = patches::at(&args.patches) {
        return shown.unusable(vec![Entry::Issue(&issue)], Vec::new());
    }

    // Read both inputs first, so that two unreadable files are reported together.
    let template_bytes = input::read_capped(&args.schema, max);
    let message_bytes = if input::is_stdin(&args.schema) && input::is_stdin(&args.message) {
        Err(Entry::unreadable(
            "stdin",
            "it is already read for --schema; at most one input may be -",
        ))
    } else if args.jsonl {
        Ok(Vec::new()) // streamed line by line below
    } else {
        input::read_capped(&args.message, max)
    };
    let (template_bytes, message_bytes) = match (template_bytes, message_bytes) {
        (Ok(template), Ok(message)) => (template, message),
        (template, message) => {
            let errors = [template.err(), message.err()]
                .into_iter()
                .flatten()
                .collect();
            return shown.unusable(errors, Vec::new());
        }
    };

    let usable = match template::load(&template_bytes, options) {
        Ok(usable) => usable,
        Err(rejected) => return shown.unusable(rejected.errors(), rejected.warnings()),
    };
    let (schema, skipped) = if args.patches.is_empty() {
        (usable.schema, Vec::new())
    } else {
        match patches::compile(&args.patches, &usable.template, options) {
            Ok(compiled) => compiled,
            Err(problems) => {
                return shown.unusable(problems.iter().map(Entry::Issue).collect(), Vec::new());
            }
        }
    };
    if args.jsonl {
        return validate_lines::run(&schema, &skipped, &args.message);
    }
    // A message over the size limit was read only up to the limit plus one
    // byte; `validate_slice` reports it as `limit_exceeded` (exit 1).
    let report = schema.validate_slice(&message_bytes);
    report_outcome(&report, &skipped, format)
}

/// The report, with the patch entries the merge skipped among the warnings.
fn report_outcome(report: &Report, skipped: &[Issue], format: Format) -> Outcome {
    let output = ValidateOutput::of(report, skipped);
    Outcome::new(Status::of(report.errors()), &output, format)
}

/// How a command-level error is shown: the validate object, or with
/// `--jsonl` the stream's error line.
struct Shown {
    jsonl: bool,
    format: Format,
}

impl Shown {
    /// Exit 2 with `errors` (and, outside a stream, the template's `warnings`).
    fn unusable<'a>(&self, errors: Vec<Entry<'a>>, warnings: Vec<Entry<'a>>) -> Outcome {
        if self.jsonl {
            return Outcome::stream_error(&errors);
        }
        let output = ValidateOutput {
            valid: false,
            errors,
            warnings,
            normalized: None,
        };
        Outcome::new(Status::Unusable, &output, self.format)
    }
}
