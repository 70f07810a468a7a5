//! Python scalars read as JSON: an int as a number, a float JSON can hold,
//! the text of a `str`, and a type's name for messages.

use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};
use serde_json::Number;

use crate::borrowed;
use crate::errors::input_error;

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
    borrowed::utf8(text).ok_or_else(lone_surrogate)
}

/// The error for a `str` that is not Unicode text (a lone surrogate).
pub fn lone_surrogate() -> PyErr {
    input_error("a str holds a lone surrogate, which JSON text cannot carry")
}
