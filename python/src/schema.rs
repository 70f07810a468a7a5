//! `sdsi.CompiledSchema`: a template compiled once, validating many messages.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use sdsi::CompiledSchema;
use sdsi::mcp::McpVersion;
use sdsi::validate::{BigIntegers, Limits, UnknownKeys, ValidateOptions};
use serde_json::Value;

use crate::convert::{Message, ordered_to_py, serialize_to_py, to_value};
use crate::depth::Depth;
use crate::depythonize::PyDe;
use crate::errors::input_error;
use crate::issue::issue_list;
use crate::keyed;
use crate::refusal::template_error;
use crate::report::{MESSAGE_MEMBERS, PyReport};
use crate::restore::reduced;
use crate::template::{PyTemplate, template_arg};

/// Inputs at least this long (bytes of JSON text) are validated with the
/// GIL released, so other Python threads run meanwhile; below it, releasing
/// and taking the GIL back would cost more than the validation.
const RELEASE_GIL_BYTES: usize = 16 << 10;

/// A template compiled for validation, with its options. Thread-safe:
/// compile once, share it, validate from many threads at once.
///
/// ``CompiledSchema(template, unknown_keys="reject", max_depth=32,
/// max_keys=1024, max_bytes=4 MiB, big_integers="accept")``; ``template``
/// is a ``SchemaTemplate`` or a dict. Every message may be a dict (as
/// ``json.loads`` gives), or JSON text as ``str`` or ``bytes`` (faster:
/// no Python objects are read). ``max_bytes`` bounds text only: a dict was
/// built by the caller, who has already paid for its size.
#[pyclass(module = "sdsi", name = "CompiledSchema", frozen)]
pub struct PySchema {
    pub inner: CompiledSchema,
}

impl PySchema {
    fn depth(&self) -> Depth {
        Depth::for_limit(self.inner.options().limits.max_depth)
    }

    /// The dict path when one pass cannot settle the message (more payload
    /// members than `max_keys`): read it as a JSON value (holding the GIL,
    /// as reading Python objects needs), then validate it without the GIL,
    /// a message that large being worth the switch.
    fn converted<T: Send>(
        &self,
        py: Python<'_>,
        object: &Bound<'_, PyAny>,
        check: impl FnOnce(&CompiledSchema, Value) -> T + Send,
    ) -> PyResult<T> {
        let value = to_value(object, self.depth())?;
        let schema = &self.inner;
        Ok(py.detach(|| check(schema, value)))
    }
}

fn on_text<T: Send>(
    py: Python<'_>,
    schema: &CompiledSchema,
    bytes: &[u8],
    check: &(impl Fn(&CompiledSchema, &[u8]) -> T + Sync),
) -> T {
    if bytes.len() >= RELEASE_GIL_BYTES {
        py.detach(|| check(schema, bytes))
    } else {
        check(schema, bytes)
    }
}

fn options(
    unknown_keys: &str,
    max_depth: Option<usize>,
    max_keys: Option<usize>,
    max_bytes: Option<usize>,
    big_integers: &str,
) -> PyResult<ValidateOptions> {
    let unknown = match unknown_keys {
        "reject" => UnknownKeys::Reject,
        "warn" => UnknownKeys::Warn,
        other => {
            return Err(input_error(format!(
                "unknown_keys must be \"reject\" or \"warn\", not {other:?}"
            )));
        }
    };
    let big = match big_integers {
        "accept" => BigIntegers::Accept,
        "reject" => BigIntegers::Reject,
        other => {
            return Err(input_error(format!(
                "big_integers must be \"accept\" or \"reject\", not {other:?}"
            )));
        }
    };
    let mut limits = Limits::default();
    if let Some(n) = max_depth {
        limits = limits.with_max_depth(n);
    }
    if let Some(n) = max_keys {
        limits = limits.with_max_keys(n);
    }
    if let Some(n) = max_bytes {
        limits = limits.with_max_bytes(n);
    }
    Ok(ValidateOptions::default()
        .unknown_keys(unknown)
        .limits(limits)
        .big_integers(big))
}

#[pymethods]
impl PySchema {
    #[new]
    #[pyo3(signature = (template, *, unknown_keys = "reject", max_depth = None, max_keys = None, max_bytes = None, big_integers = "accept"))]
    fn new(
        template: &Bound<'_, PyAny>,
        unknown_keys: &str,
        max_depth: Option<usize>,
        max_keys: Option<usize>,
        max_bytes: Option<usize>,
        big_integers: &str,
    ) -> PyResult<Self> {
        let template = template_arg(template)?;
        let options = options(unknown_keys, max_depth, max_keys, max_bytes, big_integers)?;
        CompiledSchema::from_template_with_options(template, options)
            .map(|inner| PySchema { inner })
            .map_err(|e| template_error(&e))
    }

    /// Validates a message ``{"schema_id", "payload"}`` (dict, str or bytes)
    /// and returns a ``Report``.
    ///
    /// A dict is read where it lies, in one pass; JSON text is validated
    /// with the GIL released when it is 16 KiB or longer. From a dict, the
    /// report's ``normalized`` payload is copied now (the dict is the
    /// caller's to change); from text it is parsed again on each read. With
    /// ``normalized=False`` the report keeps no payload (``normalized`` is
    /// ``None``): a caller that wants only the verdict and the problems
    /// skips the copy.
    #[pyo3(signature = (message, *, normalized = true))]
    fn validate(
        slf: &Bound<'_, Self>,
        message: &Bound<'_, PyAny>,
        normalized: bool,
    ) -> PyResult<PyReport> {
        let py = slf.py();
        let this = slf.get();
        let problems =
            |schema: &CompiledSchema, bytes: &[u8]| schema.validate_slice(bytes).into_parts().0;
        let report = match Message::of(message)? {
            Message::Text(text) => {
                let found = on_text(py, &this.inner, text.bytes(), &problems);
                PyReport::from_text(found, &this.inner, text.holder())
            }
            Message::Object(object) => {
                if let Some(checked) = keyed::problems(&this.inner, object, this.depth())? {
                    return Ok(PyReport::edited(checked, &this.inner, message, normalized));
                }
                match this.inner.problems_from(PyDe::new(object, this.depth())) {
                    Ok(Some(checked)) => {
                        return Ok(PyReport::edited(checked, &this.inner, message, normalized));
                    }
                    Ok(None) => {
                        let report = this.converted(py, object, |s, v| s.validate_owned(v))?;
                        PyReport::of(report, MESSAGE_MEMBERS, object)
                    }
                    Err(error) => return Err(error.into()),
                }
            }
        };
        Ok(if normalized {
            report
        } else {
            report.without_normalized()
        })
    }

    /// Whether a message is valid: the verdict alone, the fastest call.
    fn is_valid(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<bool> {
        let verdict = |schema: &CompiledSchema, bytes: &[u8]| schema.is_valid_slice(bytes);
        Ok(match Message::of(message)? {
            Message::Text(text) => on_text(py, &self.inner, text.bytes(), &verdict),
            Message::Object(object) => {
                if let Some(valid) = keyed::is_valid(&self.inner, object, self.depth())? {
                    return Ok(valid);
                }
                match self
                    .inner
                    .is_valid_from_unique(PyDe::new(object, self.depth()))
                {
                    Ok(Some(valid)) => valid,
                    Ok(None) => self.converted(py, object, |s, v| s.is_valid(&v))?,
                    Err(error) => return Err(error.into()),
                }
            }
        })
    }

    /// Validates a bare payload dict (the ``payload`` member's content).
    fn validate_payload(&self, payload: &Bound<'_, PyAny>) -> PyResult<PyReport> {
        match to_value(payload, self.depth())? {
            Value::Object(map) => Ok(PyReport::of(
                self.inner.validate_payload_owned(map),
                "",
                payload,
            )),
            _ => Err(input_error("a payload is a dict")),
        }
    }

    /// Validates a server's execution result (draft Figure 9) against this
    /// schema as a response template; a malformed
    /// ``schema_update_suggestion`` is reported, not fatal.
    fn validate_execution_result(&self, result: &Bound<'_, PyAny>) -> PyResult<PyReport> {
        let value = to_value(result, self.depth())?;
        let report = self.inner.validate_execution_result(&value);
        Ok(PyReport::of(report, "", result))
    }

    /// Validates an MCP ``CallToolResult``'s ``structuredContent`` against
    /// this schema as the tool's output schema, under MCP protocol revision
    /// ``protocol_version`` (``"2026-07-28"``, the default, reads
    /// ``resultType``; ``"2025-11-25"`` does not).
    #[pyo3(signature = (result, *, protocol_version = None))]
    fn validate_mcp_tool_result(
        &self,
        result: &Bound<'_, PyAny>,
        protocol_version: Option<&str>,
    ) -> PyResult<PyReport> {
        let version = mcp_version(protocol_version)?;
        let value = to_value(result, self.depth())?;
        let report = self.inner.validate_mcp_tool_result_for(&value, version);
        Ok(PyReport::of(report, "/structuredContent", result))
    }

    /// Validates an MCP ``ElicitResult`` (``{"action", "content"}``), the
    /// user's answer to ``mcp_elicitation_request``: an accepted answer's
    /// ``content`` is checked as the payload.
    fn validate_mcp_elicit_result(&self, result: &Bound<'_, PyAny>) -> PyResult<PyReport> {
        let value = to_value(result, self.depth())?;
        let report = self.inner.validate_mcp_elicit_result(&value);
        Ok(PyReport::of(report, "/content", result))
    }

    /// Pickled as its template's JSON text and its options; unpickling
    /// compiles it again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let template =
            serde_json::to_string(self.inner.template()).map_err(|e| input_error(e.to_string()))?;
        let args = (template, self.options(py)?).into_pyobject(py)?;
        reduced(py, "schema", args)
    }

    /// Immutable: a copy is the schema itself.
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'a>(slf: PyRef<'a, Self>, _memo: &Bound<'_, PyAny>) -> PyRef<'a, Self> {
        slf
    }

    /// The template's identifier.
    #[getter]
    fn schema_id(&self) -> &str {
        self.inner.schema_id()
    }

    /// The template compiled.
    #[getter]
    fn template(&self) -> PyTemplate {
        PyTemplate::new(self.inner.template().clone())
    }

    /// ``sha256:`` + hex over the template's canonical JSON.
    fn digest(&self) -> PyResult<String> {
        self.inner
            .digest()
            .map(str::to_owned)
            .map_err(|e| input_error(e.to_string()))
    }

    /// The whole message ``{"schema_id", "payload"}`` as a JSON Schema
    /// (draft 2020-12) dict.
    fn json_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ordered_to_py(py, &self.inner.json_schema())
    }

    /// The payload as an MCP tool's ``inputSchema`` dict, as MCP protocol
    /// revision ``protocol_version`` carries it (``"2026-07-28"``, the
    /// default, names its dialect in ``$schema``; ``"2025-11-25"`` does not).
    #[pyo3(signature = (*, protocol_version = None))]
    fn mcp_input_schema<'py>(
        &self,
        py: Python<'py>,
        protocol_version: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let version = mcp_version(protocol_version)?;
        ordered_to_py(py, &self.inner.mcp_input_schema_for(version))
    }

    /// The payload as an MCP tool's ``outputSchema`` dict (see
    /// ``mcp_input_schema``).
    #[pyo3(signature = (*, protocol_version = None))]
    fn mcp_output_schema<'py>(
        &self,
        py: Python<'py>,
        protocol_version: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let version = mcp_version(protocol_version)?;
        ordered_to_py(py, &self.inner.mcp_output_schema_for(version))
    }

    /// What an MCP server sends to ask the user for the payload, with
    /// ``message`` shown to them: ``(request, warnings)``. Under
    /// ``"2026-07-28"`` (the default) an ``InputRequiredResult`` whose
    /// ``inputRequests`` holds the form under the schema's id; under
    /// ``"2025-11-25"`` the ``elicitation/create`` request itself.
    #[pyo3(signature = (message, *, protocol_version = None))]
    fn mcp_elicitation_request<'py>(
        &self,
        py: Python<'py>,
        message: &str,
        protocol_version: Option<&str>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let version = mcp_version(protocol_version)?;
        export_pair(py, self.inner.mcp_elicitation_request(message, version))
    }

    /// The payload as an MCP elicitation ``requestedSchema``:
    /// ``(schema, warnings)`` for what a form cannot express.
    fn mcp_elicitation_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        export_pair(py, self.inner.mcp_elicitation_schema())
    }

    /// A strict schema for constrained decoding (every object closed, every
    /// member required): ``(schema, warnings)``.
    fn strict_schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        export_pair(py, self.inner.strict_schema())
    }

    /// The template as prompt text for a client's model.
    fn prompt(&self) -> String {
        self.inner.prompt()
    }

    /// The options as a dict (``unknown_keys``, ``limits``, ``big_integers``).
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, self.inner.options())
    }

    fn __repr__(&self) -> String {
        format!("CompiledSchema(schema_id={:?})", self.inner.schema_id())
    }
}

fn export_pair<'py>(
    py: Python<'py>,
    export: sdsi::export::Export,
) -> PyResult<Bound<'py, PyTuple>> {
    let schema = ordered_to_py(py, &export.schema)?;
    let warnings: Bound<'py, PyList> = issue_list(py, &export.warnings)?;
    PyTuple::new(py, [schema, warnings.into_any()])
}

/// The MCP revision a Python caller names, the newest when none is named.
pub(crate) fn mcp_version(name: Option<&str>) -> PyResult<McpVersion> {
    match name {
        None => Ok(McpVersion::LATEST),
        Some(name) => name
            .parse()
            .map_err(|e: sdsi::mcp::UnknownMcpVersion| input_error(e.to_string())),
    }
}
