//! Python bindings for `sdsi`, built by maturin into the `sdsi` package
//! (python/sdsi). The Rust API is mirrored with Python conventions: dicts in
//! and out, `datetime` for time, exceptions for refusals; docs/python.md
//! maps each name to its Rust counterpart.

mod a2a;
mod borrowed;
mod coerce;
mod convert;
mod depth;
mod depythonize;
mod envelope;
mod errors;
mod evolution;
mod interop;
mod issue;
mod keyed;
mod located;
mod normalized;
mod overlay;
mod refusal;
mod report;
mod restore;
mod scalar;
mod schema;
mod store;
mod template;
mod time;

use pyo3::prelude::*;

/// The native half of the `sdsi` package; import `sdsi`, not this.
// `gil_used = true`, said out loud (PyO3 0.28 flips the default): the
// borrowed reads of src/borrowed.rs are sound only while no other thread
// runs Python code, which the GIL guarantees. A free-threaded CPython
// imports the module with the GIL switched back on.
#[pymodule(gil_used = true)]
fn _sdsi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<issue::PyIssue>()?;
    m.add_class::<report::PyReport>()?;
    m.add_class::<template::PyTemplate>()?;
    m.add_class::<schema::PySchema>()?;
    m.add_class::<envelope::PyEnvelopeReport>()?;
    m.add_function(wrap_pyfunction!(envelope::parse_envelope, m)?)?;
    m.add_function(wrap_pyfunction!(envelope::make_envelope, m)?)?;
    m.add_class::<a2a::PyCompiledFields>()?;
    m.add_function(wrap_pyfunction!(a2a::fields_from_template, m)?)?;
    m.add_function(wrap_pyfunction!(a2a::template_from_fields, m)?)?;
    m.add_function(wrap_pyfunction!(a2a::agent_extension, m)?)?;
    m.add_function(wrap_pyfunction!(a2a::templates_from_agent_card, m)?)?;
    m.add_function(wrap_pyfunction!(a2a::a2a_data_part, m)?)?;
    m.add_function(wrap_pyfunction!(a2a::validate_a2a_data_part, m)?)?;
    m.add_function(wrap_pyfunction!(interop::import_json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(interop::import_mcp_tool, m)?)?;
    m.add_function(wrap_pyfunction!(interop::compat_check, m)?)?;
    m.add_class::<store::PyStore>()?;
    m.add_function(wrap_pyfunction!(store::effective_template, m)?)?;
    m.add_class::<evolution::PyEvolution>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
