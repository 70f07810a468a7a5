//! The proposal mark a cluster and a need carry once a key was proposed
//! from their need (a key name; [`OTHER_KEY`] when the inducer said the
//! need belongs in `other`), and how two marks combine when clusters or
//! needs merge.

use crate::key::OTHER_KEY;

/// The proposal mark of two merged needs or clusters: a key name over
/// [`OTHER_KEY`], so that a need left in `other` never blocks a need that
/// was proposed; between two names, the lesser.
/// Symmetric, so merges commute.
pub(crate) fn merged_proposal(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) if (a == OTHER_KEY) != (b == OTHER_KEY) => {
            Some(if a == OTHER_KEY { b } else { a })
        }
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
