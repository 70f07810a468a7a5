//! `sdsi.Report`: the verdict, every problem, and the normalized payload.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use sdsi::issue::Problems;
use sdsi::validate::Checked;
use sdsi::{CompiledSchema, Issue, Report};

use crate::convert::{serialize_to_py, value_of};
use crate::errors::{Kind, input_error};
use crate::issue::IssueLists;
use crate::located::Inputs;
use crate::normalized::Normalized;
use crate::restore::reduced;

/// Where a message's payload members sit, for `Issue.loc`: the segment
/// after this pointer is a member name, never an array index.
pub const MESSAGE_MEMBERS: &str = "/payload";

/// What validating one message found.
///
/// ``valid`` is the verdict; ``errors`` and ``warnings`` are tuples of every
/// problem (``sdsi.Issue``, sorted by path); ``normalized`` is the payload
/// as the server should read it (``null`` members dropped, defaults added),
/// a new dict on each read, or ``None`` when the message is invalid.
/// ``raise_for_errors()`` raises ``sdsi.ValidationError`` for an invalid
/// one. Immutable and picklable: what it says is fixed when the message is
/// validated, whatever becomes of the message.
#[pyclass(module = "sdsi", name = "Report", frozen)]
pub struct PyReport {
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
    /// The pointer the validated object's members sit under (a constant
    /// but in an unpickled report).
    members: Cow<'static, str>,
    normalized: Normalized,
    inputs: Inputs,
    issues: IssueLists,
}

impl PyReport {
    fn new(
        problems: Problems,
        members: &'static str,
        normalized: Normalized,
        inputs: Inputs,
    ) -> Self {
        let (errors, warnings) = problems.into_parts();
        PyReport {
            errors,
            warnings,
            members: Cow::Borrowed(members),
            normalized,
            inputs,
            issues: IssueLists::default(),
        }
    }

    /// A report the crate made from a value read out of the Python object
    /// `object`, whose members sit under `members`; inputs of errors are
    /// looked up in `object` when asked for.
    pub fn of(report: Report<'_>, members: &'static str, object: &Bound<'_, PyAny>) -> Self {
        let (problems, normalized) = report.into_parts();
        let inputs = Inputs::in_objects(object, problems.errors());
        let normalized = match normalized {
            Some(normalized) => Normalized::Map(normalized.into_map()),
            None => Normalized::Invalid,
        };
        Self::new(problems, members, normalized, inputs)
    }

    /// The problems of a message's JSON text held by `text` (a `str` or
    /// `bytes`, immutable), which is read again for the normalized payload
    /// or the errors' inputs when they are asked for.
    pub fn from_text(problems: Problems, schema: &CompiledSchema, text: Bound<'_, PyAny>) -> Self {
        let (normalized, inputs) = if problems.is_valid() {
            let normalized = Normalized::Text {
                schema: schema.clone(),
                text: text.unbind(),
            };
            (normalized, Inputs::Unknown)
        } else {
            (Normalized::Invalid, Inputs::Text(text.unbind()))
        };
        Self::new(problems, MESSAGE_MEMBERS, normalized, inputs)
    }

    /// What reading a dict message found: its problems, and for a valid
    /// message its normalized payload, copied now if `keep_normalized`.
    pub fn edited(
        checked: Checked,
        schema: &CompiledSchema,
        message: &Bound<'_, PyAny>,
        keep_normalized: bool,
    ) -> Self {
        let (normalized, inputs) = match checked.edits {
            Some(edits) if keep_normalized => (
                Normalized::of_dict(schema, message, &edits),
                Inputs::Unknown,
            ),
            Some(_) => (Normalized::Invalid, Inputs::Unknown),
            None => (
                Normalized::Invalid,
                Inputs::in_objects(message, checked.problems.errors()),
            ),
        };
        Self::new(checked.problems, MESSAGE_MEMBERS, normalized, inputs)
    }

    /// This report with no normalized payload (`validate(...,
    /// normalized=False)`).
    pub fn without_normalized(mut self) -> Self {
        self.normalized = Normalized::Invalid;
        self
    }

    fn valid(&self) -> bool {
        self.errors.is_empty()
    }

    fn issue_dicts<'py>(py: Python<'py>, issues: &[Issue]) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for issue in issues {
            list.append(serialize_to_py(py, issue)?)?;
        }
        Ok(list)
    }

    /// The crate's one-line summary of the errors.
    fn summary(&self) -> String {
        let n = self.errors.len();
        let mut text = format!(
            "validation failed ({n} problem{})",
            if n == 1 { "" } else { "s" }
        );
        for issue in &self.errors {
            text.push_str("; ");
            text.push_str(&issue.to_string());
        }
        text
    }
}

#[pymethods]
impl PyReport {
    /// Whether the message is valid (no errors; warnings allowed).
    #[getter(valid)]
    fn is_valid(&self) -> bool {
        self.valid()
    }

    /// Every error, as a tuple of ``sdsi.Issue``, sorted by path.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.issues.errors(py, &self.errors, &self.members)
    }

    /// Every warning (the message is still valid), as a tuple of ``sdsi.Issue``.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.issues.warnings(py, &self.warnings, &self.members)
    }

    /// The normalized payload as a new dict, or ``None`` for an invalid
    /// message (and for any message validated with ``normalized=False``).
    /// Fixed when the message was validated: changing the message
    /// afterwards, or a dict read from here, changes nothing here.
    #[getter]
    fn normalized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.normalized.read(py)
    }

    /// Raises ``sdsi.ValidationError`` when the message is invalid (its
    /// ``errors()`` in pydantic's shape); returns ``None`` when it is valid.
    fn raise_for_errors(&self, py: Python<'_>) -> PyResult<()> {
        if self.valid() {
            return Ok(());
        }
        let errors = self.errors(py)?;
        let warnings = self.warnings(py)?;
        let inputs = PyList::new(py, self.inputs.read(py, &self.errors)?)?;
        let class = Kind::Validation.class(py)?;
        let error = class.call1((self.summary(), errors, warnings, inputs))?;
        Err(PyErr::from_value(error))
    }

    /// ``{"valid", "errors", "warnings", "normalized"}``, issues as the
    /// crate writes them (``Issue.to_dict``).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("errors", Self::issue_dicts(py, &self.errors)?)?;
        dict.set_item("warnings", Self::issue_dicts(py, &self.warnings)?)?;
        dict.set_item("valid", self.valid())?;
        dict.set_item("normalized", self.normalized(py)?)?;
        Ok(dict)
    }

    /// Pickled as its parts: issues as dicts, the normalized payload, and
    /// the errors' inputs.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let state = PyDict::new(py);
        state.set_item("errors", Self::issue_dicts(py, &self.errors)?)?;
        state.set_item("warnings", Self::issue_dicts(py, &self.warnings)?)?;
        state.set_item("members", &self.members)?;
        // A payload that cannot be read (a lone surrogate deep inside, an
        // object that would not read as JSON) is saved as its error.
        match self.normalized.read(py) {
            Ok(normalized) => state.set_item("normalized", normalized)?,
            Err(error) => {
                state.set_item("normalized", py.None())?;
                state.set_item("normalized_error", error.value(py).str()?)?;
            }
        }
        state.set_item(
            "inputs",
            PyList::new(py, self.inputs.read(py, &self.errors)?)?,
        )?;
        reduced(py, "report", PyTuple::new(py, [state])?)
    }

    /// Immutable: a copy is the report itself.
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'a>(slf: PyRef<'a, Self>, _memo: &Bound<'_, PyAny>) -> PyRef<'a, Self> {
        slf
    }

    /// A report from the state ``__reduce__`` saved, for unpickling.
    #[staticmethod]
    fn _from_state(state: &Bound<'_, PyDict>) -> PyResult<Self> {
        let member = |name: &str| {
            state
                .get_item(name)?
                .ok_or_else(|| input_error(format!("report state: no {name}")))
        };
        let issues = |name: &str| -> PyResult<Vec<Issue>> {
            serde_json::from_value(value_of(&member(name)?)?)
                .map_err(|e| input_error(format!("report state: {name}: {e}")))
        };
        let errors = issues("errors")?;
        let warnings = issues("warnings")?;
        let normalized = match state.get_item("normalized_error")? {
            Some(error) => Normalized::Failed(error.extract()?),
            None => Normalized::restored(&member("normalized")?)?,
        };
        let inputs: Vec<Py<PyAny>> = member("inputs")?
            .try_iter()?
            .map(|input| input.map(Bound::unbind))
            .collect::<PyResult<_>>()?;
        let inputs = if inputs.len() == errors.len() && !inputs.is_empty() {
            Inputs::Found(inputs)
        } else {
            Inputs::Unknown
        };
        Ok(PyReport {
            errors,
            warnings,
            members: Cow::Owned(member("members")?.extract()?),
            normalized,
            inputs,
            issues: IssueLists::default(),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(valid={}, errors={}, warnings={})",
            if self.valid() { "True" } else { "False" },
            self.errors.len(),
            self.warnings.len()
        )
    }
}
