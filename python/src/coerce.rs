//! Python objects that are not JSON but stand for it, read as the JSON they
//! stand for: a `Mapping` as its dict, a pydantic model (an MCP SDK `Tool`,
//! a request model) as its `model_dump(mode="json")`, a `Decimal` as its
//! number, a NumPy scalar or array as its `tolist()`.
//!
//! Each conversion runs Python code, so the reader calls it only for an
//! object no plain JSON type matched, holding the object by a reference of
//! its own (src/borrowed.rs says why).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyMapping, PyType};

use crate::errors::input_error;

/// The JSON-shaped object `object` stands for, or `None` when it stands
/// for none (a set, a datetime, a custom class).
pub fn json_form<'py>(object: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = object.py();
    if object.is_instance(decimal_class(py)?)? {
        return decimal(object).map(Some);
    }
    if let Ok(mapping) = object.cast::<PyMapping>() {
        let dict = PyDict::new(py);
        dict.update(mapping)?;
        return Ok(Some(dict.into_any()));
    }
    let ty = object.get_type();
    if ty.hasattr(intern!(py, "model_dump"))? && ty.hasattr(intern!(py, "model_fields"))? {
        // The wire form: names by alias (`inputSchema`), unset optional
        // members left out, as the MCP SDK sends a `Tool`.
        let options = PyDict::new(py);
        options.set_item("mode", "json")?;
        options.set_item("by_alias", true)?;
        options.set_item("exclude_none", true)?;
        let dumped = object.call_method(intern!(py, "model_dump"), (), Some(&options))?;
        return Ok(Some(dumped));
    }
    let numpy = ty.module().is_ok_and(|module| {
        module
            .to_str()
            .is_ok_and(|m| m == "numpy" || m.starts_with("numpy."))
    });
    if numpy && object.hasattr(intern!(py, "tolist"))? {
        return object.call_method0(intern!(py, "tolist")).map(Some);
    }
    Ok(None)
}

fn decimal_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    DECIMAL.import(py, "decimal", "Decimal")
}

/// A `Decimal` as the number its text is in JSON: an `int` when it has no
/// fractional digits (`Decimal("12")`), else a `float` (`Decimal("2.50")`
/// is `2.5`, as serde_json reads `2.50`). NaN and infinities are not JSON.
fn decimal<'py>(number: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = number.py();
    if !number.call_method0(intern!(py, "is_finite"))?.is_truthy()? {
        return Err(input_error(format!(
            "Decimal({}) is not a JSON number (NaN and infinities are not)",
            number.str()?
        )));
    }
    let exponent = number
        .call_method0(intern!(py, "as_tuple"))?
        .getattr(intern!(py, "exponent"))?
        .extract::<i64>()?;
    let builtins = py.import(intern!(py, "builtins"))?;
    let kind = if exponent >= 0 { "int" } else { "float" };
    builtins.getattr(kind)?.call1((number,))
}
