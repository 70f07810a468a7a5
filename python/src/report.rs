//! `sdsi.Report`: the verdict, every problem, and the normalized payload.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use sdsi::Report;
use sdsi::issue::Problems;
use serde_json::{Map, Value};

use crate::convert::map_to_py;
use crate::errors::input_error;
use crate::issue::issue_list;
use crate::schema::PySchema;

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
    payload: Payload,
    errors: PyOnceLock<Py<PyList>>,
    warnings: PyOnceLock<Py<PyList>>,
    normalized: PyOnceLock<Py<PyAny>>,
}

/// Where the normalized payload comes from.
enum Payload {
    /// An invalid message has none.
    Invalid,
    /// Already built.
    Ready(Map<String, Value>),
    /// Read from the message when first asked for: validating builds no
    /// payload, so a caller who only wants the verdict and the issues pays
    /// for none (like the Rust `Normalized` view, which reads through to the
    /// message it borrows).
    Later {
        schema: Py<PySchema>,
        message: Py<PyAny>,
    },
    /// The same, for a message whose text was copied (a `bytearray`).
    LaterFromBytes {
        schema: Py<PySchema>,
        bytes: Vec<u8>,
    },
}

impl PyReport {
    fn new(problems: Problems, payload: Payload) -> Self {
        PyReport {
            problems,
            payload,
            errors: PyOnceLock::new(),
            warnings: PyOnceLock::new(),
            normalized: PyOnceLock::new(),
        }
    }

    /// Takes a report's problems and normalized payload, owned.
    pub fn of(report: Report<'_>) -> Self {
        let (problems, normalized) = report.into_parts();
        let payload = match normalized {
            Some(normalized) => Payload::Ready(normalized.into_map()),
            None => Payload::Invalid,
        };
        Self::new(problems, payload)
    }

    /// The problems of `message`; its normalized payload is read from it
    /// (validating it again) when first asked for.
    pub fn later(
        problems: Problems,
        schema: &Bound<'_, PySchema>,
        message: &Bound<'_, PyAny>,
    ) -> Self {
        let payload = if !problems.is_valid() {
            Payload::Invalid
        } else {
            Payload::Later {
                schema: schema.clone().unbind(),
                message: message.clone().unbind(),
            }
        };
        Self::new(problems, payload)
    }

    /// As [`PyReport::later`], for a copied text.
    pub fn later_from_bytes(
        problems: Problems,
        schema: &Bound<'_, PySchema>,
        bytes: Vec<u8>,
    ) -> Self {
        let payload = if !problems.is_valid() {
            Payload::Invalid
        } else {
            Payload::LaterFromBytes {
                schema: schema.clone().unbind(),
                bytes,
            }
        };
        Self::new(problems, payload)
    }

    fn build_normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let map = match &self.payload {
            Payload::Invalid => return Ok(py.None().into_bound(py)),
            Payload::Ready(map) => return Ok(map_to_py(py, map)?.into_any()),
            Payload::Later { schema, message } => schema.get().normalized(message.bind(py))?,
            Payload::LaterFromBytes { schema, bytes } => {
                schema.get().inner.validate_slice(bytes).into_normalized()
            }
        };
        match map {
            Some(map) => Ok(map_to_py(py, &map)?.into_any()),
            None => Err(input_error(
                "the message was changed after it was validated and is no longer valid; \
                 read report.normalized before changing it",
            )),
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
    /// Built from the message when first read (then kept): read it before
    /// changing the message you validated.
    #[getter]
    fn normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.normalized
            .get_or_try_init(py, || self.build_normalized(py).map(Bound::unbind))
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
