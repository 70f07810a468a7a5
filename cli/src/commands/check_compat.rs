//! `sdsi check-compat --schema NEW --against OLD... [--mode MODE]`: is a
//! new template version compatible with the earlier ones, as a schema
//! registry would judge it?

use std::path::PathBuf;

use sdsi::compat::{Change, Mode, check};
use sdsi::validate::ValidateOptions;
use serde::Serialize;

use crate::input;
use crate::output::{Entry, Format, Outcome, Status};
use crate::template;

/// What `--help` says of the exit status.
pub const EXIT_STATUS: &str = "\
Exit status:
  0  compatible (non-breaking changes are still listed)
  1  a breaking change
  2  a template that cannot be read or used; a usage error";

/// The schema-registry compatibility modes. The non-transitive ones compare
/// with the latest earlier version only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompatMode {
    /// The new version reads every payload the latest old one read.
    Backward,
    /// The new version reads every payload any old version read.
    #[value(alias = "backward_transitive")]
    BackwardTransitive,
    /// The latest old version reads what the new one reads.
    Forward,
    /// Every old version reads what the new one reads.
    #[value(alias = "forward_transitive")]
    ForwardTransitive,
    /// Backward and forward against the latest old version.
    Full,
    /// Backward and forward against every old version.
    #[value(alias = "full_transitive")]
    FullTransitive,
    /// No check.
    None,
}

impl From<CompatMode> for Mode {
    fn from(mode: CompatMode) -> Self {
        match mode {
            CompatMode::Backward => Mode::Backward,
            CompatMode::BackwardTransitive => Mode::BackwardTransitive,
            CompatMode::Forward => Mode::Forward,
            CompatMode::ForwardTransitive => Mode::ForwardTransitive,
            CompatMode::Full => Mode::Full,
            CompatMode::FullTransitive => Mode::FullTransitive,
            CompatMode::None => Mode::None,
        }
    }
}

/// Arguments of `check-compat`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The new version of the template (JSON); `-` reads standard input.
    #[arg(
        long,
        short = 's',
        value_name = "TEMPLATE",
        required_unless_present = "legacy_templates"
    )]
    pub schema: Option<PathBuf>,

    /// The earlier versions (JSON templates), oldest first: repeat the flag
    /// or list them after it.
    #[arg(
        long,
        value_name = "TEMPLATE",
        num_args = 1..,
        required_unless_present = "legacy_templates"
    )]
    pub against: Vec<PathBuf>,

    /// Deprecated: the earlier versions then the new one, as positional
    /// arguments (`--schema NEW --against OLD...` now).
    #[arg(
        value_name = "TEMPLATE",
        num_args = 2..,
        hide = true,
        conflicts_with_all = ["schema", "against"]
    )]
    pub legacy_templates: Vec<PathBuf>,

    /// The compatibility mode.
    #[arg(long, value_enum, ignore_case = true, default_value = "backward")]
    pub mode: CompatMode,
}

impl Args {
    /// The earlier versions, oldest first, then the new one, however they
    /// were given.
    fn templates(&self) -> Vec<&PathBuf> {
        if self.legacy_templates.is_empty() {
            self.against.iter().chain(&self.schema).collect()
        } else {
            self.legacy_templates.iter().collect()
        }
    }
}

/// What `check-compat` prints.
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
    let mode = Mode::from(args.mode);
    let unusable = |entry: Entry<'_>| {
        let output = CompatOutput {
            compatible: false,
            mode,
            errors: vec![entry],
            changes: Vec::new(),
        };
        Outcome::new(Status::Unusable, &output, format)
    };
    let paths = args.templates();
    let mut templates = Vec::with_capacity(paths.len());
    for path in paths {
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
            Err(entry) => return unusable(entry),
        }
    }
    // clap asks for a new version and at least one earlier one.
    let Some((new, history @ [_, ..])) = templates.split_last() else {
        let message = "two versions are needed: --schema NEW --against OLD...";
        return unusable(Entry::tool("unreadable_input", message.to_owned()));
    };
    let report = check(history, new, mode);
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
