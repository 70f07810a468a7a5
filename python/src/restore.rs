//! Where pickling finds the functions that rebuild the package's objects.
//!
//! `pickle` stores a function by module and name, so each object's
//! `__reduce__` names one in the pure-Python module `sdsi._restore`: a
//! method of a native class would not be found again by name, and a
//! module-level function of `sdsi._sdsi` is not stored under that path.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyModule, PyTuple};

/// The function `name` of `sdsi._restore`.
fn restorer<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let module = MODULE.get_or_try_init(py, || py.import("sdsi._restore").map(Bound::unbind))?;
    module.bind(py).getattr(name)
}

/// What a `__reduce__` returns: the restorer `name` and the arguments
/// `args` it is called with when the object is unpickled.
pub fn reduced<'py>(
    py: Python<'py>,
    name: &str,
    args: Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [restorer(py, name)?, args.into_any()])
}
