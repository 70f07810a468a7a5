//! `sdsi.SchemaStore`: patches, per-client schemas and the key lifecycle.

use pyo3::prelude::*;
use pyo3::types::{PyDelta, PyDict, PyList};
use sdsi::patch::{
    DenySensitive, LifecyclePolicy, PatchAuthorizer, PatchScope, ReviewError, SchemaPatch,
    SchemaStore,
};
use sdsi::{KeyName, SchemaTemplate};
use serde_json::Value;

use crate::convert::{Message, serialize_to_py, value_of};
use crate::errors::{Kind, input_error};
use crate::issue::issue_list;
use crate::overlay::{overlay, to_json};
use crate::refusal::{compile_error, raise, template_error};
use crate::schema::PySchema;
use crate::template::{PyTemplate, template_arg};
use crate::time::instant;

/// The authorizer for `allow_sensitive=True`: the caller (an operator) has
/// approved the change, as draft §7 asks for keys about payment or access.
struct Approved;

impl PatchAuthorizer for Approved {
    fn authorize(&self, _: &SchemaPatch, _: &[KeyName]) -> bool {
        true
    }
}

fn authorizer(allow_sensitive: bool) -> &'static dyn PatchAuthorizer {
    if allow_sensitive {
        &Approved
    } else {
        &DenySensitive
    }
}

/// A review call's error as Python sees it: an unknown id is a `KeyError`,
/// a refused approval a `PatchError`, anything else an `InputError`.
fn review_error(error: ReviewError) -> PyErr {
    match error {
        ReviewError::UnknownProposal { proposal } => {
            pyo3::exceptions::PyKeyError::new_err(format!("no pending proposal {proposal:?}"))
        }
        ReviewError::Refused(error) => compile_error(&error),
        other => input_error(other.to_string()),
    }
}

/// A policy dict with each `timedelta` written as the `[seconds,
/// nanoseconds]` pair the Rust policy reads.
fn durations_as_json<'py>(policy: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = policy.py();
    let Ok(dict) = policy.cast::<PyDict>() else {
        return Err(input_error("policy must be a dict"));
    };
    let out = PyDict::new(py);
    // Over a copy of the items: hashing a key into `out` runs Python code
    // (a `str` subclass's `__hash__`) that could change the caller's dict.
    for item in dict.items().iter() {
        let (name, value): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
        if value.is_instance_of::<PyDelta>() {
            let duration: time::Duration = value.extract()?;
            let pair = [
                duration.whole_seconds(),
                i64::from(duration.subsec_nanoseconds()),
            ];
            out.set_item(name, pair)?;
        } else {
            out.set_item(name, value)?;
        }
    }
    Ok(out.into_any())
}

/// A patch argument: a dict, or its JSON text (str or bytes).
pub fn patch_arg(patch: &Bound<'_, PyAny>) -> PyResult<SchemaPatch> {
    let bytes = match Message::of(patch)? {
        Message::Text(text) => text.bytes().to_vec(),
        Message::Object(object) => serde_json::to_vec(&value_of(object)?)
            .map_err(|e| input_error(format!("patch: {e}")))?,
    };
    SchemaPatch::from_slice(&bytes).map_err(|e| raise(Kind::Patch, e.to_string(), e.errors(), &[]))
}

/// Patches as a list of dicts.
fn patch_list<'py, 'a>(
    py: Python<'py>,
    patches: impl Iterator<Item = &'a SchemaPatch>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for patch in patches {
        list.append(serialize_to_py(py, patch)?)?;
    }
    Ok(list)
}

fn scope(client: Option<&str>) -> PatchScope {
    match client {
        Some(client) => PatchScope::Client(client.to_owned()),
        None => PatchScope::Global,
    }
}

/// A server's evolving schema for one scenario: the base template, the
/// accepted patches (global and per client), the queue behind the
/// convergence guard, and every patched key's lifecycle.
///
/// ``SchemaStore(base, *, policy=None, allow_sensitive=False)``: ``policy``
/// is a dict changing some of the lifecycle's defaults (``trial``,
/// ``grace``, ``backward_compatibility``, ``observation_window``,
/// ``clock_skew`` as ``timedelta``; ``max_experimental``; ``promote_at``,
/// ``deprecate_below`` as dicts of the three metrics; ``guard``); see
/// ``default_policy()``. ``allow_sensitive=True`` says an operator approved
/// patches touching payment or access-control keys (draft §7), which are
/// refused otherwise.
/// Every call that depends on time takes ``now``, a timezone-aware datetime.
#[pyclass(module = "sdsi", name = "SchemaStore")]
pub struct PyStore {
    pub inner: SchemaStore,
    allow_sensitive: bool,
}

#[pymethods]
impl PyStore {
    #[new]
    #[pyo3(signature = (base, *, policy = None, allow_sensitive = false))]
    fn new(
        base: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, PyAny>>,
        allow_sensitive: bool,
    ) -> PyResult<Self> {
        let base: SchemaTemplate = template_arg(base)?;
        let policy = policy.map(durations_as_json).transpose()?;
        let policy = overlay(&LifecyclePolicy::default(), policy.as_ref(), "policy")?;
        SchemaStore::new(base, policy)
            .map(|inner| PyStore {
                inner,
                allow_sensitive,
            })
            .map_err(|e| template_error(&e))
    }

    /// The lifecycle policy's defaults, as a dict ``policy=`` accepts.
    #[staticmethod]
    fn default_policy<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, &LifecyclePolicy::default())
    }

    /// Submits a schema patch (dict, str or bytes); returns
    /// ``{"status": "applied"}`` or ``{"status": "queued", "ahead": n}``.
    /// Raises ``sdsi.PatchError`` (with ``errors``) when refused: a merge
    /// conflict, a base digest that differs, a sensitive key without
    /// ``allow_sensitive``, a timestamp too far ahead of ``now``.
    #[pyo3(signature = (patch, now, *, submitter = None))]
    fn submit<'py>(
        &mut self,
        py: Python<'py>,
        patch: &Bound<'py, PyAny>,
        now: &Bound<'py, PyAny>,
        submitter: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let patch = patch_arg(patch)?;
        let now = instant(now)?;
        let submission = self
            .inner
            .submit_by(patch, submitter, now, authorizer(self.allow_sensitive))
            .map_err(|e| compile_error(&e))?;
        serialize_to_py(py, &submission)
    }

    /// Moves keys through their lifecycle at ``now`` and releases queued
    /// patches: ``{"transitions": [...], "released": [ids], "dropped":
    /// [{"patch_id", "errors"}]}``.
    fn evaluate<'py>(
        &mut self,
        py: Python<'py>,
        now: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let now = instant(now)?;
        let evaluation = self.inner.evaluate(now, authorizer(self.allow_sensitive));
        let out = PyDict::new(py);
        out.set_item("transitions", serialize_to_py(py, &evaluation.transitions)?)?;
        out.set_item("released", evaluation.released.clone())?;
        let dropped = PyList::empty(py);
        for error in &evaluation.dropped {
            let item = PyDict::new(py);
            item.set_item("patch_id", error.patch_id())?;
            item.set_item("errors", issue_list(py, error.errors())?)?;
            dropped.append(item)?;
        }
        out.set_item("dropped", dropped)?;
        Ok(out)
    }

    /// The schema ``client`` sees at ``now`` (``None``: the global view),
    /// compiled for validation.
    #[pyo3(signature = (client, now))]
    fn compile_for(&self, client: Option<&str>, now: &Bound<'_, PyAny>) -> PyResult<PySchema> {
        self.inner
            .compile_for(client, instant(now)?)
            .map(|inner| PySchema { inner })
            .map_err(|e| compile_error(&e))
    }

    /// The template ``client`` sees at ``now``: base + active global
    /// patches + the client's own stack, lifecycle applied.
    #[pyo3(signature = (client, now))]
    fn template_for(&self, client: Option<&str>, now: &Bound<'_, PyAny>) -> PyResult<PyTemplate> {
        self.inner
            .template_for(client, instant(now)?)
            .map(PyTemplate::new)
            .map_err(|e| compile_error(&e))
    }

    /// The digest of what ``client`` sees at ``now`` (an ETag for polling).
    #[pyo3(signature = (client, now))]
    fn digest_for(&self, client: Option<&str>, now: &Bound<'_, PyAny>) -> PyResult<String> {
        self.inner
            .digest_for(client, instant(now)?)
            .map_err(|e| compile_error(&e))
    }

    /// The schema update suggestion for ``client`` (keys it has not been
    /// told of yet), as a dict, or ``None``; each key is told once.
    fn suggestion_for<'py>(
        &mut self,
        py: Python<'py>,
        client: &str,
        now: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let suggestion = self
            .inner
            .suggestion_for(client, instant(now)?)
            .map_err(|e| compile_error(&e))?;
        suggestion.map(|s| serialize_to_py(py, &s)).transpose()
    }

    /// Records a received message ``{"schema_id", "payload"}`` from
    /// ``client`` for the lifecycle's usage and type-correctness metrics.
    fn record(
        &mut self,
        message: &Bound<'_, PyAny>,
        client: &str,
        now: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let message = value_of(message)?;
        self.inner.record(&message, client, instant(now)?);
        Ok(())
    }

    /// Records whether a value sent in key ``key`` matched its description
    /// (the semantic-alignment metric); ``client`` for a personal key.
    /// Returns whether the key is tracked.
    #[pyo3(signature = (key, aligned, now, *, client = None))]
    fn record_alignment(
        &mut self,
        key: &str,
        aligned: bool,
        now: &Bound<'_, PyAny>,
        client: Option<&str>,
    ) -> PyResult<bool> {
        Ok(self
            .inner
            .record_alignment(&scope(client), key, aligned, instant(now)?))
    }

    /// A patched key's lifecycle state at ``now`` (``"experimental"``,
    /// ``"stable"``, ``"deprecated"``, ``"withdrawn"``, ``"gone"``), or
    /// ``None`` for a key no patch introduced.
    #[pyo3(signature = (key, now, *, client = None))]
    fn state_of(
        &self,
        key: &str,
        now: &Bound<'_, PyAny>,
        client: Option<&str>,
    ) -> PyResult<Option<String>> {
        let state = self
            .inner
            .lifecycle()
            .state_at(&scope(client), key, instant(now)?);
        state
            .map(|s| match to_json(&s, "state")? {
                Value::String(s) => Ok(s),
                other => Ok(other.to_string()),
            })
            .transpose()
    }

    /// A patched key's metrics over the observation window ending at
    /// ``now``, as a dict, or ``None``.
    #[pyo3(signature = (key, now, *, client = None))]
    fn metrics<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        now: &Bound<'py, PyAny>,
        client: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let metrics = self
            .inner
            .lifecycle()
            .metrics(&scope(client), key, instant(now)?);
        metrics.map(|m| serialize_to_py(py, &m)).transpose()
    }

    /// The base template.
    #[getter]
    fn base(&self) -> PyTemplate {
        PyTemplate::new(self.inner.base().clone())
    }

    /// Every accepted patch, as dicts.
    #[getter]
    fn patches<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        patch_list(py, self.inner.patches())
    }

    /// The patches waiting behind the convergence guard, as dicts.
    #[getter]
    fn queued<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        patch_list(py, self.inner.queued())
    }

    /// Every patched key's lifecycle record, as dicts.
    #[getter]
    fn lifecycle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, self.inner.lifecycle().records())
    }

    /// The proposals held for an operator (``{"proposal", "reason",
    /// "detail", "patch", "held_at", ...}``), by id.
    #[getter]
    fn pending<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, &self.inner.pending().collect::<Vec<_>>())
    }

    /// The operator denials remembered, oldest first.
    #[getter]
    fn denials<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, &self.inner.denials().collect::<Vec<_>>())
    }

    /// Approves pending proposal ``proposal`` at ``now`` on behalf of
    /// ``by``: its patch is submitted as the operator's (restamped to start
    /// at ``now``) and the submission returned. Raises ``KeyError`` for an
    /// unknown id and ``sdsi.PatchError`` when the store refuses the patch
    /// (it then stays pending).
    #[pyo3(signature = (proposal, now, *, by))]
    fn approve<'py>(
        &mut self,
        py: Python<'py>,
        proposal: &str,
        now: &Bound<'py, PyAny>,
        by: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let submission = self
            .inner
            .approve(proposal, by, instant(now)?)
            .map_err(review_error)?;
        serialize_to_py(py, &submission)
    }

    /// Denies pending proposal ``proposal`` at ``now`` on behalf of ``by``
    /// for ``reason``; the denial is remembered and returned. Raises
    /// ``KeyError`` for an unknown id.
    #[pyo3(signature = (proposal, now, *, by, reason))]
    fn deny<'py>(
        &mut self,
        py: Python<'py>,
        proposal: &str,
        now: &Bound<'py, PyAny>,
        by: &str,
        reason: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let denial = self
            .inner
            .deny(proposal, by, reason, instant(now)?)
            .map_err(review_error)?;
        serialize_to_py(py, &denial)
    }

    /// The whole store as JSON text (``SchemaStore.from_json`` reads it back).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|e| input_error(e.to_string()))
    }

    /// Reads a store saved by ``to_json``; raises ``sdsi.StateError``.
    #[staticmethod]
    #[pyo3(signature = (text, *, allow_sensitive = false))]
    fn from_json(text: &Bound<'_, PyAny>, allow_sensitive: bool) -> PyResult<Self> {
        let Message::Text(text) = Message::of(text)? else {
            return Err(input_error("from_json takes a str or bytes"));
        };
        serde_json::from_slice(text.bytes())
            .map(|inner| PyStore {
                inner,
                allow_sensitive,
            })
            .map_err(|e| raise(Kind::State, format!("saved store: {e}"), &[], &[]))
    }

    fn __repr__(&self) -> String {
        format!(
            "SchemaStore(schema_id={:?}, patches={})",
            self.inner.base().schema_id,
            self.inner.patches().count()
        )
    }
}

/// The schema a client sees with the given patches applied at ``now``
/// (base + active global patches + that client's own), without a store.
/// Raises ``sdsi.PatchError`` when a patch does not merge.
#[pyfunction]
#[pyo3(signature = (base, patches, now, *, client = None))]
pub fn effective_template(
    base: &Bound<'_, PyAny>,
    patches: Vec<Bound<'_, PyAny>>,
    now: &Bound<'_, PyAny>,
    client: Option<&str>,
) -> PyResult<PyTemplate> {
    let base = template_arg(base)?;
    let patches = patches
        .iter()
        .map(patch_arg)
        .collect::<PyResult<Vec<_>>>()?;
    let mut effective = sdsi::patch::EffectiveSchema::new(&base).patches(&patches);
    if let Some(client) = client {
        effective = effective.client(client);
    }
    effective
        .template(instant(now)?)
        .map(PyTemplate::new)
        .map_err(|e| compile_error(&e))
}
