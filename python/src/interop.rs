//! Templates from other schema languages, and compatibility between versions.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use sdsi::compat::{self, Mode};
use sdsi::import::{self, Imported};

use crate::convert::{serialize_to_py, value_of};
use crate::errors::input_error;
use crate::issue::issue_list;
use crate::refusal::template_error;
use crate::template::{PyTemplate, template_arg};

fn imported<'py>(
    py: Python<'py>,
    result: Result<Imported, sdsi::TemplateError>,
) -> PyResult<Bound<'py, PyTuple>> {
    let imported = result.map_err(|e| template_error(&e))?;
    let template = Bound::new(py, PyTemplate::new(imported.template))?.into_any();
    let unsupported = issue_list(py, &imported.unsupported)?.into_any();
    PyTuple::new(py, [template, unsupported])
}

/// A template from a JSON Schema object: ``(SchemaTemplate, unsupported)``,
/// ``unsupported`` naming every construct a template cannot express.
#[pyfunction]
pub fn import_json_schema<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
    schema_id: &str,
    scenario: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let schema = value_of(schema)?;
    imported(py, import::from_json_schema(&schema, schema_id, scenario))
}

/// A template from an MCP tool (``{"name", "inputSchema", ...}``):
/// ``(SchemaTemplate, unsupported)``.
#[pyfunction]
pub fn import_mcp_tool<'py>(
    py: Python<'py>,
    tool: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let tool = value_of(tool)?;
    imported(py, import::from_mcp_tool(&tool))
}

/// Checks ``new`` against ``history`` (oldest first) under ``mode``
/// (``"backward"``, ``"forward"``, ``"full"``, or their ``_transitive``
/// forms): ``{"mode", "compatible", "changes": [...]}``.
#[pyfunction]
#[pyo3(signature = (history, new, mode = "backward"))]
pub fn compat_check<'py>(
    py: Python<'py>,
    history: Vec<Bound<'py, PyAny>>,
    new: &Bound<'py, PyAny>,
    mode: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let mode: Mode = mode
        .parse()
        .map_err(|e: compat::UnknownMode| input_error(e.to_string()))?;
    let history = history
        .iter()
        .map(template_arg)
        .collect::<PyResult<Vec<_>>>()?;
    serialize_to_py(py, &compat::check(&history, &template_arg(new)?, mode))
}
