//! `sdsi.Issue`: one problem, with its stable code, JSON Pointer and message.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

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

    /// ``{"code", "path", "message"}``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("code", self.code())?;
        dict.set_item("path", self.path())?;
        dict.set_item("message", self.message())?;
        Ok(dict)
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
