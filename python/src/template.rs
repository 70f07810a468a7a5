//! `sdsi.SchemaTemplate`: a server's published template.

use std::hash::{DefaultHasher, Hash, Hasher};

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};
use sdsi::SchemaTemplate;

use crate::convert::{Message, serialize_to_py, value_of};
use crate::errors::input_error;
use crate::issue::issue_list;
use crate::refusal::template_error;
use crate::restore::reduced;

/// A schema template (draft §4.1): a ``schema_id``, a ``scenario`` and typed
/// keys, each with a semantic description a client's model maps intent to.
///
/// Build one with ``SchemaTemplate.from_json(text)`` or
/// ``SchemaTemplate.from_dict(d)``, or from a pydantic model with
/// ``SchemaTemplate.from_pydantic(Model, schema_id=..., scenario=...)``; an
/// invalid template raises ``sdsi.TemplateError`` listing every problem.
/// Immutable, hashable, picklable.
#[pyclass(module = "sdsi", name = "SchemaTemplate", frozen)]
#[derive(Clone)]
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

    /// A template from a pydantic 2 model class: its JSON Schema
    /// (``Model.model_json_schema()``) imported as ``import_json_schema``
    /// does, with descriptions naming a nested model's members and an
    /// enum's or ``Literal``'s values, ``[]`` / ``{}`` defaults for
    /// ``default_factory=list`` / ``dict``, and an ``other`` key when the
    /// model has none. What the template cannot express is a
    /// ``sdsi.ConversionWarning`` (``warnings.warn``), one per construct,
    /// each carrying its ``sdsi.Issue``.
    #[staticmethod]
    #[pyo3(signature = (model, *, schema_id, scenario))]
    fn from_pydantic<'py>(
        model: &Bound<'py, PyAny>,
        schema_id: &str,
        scenario: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        // Python's own half: it reads the model class, which is easiest
        // in Python (sdsi/_pydantic.py).
        let py = model.py();
        py.import("sdsi._pydantic")?
            .getattr("from_pydantic")?
            .call1((model, schema_id, scenario))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTemplate>()
            .is_ok_and(|other| other.get().inner == self.inner)
    }

    /// Equal templates hash alike: over the ids and every key's name and
    /// type, which equality compares too.
    fn __hash__(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.inner.schema_id.hash(&mut hasher);
        self.inner.scenario.hash(&mut hasher);
        for key in &self.inner.keys {
            key.key_name.as_str().hash(&mut hasher);
            key.key_type.as_str().hash(&mut hasher);
        }
        hasher.finish()
    }

    /// Pickled as its JSON text.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let text = PyString::new(py, &self.to_json()?);
        reduced(py, "template", PyTuple::new(py, [text])?)
    }

    /// Immutable: a copy is the template itself.
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'a>(slf: PyRef<'a, Self>, _memo: &Bound<'_, PyAny>) -> PyRef<'a, Self> {
        slf
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

/// Reads a template argument: a ``SchemaTemplate``, or anything read as
/// a JSON object (a dict, a ``Mapping``, a pydantic model instance).
pub fn template_arg(template: &Bound<'_, PyAny>) -> PyResult<SchemaTemplate> {
    if let Ok(template) = template.cast::<PyTemplate>() {
        return Ok(template.get().inner.clone());
    }
    if template.is_instance_of::<PyString>()
        || template.is_instance_of::<PyBytes>()
        || template.is_instance_of::<PyByteArray>()
    {
        return Err(input_error(
            "expected a SchemaTemplate or a dict holding one (JSON text: SchemaTemplate.from_json)",
        ));
    }
    PyTemplate::from_dict(template).map(|t| t.inner)
}
