//! The input behind each error of a report: pydantic's `errors()` gives,
//! with each location, the value found there, and for a member that is
//! missing the object that lacks it. The same rule here: the deepest value
//! the error's path reaches in what was validated.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyTuple};
use serde_json::Value;

use crate::convert::{Message, to_py};
use crate::issue::{index, segments};

/// Where a report's error inputs come from.
pub enum Inputs {
    /// Not known (a report read back from a pickle that had none).
    Unknown,
    /// The Python objects validated: each input is looked up when the
    /// errors are asked for, a reference into them as pydantic's are (a
    /// value the caller changed in between is seen changed).
    Objects(Py<PyAny>),
    /// Looked up already (a report read back from a pickle), one per error.
    Found(Vec<Py<PyAny>>),
    /// JSON text, which cannot change: parsed when first asked for.
    Text(Py<PyAny>),
}

impl Inputs {
    /// The inputs of `errors`, to be found in `root` when asked for.
    pub fn in_objects(root: &Bound<'_, PyAny>, errors: &[sdsi::Issue]) -> Self {
        if errors.is_empty() {
            Inputs::Unknown
        } else {
            Inputs::Objects(root.clone().unbind())
        }
    }

    /// One input per error (`None` where not known).
    pub fn read<'py>(
        &self,
        py: Python<'py>,
        errors: &[sdsi::Issue],
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        match self {
            Inputs::Unknown => Ok(errors.iter().map(|_| py.None().into_bound(py)).collect()),
            Inputs::Found(found) => Ok(found.iter().map(|input| input.bind(py).clone()).collect()),
            Inputs::Objects(root) => Ok(errors
                .iter()
                .map(|issue| deepest(root.bind(py), issue.path()))
                .collect()),
            Inputs::Text(holder) => {
                let holder = holder.bind(py);
                let parsed = match Message::of(holder)? {
                    Message::Text(text) => serde_json::from_slice::<Value>(text.bytes()).ok(),
                    Message::Object(_) => None,
                };
                errors
                    .iter()
                    .map(|issue| match &parsed {
                        Some(value) => to_py(py, in_value(value, issue.path())),
                        // Not JSON: the text itself is what was wrong.
                        None => Ok(holder.clone()),
                    })
                    .collect()
            }
        }
    }
}

/// The deepest object `path` reaches from `root`.
fn deepest<'py>(root: &Bound<'py, PyAny>, path: &str) -> Bound<'py, PyAny> {
    let mut at = root.clone();
    for segment in segments(path) {
        let next = if let Ok(dict) = at.cast::<PyDict>() {
            dict.get_item(&segment).ok().flatten()
        } else if let Ok(list) = at.cast::<PyList>() {
            index(&segment).and_then(|i| list.get_item(i).ok())
        } else if let Ok(tuple) = at.cast::<PyTuple>() {
            index(&segment).and_then(|i| tuple.get_item(i).ok())
        } else if let Ok(mapping) = at.cast::<PyMapping>() {
            mapping.get_item(&segment).ok()
        } else {
            None
        };
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    at
}

/// The deepest value `path` reaches from `root`.
fn in_value<'a>(root: &'a Value, path: &str) -> &'a Value {
    let mut at = root;
    for segment in segments(path) {
        let next = match at {
            Value::Object(map) => map.get(&segment),
            Value::Array(items) => index(&segment).and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    at
}
