//! `sdsi.Report`: the verdict, every problem, and the normalized payload.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use sdsi::issue::Problems;
use sdsi::validate::{Checked, Edits};
use sdsi::{CompiledSchema, Report};
use serde_json::{Map, Value};

use crate::convert::{Message, map_to_py, serialize_to_py, to_py, value_of};
use crate::errors::input_error;
use crate::issue::{IssueLists, Kept};

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
    issues: IssueLists,
    normalized: Kept<PyAny>,
}

/// Where the normalized payload comes from. It is built when first asked
/// for, so a caller who wants only the verdict and the issues pays for none
/// (like the Rust `Normalized` view, which reads through to the message).
/// It keeps the schema the message was checked against as a clone, which
/// shares the compiled schema, rather than the Python `CompiledSchema`
/// object: the report then needs nothing of the class that makes it.
enum Payload {
    /// An invalid message has none.
    Invalid,
    /// Already built.
    Ready(Map<String, Value>),
    /// JSON text (held by an immutable `str` or `bytes`): parsed again.
    Text {
        schema: CompiledSchema,
        text: Py<PyAny>,
    },
    /// A dict message: its payload with the pass's `edits` applied.
    Edited {
        schema: CompiledSchema,
        message: Py<PyAny>,
        edits: Edits,
    },
}

impl PyReport {
    fn new(problems: Problems, payload: Payload) -> Self {
        PyReport {
            problems,
            payload,
            issues: IssueLists::default(),
            normalized: Kept::default(),
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

    /// The problems of JSON text held by `text`, which is read again for
    /// the normalized payload when first asked for.
    pub fn from_text(problems: Problems, schema: &CompiledSchema, text: Bound<'_, PyAny>) -> Self {
        let payload = if problems.is_valid() {
            Payload::Text {
                schema: schema.clone(),
                text: text.unbind(),
            }
        } else {
            Payload::Invalid
        };
        Self::new(problems, payload)
    }

    /// What reading a dict found: its problems, and for a valid message the
    /// edits that normalize its payload.
    pub fn edited(checked: Checked, schema: &CompiledSchema, message: &Bound<'_, PyAny>) -> Self {
        let payload = match checked.edits {
            Some(edits) => Payload::Edited {
                schema: schema.clone(),
                message: message.clone().unbind(),
                edits,
            },
            None => Payload::Invalid,
        };
        Self::new(checked.problems, payload)
    }

    fn build_normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.payload {
            Payload::Invalid => Ok(py.None().into_bound(py)),
            Payload::Ready(map) => Ok(map_to_py(py, map)?.into_any()),
            Payload::Edited {
                schema,
                message,
                edits,
            } => edited_payload(py, schema, message.bind(py), edits),
            Payload::Text { schema, text } => {
                let text = text.bind(py);
                let Message::Text(text) = Message::of(text)? else {
                    return Err(input_error("not JSON text"));
                };
                match schema.validate_slice(text.bytes()).into_normalized() {
                    Some(map) => Ok(map_to_py(py, &map)?.into_any()),
                    // Unreachable: the text cannot change, and it was valid.
                    None => Ok(py.None().into_bound(py)),
                }
            }
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
        self.issues.errors(py, self.problems.errors())
    }

    /// Every warning (the message is still valid), as ``sdsi.Issue``.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.issues.warnings(py, self.problems.warnings())
    }

    /// The normalized payload as a dict, or ``None`` for an invalid message.
    /// Built from the message when first read (then kept): read it before
    /// changing the message you validated.
    #[getter]
    fn normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.normalized
            .get_or_try_init(py, || self.build_normalized(py))
    }

    /// ``{"valid", "errors", "warnings", "normalized"}``, issues as the
    /// crate writes them (``Issue.to_dict``).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = serialize_to_py(py, &self.problems)?.cast_into::<PyDict>()?;
        dict.set_item("valid", self.valid())?;
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

/// The payload of the dict `message` with `edits` applied, as a new dict.
/// Scalar members are the message's own objects when JSON text would give
/// the same (a `str`, a float, a bool, `None`, an int of 64 bits); anything
/// else (containers, subclasses, wider ints) is read as JSON and rebuilt,
/// so the dict equals what the same message as text normalizes to.
fn edited_payload<'py>(
    py: Python<'py>,
    schema: &CompiledSchema,
    message: &Bound<'py, PyAny>,
    edits: &Edits,
) -> PyResult<Bound<'py, PyAny>> {
    let changed = || {
        input_error(
            "the message was changed after it was validated; \
             read report.normalized before changing it",
        )
    };
    let payload = message
        .cast::<PyDict>()
        .ok()
        .and_then(|m| m.get_item("payload").ok().flatten())
        .ok_or_else(changed)?;
    let payload = payload.cast::<PyDict>().map_err(|_| changed())?;
    let removed: Vec<&str> = edits.removed(schema).collect();
    let to_integer: Vec<&str> = edits.to_integer(schema).collect();
    let out = PyDict::new(py);
    // Nothing below runs Python code (keys are hashed as plain `str`s), so
    // the payload cannot change while it is read.
    for (name, value) in payload.iter() {
        let key = name.cast::<PyString>().map_err(|_| changed())?;
        let text = crate::scalar::utf8(key)?;
        if removed.contains(&text) {
            continue;
        }
        let value = if to_integer.contains(&text) {
            let whole = value.extract::<f64>().map_err(|_| changed())?;
            // The crate marks only whole numbers that 64 bits hold; `as`
            // saturates, it cannot fail.
            if whole < 0.0 {
                (whole as i64).into_pyobject(py)?.into_any()
            } else {
                (whole as u64).into_pyobject(py)?.into_any()
            }
        } else {
            as_json_reads_it(py, value)?
        };
        if key.is_exact_instance_of::<PyString>() {
            out.set_item(key, value)?;
        } else {
            out.set_item(PyString::new(py, text), value)?;
        }
    }
    for (name, default) in edits.defaults(schema) {
        out.set_item(name, to_py(py, default)?)?;
    }
    Ok(out.into_any())
}

/// `value` itself when JSON text would read back an equal object of the
/// same type; otherwise `value` read as JSON and rebuilt.
fn as_json_reads_it<'py>(py: Python<'py>, value: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let reusable = if let Ok(text) = value.cast_exact::<PyString>() {
        crate::scalar::utf8(text)?;
        true
    } else if value.is_exact_instance_of::<PyInt>() {
        value.extract::<i64>().is_ok() || value.extract::<u64>().is_ok()
    } else {
        value.is_none()
            || value.is_exact_instance_of::<PyBool>()
            || value.is_exact_instance_of::<PyFloat>()
    };
    if reusable {
        return Ok(value);
    }
    to_py(py, &value_of(&value)?)
}
