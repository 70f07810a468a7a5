//! A2A structured fields, data parts and the agent-card extension.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use sdsi::a2a::{self, AgentExtension, CompiledFields, FieldDefinition};

use crate::convert::{from_py, serialize_to_py, to_py, value_of};
use crate::issue::issue_list;
use crate::refusal::template_error;
use crate::report::PyReport;
use crate::schema::PySchema;
use crate::template::{PyTemplate, template_arg};

fn fields_arg(fields: &Bound<'_, PyAny>) -> PyResult<Vec<FieldDefinition>> {
    from_py(fields, "fields")
}

/// A template's keys as A2A skill fields (``[{"name", "kind", ...}]``).
#[pyfunction]
pub fn fields_from_template<'py>(
    py: Python<'py>,
    template: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    serialize_to_py(py, &a2a::fields_from_template(&template_arg(template)?))
}

/// A2A skill fields as a template: ``(SchemaTemplate, warnings)``, the
/// warnings naming every field renamed or mapped with loss.
#[pyfunction]
pub fn template_from_fields<'py>(
    py: Python<'py>,
    schema_id: &str,
    scenario: &str,
    fields: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let conversion = a2a::template_from_fields(schema_id, scenario, &fields_arg(fields)?);
    let template = Bound::new(py, PyTemplate::new(conversion.template))?.into_any();
    let warnings = issue_list(py, &conversion.warnings)?.into_any();
    PyTuple::new(py, [template, warnings])
}

/// The agent-card extension listing ``templates`` (for
/// ``capabilities.extensions``), as a dict.
#[pyfunction]
#[pyo3(signature = (templates, *, required = false))]
pub fn agent_extension<'py>(
    py: Python<'py>,
    templates: Vec<Bound<'py, PyAny>>,
    required: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let templates = templates
        .iter()
        .map(template_arg)
        .collect::<PyResult<Vec<_>>>()?;
    serialize_to_py(py, &AgentExtension::for_templates(&templates, required))
}

/// The templates an agent card's sdsi extension lists, or ``[]`` when the
/// card has none; raises ``sdsi.TemplateError`` for a malformed one.
#[pyfunction]
pub fn templates_from_agent_card(card: &Bound<'_, PyAny>) -> PyResult<Vec<PyTemplate>> {
    let card = value_of(card)?;
    match AgentExtension::find(&card) {
        None => Ok(Vec::new()),
        Some(extension) => extension
            .templates()
            .map(|list| list.into_iter().map(PyTemplate::new).collect())
            .map_err(|e| template_error(&e)),
    }
}

/// A skill's fields compiled for validating A2A data parts.
///
/// ``CompiledFields(fields)`` with fields as dicts (``{"name", "kind",
/// "description"?, "optional"?, ...}``).
#[pyclass(module = "sdsi", name = "CompiledFields", frozen)]
pub struct PyCompiledFields {
    inner: CompiledFields,
}

#[pymethods]
impl PyCompiledFields {
    #[new]
    fn new(fields: &Bound<'_, PyAny>) -> PyResult<Self> {
        CompiledFields::new(&fields_arg(fields)?)
            .map(|inner| PyCompiledFields { inner })
            .map_err(|e| template_error(&e))
    }

    /// Validates a data part's ``data`` object against the fields.
    fn validate_data(&self, data: &Bound<'_, PyAny>) -> PyResult<PyReport> {
        let report = self.inner.validate_data(&value_of(data)?);
        Ok(PyReport::of(report, "", data))
    }

    /// What converting the fields reported (renamed or lossy fields).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        issue_list(py, self.inner.warnings())
    }

    /// The compiled schema behind the fields.
    #[getter]
    fn schema(&self) -> PySchema {
        PySchema {
            inner: self.inner.schema().clone(),
        }
    }
}

/// A structured payload ``{"schema_id", "payload"}`` as an A2A data part
/// (``{"data", "mediaType", "metadata": {"mediaType", "schema"}}``).
#[pyfunction]
pub fn a2a_data_part<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PySchema>,
    message: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let message = from_py(message, "message")?;
    to_py(py, &schema.get().inner.a2a_data_part(&message))
}

/// Validates an A2A data part carrying a structured payload.
#[pyfunction]
pub fn validate_a2a_data_part(
    schema: &Bound<'_, PySchema>,
    part: &Bound<'_, PyAny>,
) -> PyResult<PyReport> {
    let value = value_of(part)?;
    // A data part's payload members sit under `/data/payload`, a text
    // part's under `/text/payload`.
    let members = if value.get("data").is_some() {
        "/data/payload"
    } else {
        "/text/payload"
    };
    let report = schema.get().inner.validate_a2a_data_part(&value);
    Ok(PyReport::of(report, members, part))
}
