//! `sdsi check-template --schema TEMPLATE`: is a schema template usable,
//! and what does it warn about?

use std::path::{Path, PathBuf};

use sdsi::validate::ValidateOptions;

use crate::input;
use crate::output::{CheckOutput, Entry, Format, Outcome, Status, entries};
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
    /// The schema template (JSON); `-` reads standard input.
    #[arg(
        long,
        short = 's',
        value_name = "TEMPLATE",
        required_unless_present = "legacy_template"
    )]
    pub schema: Option<PathBuf>,

    /// Deprecated: the template as a positional argument (`--schema` now).
    #[arg(value_name = "TEMPLATE", hide = true, conflicts_with = "schema")]
    pub legacy_template: Option<PathBuf>,
}

impl Args {
    /// The template, however it was given (clap requires one of the two).
    fn template(&self) -> Option<&Path> {
        self.schema.as_deref().or(self.legacy_template.as_deref())
    }
}

/// Runs the command: exit 0 usable (warnings allowed), 1 well-formed JSON that
/// breaks the structure or rules, 2 unreadable, too large or not JSON.
pub fn run(args: &Args, format: Format) -> Outcome {
    let options = ValidateOptions::default();
    let Some(path) = args.template() else {
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
