//! `sdsi.Issue`: one problem, with its stable code, JSON Pointer and message.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::convert::{serialize_to_py, value_of};
use crate::errors::input_error;
use crate::restore::reduced;

/// One problem found in a template, a message or a patch.
///
/// `code` is stable (docs/errors.md lists every code), `path` a JSON Pointer
/// into what was checked ("" for the whole), `loc` the same place as a
/// tuple (pydantic's form), `message` for people. Immutable, hashable,
/// picklable.
#[pyclass(module = "sdsi", name = "Issue", frozen)]
#[derive(Clone)]
pub struct PyIssue {
    pub inner: sdsi::Issue,
    /// Which segment of the path names an object member whatever it looks
    /// like (a payload member called `"0"` is still a name): the one after
    /// the pointer a report's members sit under. `None` outside reports,
    /// where names are template and patch members, never all digits.
    names_at: Option<usize>,
}

impl PyIssue {
    pub fn new(inner: sdsi::Issue) -> Self {
        PyIssue {
            inner,
            names_at: None,
        }
    }

    /// An issue of a report whose payload members sit under the pointer
    /// `members` (`"/payload"` for a message, `""` for a bare payload).
    pub fn in_report(inner: sdsi::Issue, members: &str) -> Self {
        let names_at = inner
            .path()
            .strip_prefix(members)
            .filter(|rest| rest.starts_with('/'))
            .map(|_| segments(members).count());
        PyIssue { inner, names_at }
    }
}

/// The segments of a JSON Pointer, unescaped (`~1` is `/`, `~0` is `~`).
pub fn segments(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
}

/// The array index a segment spells, the way RFC 6901 writes one: `0`, or
/// digits with no leading zero.
pub fn index(segment: &str) -> Option<usize> {
    let digits = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    if !digits || (segment.len() > 1 && segment.starts_with('0')) {
        return None;
    }
    segment.parse().ok()
}

#[pymethods]
impl PyIssue {
    /// The stable code, e.g. ``"missing_required_key"``.
    #[getter]
    fn code(&self) -> &'static str {
        self.inner.code().as_str()
    }

    /// A JSON Pointer to where the problem is (``""`` for the whole input).
    #[getter]
    fn path(&self) -> &str {
        self.inner.path()
    }

    /// Where the problem is, as pydantic writes a location: a tuple of the
    /// path's segments from the root of what was checked, array indices as
    /// ints (``("payload", "other", 1)``); ``()`` for the whole input.
    #[getter]
    fn loc<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let mut items: Vec<Bound<'py, PyAny>> = Vec::new();
        for (at, segment) in segments(self.inner.path()).enumerate() {
            match index(&segment).filter(|_| self.names_at != Some(at)) {
                Some(i) => items.push(i.into_pyobject(py)?.into_any()),
                None => items.push(segment.into_pyobject(py)?.into_any()),
            }
        }
        PyTuple::new(py, items)
    }

    /// What is wrong, in words.
    #[getter]
    fn message(&self) -> String {
        self.inner.message().into_owned()
    }

    /// The issue as the crate writes it (the CLI's form): ``{"code",
    /// "path", "message"}``, plus ``limit`` for ``limit_exceeded`` and
    /// ``expected`` / ``found`` for ``type_mismatch``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        serialize_to_py(py, &self.inner)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyIssue>()
            .is_ok_and(|other| other.get().inner == self.inner)
    }

    /// Equal issues (same code, path and message) hash alike.
    fn __hash__(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.inner.code().as_str().hash(&mut hasher);
        self.inner.path().hash(&mut hasher);
        self.inner.message().hash(&mut hasher);
        hasher.finish()
    }

    /// Pickled as its dict (``to_dict``), read back by the crate.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let args = (self.to_dict(py)?, self.names_at).into_pyobject(py)?;
        reduced(py, "issue", args)
    }

    /// Immutable: a copy is the issue itself.
    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'a>(slf: PyRef<'a, Self>, _memo: &Bound<'_, PyAny>) -> PyRef<'a, Self> {
        slf
    }

    /// The issue `written` (``to_dict``'s form), for unpickling.
    #[staticmethod]
    #[pyo3(signature = (written, names_at = None))]
    fn _from_dict(written: &Bound<'_, PyAny>, names_at: Option<usize>) -> PyResult<Self> {
        let inner = serde_json::from_value(value_of(written)?)
            .map_err(|e| input_error(format!("issue: {e}")))?;
        Ok(PyIssue { inner, names_at })
    }

    fn __repr__(&self) -> String {
        format!(
            "Issue(code={:?}, path={:?}, message={:?})",
            self.code(),
            self.path(),
            self.message()
        )
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }
}

/// Issues as a new list of `sdsi.Issue`.
pub fn issue_list<'py>(py: Python<'py>, issues: &[sdsi::Issue]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for issue in issues {
        list.append(Bound::new(py, PyIssue::new(issue.clone()))?)?;
    }
    Ok(list)
}

/// Issues of a report whose members sit under `members`, as a tuple.
fn issue_tuple<'py>(
    py: Python<'py>,
    issues: &[sdsi::Issue],
    members: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let items = issues
        .iter()
        .map(|issue| Bound::new(py, PyIssue::in_report(issue.clone(), members)))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// A Python object built on first access and then kept: the same object
/// every time. A `std` once-cell rather than PyO3's `PyOnceLock`, whose
/// first fill costs more than building an empty tuple; the GIL orders the
/// threads already, and if building lets another thread in first, that
/// thread's object is the one kept.
pub struct Kept<T>(OnceLock<Py<T>>);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(OnceLock::new())
    }
}

impl<T> Kept<T> {
    pub fn get_or_try_init<'py>(
        &self,
        py: Python<'py>,
        make: impl FnOnce() -> PyResult<Bound<'py, T>>,
    ) -> PyResult<Bound<'py, T>> {
        if let Some(kept) = self.0.get() {
            return Ok(kept.bind(py).clone());
        }
        let made = make()?;
        let _ = self.0.set(made.clone().unbind());
        Ok(match self.0.get() {
            Some(kept) => kept.bind(py).clone(),
            None => made,
        })
    }
}

/// A report's errors and warnings as tuples of `sdsi.Issue` (immutable,
/// so one object serves every read), each built on first access.
#[derive(Default)]
pub struct IssueLists {
    errors: Kept<PyTuple>,
    warnings: Kept<PyTuple>,
}

impl IssueLists {
    pub fn errors<'py>(
        &self,
        py: Python<'py>,
        issues: &[sdsi::Issue],
        members: &str,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.errors
            .get_or_try_init(py, || issue_tuple(py, issues, members))
    }

    pub fn warnings<'py>(
        &self,
        py: Python<'py>,
        issues: &[sdsi::Issue],
        members: &str,
    ) -> PyResult<Bound<'py, PyTuple>> {
        self.warnings
            .get_or_try_init(py, || issue_tuple(py, issues, members))
    }
}
