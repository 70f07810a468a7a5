//! `--schema TEMPLATE`, the way commands that read one template take it,
//! and for one release the positional form it replaced.

use std::path::{Path, PathBuf};

/// The template flag, flattened into a command's `Args`.
#[derive(Debug, clap::Args)]
pub struct SchemaArg {
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

impl SchemaArg {
    /// The template, however it was given (clap requires one of the two).
    pub fn path(&self) -> Option<&Path> {
        self.schema.as_deref().or(self.legacy_template.as_deref())
    }

    /// Whether the deprecated positional form was used.
    pub fn is_legacy(&self) -> bool {
        self.legacy_template.is_some()
    }
}
