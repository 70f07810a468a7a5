//! Python objects ↔ JSON values, and a message as handed over (JSON text
//! or Python objects).
//!
//! Python hands over dicts, lists, strings, numbers, booleans and `None`;
//! anything else (a set, a datetime, a non-string dict key, NaN) is not JSON
//! and raises `sdsi.InputError`. Python objects are read by one reader,
//! `depythonize::PyDe`, whether into a `Value` or straight into the
//! validator, within the bounds `depth` sets.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyList, PyString};
use serde_json::{Map, Number, Value};

use serde::Deserialize;

use crate::depth::Depth;
use crate::depythonize::PyDe;
use crate::errors::input_error;
use crate::scalar::utf8;

/// Reads `object` as a JSON value, with the depth bound `depth`: the same
/// reader validation uses (`depythonize`), every string's text read.
pub fn to_value(object: &Bound<'_, PyAny>, depth: Depth) -> PyResult<Value> {
    Value::deserialize(PyDe::reading_all(object, depth)).map_err(PyErr::from)
}

/// Reads `object` as a JSON value, every level of it.
pub fn value_of(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value(object, Depth::FULL)
}

/// Deserializes `object` (a dict or other JSON-shaped value) into `T`.
pub fn from_py<T: serde::de::DeserializeOwned>(
    object: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<T> {
    serde_json::from_value(value_of(object)?).map_err(|e| input_error(format!("{what}: {e}")))
}

/// A JSON value as Python objects.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number(py, n)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => map_to_py(py, map)?.into_any(),
    })
}

/// A JSON object as a dict.
pub fn map_to_py<'py>(py: Python<'py>, map: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, item) in map {
        dict.set_item(name, to_py(py, item)?)?;
    }
    Ok(dict)
}

fn number<'py>(py: Python<'py>, n: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    Ok(n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any())
}

/// An export as Python objects, each dict's keys in the export's order (a
/// template's keys in the template's order): read back from the export's
/// own text by `json.loads`, since the `Value` an export also holds lists
/// members in serde_json's order, which is sorted. `json.loads` gives
/// numbers as `to_py` does: integers as ints, anything else as a float.
pub fn ordered_to_py<'py>(
    py: Python<'py>,
    document: &sdsi::export::OrderedJson,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (document.to_string(),))
}

/// Anything serializable as Python objects (through its JSON form).
pub fn serialize_to_py<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    item: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(item)
        .map_err(|e| input_error(format!("cannot be written as JSON: {e}")))?;
    to_py(py, &value)
}

/// A message as handed over: JSON text or Python objects.
pub enum Message<'a, 'py> {
    Text(Text<'a, 'py>),
    Object(&'a Bound<'py, PyAny>),
}

/// JSON text and the immutable object holding it: a `str` (its UTF-8,
/// borrowed), or `bytes` (a `bytearray` is copied into one, as it could
/// change while the GIL is released).
pub enum Text<'a, 'py> {
    Str(&'a Bound<'py, PyAny>, &'a str),
    Bytes(Bound<'py, PyBytes>),
}

impl<'py> Text<'_, 'py> {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Text::Str(_, text) => text.as_bytes(),
            Text::Bytes(bytes) => bytes.as_bytes(),
        }
    }

    /// The object holding the text, to read it again later.
    pub fn holder(&self) -> Bound<'py, PyAny> {
        match self {
            Text::Str(object, _) => (*object).clone(),
            Text::Bytes(bytes) => bytes.clone().into_any(),
        }
    }
}

impl<'a, 'py> Message<'a, 'py> {
    /// Sorts `object` into text or objects.
    pub fn of(object: &'a Bound<'py, PyAny>) -> PyResult<Self> {
        if object.is_exact_instance_of::<PyDict>() {
            return Ok(Message::Object(object));
        }
        if let Ok(text) = object.cast::<PyString>() {
            return Ok(Message::Text(Text::Str(object, utf8(text)?)));
        }
        if let Ok(bytes) = object.cast::<PyBytes>() {
            return Ok(Message::Text(Text::Bytes(bytes.clone())));
        }
        if let Ok(bytes) = object.cast::<PyByteArray>() {
            let copy = PyBytes::new(object.py(), &bytes.to_vec());
            return Ok(Message::Text(Text::Bytes(copy)));
        }
        Ok(Message::Object(object))
    }
}
