//! The trigger (§6.2.1): the dual gate on a need (heat, and distinct
//! clients or requests in a window), the per-client heat cap that keeps
//! one agent from forcing it, and what the engine tells the pool once a
//! gate opened (put off, proposed, reopened) with the heat close
//! neighbours lent.

pub(in crate::evolution) mod cap;
pub(in crate::evolution) mod dual;
pub(in crate::evolution) mod marking;
