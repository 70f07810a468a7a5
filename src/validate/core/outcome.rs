//! `Outcome`: where a validation pass sends what it finds — every issue
//! collected (`Collect`, for a report) or only a yes/no (`Verdict`).

use std::ops::ControlFlow;

use crate::issue::{Issue, Problems};

/// Where issues go: collected into a report, or reduced to a verdict.
pub(crate) trait Outcome: Clone {
    /// Whether the normalized payload is wanted.
    const NORMALIZE: bool;
    /// Records an error; `Break` means stop validating.
    fn error(&mut self, make: impl FnOnce() -> Issue) -> ControlFlow<()>;
    /// Records a warning.
    fn warning(&mut self, make: impl FnOnce() -> Issue);
    /// Whether no error has been recorded yet (a normalized payload is still wanted).
    fn is_clean(&self) -> bool;
}

/// Collects every issue.
#[derive(Default, Clone)]
pub(crate) struct Collect {
    pub(crate) errors: Vec<Issue>,
    pub(crate) warnings: Vec<Issue>,
}

impl Outcome for Collect {
    const NORMALIZE: bool = true;
    fn error(&mut self, make: impl FnOnce() -> Issue) -> ControlFlow<()> {
        self.errors.push(make());
        ControlFlow::Continue(())
    }
    fn warning(&mut self, make: impl FnOnce() -> Issue) {
        self.warnings.push(make());
    }
    fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Reduces validation to a boolean without building any issue.
#[derive(Clone)]
pub(crate) struct Verdict {
    pub(crate) valid: bool,
    /// Stop at the first error. The bytes path keeps going, because a later
    /// duplicate member could replace the offending one.
    pub(crate) fail_fast: bool,
}

impl Verdict {
    /// A verdict that stops at the first error.
    pub(crate) fn fail_fast() -> Self {
        Self {
            valid: true,
            fail_fast: true,
        }
    }
}

impl Outcome for Verdict {
    const NORMALIZE: bool = false;
    fn error(&mut self, _make: impl FnOnce() -> Issue) -> ControlFlow<()> {
        self.valid = false;
        if self.fail_fast {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
    fn warning(&mut self, _make: impl FnOnce() -> Issue) {}
    fn is_clean(&self) -> bool {
        self.valid
    }
}

/// The problems `out` collected, sorted by path, and `payload` (a
/// normalized payload or the edits that make one) only if they make no error.
pub(crate) fn finish_problems<T>(out: Collect, payload: Option<T>) -> (Problems, Option<T>) {
    let mut problems = Problems::new(out.errors, out.warnings);
    problems.sort_by_path();
    let payload = payload.filter(|_| problems.is_valid());
    (problems, payload)
}
