//! The usual message dict, `{"schema_id": <this schema's>, "payload":
//! {...}}`, validated member by member without serde's plumbing
//! (`CompiledSchema::keyed_verdict` / `keyed_problems` and their `member`
//! in the crate): the payload is walked once, each name's UTF-8 read where
//! CPython keeps it and looked up by the crate. Any other message, and
//! whatever the keyed check cannot settle (a name that is not an exact
//! `str`; members that are not keys, when their names are needed), goes
//! through the general reader (`depythonize`).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use sdsi::CompiledSchema;
use sdsi::validate::Checked;

use crate::borrowed;
use crate::depth::Depth;
use crate::depythonize::PyDe;

/// `Some(verdict)` when the keyed check settles `message`, else `None`.
/// Stops at the first error, like `is_valid_from_unique`.
pub fn is_valid(
    schema: &CompiledSchema,
    message: &Bound<'_, PyAny>,
    depth: Depth,
) -> PyResult<Option<bool>> {
    let Some(payload) = plain_payload(schema, message)? else {
        return Ok(None);
    };
    let Some(mut verdict) = schema.keyed_verdict(payload.len()) else {
        return Ok(None);
    };
    // After a `false`, `finish` says `Some(false)`.
    let walked = walk(&payload, depth, |name, value| {
        Ok(verdict.member(name, value)?)
    })?;
    Ok(if walked { verdict.finish() } else { None })
}

/// Every problem of `message` and its edits, when the keyed check
/// settles it, else `None`.
pub fn problems(
    schema: &CompiledSchema,
    message: &Bound<'_, PyAny>,
    depth: Depth,
) -> PyResult<Option<Checked>> {
    let Some(payload) = plain_payload(schema, message)? else {
        return Ok(None);
    };
    let Some(mut problems) = schema.keyed_problems(payload.len()) else {
        return Ok(None);
    };
    let walked = walk(&payload, depth, |name, value| {
        problems.member(name, value)?;
        Ok(true)
    })?;
    Ok(if walked { problems.finish() } else { None })
}

/// The payload of a message the keyed check settles: a dict with exactly
/// `schema_id`, a `str` equal to the schema's, and `payload`, a dict.
/// `None` for any other message. The two names are interned once
/// (`intern!`): a dict whose keys are those same objects, as literal keys
/// in Python code are, matches them by pointer.
fn plain_payload<'py>(
    schema: &CompiledSchema,
    message: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let py = message.py();
    let Ok(message) = message.cast::<PyDict>() else {
        return Ok(None);
    };
    if message.len() != 2 {
        return Ok(None);
    }
    let Some(id) = message.get_item(intern!(py, "schema_id"))? else {
        return Ok(None);
    };
    let same_id = id
        .cast_exact::<PyString>()
        .is_ok_and(|id| borrowed::utf8(id) == Some(schema.schema_id()));
    if !same_id {
        return Ok(None);
    }
    Ok(message
        .get_item(intern!(py, "payload"))?
        .and_then(|payload| payload.cast_into::<PyDict>().ok()))
}

/// Walks `payload`, handing each member to `check` by name until it says
/// `false`; `false` when a name is not an exact `str` (left to the general
/// reader, which refuses a non-`str` key).
fn walk(
    payload: &Bound<'_, PyDict>,
    depth: Depth,
    mut check: impl FnMut(&str, PyDe<'_, '_>) -> PyResult<bool>,
) -> PyResult<bool> {
    let mut items = borrowed::DictItems::new(payload);
    while let Some((name, value)) = items.next_member() {
        let Ok(name) = name.cast_exact::<PyString>() else {
            return Ok(false);
        };
        // A reference of our own to the name for the whole call: reading
        // the value can run Python code (`coerce.rs`) that drops the
        // member, and the crate may still hold the name's text.
        let name = name.to_owned();
        let Some(name) = borrowed::utf8(&name) else {
            return Ok(false);
        };
        if !check(name, PyDe::member(&value, depth))? {
            break;
        }
    }
    Ok(true)
}
