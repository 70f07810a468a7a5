//! A message dict validated by asking it for the schema's keys
//! (`CompiledSchema::keyed_verdict` / `keyed_problems` in the crate), not by
//! reading every member name: the usual message, `{"schema_id": <this
//! schema's>, "payload": {...}}`, costs one dict lookup per key, with
//! hashes CPython has already cached on both sides. Any other message, and
//! whatever the keyed check cannot settle (members that are not keys), goes
//! through the general reader (`depythonize`).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use sdsi::CompiledSchema;
use sdsi::validate::Checked;

use crate::borrowed;
use crate::convert::Depth;
use crate::depythonize::PyDe;

/// The names a compiled schema asks messages for, as Python strings made
/// once per schema. Interned: a dict whose keys are these same objects (as
/// a literal key in Python code is) matches them by pointer.
pub struct KeyNames {
    schema_id: Py<PyString>,
    payload: Py<PyString>,
    keys: Vec<Py<PyString>>,
}

impl KeyNames {
    pub fn new(py: Python<'_>, schema: &CompiledSchema) -> Self {
        KeyNames {
            schema_id: PyString::intern(py, "schema_id").unbind(),
            payload: PyString::intern(py, "payload").unbind(),
            keys: schema
                .key_names()
                .map(|name| PyString::intern(py, name).unbind())
                .collect(),
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
        for (index, name) in self.keys.iter().enumerate() {
            let go_on = match borrowed::get(&payload, name.bind(payload.py()))? {
                Some(value) => verdict.key(index, PyDe::member(&value, depth))?,
                None => verdict.absent(index),
            };
            if !go_on {
                return Ok(Some(false));
            }
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
        for (index, name) in self.keys.iter().enumerate() {
            if let Some(value) = borrowed::get(&payload, name.bind(payload.py()))? {
                problems.key(index, PyDe::member(&value, depth))?;
            }
        }
        Ok(problems.finish())
    }
}
