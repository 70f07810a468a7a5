//! A report's normalized payload, fixed when the message is validated.
//!
//! A dict message is the caller's to change after `validate()` returns, so
//! its normalized payload is copied out then: the report owns every
//! container of it and hands out a new copy on each read. JSON text cannot
//! change, so from text the payload is parsed again when it is read (a
//! caller who wants only the verdict pays nothing for it).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use sdsi::CompiledSchema;
use sdsi::validate::Edits;
use serde_json::{Map, Value};

use crate::borrowed::{DictItems, small_int};
use crate::convert::{Message, map_to_py, to_py, value_of};
use crate::depth::{Depth, HARD_DEPTH};
use crate::errors::input_error;
use crate::scalar;

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
        let py = message.py();
        let payload = message
            .cast::<PyDict>()
            .ok()
            .and_then(|m| m.get_item(intern!(py, "payload")).ok().flatten());
        let copied = match payload.as_ref().map(|p| p.cast::<PyDict>()) {
            Some(Ok(payload)) => edited_payload(py, schema, payload, edits),
            // A message or payload that stands for a dict (a `Mapping`, a
            // pydantic model): read whole and normalized by the crate.
            _ => {
                return match value_of(message) {
                    Ok(value) => match schema.validate_owned(value).into_normalized() {
                        Some(map) => Normalized::Map(map),
                        None => {
                            Normalized::Failed("the message changed while it was validated".into())
                        }
                    },
                    Err(error) => Normalized::failed(py, &error),
                };
            }
        };
        match copied {
            Ok(dict) => Normalized::Snapshot(dict.unbind()),
            Err(error) => Normalized::failed(py, &error),
        }
    }

    /// Copying failed with `error`: its message is raised on each read.
    fn failed(py: Python<'_>, error: &PyErr) -> Self {
        Normalized::Failed(error.value(py).str().map_or_else(
            |_| "the payload cannot be read".to_owned(),
            |s| s.to_string(),
        ))
    }

    /// A payload read back from a pickle (`Report._from_state`): a dict,
    /// copied as a snapshot, so its order and its objects stay as saved;
    /// anything else means an invalid message.
    pub fn restored(payload: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !payload.is_instance_of::<PyDict>() {
            return Ok(Normalized::Invalid);
        }
        let copy = frozen(payload.clone(), 1)?;
        Ok(Normalized::Snapshot(copy.cast_into::<PyDict>()?.unbind()))
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

/// A copy of a snapshot's containers (its scalars are immutable and
/// shared): each dict and list copied whole by CPython, then the containers
/// among its items copied in turn.
fn fresh_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let is_container = |item: &Bound<'py, PyAny>| {
        item.is_exact_instance_of::<PyDict>() || item.is_exact_instance_of::<PyList>()
    };
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        let out = dict.copy()?;
        let nested: Vec<_> = out.iter().filter(|(_, item)| is_container(item)).collect();
        for (name, item) in nested {
            out.set_item(name, fresh_copy(&item)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        let out = list.get_slice(0, list.len());
        for (at, item) in list.iter().enumerate() {
            if is_container(&item) {
                out.set_item(at, fresh_copy(&item)?)?;
            }
        }
        return Ok(out.into_any());
    }
    Ok(value.clone())
}

/// The payload `payload` with `edits` applied, as a new dict of the
/// report's own, equal to what the same message as text normalizes to.
///
/// The dict is copied whole (`PyDict_Copy`, no Python code), then changed
/// where it must be: members left out, whole floats made ints, defaults
/// added, and each value that is not an immutable scalar JSON text would
/// give alike replaced by a copy of its own (`frozen`).
fn edited_payload<'py>(
    py: Python<'py>,
    schema: &CompiledSchema,
    payload: &Bound<'py, PyDict>,
    edits: &Edits,
) -> PyResult<Bound<'py, PyDict>> {
    let out = payload.copy()?;
    // Both lists are empty in the usual case, told without a walk.
    let (removed, to_integer): (Vec<&str>, Vec<&str>) = if edits.keeps_members() {
        (Vec::new(), Vec::new())
    } else {
        (
            edits.removed(schema).collect(),
            edits.to_integer(schema).collect(),
        )
    };
    let mut dropped: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut replaced: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = Vec::new();
    let mut items = DictItems::new(&out);
    while let Some((name, value)) = items.next_member() {
        let Ok(key) = name.cast_exact::<PyString>() else {
            // A `str` subclass as a name (JSON text gives `str`): rebuilt
            // in order, the slow way.
            drop(items);
            return rebuilt_payload(py, schema, payload, edits, &removed, &to_integer);
        };
        if !removed.is_empty() || !to_integer.is_empty() {
            let text = scalar::utf8(&key)?;
            if removed.contains(&text) {
                dropped.push(key.to_owned().into_any());
                continue;
            }
            if to_integer.contains(&text) {
                let whole = whole_number(py, &value.to_owned())?;
                replaced.push((key.to_owned().into_any(), whole));
                continue;
            }
        }
        if !shareable(&value)? {
            // Held first: `frozen` may run Python code (borrowed.rs).
            let (key, value) = (key.to_owned().into_any(), value.to_owned());
            replaced.push((key, frozen(value, 2)?));
        }
    }
    for key in dropped {
        out.del_item(key)?;
    }
    for (key, value) in replaced {
        out.set_item(key, value)?;
    }
    for (name, default) in edits.defaults(schema) {
        out.set_item(name, to_py(py, default)?)?;
    }
    Ok(out)
}

/// `edited_payload` member by member, for a payload with a `str`
/// subclass among its names.
fn rebuilt_payload<'py>(
    py: Python<'py>,
    schema: &CompiledSchema,
    payload: &Bound<'py, PyDict>,
    edits: &Edits,
    removed: &[&str],
    to_integer: &[&str],
) -> PyResult<Bound<'py, PyDict>> {
    let changed = || input_error("the message changed while it was validated");
    let out = PyDict::new(py);
    for (name, value) in payload.iter() {
        let key = name.cast::<PyString>().map_err(|_| changed())?;
        let text = scalar::utf8(key)?;
        if removed.contains(&text) {
            continue;
        }
        let value = if to_integer.contains(&text) {
            whole_number(py, &value)?
        } else {
            frozen(value, 2)?
        };
        out.set_item(PyString::new(py, text), value)?;
    }
    for (name, default) in edits.defaults(schema) {
        out.set_item(name, to_py(py, default)?)?;
    }
    Ok(out)
}

/// The int a whole float the crate marked becomes.
fn whole_number<'py>(py: Python<'py>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let whole = value
        .extract::<f64>()
        .map_err(|_| input_error("the message changed while it was validated"))?;
    // The crate marks only whole numbers that 64 bits hold; `as` saturates,
    // it cannot fail.
    Ok(if whole < 0.0 {
        (whole as i64).into_pyobject(py)?.into_any()
    } else {
        (whole as u64).into_pyobject(py)?.into_any()
    })
}

/// Whether JSON text would give `value` back as an equal object of the
/// same immutable type (an exact `str`, `float`, `bool`, `None`, an `int`
/// of 64 bits), so the snapshot may share it. A `str` with a lone
/// surrogate, which text cannot carry, is an error.
fn shareable(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Ok(text) = value.cast_exact::<PyString>() {
        scalar::utf8(text)?;
        return Ok(true);
    }
    if value.is_exact_instance_of::<PyInt>() {
        return Ok(small_int(value).is_some() || value.extract::<u64>().is_ok());
    }
    Ok(value.is_none()
        || value.is_exact_instance_of::<PyBool>()
        || value.is_exact_instance_of::<PyFloat>())
}

/// `value` as JSON text would read it back, owned by the snapshot: an
/// immutable scalar that text would give as the same type (an exact `str`,
/// `float`, `bool`, `None`, an `int` of 64 bits) is shared; a dict, list or
/// tuple is copied, its items likewise; anything else (a subclass, a wider
/// int, an object standing for JSON) is read as JSON and rebuilt.
fn frozen<'py>(value: Bound<'py, PyAny>, level: usize) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    if shareable(&value)? {
        return Ok(value);
    }
    let container = value.is_instance_of::<PyDict>()
        || value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>();
    if container && level >= HARD_DEPTH {
        return Err(Depth::FULL.too_deep());
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let out = PyDict::new(py);
        for (name, item) in dict.iter() {
            let Ok(name) = name.cast::<PyString>() else {
                // Unreachable after a clean validation, which read every name.
                return to_py(py, &value_of(&value)?);
            };
            let text = scalar::utf8(name)?;
            let item = frozen(item, level + 1)?;
            if name.is_exact_instance_of::<PyString>() {
                out.set_item(name, item)?;
            } else {
                out.set_item(text, item)?;
            }
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast::<PyList>() {
        let out = PyList::empty(py);
        for item in list.iter() {
            out.append(frozen(item, level + 1)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        let out = PyList::empty(py);
        for item in tuple.iter() {
            out.append(frozen(item, level + 1)?)?;
        }
        return Ok(out.into_any());
    }
    to_py(py, &value_of(&value)?)
}
