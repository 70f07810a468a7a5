//! `sdsi check-envelope [--schema TEMPLATE] ENVELOPE`: check a Universal
//! Schema envelope, and with `--schema` the structured payload inside it.

use std::path::PathBuf;

use sdsi::Envelope;
use sdsi::envelope::EnvelopeReport;
use sdsi::validate::ValidateOptions;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::input;
use crate::output::{Entry, Format, Outcome, Status, entries};
use crate::template;

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  the envelope (and its payload, with --schema) is valid; warnings allowed
  1  invalid
  2  an input cannot be read, the envelope is not JSON, or the --schema
     template is unusable; a usage error";

/// Arguments of `check-envelope`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also validate the envelope's payload as a structured payload
    /// `{"schema_id", "payload"}` against this schema template (JSON); `-`
    /// reads standard input.
    #[arg(long, short = 's', value_name = "TEMPLATE")]
    pub schema: Option<PathBuf>,

    /// The envelope (JSON); `-` reads standard input.
    #[arg(value_name = "ENVELOPE")]
    pub message: PathBuf,
}

/// The object `sdsi check-envelope` prints: `{"valid", "errors", "warnings"}`,
/// plus `"normalized"` with `--schema`.
#[derive(Debug, Serialize)]
struct EnvelopeOutput<'a> {
    valid: bool,
    errors: Vec<Entry<'a>>,
    warnings: Vec<Entry<'a>>,
    /// Present only with `--schema`: the structured payload normalized, or `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    normalized: Option<Option<&'a Map<String, Value>>>,
}

/// Runs the command: exit 0 valid (warnings allowed), 1 invalid, 2 when an
/// input cannot be read, the message is not JSON, or the template is unusable.
pub fn run(args: &Args, format: Format) -> Outcome {
    let options = ValidateOptions::default();
    let max = options.limits.max_bytes;
    let structured = args.schema.is_some();

    let template_bytes = args
        .schema
        .as_ref()
        .map(|path| input::read_capped(path, max));
    let message_bytes = match &args.schema {
        Some(schema) if input::is_stdin(schema) && input::is_stdin(&args.message) => {
            Err(Entry::unreadable(
                "stdin",
                "it is already read for --schema; at most one input may be -",
            ))
        }
        _ => input::read_capped(&args.message, max),
    };
    let (template_bytes, message_bytes) = match (template_bytes, message_bytes) {
        (None, Ok(message)) => (None, message),
        (Some(Ok(template)), Ok(message)) => (Some(template), message),
        (template, message) => {
            let errors = [template.and_then(Result::err), message.err()]
                .into_iter()
                .flatten()
                .collect();
            return unusable(errors, Vec::new(), structured, format);
        }
    };

    let report = match template_bytes {
        None => {
            if message_bytes.len() > max {
                let output = EnvelopeOutput {
                    valid: false,
                    errors: vec![Entry::too_large(max)],
                    warnings: Vec::new(),
                    normalized: None,
                };
                return Outcome::new(Status::Invalid, &output, format);
            }
            Envelope::parse_slice(&message_bytes)
        }
        Some(bytes) => match template::load(&bytes, options) {
            Ok(usable) => usable.schema.validate_envelope_slice(&message_bytes),
            Err(rejected) => {
                return unusable(rejected.errors(), rejected.warnings(), true, format);
            }
        },
    };
    report_outcome(&report, structured, format)
}

fn report_outcome(report: &EnvelopeReport, structured: bool, format: Format) -> Outcome {
    let status = Status::of(report.errors());
    let output = EnvelopeOutput {
        valid: report.is_valid(),
        errors: entries(report.errors()),
        warnings: entries(report.warnings()),
        normalized: structured.then(|| report.normalized()),
    };
    Outcome::new(status, &output, format)
}

fn unusable<'a>(
    errors: Vec<Entry<'a>>,
    warnings: Vec<Entry<'a>>,
    structured: bool,
    format: Format,
) -> Outcome {
    let output = EnvelopeOutput {
        valid: false,
        errors,
        warnings,
        normalized: structured.then_some(None),
    };
    Outcome::new(Status::Unusable, &output, format)
}
