//! The Differential Semantic Pool (§6.2.1): fragment vectors clustered into
//! fine clusters (`fine/`), fine clusters grouped into needs (`needs/`), and
//! the dual gate that opens on a need (`gate/`).
//!
//! Here: the [`Pool`](crate::evolution::Pool) as data and its storage operations (`data.rs`), its
//! settings and errors, heat, ids, the proposal mark, and the operations on
//! a whole pool (its serialized form, a replica merge, a retune). The
//! pool's fields are private to this folder: the engine reads through
//! [`ClusterView`](crate::evolution::ClusterView) and [`NeedView`](crate::evolution::NeedView) and changes state through the pool's
//! methods only.
//!
//! May use: `embed::vectors` for the math. Knows nothing of the engine,
//! the inducer or the store.

pub(in crate::evolution) mod config;
pub(in crate::evolution) mod data;
pub(in crate::evolution) mod error;
pub(in crate::evolution) mod fine;
pub(in crate::evolution) mod gate;
pub(in crate::evolution) mod heat;
pub(in crate::evolution) mod ids;
pub(in crate::evolution) mod limits;
pub(in crate::evolution) mod mark;
pub(in crate::evolution) mod needs;
mod replica;
mod retune;
pub(in crate::evolution) mod snapshot;
