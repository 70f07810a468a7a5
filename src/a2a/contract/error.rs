//! Why a Schema Contract value could not be read or written: every problem
//! found, each an [`Issue`] with a JSON Pointer into the value read.

use std::fmt;

use crate::issue::{Issue, write_problems};

/// A Schema Contract extension entry, catalog, part identity or error
/// detail that breaks the draft's rules, with every problem found (not only
/// the first), each with a stable code and a JSON Pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractError {
    errors: Vec<Issue>,
}

impl ContractError {
    pub(crate) fn new(errors: Vec<Issue>) -> Self {
        Self { errors }
    }

    /// The problems, in document order.
    pub fn errors(&self) -> &[Issue] {
        &self.errors
    }

    /// Takes the problems out.
    pub fn into_errors(self) -> Vec<Issue> {
        self.errors
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_problems(f, "invalid schema contract", &self.errors)
    }
}

impl std::error::Error for ContractError {}
