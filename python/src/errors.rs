//! The module's exceptions, raised from Rust.
//!
//! The classes live in `sdsi/_errors.py` (a Python class can have two bases,
//! so `TemplateError` is both an `SdsiError` and a `ValueError`); Rust looks
//! each up once and raises instances carrying the issues as `sdsi.Issue`s.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use sdsi::Issue;

use crate::issue::issue_list;

/// One of the classes in `sdsi._errors`.
#[derive(Clone, Copy)]
pub enum Kind {
    Template,
    Input,
    Patch,
    State,
    Envelope,
}

type Class = PyOnceLock<Py<PyType>>;

impl Kind {
    /// The class's name and where it is kept once looked up (per process,
    /// as the class itself is).
    fn slot(self) -> (&'static Class, &'static str) {
        static TEMPLATE: Class = PyOnceLock::new();
        static INPUT: Class = PyOnceLock::new();
        static PATCH: Class = PyOnceLock::new();
        static STATE: Class = PyOnceLock::new();
        static ENVELOPE: Class = PyOnceLock::new();
        match self {
            Kind::Template => (&TEMPLATE, "TemplateError"),
            Kind::Input => (&INPUT, "InputError"),
            Kind::Patch => (&PATCH, "PatchError"),
            Kind::State => (&STATE, "StateError"),
            Kind::Envelope => (&ENVELOPE, "EnvelopeError"),
        }
    }

    fn class(self, py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
        let (slot, name) = self.slot();
        slot.import(py, "sdsi._errors", name)
    }
}

/// An exception of `kind` with `message` and the issues behind it.
pub fn raise(kind: Kind, message: String, errors: &[Issue], warnings: &[Issue]) -> PyErr {
    Python::attach(|py| {
        let made = kind.class(py).and_then(|class| {
            class.call1((
                message.as_str(),
                issue_list(py, errors)?,
                issue_list(py, warnings)?,
            ))
        });
        match made {
            Ok(instance) => PyErr::from_value(instance),
            // Only if the package itself is broken.
            Err(_) => PyValueError::new_err(message),
        }
    })
}

/// `sdsi.InputError`: what was handed over is not JSON, or not the shape asked for.
pub fn input_error(message: impl Into<String>) -> PyErr {
    raise(Kind::Input, message.into(), &[], &[])
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
