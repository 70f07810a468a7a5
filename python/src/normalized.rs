//! A report's normalized payload, fixed when the message is validated.
//!
//! A dict message is the caller's to change after `validate()` returns, so
//! its normalized payload is copied out then: the report owns every
//! container of it and hands out a new copy on each read. JSON text cannot
//! change, so from text the payload is parsed again when it is read (a
//! caller who wants only the verdict pays nothing for it).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use sdsi::CompiledSchema;
use sdsi::validate::Edits;
use serde_json::{Map, Value};

use crate::convert::{Message, map_to_py, to_py, value_of};
use crate::errors::input_error;

/// Where a report's normalized payload comes from.
pub enum Normalized {
    /// An invalid message has none.
    Invalid,
    /// Already owned by Rust (the crate's own `Normalized`, made into a map).
    Map(Map<String, Value>),
    /// JSON text (held by an immutable `str` or `bytes`): parsed again.
    Text {
        schema: CompiledSchema,
        text: Py<PyAny>,
    },
    /// Copied from a dict message at `validate()` time: dicts and lists of
    /// the report's own, holding immutable scalars (exact `str`, `int`,
    /// `float`, `bool`, `None`).
    Snapshot(Py<PyDict>),
    /// Copying failed (a `str` with a lone surrogate, whose text the
    /// validation pass did not need): raised when the payload is read.
    Failed(String),
}

impl Normalized {
    /// The payload of the dict `message` with the pass's `edits` applied,
    /// copied now.
    pub fn of_dict(schema: &CompiledSchema, message: &Bound<'_, PyAny>, edits: &Edits) -> Self {
        let payload = message
            .cast::<PyDict>()
            .ok()
            .and_then(|m| m.get_item("payload").ok().flatten())
            .filter(|payload| payload.is_instance_of::<PyDict>());
        if payload.is_none() {
            // A message or payload that stands for a dict (a `Mapping`, a
            // pydantic model): read whole and normalized by the crate.
            return match value_of(message) {
                Ok(value) => match schema.validate_owned(value).into_normalized() {
                    Some(map) => Normalized::Map(map),
                    None => Normalized::Failed("the message changed while it was validated".into()),
                },
                Err(error) => Normalized::failed(message.py(), &error),
            };
        }
        match edited_payload(message.py(), schema, message, edits) {
            Ok(dict) => Normalized::Snapshot(dict.unbind()),
            Err(error) => Normalized::failed(message.py(), &error),
        }
    }

    /// Copying failed with `error`: its message is raised on each read.
    fn failed(py: Python<'_>, error: &PyErr) -> Self {
        Normalized::Failed(error.value(py).str().map_or_else(
            |_| "the payload cannot be read".to_owned(),
            |s| s.to_string(),
        ))
    }

    /// A new dict each time, or `None` for an invalid message.
    pub fn read<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Normalized::Invalid => Ok(py.None().into_bound(py)),
            Normalized::Map(map) => Ok(map_to_py(py, map)?.into_any()),
            Normalized::Snapshot(dict) => fresh_copy(dict.bind(py).as_any()),
            Normalized::Failed(message) => Err(input_error(message.clone())),
            Normalized::Text { schema, text } => {
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

/// A copy of a snapshot's containers (its scalars are immutable and shared).
fn fresh_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        let out = PyDict::new(py);
        for (name, item) in dict.iter() {
            out.set_item(name, fresh_copy(&item)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        let out = PyList::empty(py);
        for item in list.iter() {
            out.append(fresh_copy(&item)?)?;
        }
        return Ok(out.into_any());
    }
    Ok(value.clone())
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
) -> PyResult<Bound<'py, PyDict>> {
    // Only a `str` subclass's `__eq__` or `__hash__`, run by a lookup
    // below, could change the message while it is copied.
    let changed = || input_error("the message changed while it was validated");
    let payload = message
        .cast::<PyDict>()
        .ok()
        .and_then(|m| m.get_item("payload").ok().flatten())
        .ok_or_else(changed)?;
    let payload = payload.cast::<PyDict>().map_err(|_| changed())?;
    let removed: Vec<&str> = edits.removed(schema).collect();
    let to_integer: Vec<&str> = edits.to_integer(schema).collect();
    let out = PyDict::new(py);
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
    Ok(out)
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
