//! `sdsi compat OLD... NEW [--mode MODE]`: is a new template version
//! compatible with the earlier ones, as a schema registry would judge it?

use std::path::PathBuf;

use sdsi::compat::{Change, Mode, check};
use sdsi::validate::ValidateOptions;
use serde::Serialize;

use crate::input;
use crate::output::{Entry, Format, Outcome, Status, entries};
use crate::template;

/// Arguments of `compat`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The earlier versions, oldest first, then the new one (JSON templates).
    #[arg(value_name = "TEMPLATE", num_args = 2.., required = true)]
    pub templates: Vec<PathBuf>,

    /// backward, backward_transitive, forward, forward_transitive, full,
    /// full_transitive or none (the non-transitive modes compare with the
    /// latest earlier version only).
    #[arg(long, default_value = "backward", value_parser = parse_mode)]
    pub mode: Mode,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    text.parse()
        .map_err(|e: sdsi::compat::UnknownMode| e.to_string())
}

/// What `compat` prints.
#[derive(Serialize)]
struct CompatOutput<'a> {
    compatible: bool,
    mode: Mode,
    errors: Vec<Entry<'a>>,
    changes: Vec<Change>,
}

/// Runs the command: exit 0 compatible (non-breaking changes are still
/// listed), 1 a breaking change, 2 a template that cannot be read or used.
pub fn run(args: &Args, format: Format) -> Outcome {
    let options = ValidateOptions::default();
    let mut templates = Vec::with_capacity(args.templates.len());
    for path in &args.templates {
        let loaded = input::read_capped(path, options.limits.max_bytes).and_then(|bytes| {
            template::load(&bytes, options)
                .map(|usable| usable.template)
                .map_err(|rejected| {
                    let first = rejected
                        .errors()
                        .first()
                        .map(|e| serde_json::to_string(e).unwrap_or_default())
                        .unwrap_or_default();
                    Entry::unreadable(
                        &path.display().to_string(),
                        format!("not a usable template: {first}"),
                    )
                })
        });
        match loaded {
            Ok(template) => templates.push(template),
            Err(entry) => {
                let output = CompatOutput {
                    compatible: false,
                    mode: args.mode,
                    errors: vec![entry],
                    changes: Vec::new(),
                };
                return Outcome::new(Status::Unusable, &output, format);
            }
        }
    }
    let Some((new, history)) = templates.split_last() else {
        return Outcome::new(Status::Unusable, &entries(&[]), format);
    };
    let report = check(history, new, args.mode);
    let status = if report.is_compatible() {
        Status::Valid
    } else {
        Status::Invalid
    };
    let output = CompatOutput {
        compatible: report.compatible,
        mode: report.mode,
        errors: Vec::new(),
        changes: report.changes,
    };
    Outcome::new(status, &output, format)
}
