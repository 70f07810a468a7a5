//! `sdsi check-template --schema TEMPLATE`: is a schema template usable,
//! and what does it warn about?

use sdsi::validate::ValidateOptions;

use crate::input;
use crate::output::{CheckOutput, Entry, Format, Outcome, Status, entries};
use crate::schema_arg::SchemaArg;
use crate::template::{self, Rejected};

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  the template is usable (warnings allowed)
  1  well-formed JSON that breaks the template's structure or rules
  2  unreadable, larger than 4 MiB, or not JSON; a usage error";

/// Arguments of `check-template`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The template: `--schema TEMPLATE`.
    #[command(flatten)]
    pub template: SchemaArg,
}

/// Runs the command: exit 0 usable (warnings allowed), 1 well-formed JSON that
/// breaks the structure or rules, 2 unreadable, too large or not JSON.
pub fn run(args: &Args, format: Format) -> Outcome {
    let options = ValidateOptions::default();
    let Some(path) = args.template.path() else {
        return unusable(
            vec![Entry::unreadable(
                "the template",
                "none given: use --schema",
            )],
            format,
        );
    };
    let bytes = match input::read_capped(path, options.limits.max_bytes) {
        Ok(bytes) => bytes,
        Err(entry) => return unusable(vec![entry], format),
    };
    match template::load(&bytes, options) {
        Ok(usable) => {
            let output = CheckOutput {
                valid: true,
                errors: Vec::new(),
                warnings: entries(&usable.warnings),
            };
            Outcome::new(Status::Valid, &output, format)
        }
        Err(rejected) => rejected_outcome(&rejected, format),
    }
}

fn rejected_outcome(rejected: &Rejected, format: Format) -> Outcome {
    let status = if rejected.is_unparseable() {
        Status::Unusable
    } else {
        Status::Invalid
    };
    let output = CheckOutput {
        valid: false,
        errors: rejected.errors(),
        warnings: rejected.warnings(),
    };
    Outcome::new(status, &output, format)
}

fn unusable(errors: Vec<Entry<'_>>, format: Format) -> Outcome {
    let output = CheckOutput {
        valid: false,
        errors,
        warnings: Vec::new(),
    };
    Outcome::new(Status::Unusable, &output, format)
}
