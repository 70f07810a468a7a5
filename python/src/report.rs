//! `sdsi.Report`: the verdict, every problem, and the normalized payload.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use sdsi::issue::Problems;
use sdsi::{Normalized, Report};
use serde_json::{Map, Value};

use crate::convert::map_to_py;
use crate::issue::issue_list;

/// What validating one message found.
///
/// ``valid`` is the verdict; ``errors`` and ``warnings`` list every problem
/// (``sdsi.Issue``, sorted by path); ``normalized`` is the payload as the
/// server should read it (``null`` members dropped, defaults added), or
/// ``None`` when the message is invalid. The lists and the dict are built
/// on first access and then kept.
#[pyclass(module = "sdsi", name = "Report", frozen)]
pub struct PyReport {
    problems: Problems,
    payload: Option<Map<String, Value>>,
    errors: PyOnceLock<Py<PyList>>,
    warnings: PyOnceLock<Py<PyList>>,
    normalized: PyOnceLock<Py<PyAny>>,
}

impl PyReport {
    /// Takes a report's problems and normalized payload, owned.
    pub fn of(report: Report<'_>) -> Self {
        let (problems, normalized) = report.into_parts();
        PyReport {
            problems,
            payload: normalized.map(Normalized::into_map),
            errors: PyOnceLock::new(),
            warnings: PyOnceLock::new(),
            normalized: PyOnceLock::new(),
        }
    }
}

#[pymethods]
impl PyReport {
    /// Whether the message is valid (no errors; warnings allowed).
    #[getter]
    fn valid(&self) -> bool {
        self.problems.is_valid()
    }

    /// Every error, as ``sdsi.Issue``, sorted by path.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.errors
            .get_or_try_init(py, || {
                issue_list(py, self.problems.errors()).map(Bound::unbind)
            })
            .map(|list| list.bind(py).clone())
    }

    /// Every warning (the message is still valid), as ``sdsi.Issue``.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.warnings
            .get_or_try_init(py, || {
                issue_list(py, self.problems.warnings()).map(Bound::unbind)
            })
            .map(|list| list.bind(py).clone())
    }

    /// The normalized payload as a dict, or ``None`` for an invalid message.
    #[getter]
    fn normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.normalized
            .get_or_try_init(py, || match &self.payload {
                Some(map) => map_to_py(py, map).map(|d| d.into_any().unbind()),
                None => Ok(py.None()),
            })
            .map(|value| value.bind(py).clone())
    }

    /// ``{"valid", "errors", "warnings", "normalized"}`` with issues as dicts.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("valid", self.valid())?;
        dict.set_item("errors", dicts(py, self.problems.errors())?)?;
        dict.set_item("warnings", dicts(py, self.problems.warnings())?)?;
        dict.set_item("normalized", self.normalized(py)?)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(valid={}, errors={}, warnings={})",
            if self.valid() { "True" } else { "False" },
            self.problems.errors().len(),
            self.problems.warnings().len()
        )
    }
}

/// Issues as a list of plain dicts.
pub fn dicts<'py>(py: Python<'py>, issues: &[sdsi::Issue]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for issue in issues {
        let dict = PyDict::new(py);
        dict.set_item("code", issue.code().as_str())?;
        dict.set_item("path", issue.path())?;
        dict.set_item("message", issue.message())?;
        list.append(dict)?;
    }
    Ok(list)
}
