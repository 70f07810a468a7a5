//! `validate --patch/--client/--at`: the effective schema from a template plus patch files.

use sdsi::patch::{EffectiveSchema, SchemaPatch};
use sdsi::validate::ValidateOptions;
use sdsi::{CompiledSchema, Issue, IssueCode, KeyName, SchemaTemplate};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::input;
use crate::validate::Args;

/// Reads the patches and compiles the schema the client sees at `--at`.
/// Every problem (unreadable or malformed patch, refused patch, bad time)
/// comes back as an issue; a message names the patch file it concerns.
pub fn compile(
    args: &Args,
    template: &SchemaTemplate,
    options: ValidateOptions,
) -> Result<CompiledSchema, Vec<Issue>> {
    let now = match &args.at {
        None => OffsetDateTime::now_utc(),
        Some(text) => OffsetDateTime::parse(text, &Rfc3339).map_err(|e| {
            vec![Issue::new(
                IssueCode::InvalidTimestamp,
                "",
                format!("--at {text:?} is not an RFC 3339 time: {e}"),
            )]
        })?,
    };
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
    let mut merge = EffectiveSchema::new(template)
        .patches(&patches)
        .options(options);
    if args.allow_sensitive {
        merge = merge.authorizer(&allow_all);
    }
    if let Some(client) = &args.client {
        merge = merge.client(client);
    }
    merge.compile(now).map_err(|error| {
        let file = error_file(args, &patches, &error);
        in_file(&file, error.errors())
    })
}

/// The file a refused patch came from (its id when no file matches).
fn error_file(args: &Args, patches: &[SchemaPatch], error: &sdsi::patch::CompileError) -> String {
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
