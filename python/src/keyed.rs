//! The usual message dict, `{"schema_id": <this schema's>, "payload":
//! {...}}`, validated key by key (`CompiledSchema::keyed_verdict` /
//! `keyed_problems` in the crate): the payload is walked once and each
//! member name matched to its key by the hash CPython keeps in every `str`,
//! so no name is hashed or looked up by the crate, and a payload that uses
//! few of a large template's keys costs only its own members. Any other
//! message, and whatever the keyed check cannot settle (a name that is not
//! an exact `str`; members that are not keys, when their names are needed),
//! goes through the general reader (`depythonize`).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use sdsi::CompiledSchema;
use sdsi::validate::Checked;

use crate::borrowed;
use crate::convert::Depth;
use crate::depythonize::PyDe;

/// The names a compiled schema looks for in messages, as Python strings
/// made once per schema. Interned: a dict whose keys are these same objects
/// (as a literal key in Python code is) matches them by pointer.
pub struct KeyNames {
    schema_id: Py<PyString>,
    payload: Py<PyString>,
    table: KeyTable,
}

/// The schema's key names by CPython's own hash of them, to match a
/// payload's member names as the dict is walked: the hash is cached in each
/// `str`, so a match costs a probe and, unless the two are the same object,
/// one comparison of their text.
struct KeyTable {
    slots: Vec<Option<Slot>>,
}

struct Slot {
    hash: isize,
    index: usize,
    name: Py<PyString>,
    text: Box<str>,
}

impl KeyTable {
    fn new(py: Python<'_>, names: &[Py<PyString>]) -> Self {
        let size = names.len().saturating_mul(2).max(8).next_power_of_two();
        let mut slots: Vec<Option<Slot>> = (0..size).map(|_| None).collect();
        for (index, name) in names.iter().enumerate() {
            let bound = name.bind(py);
            let (Ok(hash), Some(text)) = (bound.hash(), borrowed::utf8(bound)) else {
                continue;
            };
            let mut at = (hash as usize) & (size - 1);
            while let Some(Some(_)) = slots.get(at) {
                at = (at + 1) & (size - 1);
            }
            if let Some(slot) = slots.get_mut(at) {
                *slot = Some(Slot {
                    hash,
                    index,
                    name: name.clone_ref(py),
                    text: text.into(),
                });
            }
        }
        KeyTable { slots }
    }

    /// The index of the key called `name` (an exact `str` whose hash is
    /// `hash`), if the schema has one.
    fn find(&self, hash: isize, name: &Bound<'_, PyString>) -> Option<usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = (hash as usize) & mask;
        for _ in 0..self.slots.len() {
            let slot = self.slots.get(at)?.as_ref()?;
            if slot.hash == hash
                && (slot.name.as_ptr() == name.as_ptr()
                    || borrowed::utf8(name) == Some(&*slot.text))
            {
                return Some(slot.index);
            }
            at = (at + 1) & mask;
        }
        None
    }
}

impl KeyNames {
    pub fn new(py: Python<'_>, schema: &CompiledSchema) -> Self {
        let keys: Vec<Py<PyString>> = schema
            .key_names()
            .map(|name| PyString::intern(py, name).unbind())
            .collect();
        KeyNames {
            schema_id: PyString::intern(py, "schema_id").unbind(),
            payload: PyString::intern(py, "payload").unbind(),
            table: KeyTable::new(py, &keys),
        }
    }

    /// Walks `payload`, handing each member that is a key to `check`
    /// (`false`: stop); `None` when a member name is not an exact `str`
    /// (left to the general reader).
    fn walk(
        &self,
        payload: &Bound<'_, PyDict>,
        depth: Depth,
        mut check: impl FnMut(usize, PyDe<'_, '_>) -> PyResult<bool>,
    ) -> PyResult<Option<()>> {
        let mut items = borrowed::DictItems::new(payload);
        loop {
            let index = {
                let Some(name) = items.next_name() else {
                    return Ok(Some(()));
                };
                let Ok(name) = name.cast_exact::<PyString>() else {
                    return Ok(None);
                };
                self.table.find(name.hash()?, &name)
            };
            let (Some(index), Some(value)) = (index, items.value()) else {
                continue;
            };
            if !check(index, PyDe::member(&value, depth))? {
                return Ok(Some(()));
            }
        }
    }

    /// The payload of a message the keyed check settles: a dict with
    /// exactly `schema_id`, a `str` equal to the schema's, and `payload`, a
    /// dict. `None` for any other message.
    fn plain_payload<'py>(
        &self,
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
        let Some(id) = message.get_item(self.schema_id.bind(py))? else {
            return Ok(None);
        };
        let same_id = id
            .cast_exact::<PyString>()
            .is_ok_and(|id| borrowed::utf8(id) == Some(schema.schema_id()));
        if !same_id {
            return Ok(None);
        }
        Ok(message
            .get_item(self.payload.bind(py))?
            .and_then(|payload| payload.cast_into::<PyDict>().ok()))
    }

    /// `Some(verdict)` when the keyed check settles `message`, else `None`.
    /// Stops at the first error, like `is_valid_from_unique` (a required
    /// key found absent is one).
    pub fn is_valid(
        &self,
        schema: &CompiledSchema,
        message: &Bound<'_, PyAny>,
        depth: Depth,
    ) -> PyResult<Option<bool>> {
        let Some(payload) = self.plain_payload(schema, message)? else {
            return Ok(None);
        };
        let Some(mut verdict) = schema.keyed_verdict(payload.len()) else {
            return Ok(None);
        };
        let mut stopped = false;
        let walked = self.walk(&payload, depth, |index, value| {
            stopped = !verdict.key(index, value)?;
            Ok(!stopped)
        })?;
        if walked.is_none() {
            return Ok(None);
        }
        if stopped {
            return Ok(Some(false));
        }
        Ok(verdict.finish())
    }

    /// Every problem of `message` and its edits, when the keyed check
    /// settles it, else `None`.
    pub fn problems(
        &self,
        schema: &CompiledSchema,
        message: &Bound<'_, PyAny>,
        depth: Depth,
    ) -> PyResult<Option<Checked>> {
        let Some(payload) = self.plain_payload(schema, message)? else {
            return Ok(None);
        };
        let Some(mut problems) = schema.keyed_problems(payload.len()) else {
            return Ok(None);
        };
        let walked = self.walk(&payload, depth, |index, value| {
            problems.key(index, value)?;
            Ok(true)
        })?;
        if walked.is_none() {
            return Ok(None);
        }
        Ok(problems.finish())
    }
}
