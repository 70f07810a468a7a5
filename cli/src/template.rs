//! Turning a template file's bytes into a compiled schema, shared by the commands.

use sdsi::validate::ValidateOptions;
use sdsi::{CompiledSchema, Issue, IssueCode, SchemaTemplate, TemplateError};

use crate::output::{Entry, entries};

/// A template that compiled, with the warnings it carries.
#[derive(Debug)]
pub struct Usable {
    /// The template as parsed.
    pub template: SchemaTemplate,
    /// The compiled schema.
    pub schema: CompiledSchema,
    /// Advice that did not stop compilation (e.g. an empty semantic description).
    pub warnings: Vec<Issue>,
}

/// Why a template cannot be used.
#[derive(Debug)]
pub enum Rejected {
    /// The file is larger than the limit, in bytes; it was not parsed.
    TooLarge(usize),
    /// The template is not JSON, or breaks the structure or the rules.
    Invalid(TemplateError),
}

impl Rejected {
    /// Whether the template could not even be parsed (too large, or not JSON),
    /// as opposed to well-formed JSON that breaks the rules.
    pub fn is_unparseable(&self) -> bool {
        match self {
            Rejected::TooLarge(_) => true,
            Rejected::Invalid(error) => error
                .errors()
                .iter()
                .any(|issue| issue.code() == IssueCode::InvalidJson),
        }
    }

    /// The errors, with JSON Pointers into the template.
    pub fn errors(&self) -> Vec<Entry<'_>> {
        match self {
            Rejected::TooLarge(max) => vec![Entry::too_large(*max)],
            Rejected::Invalid(error) => entries(error.errors()),
        }
    }

    /// The warnings found along the way.
    pub fn warnings(&self) -> Vec<Entry<'_>> {
        match self {
            Rejected::TooLarge(_) => Vec::new(),
            Rejected::Invalid(error) => entries(error.warnings()),
        }
    }
}

/// Parses, checks and compiles a template with `options`. Templates are held
/// to the same input-size limit as messages (`options.limits.max_bytes`).
pub fn load(bytes: &[u8], options: ValidateOptions) -> Result<Usable, Rejected> {
    let max = options.limits.max_bytes;
    if bytes.len() > max {
        return Err(Rejected::TooLarge(max));
    }
    let template = SchemaTemplate::from_slice(bytes).map_err(Rejected::Invalid)?;
    let schema = CompiledSchema::with_options(&template, options).map_err(Rejected::Invalid)?;
    // `from_slice` keeps the warnings only when it fails: ask again.
    let (_, warnings) = template.check().into_parts();
    Ok(Usable {
        template,
        schema,
        warnings,
    })
}
