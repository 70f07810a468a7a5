//! The layer every reader builds on: the compiled schema and the
//! validation pass. Nothing here knows where a message comes from.

pub(crate) mod build_facts;
pub(crate) mod check;
pub(crate) mod compiled_key;
pub(crate) mod edits;
pub(crate) mod key_index;
pub(crate) mod key_set;
pub(crate) mod options;
pub(crate) mod outcome;
pub(crate) mod pass;
pub(crate) mod scalars;
pub(crate) mod schema;
pub(crate) mod shape;
