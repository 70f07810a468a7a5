//! `sdsi.SchemaTemplate`: a server's published template.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sdsi::SchemaTemplate;

use crate::convert::{Message, serialize_to_py, value_of};
use crate::errors::input_error;
use crate::issue::issue_list;
use crate::refusal::template_error;

/// A schema template (draft §4.1): a ``schema_id``, a ``scenario`` and typed
/// keys, each with a semantic description a client's model maps intent to.
///
/// Build one with ``SchemaTemplate.from_json(text)`` or
/// ``SchemaTemplate.from_dict(d)``; an invalid template raises
/// ``sdsi.TemplateError`` listing every problem. Immutable.
#[pyclass(module = "sdsi", name = "SchemaTemplate", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyTemplate {
    pub inner: SchemaTemplate,
}

impl PyTemplate {
    pub fn new(inner: SchemaTemplate) -> Self {
        PyTemplate { inner }
    }
}

#[pymethods]
impl PyTemplate {
    /// Reads a template from JSON text (``str`` or ``bytes``).
    #[staticmethod]
    fn from_json(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let parsed = match Message::of(text)? {
            Message::Text(text) => SchemaTemplate::from_slice(text.bytes()),
            Message::Object(_) => return Err(input_error("from_json takes a str or bytes")),
        };
        parsed.map(Self::new).map_err(|e| template_error(&e))
    }

    /// Reads a template from a dict (as ``json.loads`` would give).
    #[staticmethod]
    fn from_dict(template: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = value_of(template)?;
        SchemaTemplate::from_value(&value)
            .map(Self::new)
            .map_err(|e| template_error(&e))
    }

    /// The template as a dict; ``SchemaTemplate.from_dict`` reads it back equal.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, &self.inner)
    }

    /// The template as JSON text.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|e| input_error(e.to_string()))
    }

    /// The template's identifier.
    #[getter]
    fn schema_id(&self) -> &str {
        &self.inner.schema_id
    }

    /// The scenario it serves.
    #[getter]
    fn scenario(&self) -> &str {
        &self.inner.scenario
    }

    /// The keys, as dicts, in template order.
    #[getter]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for key in &self.inner.keys {
            list.append(serialize_to_py(py, key)?)?;
        }
        Ok(list)
    }

    /// One key's definition as a dict, or ``None``.
    fn key<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .key(name)
            .map(|key| serialize_to_py(py, key))
            .transpose()
    }

    /// Warnings about a valid template (no ``other`` key, an empty
    /// ``scenario``, a default on a required key, ...), as ``sdsi.Issue``.
    fn check<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        issue_list(py, self.inner.check().warnings())
    }

    /// ``sha256:`` + hex over the template's canonical JSON (RFC 8785).
    fn digest(&self) -> PyResult<String> {
        self.inner.digest().map_err(|e| input_error(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!(
            "SchemaTemplate(schema_id={:?}, scenario={:?}, keys={})",
            self.inner.schema_id,
            self.inner.scenario,
            self.inner.keys.len()
        )
    }
}

/// Reads a template argument: a ``SchemaTemplate`` or a dict.
pub fn template_arg(template: &Bound<'_, PyAny>) -> PyResult<SchemaTemplate> {
    if let Ok(template) = template.cast::<PyTemplate>() {
        return Ok(template.get().inner.clone());
    }
    if template.is_instance_of::<PyDict>() {
        return PyTemplate::from_dict(template).map(|t| t.inner);
    }
    Err(input_error(
        "expected a SchemaTemplate or a dict holding one",
    ))
}
