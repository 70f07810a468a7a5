//! A report's normalized payload, fixed when the message is validated.
//!
//! A dict message is the caller's to change after `validate()` returns, so
//! its normalized payload is copied out then: the report owns every
//! container of it and hands out a new copy on each read, made plain JSON
//! then. JSON text cannot change, so from text the payload is parsed again
//! when it is read. `validate(..., normalized=False)` keeps none.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use sdsi::CompiledSchema;
use sdsi::validate::Edits;
use serde_json::{Map, Value};

use crate::borrowed::{DictItems, SeqItems, small_int};
use crate::convert::{Message, map_to_py, to_py, value_of};
use crate::depth::{Depth, HARD_DEPTH};
use crate::errors::input_error;
use crate::scalar;

/// Where a report's normalized payload comes from.
pub enum Normalized {
    /// None: the message is invalid, or `validate()` was told not to keep
    /// it.
    Invalid,
    /// Already owned by Rust (the crate's own `Normalized`, made into a map).
    Map(Map<String, Value>),
    /// JSON text (held by an immutable `str` or `bytes`): parsed again.
    Text {
        schema: CompiledSchema,
        text: Py<PyAny>,
    },
    /// Copied from a dict message at `validate()` time: dicts and lists of
    /// the report's own, holding immutable scalars (`str`, `int`, `float`,
    /// `bool`, `None`, or a subclass of one), made plain JSON on each read.
    Snapshot(Py<PyDict>),
    /// Copying failed (an object standing for JSON that cannot be read as
    /// JSON): raised when the payload is read.
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
        let copy = snapshot(payload.clone(), 1)?;
        Ok(Normalized::Snapshot(copy.cast_into::<PyDict>()?.unbind()))
    }

    /// A new dict each time, or `None` for an invalid message.
    pub fn read<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Normalized::Invalid => Ok(py.None().into_bound(py)),
            Normalized::Map(map) => Ok(map_to_py(py, map)?.into_any()),
            Normalized::Snapshot(dict) => json_copy(dict.bind(py).as_any()),
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

/// The payload `payload` with `edits` applied, as a new dict of the
/// report's own: the snapshot `validate()` keeps.
///
/// The dict is copied whole (`PyDict_Copy`, no Python code), then changed
/// where it must be: members left out, whole floats made ints, defaults
/// added, and each value that could change later replaced by a copy of its
/// own ([`snapshot`]). Scalars are shared as they are; [`json_copy`] makes
/// them what JSON text would give when the payload is read.
fn edited_payload<'py>(
    py: Python<'py>,
    schema: &CompiledSchema,
    payload: &Bound<'py, PyDict>,
    edits: &Edits,
) -> PyResult<Bound<'py, PyDict>> {
    let changed = || input_error("the message changed while it was validated");
    let out = if payload.is_exact_instance_of::<PyDict>() {
        payload.copy()?
    } else {
        stored_members(payload)?
    };
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
        if !removed.is_empty() || !to_integer.is_empty() {
            let key = name
                .to_owned()
                .cast_into::<PyString>()
                .map_err(|_| changed())?;
            let text = scalar::utf8(&key)?;
            if removed.contains(&text) {
                dropped.push(key.into_any());
                continue;
            }
            if to_integer.contains(&text) {
                let value = value.to_owned();
                replaced.push((key.into_any(), whole_number(py, &value)?));
                continue;
            }
        }
        if Held::of(&value) != Held::Shared {
            // Held first: `snapshot` may run Python code (borrowed.rs).
            let (name, value) = (name.to_owned(), value.to_owned());
            replaced.push((name, snapshot(value, 2)?));
        }
    }
    drop(items);
    for name in dropped {
        out.del_item(name)?;
    }
    for (name, value) in replaced {
        out.set_item(name, value)?;
    }
    for (name, default) in edits.defaults(schema) {
        out.set_item(name, to_py(py, default)?)?;
    }
    Ok(out)
}

/// A new dict of the members a dict subclass stores, in order, read as the
/// validation pass read them: CPython's copy of a subclass would call its
/// own `keys()`, which may say anything.
fn stored_members<'py>(dict: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(dict.py());
    let mut items = DictItems::new(dict);
    while let Some((name, value)) = items.next_member() {
        // Held first: `set_item` allocates, which can run Python code.
        let (name, value) = (name.to_owned(), value.to_owned());
        out.set_item(name, value)?;
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

/// How a snapshot holds a value.
#[derive(PartialEq)]
enum Held {
    /// Shared as it is: a `str`, `int` (`bool` among them), `float` or
    /// `None`, of its exact type or a subclass, is immutable; a read makes
    /// it plain JSON ([`json_copy`]).
    Shared,
    /// An exact dict or list: copied by CPython, then its items likewise.
    Copied,
    /// Anything else that stands for JSON (a tuple, a subclass of dict or
    /// list, a `Mapping`, a pydantic model, a `Decimal`): read as JSON now,
    /// since it may change, or run code when read later.
    Converted,
}

impl Held {
    /// Exact types first: a type pointer compared, no call.
    fn of(value: &Bound<'_, PyAny>) -> Self {
        if value.is_exact_instance_of::<PyString>()
            || value.is_exact_instance_of::<PyInt>()
            || value.is_none()
            || value.is_exact_instance_of::<PyFloat>()
            || value.is_exact_instance_of::<PyBool>()
        {
            Held::Shared
        } else if value.is_exact_instance_of::<PyDict>() || value.is_exact_instance_of::<PyList>() {
            Held::Copied
        } else if value.is_instance_of::<PyString>()
            || value.is_instance_of::<PyInt>()
            || value.is_instance_of::<PyFloat>()
        {
            Held::Shared
        } else {
            Held::Converted
        }
    }
}

/// `value` made the snapshot's own, as [`Held`] says; `level` is its
/// nesting depth.
///
/// A copied container's items are replaced in place while it is walked:
/// the copy is this function's alone, and replacing a dict member's value
/// or a list item neither moves nor resizes anything.
fn snapshot<'py>(value: Bound<'py, PyAny>, level: usize) -> PyResult<Bound<'py, PyAny>> {
    let held = Held::of(&value);
    if held == Held::Shared {
        return Ok(value);
    }
    let py = value.py();
    let container = value.is_instance_of::<PyDict>()
        || value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>();
    if container && level >= HARD_DEPTH {
        return Err(Depth::FULL.too_deep());
    }
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        let out = dict.copy()?;
        let mut items = DictItems::new(&out);
        while let Some((name, item)) = items.next_member() {
            if Held::of(&item) != Held::Shared {
                // Held first: `snapshot` may run Python code (borrowed.rs).
                let (name, item) = (name.to_owned(), item.to_owned());
                out.set_item(name, snapshot(item, level + 1)?)?;
            }
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        let out = list.get_slice(0, list.len());
        let mut items = SeqItems::list(&out);
        let mut at = 0;
        while let Some(item) = items.next_item() {
            if Held::of(&item) != Held::Shared {
                let item = item.to_owned();
                out.set_item(at, snapshot(item, level + 1)?)?;
            }
            at += 1;
        }
        return Ok(out.into_any());
    }
    if let Ok(tuple) = value.cast_exact::<PyTuple>() {
        let out = PyList::empty(py);
        for item in tuple.iter() {
            out.append(snapshot(item, level + 1)?)?;
        }
        return Ok(out.into_any());
    }
    to_py(py, &value_of(&value)?)
}

/// A new copy of the snapshot `value`, as JSON text would give it: each
/// dict and list copied by CPython, then what in it is not yet plain JSON
/// replaced in place (a name or a scalar of a subclass, an int beyond 64
/// bits), and each `str` checked for a lone surrogate, which text cannot
/// carry.
fn json_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        let out = dict.copy()?;
        let mut items = DictItems::new(&out);
        while let Some((name, item)) = items.next_member() {
            // Held: `json_item` may run Python code (borrowed.rs).
            let (name, item) = (name.to_owned(), item.to_owned());
            let Ok(name) = name.cast_into_exact::<PyString>() else {
                // A `str` subclass (or, after a bad pickle, no `str`) as a
                // name: this dict rebuilt in order, the slow way.
                drop(items);
                return renamed_copy(dict);
            };
            scalar::utf8(&name)?;
            if let Some(json) = json_item(&item)? {
                out.set_item(name, json)?;
            }
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        let out = list.get_slice(0, list.len());
        let mut items = SeqItems::list(&out);
        let mut at = 0;
        while let Some(item) = items.next_item() {
            if let Some(json) = json_item(&item.to_owned())? {
                out.set_item(at, json)?;
            }
            at += 1;
        }
        return Ok(out.into_any());
    }
    Ok(json_item(value)?.unwrap_or_else(|| value.clone()))
}

/// What an item of a snapshot's dict or list becomes in a read: `None`
/// when JSON text would give that very object (an exact `str` of Unicode
/// text, `int` of 64 bits, `float`, `bool` or `None`).
fn json_item<'py>(item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if let Ok(text) = item.cast_exact::<PyString>() {
        scalar::utf8(text)?;
        return Ok(None);
    }
    if item.is_exact_instance_of::<PyInt>() {
        if small_int(item).is_some() || item.extract::<u64>().is_ok() {
            return Ok(None);
        }
    } else if item.is_none()
        || item.is_exact_instance_of::<PyFloat>()
        || item.is_exact_instance_of::<PyBool>()
    {
        return Ok(None);
    } else if item.is_exact_instance_of::<PyDict>() || item.is_exact_instance_of::<PyList>() {
        return json_copy(item).map(Some);
    }
    // A subclass, or an int beyond 64 bits (a double, as text gives it).
    Ok(Some(to_py(item.py(), &value_of(item)?)?))
}

/// [`json_copy`] of a snapshot dict with a name that is not an exact `str`.
fn renamed_copy<'py>(dict: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
    let py = dict.py();
    let out = PyDict::new(py);
    // Through a list of the items: `json_item` may run Python code.
    for pair in dict.items().iter() {
        let (name, item): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair.extract()?;
        let name = name
            .cast_into::<PyString>()
            .map_err(|_| input_error("a dict key must be a str"))?;
        let text = PyString::new(py, scalar::utf8(&name)?);
        out.set_item(text, json_item(&item)?.unwrap_or(item))?;
    }
    Ok(out.into_any())
}
