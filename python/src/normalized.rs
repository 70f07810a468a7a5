//! A report's normalized payload, fixed when the message is validated.
//!
//! A dict message is the caller's to change after `validate()` returns, so
//! its normalized payload is copied out then: the report owns every
//! container of it and hands out a new copy on each read, made plain JSON
//! then. JSON text cannot change, so from text the payload is parsed again
//! when it is read. `validate(..., normalized=False)` keeps none.

use std::cell::Cell;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use sdsi::CompiledSchema;
use sdsi::validate::Edits;
use serde_json::{Map, Value};
use smallvec::SmallVec;

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
    /// JSON, nesting too deep, a message changed while it was read): the
    /// error's message is raised when the payload is read.
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
        let copy = snapshot(payload.clone(), 1, &Cell::new(false))?;
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

/// The members of a copy that must change, with what they hold now.
type Pending<'py> = SmallVec<[(Bound<'py, PyAny>, Bound<'py, PyAny>); 8]>;

/// The payload `payload` with `edits` applied, as a new dict of the
/// report's own: the snapshot `validate()` keeps.
///
/// An exact dict whose names are all exact `str`s (the usual case) is
/// copied whole (`PyDict_Copy`, which then runs no Python code), then
/// changed where it must be: members left out, whole floats made ints,
/// and each value that could change later replaced by a copy of its own
/// ([`snapshot`]). Any other payload is rebuilt member by member
/// ([`rebuilt`]). Defaults are added last. Scalars are shared as they
/// are; [`json_copy`] makes them what JSON text would give when the
/// payload is read. When an object that stands for JSON was read again,
/// the result is validated again.
fn edited_payload<'py>(
    py: Python<'py>,
    schema: &CompiledSchema,
    payload: &Bound<'py, PyDict>,
    edits: &Edits,
) -> PyResult<Bound<'py, PyDict>> {
    // Both lists are empty in the usual case, told without a walk.
    let (removed, to_integer): (Vec<&str>, Vec<&str>) = if edits.keeps_members() {
        (Vec::new(), Vec::new())
    } else {
        (
            edits.removed(schema).collect(),
            edits.to_integer(schema).collect(),
        )
    };
    let edited = !removed.is_empty() || !to_integer.is_empty();
    let read_again = Cell::new(false);
    let edit = |name: &str, value: Bound<'py, PyAny>| -> PyResult<Option<Bound<'py, PyAny>>> {
        if removed.contains(&name) {
            Ok(None)
        } else if to_integer.contains(&name) {
            whole_number(py, &value).map(Some)
        } else {
            snapshot(value, 2, &read_again).map(Some)
        }
    };
    let copied = if payload.is_exact_instance_of::<PyDict>() {
        let settled = |value: &Bound<'py, PyAny>| !edited && Held::of(value) == Held::Shared;
        match pending(payload, settled)? {
            Some(pending) => Some((payload.copy()?, pending)),
            None => None,
        }
    } else {
        None
    };
    let out = match copied {
        Some((out, pending)) => {
            for (name, value) in pending {
                let name = name.cast_into_exact::<PyString>()?;
                match edit(scalar::utf8(&name)?, value)? {
                    None => out.del_item(name)?,
                    Some(value) => out.set_item(name, value)?,
                }
            }
            out
        }
        None => rebuilt(payload, edit)?,
    };
    for (name, default) in edits.defaults(schema) {
        out.set_item(name, to_py(py, default)?)?;
    }
    if read_again.get() && !still_valid(schema, &out)? {
        return Err(input_error("the message changed while it was validated"));
    }
    Ok(out)
}

/// Whether the normalized payload `payload` is valid: asked when the
/// snapshot read an object that stands for JSON (a `Mapping`, a `Decimal`,
/// a pydantic model) a second time, since its own code may answer
/// differently than it did to the validation pass.
fn still_valid(schema: &CompiledSchema, payload: &Bound<'_, PyDict>) -> PyResult<bool> {
    Ok(match value_of(payload)? {
        Value::Object(map) => schema.is_valid_payload(&map),
        _ => false,
    })
}

/// The members of `dict` whose value `settled` does not accept, or `None`
/// when a name is not an exact `str`: then copying or changing the dict
/// could run Python code (a `str` subclass may define its own `__hash__`
/// and `__eq__`, which CPython calls when it copies a dict with deleted
/// members by inserting them again), so it is rebuilt instead. Names that
/// are exact `str`s are hashed and compared in C, and changing the value
/// of an existing member of a copy moves and resizes nothing. Walked
/// before the dict is copied; the members found are set in the copy.
fn pending<'py>(
    dict: &Bound<'py, PyDict>,
    settled: impl Fn(&Bound<'py, PyAny>) -> bool,
) -> PyResult<Option<Pending<'py>>> {
    let mut pending = Pending::new();
    let mut items = DictItems::new(dict);
    while let Some((name, value)) = items.next_member() {
        if !name.is_exact_instance_of::<PyString>() {
            return Ok(None);
        }
        if !settled(&value) {
            pending.push((name.to_owned(), value.to_owned()));
        }
    }
    Ok(Some(pending))
}

/// A new dict of what `dict` stores, read as the validation pass read it
/// (never through a subclass's own `keys()`), in order: each name a new
/// exact `str` of its text, each value what `edit` makes of it (`None`
/// leaves the member out).
fn rebuilt<'py>(
    dict: &Bound<'py, PyDict>,
    mut edit: impl FnMut(&str, Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = dict.py();
    let out = PyDict::new(py);
    let mut items = DictItems::new(dict);
    while let Some((name, value)) = items.next_member() {
        // Held first: `edit` may run Python code (borrowed.rs).
        let (name, value) = (name.to_owned(), value.to_owned());
        let name = name
            .cast_into::<PyString>()
            .map_err(|_| input_error("the message changed while it was validated"))?;
        let text = scalar::utf8(&name)?;
        if let Some(value) = edit(text, value)? {
            out.set_item(PyString::new(py, text), value)?;
        }
    }
    Ok(out)
}

/// The int a whole float the crate marked becomes, by the crate's own
/// rule (`Edits::integer`).
fn whole_number<'py>(py: Python<'py>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let changed = || input_error("the message changed while it was validated");
    let whole = value.extract::<f64>().map_err(|_| changed())?;
    to_py(py, &Edits::integer(whole).ok_or_else(changed)?)
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
/// nesting depth; `read_again` is set when an object that stands for JSON
/// is read (the validation pass read it once already).
///
/// A copied list's items are replaced in place while it is walked
/// ([`copied_list`]); a dict's members are found first and set in its
/// copy ([`pending`]). A dict with a name that is not an exact `str` is
/// rebuilt with exact `str` names instead, so the snapshot holds only
/// those.
fn snapshot<'py>(
    value: Bound<'py, PyAny>,
    level: usize,
    read_again: &Cell<bool>,
) -> PyResult<Bound<'py, PyAny>> {
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
        let Some(nested) = pending(dict, |item| Held::of(item) == Held::Shared)? else {
            let nested = |_: &str, item| snapshot(item, level + 1, read_again).map(Some);
            return Ok(rebuilt(dict, nested)?.into_any());
        };
        let out = dict.copy()?;
        for (name, item) in nested {
            out.set_item(name, snapshot(item, level + 1, read_again)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        return copied_list(list, |item| match Held::of(&item) {
            Held::Shared => Ok(None),
            _ => snapshot(item, level + 1, read_again).map(Some),
        });
    }
    if let Ok(tuple) = value.cast_exact::<PyTuple>() {
        let out = PyList::empty(py);
        for item in tuple.iter() {
            out.append(snapshot(item, level + 1, read_again)?)?;
        }
        return Ok(out.into_any());
    }
    read_again.set(true);
    to_py(py, &value_of(&value)?)
}

/// A copy of `list` with each item `replace` answers for replaced, in
/// place while it is walked: the copy is the caller's alone, and a
/// replaced item moves nothing.
fn copied_list<'py>(
    list: &Bound<'py, PyList>,
    mut replace: impl FnMut(Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyAny>> {
    let out = list.get_slice(0, list.len());
    let mut items = SeqItems::list(&out);
    let mut at = 0;
    while let Some(item) = items.next_item() {
        // Held first: `replace` may run Python code (borrowed.rs).
        if let Some(item) = replace(item.to_owned())? {
            out.set_item(at, item)?;
        }
        at += 1;
    }
    Ok(out.into_any())
}

/// A new copy of the snapshot `value`, as JSON text would give it: each
/// dict and list copied by CPython, then what in it is not yet plain JSON
/// replaced (a scalar of a subclass, an int beyond 64 bits), and each
/// `str`, names among them, checked for a lone surrogate, which text
/// cannot carry.
fn json_copy<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        let mut changes = Pending::new();
        let mut items = DictItems::new(dict);
        while let Some((name, item)) = items.next_member() {
            let Ok(text) = name.cast_exact::<PyString>() else {
                // Unreachable: a snapshot's names are exact `str`s.
                drop(items);
                let json = |_: &str, item: Bound<'py, PyAny>| json_copy(&item).map(Some);
                return Ok(rebuilt(dict, json)?.into_any());
            };
            scalar::utf8(&text)?;
            if !is_plain(&item)? {
                changes.push((name.to_owned(), item.to_owned()));
            }
        }
        drop(items);
        let out = dict.copy()?;
        for (name, item) in changes {
            out.set_item(name, json_copy(&item)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(list) = value.cast_exact::<PyList>() {
        return copied_list(list, |item| json_item(&item));
    }
    Ok(json_item(value)?.unwrap_or_else(|| value.clone()))
}

/// Whether JSON text would give `item` as this very object: an exact
/// `str` of Unicode text (a lone surrogate is an error), an exact `int`
/// that 64 signed bits hold, an exact `float` or `bool`, `None`. Runs no
/// Python code: `utf8` holds its `str`, and the int is read without
/// allocating.
fn is_plain(item: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Ok(text) = item.cast_exact::<PyString>() {
        scalar::utf8(text)?;
        return Ok(true);
    }
    if item.is_exact_instance_of::<PyInt>() {
        return Ok(small_int(item).is_some());
    }
    Ok(item.is_none()
        || item.is_exact_instance_of::<PyFloat>()
        || item.is_exact_instance_of::<PyBool>())
}

/// What an item of a snapshot's dict or list becomes in a read: `None`
/// when JSON text would give that very object.
fn json_item<'py>(item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if is_plain(item)? {
        return Ok(None);
    }
    if item.is_exact_instance_of::<PyInt>() && item.extract::<u64>().is_ok() {
        return Ok(None);
    }
    if item.is_exact_instance_of::<PyDict>() || item.is_exact_instance_of::<PyList>() {
        return json_copy(item).map(Some);
    }
    // A subclass, or an int beyond 64 bits (a double, as text gives it).
    Ok(Some(to_py(item.py(), &value_of(item)?)?))
}
