//! The module's exceptions, raised from Rust.
//!
//! The classes live in `sdsi/_errors.py` (a Python class can have two bases,
//! so `TemplateError` is both an `SdsiError` and a `ValueError`); Rust looks
//! each up once and raises instances carrying lists of issues. The
//! `sdsi.Issue`s behind a refusal are listed by `refusal.rs`, not here:
//! the conversions and the `Issue` class raise `InputError` themselves, so
//! this file sits below them.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyType};

/// One of the classes in `sdsi._errors`.
#[derive(Clone, Copy)]
pub enum Kind {
    Template,
    Input,
    Patch,
    State,
    Envelope,
    Validation,
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
        static VALIDATION: Class = PyOnceLock::new();
        match self {
            Kind::Template => (&TEMPLATE, "TemplateError"),
            Kind::Input => (&INPUT, "InputError"),
            Kind::Patch => (&PATCH, "PatchError"),
            Kind::State => (&STATE, "StateError"),
            Kind::Envelope => (&ENVELOPE, "EnvelopeError"),
            Kind::Validation => (&VALIDATION, "ValidationError"),
        }
    }

    /// The class, looked up once per process.
    pub fn class(self, py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
        let (slot, name) = self.slot();
        slot.import(py, "sdsi._errors", name)
    }
}

/// The errors' and the warnings' lists of an exception, made once the
/// class is found.
type Lists<'py> = PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)>;

/// An exception of `kind` with `message` and the issue lists `lists` makes.
pub fn raise_with(
    kind: Kind,
    message: String,
    lists: impl FnOnce(Python<'_>) -> Lists<'_>,
) -> PyErr {
    Python::attach(|py| {
        let made = kind.class(py).and_then(|class| {
            let (errors, warnings) = lists(py)?;
            class.call1((message.as_str(), errors, warnings))
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
    raise_with(Kind::Input, message.into(), |py| {
        Ok((PyList::empty(py), PyList::empty(py)))
    })
}
