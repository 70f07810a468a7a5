//! The proposal mark a cluster and a need carry once a key was proposed
//! from their need (a key name; `""` when withheld by earlier releases), and
//! how two marks combine when clusters or needs merge.

/// The proposal mark of two merged needs or clusters: a key name over a
/// withheld mark (`""`), so that a need withheld for its flagged fragments
/// never blocks a need that was proposed; between two names, the lesser.
/// Symmetric, so merges commute.
pub(crate) fn merged_proposal(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) if a.is_empty() != b.is_empty() => {
            Some(if a.is_empty() { b } else { a })
        }
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
