//! The Universal Schema envelope: parsing, checking and building messages.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use sdsi::Envelope;
use sdsi::envelope::{EnvelopeReport, MessageId, Timestamp};
use serde_json::Value;

use crate::convert::{Message, map_to_py, to_py, to_value, value_of};
use crate::depth::Depth;
use crate::errors::{Kind, input_error};
use crate::issue::IssueLists;
use crate::refusal::raise;
use crate::schema::PySchema;
use crate::time::instant;

/// What checking one envelope found: the verdict, every problem, the
/// envelope as a dict when valid, and (when checked against a schema) the
/// normalized structured payload.
#[pyclass(module = "sdsi", name = "EnvelopeReport", frozen)]
pub struct PyEnvelopeReport {
    inner: EnvelopeReport,
    issues: IssueLists,
    /// Where the payload's members sit (for `Issue.loc`).
    members: &'static str,
}

#[pymethods]
impl PyEnvelopeReport {
    /// Whether the envelope (and its payload, if a schema checked it) is valid.
    #[getter]
    fn valid(&self) -> bool {
        self.inner.is_valid()
    }

    /// Every error, as a tuple of ``sdsi.Issue``, sorted by path.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.issues.errors(py, self.inner.errors(), self.members)
    }

    /// Every warning, as a tuple of ``sdsi.Issue``.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.issues
            .warnings(py, self.inner.warnings(), self.members)
    }

    /// The envelope as a dict (timestamp in UTC), or ``None`` when invalid.
    #[getter]
    fn envelope<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.envelope() {
            Some(envelope) => to_py(py, &envelope.to_value()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The structured payload normalized (defaults added), when a schema
    /// checked it and it is valid; otherwise ``None``.
    #[getter]
    fn normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.normalized() {
            Some(map) => Ok(map_to_py(py, map)?.into_any()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "EnvelopeReport(valid={}, errors={}, warnings={})",
            if self.valid() { "True" } else { "False" },
            self.inner.errors().len(),
            self.inner.warnings().len()
        )
    }
}

/// Checks an envelope (dict, str or bytes) against the envelope's rules; with
/// ``schema``, its ``payload`` is also validated as a structured payload
/// ``{"schema_id", "payload"}`` against that schema.
#[pyfunction]
#[pyo3(signature = (message, *, schema = None))]
pub fn parse_envelope(
    message: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PySchema>>,
) -> PyResult<PyEnvelopeReport> {
    let schema = schema.map(|s| &s.get().inner);
    let report = match Message::of(message)? {
        Message::Text(text) => parse_text(schema, text.bytes()),
        Message::Object(object) => {
            let value = to_value(object, depth(schema))?;
            match schema {
                Some(schema) => schema.validate_envelope(&value),
                None => Envelope::parse(&value),
            }
        }
    };
    Ok(PyEnvelopeReport {
        inner: report,
        issues: IssueLists::default(),
        // The envelope's payload is a structured message when a schema
        // checks it, so its members are one level further down.
        members: if schema.is_some() {
            "/payload/payload"
        } else {
            "/payload"
        },
    })
}

fn depth(schema: Option<&sdsi::CompiledSchema>) -> Depth {
    schema.map_or(Depth::FULL, |s| {
        Depth::for_limit(s.options().limits.max_depth)
    })
}

fn parse_text(schema: Option<&sdsi::CompiledSchema>, bytes: &[u8]) -> EnvelopeReport {
    match schema {
        Some(schema) => schema.validate_envelope_slice(bytes),
        None => Envelope::parse_slice(bytes),
    }
}

/// Builds an envelope as a dict: ``id`` a version 4 UUID (a fresh random
/// one when omitted), ``now`` a timezone-aware datetime (written in UTC),
/// ``payload`` a dict. Raises ``sdsi.EnvelopeError`` for a bad id or time.
#[pyfunction]
#[pyo3(signature = (*, agent_id, target_agent, message_type, payload, now, id = None, capabilities = Vec::new()))]
#[allow(clippy::too_many_arguments)]
pub fn make_envelope<'py>(
    py: Python<'py>,
    agent_id: &str,
    target_agent: &str,
    message_type: &str,
    payload: &Bound<'py, PyAny>,
    now: &Bound<'py, PyAny>,
    id: Option<&str>,
    capabilities: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let id = match id {
        Some(id) => id.to_owned(),
        None => py
            .import("uuid")?
            .call_method0("uuid4")?
            .str()?
            .to_cow()?
            .into_owned(),
    };
    let id: MessageId = id
        .parse()
        .map_err(|e| raise(Kind::Envelope, format!("id: {e}"), &[], &[]))?;
    let now = Timestamp::new(instant(now)?)
        .map_err(|e| raise(Kind::Envelope, format!("now: {e}"), &[], &[]))?;
    let Value::Object(payload) = value_of(payload)? else {
        return Err(input_error("payload must be a dict"));
    };
    let value = Envelope::new(id, now, agent_id, target_agent, message_type, payload)
        .with_capabilities(capabilities)
        .to_value();
    // Built from checked parts, it can still break a rule (an empty agent id).
    Envelope::from_value(&value)
        .map_err(|e| raise(Kind::Envelope, e.to_string(), e.errors(), &[]))?;
    Ok(to_py(py, &value)?.cast_into::<PyDict>()?)
}
