//! Python objects ↔ JSON values, and the limits of reading them.
//!
//! Python hands over dicts, lists, strings, numbers, booleans and `None`;
//! anything else (a set, a datetime, a non-string dict key, NaN) is not JSON
//! and raises `sdsi.InputError`. Reading is bounded: a self-referencing dict
//! or a message nested thousands deep cannot overflow the stack. Python
//! objects are read by one reader, `depythonize::PyDe`, whether into a
//! `Value` or straight into the validator.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyList, PyString};
use serde_json::{Map, Number, Value};

use serde::Deserialize;

use crate::depythonize::PyDe;
use crate::errors::input_error;

/// Deepest nesting read at all: serde_json's own parser stops at 128, so
/// JSON text never goes deeper, and the bound keeps the reader's recursion
/// within a small thread stack (Python objects can even contain
/// themselves).
pub const HARD_DEPTH: usize = 128;

/// How deep a conversion goes, and what happens below that.
#[derive(Clone, Copy)]
pub struct Depth {
    cap: usize,
    /// Past `cap`, put an empty list in place of the container instead of
    /// failing: set when the validator's own depth limit sits well above
    /// the cap, so that the placeholder (still a container past the limit)
    /// gets the same `limit_exceeded` answer as the real value would.
    placeholder: bool,
}

impl Depth {
    /// Everything up to [`HARD_DEPTH`]; deeper is an `InputError`.
    pub const FULL: Depth = Depth {
        cap: HARD_DEPTH,
        placeholder: false,
    };

    /// The first nesting level (0 for the message itself) not followed.
    pub fn cap(self) -> usize {
        self.cap
    }

    /// Whether a container at the cap is replaced (else it is an error).
    pub fn cuts(self) -> bool {
        self.placeholder
    }

    /// The error for a container at the cap when cutting is not allowed.
    pub fn too_deep(self) -> PyErr {
        input_error(format!(
            "nested deeper than {} levels (or a container that contains itself)",
            self.cap
        ))
    }

    /// For a message validated with `max_depth`: a key's value sits two
    /// levels below the message (`payload`, then the key), an envelope's one
    /// more; eight levels of margin leave the answer the whole value would
    /// get (past the hard bound of 128 levels, an error instead).
    pub fn for_limit(max_depth: usize) -> Depth {
        let cap = max_depth.saturating_add(8);
        if cap < HARD_DEPTH {
            Depth {
                cap,
                placeholder: true,
            }
        } else {
            Depth::FULL
        }
    }
}

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

/// A Python int as a JSON number.
pub fn int_number(object: &Bound<'_, PyAny>) -> PyResult<Number> {
    if let Ok(n) = object.extract::<i64>() {
        return Ok(n.into());
    }
    if let Ok(n) = object.extract::<u64>() {
        return Ok(n.into());
    }
    // Beyond 64 bits: a double, as serde_json reads such a number from text,
    // so a dict and its JSON text get the same answer. Through `int`'s own
    // conversion: a subclass's `__float__` could say anything, or change
    // the dict being read.
    let too_large =
        || input_error("an int beyond the range of a double, which JSON text cannot carry either");
    let py = object.py();
    let n = py
        .get_type::<PyInt>()
        .call_method1("__float__", (object,))
        .and_then(|f| f.extract::<f64>())
        .map_err(|_| too_large())?;
    Number::from_f64(json_float(n)?).ok_or_else(too_large)
}

/// `n` if JSON can hold it (NaN and infinities it cannot).
pub fn json_float(n: f64) -> PyResult<f64> {
    if n.is_finite() {
        Ok(n)
    } else {
        Err(input_error(format!(
            "{n} is not a JSON number (NaN and infinities are not)"
        )))
    }
}

/// The Python type's name, for messages.
pub fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "value of unknown type".to_owned())
}

/// The UTF-8 text of a `str`, borrowed, copying nothing
/// (`borrowed::utf8`); a lone surrogate is an `InputError`.
pub fn utf8<'a>(text: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    crate::borrowed::utf8(text).ok_or_else(lone_surrogate)
}

/// The error for a `str` that is not Unicode text (a lone surrogate).
pub fn lone_surrogate() -> PyErr {
    input_error("a str holds a lone surrogate, which JSON text cannot carry")
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
