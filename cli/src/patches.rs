//! `--patch`, `--client`, `--at`, `--allow-sensitive`: the effective schema
//! from a template plus patch files, for any command that validates.

use std::path::PathBuf;

use sdsi::patch::{EffectiveSchema, SchemaPatch};
use sdsi::validate::ValidateOptions;
use sdsi::{CompiledSchema, Issue, IssueCode, KeyName, SchemaTemplate};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::input;

/// The patch flags, flattened into a command's own arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct PatchArgs {
    /// A schema patch (JSON) to apply on top of the template; repeatable.
    /// Patches apply in (timestamp, id) order, from their timestamp until
    /// they expire; a refused patch exits 2 with its code in `errors`.
    #[arg(long = "patch", value_name = "PATCH")]
    pub patches: Vec<PathBuf>,

    /// The client agent whose personal patches (scope `{"client": ID}`) apply.
    #[arg(long, value_name = "ID")]
    pub client: Option<String>,

    /// The time to validate at (RFC 3339), which decides which patches are
    /// active; the current time when absent.
    #[arg(long, value_name = "RFC3339")]
    pub at: Option<String>,

    /// Apply patches that add or modify sensitive keys (§7); refused otherwise.
    #[arg(long)]
    pub allow_sensitive: bool,
}

impl PatchArgs {
    /// Whether no flag asks for anything beyond the template itself.
    pub fn is_empty(&self) -> bool {
        self.patches.is_empty() && self.client.is_none()
    }
}

/// The time of `--at`, or now when absent; an `invalid_timestamp` issue
/// when it is not an RFC 3339 time.
pub fn at(args: &PatchArgs) -> Result<OffsetDateTime, Issue> {
    match &args.at {
        None => Ok(OffsetDateTime::now_utc()),
        Some(text) => OffsetDateTime::parse(text, &Rfc3339).map_err(|e| {
            Issue::new(
                IssueCode::InvalidTimestamp,
                "",
                format!("--at {text:?} is not an RFC 3339 time: {e}"),
            )
        }),
    }
}

/// Reads the patches and compiles the schema the client sees at `--at`, with
/// the warnings of what the merge skipped.
/// Every problem (unreadable or malformed patch, refused patch, bad time)
/// comes back as an issue; a message names the patch file it concerns.
pub fn compile(
    args: &PatchArgs,
    template: &SchemaTemplate,
    options: ValidateOptions,
) -> Result<(CompiledSchema, Vec<Issue>), Vec<Issue>> {
    let now = at(args).map_err(|issue| vec![issue])?;
    let mut patches = Vec::new();
    let mut problems = Vec::new();
    for path in &args.patches {
        let shown = path.display().to_string();
        match input::read_capped(path, options.limits.max_bytes) {
            Err(_) => problems.push(Issue::new(
                IssueCode::InvalidPatch,
                "",
                format!("cannot read patch {shown}"),
            )),
            Ok(bytes) => match SchemaPatch::from_slice(&bytes) {
                Ok(patch) => patches.push(patch),
                Err(error) => problems.extend(in_file(&shown, error.errors())),
            },
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let allow_all = |_: &SchemaPatch, _: &[KeyName]| true;
    // Lenient: an entry that conflicts with the keys in force at `--at` (it
    // modifies a key whose patch expired, say) is skipped with a warning, so
    // that individually valid patches never make a base-only message fail.
    let mut merge = EffectiveSchema::new(template)
        .patches(&patches)
        .options(options)
        .lenient();
    if args.allow_sensitive {
        merge = merge.authorizer(&allow_all);
    }
    if let Some(client) = &args.client {
        merge = merge.client(client);
    }
    let refused = |error: sdsi::patch::CompileError| {
        let file = error_file(args, &patches, &error);
        in_file(&file, error.errors())
    };
    let schema = merge.compile(now).map_err(refused)?;
    let skipped = merge.warnings(now).map_err(refused)?;
    Ok((schema, skipped))
}

/// The file a refused patch came from (its id when no file matches).
fn error_file(
    args: &PatchArgs,
    patches: &[SchemaPatch],
    error: &sdsi::patch::CompileError,
) -> String {
    let sdsi::patch::CompileError::Patch(refusal) = error else {
        return "template".to_owned();
    };
    patches
        .iter()
        .zip(&args.patches)
        .find(|(p, _)| Some(p.patch_id.as_str()) == refusal.patch_id())
        .map(|(_, path)| path.display().to_string())
        .unwrap_or_else(|| format!("patch {}", refusal.patch_id().unwrap_or("?")))
}

/// The issues with the file named in front of each message.
fn in_file(file: &str, issues: &[Issue]) -> Vec<Issue> {
    issues
        .iter()
        .map(|i| Issue::new(i.code(), i.path(), format!("{file}: {}", i.message())))
        .collect()
}
