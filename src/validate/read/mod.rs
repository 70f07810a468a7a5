//! The readers: one per kind of input, each reducing members to what the
//! core's pass decides on. Each adds its methods to `CompiledSchema`.

pub(crate) mod bytes;
pub(crate) mod keyed;
pub(crate) mod probe;
pub(crate) mod response;
pub(crate) mod scan;
pub(crate) mod serde_source;
pub(crate) mod skip;
pub(crate) mod stream;
pub(crate) mod typed;
pub(crate) mod value;
