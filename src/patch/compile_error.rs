//! Why an effective schema could not be built: the base template broke a
//! template rule, or a patch was refused.

use crate::issue::Issue;
use crate::patch::schema_patch::PatchError;
use crate::template::TemplateError;

/// Why an effective schema could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// The base template (or the merged result) breaks a template rule.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A patch was refused.
    #[error(transparent)]
    Patch(#[from] PatchError),
}

impl CompileError {
    /// Every problem, whichever layer it came from.
    pub fn errors(&self) -> &[Issue] {
        match self {
            CompileError::Template(e) => e.errors(),
            CompileError::Patch(e) => e.errors(),
        }
    }
}
