//! The structured payload message a client agent sends (§5, Appendix A.2),
//! and [`PayloadBuilder`], which builds one that always validates.

mod builder;
pub(crate) mod message;

pub use builder::{BuildError, DEFAULT_CONFIDENCE_THRESHOLD, PayloadBuilder, Placement};
pub use message::StructuredPayload;
