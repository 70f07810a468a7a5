//! The need level of the pool: fine clusters grouped into needs, as one
//! need is phrased many ways. The level's data (`level.rs`), keeping it
//! current as clusters come, grow, merge and go (`grouping.rs`), the pool's
//! background similarity and centre the need threshold adapts to, and
//! [`NeedView`](crate::evolution::NeedView), what the gate's callers and the inducer read of a need.

pub(in crate::evolution) mod background;
pub(in crate::evolution) mod centre;
pub(in crate::evolution) mod grouping;
pub(in crate::evolution) mod level;
pub(in crate::evolution) mod view;
