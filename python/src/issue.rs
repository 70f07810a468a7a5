//! `sdsi.Issue`: one problem, with its stable code, JSON Pointer and message.

use pyo3::prelude::*;
use std::sync::OnceLock;

use pyo3::types::PyList;

use crate::convert::serialize_to_py;

/// One problem found in a template, a message or a patch.
///
/// `code` is stable (docs/errors.md lists every code), `path` a JSON Pointer
/// into what was checked ("" for the whole), `message` for people.
#[pyclass(module = "sdsi", name = "Issue", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyIssue {
    pub inner: sdsi::Issue,
}

#[pymethods]
impl PyIssue {
    /// The stable code, e.g. ``"missing_required_key"``.
    #[getter]
    fn code(&self) -> &'static str {
        self.inner.code().as_str()
    }

    /// A JSON Pointer to where the problem is (``""`` for the whole input).
    #[getter]
    fn path(&self) -> &str {
        self.inner.path()
    }

    /// What is wrong, in words.
    #[getter]
    fn message(&self) -> String {
        self.inner.message().into_owned()
    }

    /// The issue as the crate writes it (the CLI's form): ``{"code",
    /// "path", "message"}``, plus ``limit`` for ``limit_exceeded`` and
    /// ``expected`` / ``found`` for ``type_mismatch``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "Issue(code={:?}, path={:?}, message={:?})",
            self.code(),
            self.path(),
            self.message()
        )
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }
}

/// Issues as a list of `sdsi.Issue`.
pub fn issue_list<'py>(py: Python<'py>, issues: &[sdsi::Issue]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for issue in issues {
        list.append(Bound::new(
            py,
            PyIssue {
                inner: issue.clone(),
            },
        )?)?;
    }
    Ok(list)
}

/// A Python object built on first access and then kept: the same object
/// every time. A `std` once-cell rather than PyO3's `PyOnceLock`, whose
/// first fill costs more than building an empty list; the GIL orders the threads already, and if building lets
/// another thread in first, that thread's object is the one kept.
pub struct Kept<T>(OnceLock<Py<T>>);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(OnceLock::new())
    }
}

impl<T> Kept<T> {
    pub fn get_or_try_init<'py>(
        &self,
        py: Python<'py>,
        make: impl FnOnce() -> PyResult<Bound<'py, T>>,
    ) -> PyResult<Bound<'py, T>> {
        if let Some(kept) = self.0.get() {
            return Ok(kept.bind(py).clone());
        }
        let made = make()?;
        let _ = self.0.set(made.clone().unbind());
        Ok(match self.0.get() {
            Some(kept) => kept.bind(py).clone(),
            None => made,
        })
    }
}

/// A report's errors and warnings as lists of `sdsi.Issue`, each built on
/// first access and then kept (the same list object every time).
#[derive(Default)]
pub struct IssueLists {
    errors: Kept<PyList>,
    warnings: Kept<PyList>,
}

impl IssueLists {
    pub fn errors<'py>(
        &self,
        py: Python<'py>,
        issues: &[sdsi::Issue],
    ) -> PyResult<Bound<'py, PyList>> {
        cached(&self.errors, py, issues)
    }

    pub fn warnings<'py>(
        &self,
        py: Python<'py>,
        issues: &[sdsi::Issue],
    ) -> PyResult<Bound<'py, PyList>> {
        cached(&self.warnings, py, issues)
    }
}

fn cached<'py>(
    slot: &Kept<PyList>,
    py: Python<'py>,
    issues: &[sdsi::Issue],
) -> PyResult<Bound<'py, PyList>> {
    slot.get_or_try_init(py, || issue_list(py, issues))
}
