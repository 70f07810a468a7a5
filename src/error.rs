//! Error types.

use std::fmt;

use crate::issue::Issue;
use crate::template::TemplateCheck;

/// A template that cannot be used: every problem found, plus any warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateError {
    check: TemplateCheck,
}

impl TemplateError {
    pub(crate) fn new(errors: Vec<Issue>, warnings: Vec<Issue>) -> Self {
        Self {
            check: TemplateCheck { errors, warnings },
        }
    }

    /// The problems, structural ones first, each in document order.
    pub fn errors(&self) -> &[Issue] {
        &self.check.errors
    }

    /// Advice found along the way.
    pub fn warnings(&self) -> &[Issue] {
        &self.check.warnings
    }

    /// The errors and warnings as a [`TemplateCheck`].
    pub fn into_check(self) -> TemplateCheck {
        self.check
    }
}

impl From<TemplateCheck> for TemplateError {
    fn from(check: TemplateCheck) -> Self {
        Self { check }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let errors = self.errors();
        write!(
            f,
            "invalid schema template ({} problem{})",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        )?;
        for issue in errors {
            write!(f, "; {issue}")?;
        }
        Ok(())
    }
}

impl std::error::Error for TemplateError {}
