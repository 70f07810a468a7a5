//! Exceptions that carry the issues behind a refusal (a template, a patch,
//! an envelope refused), as lists of `sdsi.Issue`.

use pyo3::prelude::*;
use sdsi::Issue;

use crate::errors::{Kind, raise_with};
use crate::issue::issue_list;

/// An exception of `kind` with `message` and the issues behind it.
pub fn raise(kind: Kind, message: String, errors: &[Issue], warnings: &[Issue]) -> PyErr {
    raise_with(kind, message, |py| {
        Ok((issue_list(py, errors)?, issue_list(py, warnings)?))
    })
}

/// `sdsi.TemplateError` for a refused template.
pub fn template_error(error: &sdsi::TemplateError) -> PyErr {
    raise(
        Kind::Template,
        error.to_string(),
        error.errors(),
        error.warnings(),
    )
}

/// The error for a refused patch or a schema that cannot be built.
pub fn compile_error(error: &sdsi::patch::CompileError) -> PyErr {
    match error {
        sdsi::patch::CompileError::Template(e) => template_error(e),
        other => raise(Kind::Patch, other.to_string(), other.errors(), &[]),
    }
}
