//! Settings from Python: a Rust default, overlaid with the members a caller
//! gives, read back through serde so every field keeps its own checks.

use pyo3::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::convert::value_of;
use crate::errors::input_error;

/// `default` with the members of `changes` (a dict, or `None` for none)
/// put over it; an unknown member is refused, so a typo is not ignored.
pub fn overlay<T: Serialize + DeserializeOwned>(
    default: &T,
    changes: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<T> {
    let Some(changes) = changes else {
        return serde_json::from_value(to_json(default, what)?)
            .map_err(|e| input_error(format!("{what}: {e}")));
    };
    let mut base = to_json(default, what)?;
    let Value::Object(changes) = value_of(changes)? else {
        return Err(input_error(format!("{what} must be a dict")));
    };
    let Value::Object(members) = &mut base else {
        return Err(input_error(format!("{what} is not a settings object")));
    };
    for (name, value) in changes {
        if !members.contains_key(&name) {
            let known: Vec<&str> = members.keys().map(String::as_str).collect();
            return Err(input_error(format!(
                "{what} has no setting {name:?} (known: {})",
                known.join(", ")
            )));
        }
        members.insert(name, value);
    }
    serde_json::from_value(base).map_err(|e| input_error(format!("{what}: {e}")))
}

/// A value's JSON form.
pub fn to_json<T: Serialize>(value: &T, what: &str) -> PyResult<Value> {
    serde_json::to_value(value).map_err(|e| input_error(format!("{what}: {e}")))
}
