//! The `Report` of a validation, and where issues go while one runs.

use std::ops::ControlFlow;

use serde::Serialize;
use serde::ser::SerializeStruct;
use serde_json::{Map, Value};

use super::normalized::Normalized;
use crate::issue::{Issue, IssueCode, Problems};

/// The result of validating one message: every problem, warnings, and (when
/// valid) the [`Normalized`] payload.
///
/// Errors and warnings are ordered by JSON Pointer, so the order does not
/// depend on the order of members in the input. The lifetime is the input's:
/// the normalized payload reads through to the message validated (nothing
/// is copied); [`Report::into_owned`] cuts the tie.
#[derive(Debug, Clone, PartialEq, Default)]
#[must_use]
pub struct Report<'a> {
    problems: Problems,
    normalized: Option<Normalized<'a>>,
}

impl<'a> Report<'a> {
    /// Whether the message has no errors (warnings do not count).
    pub fn is_valid(&self) -> bool {
        self.problems.is_valid()
    }

    /// Every error, ordered by path.
    pub fn errors(&self) -> &[Issue] {
        self.problems.errors()
    }

    /// Every warning, ordered by path.
    pub fn warnings(&self) -> &[Issue] {
        self.problems.warnings()
    }

    /// The errors and warnings together.
    pub fn problems(&self) -> &Problems {
        &self.problems
    }

    /// The payload with defaults applied to omitted optional keys, `null`
    /// optional values dropped (or replaced by the default) and whole-number
    /// floats in `integer` keys read as integers; `None` when the message is
    /// invalid.
    pub fn normalized(&self) -> Option<&Normalized<'a>> {
        self.normalized.as_ref()
    }

    /// Takes the normalized payload out of the report as an owned map
    /// (copied if it reads through to the caller's message).
    pub fn into_normalized(self) -> Option<Map<String, Value>> {
        self.normalized.map(Normalized::into_map)
    }

    /// Takes the problems and the normalized payload out of the report.
    pub fn into_parts(self) -> (Problems, Option<Normalized<'a>>) {
        (self.problems, self.normalized)
    }

    /// The report with an owned normalized payload, independent of the input.
    pub fn into_owned(self) -> Report<'static> {
        Report {
            problems: self.problems,
            normalized: self.normalized.map(Normalized::into_owned),
        }
    }

    pub(crate) fn invalid_json(error: &serde_json::Error) -> Report<'static> {
        Self::single(Issue::owned(IssueCode::InvalidJson, "", error.to_string()))
    }

    pub(crate) fn single(issue: Issue) -> Report<'static> {
        Report {
            problems: Problems::error(issue),
            normalized: None,
        }
    }

    /// The report with `prefix` put in front of every path (a part of a
    /// larger document, reported from that document's root).
    pub(crate) fn prefixed(mut self, prefix: &str) -> Self {
        for issue in self.problems.errors_mut() {
            *issue = issue.prefixed(prefix);
        }
        for issue in self.problems.warnings_mut() {
            *issue = issue.prefixed(prefix);
        }
        self
    }

    /// The report with one more error (and so no normalized payload), kept
    /// in path order.
    pub(crate) fn with_error(mut self, issue: Issue) -> Self {
        self.problems.push_error(issue);
        self.problems.sort_by_path();
        self.normalized = None;
        self
    }

    /// The report with `prefix` cut from the front of every path (a bare
    /// payload's problems are found at `/payload/...` and reported from its root).
    pub(crate) fn strip_prefix(mut self, prefix: &str) -> Self {
        for issue in self.problems.errors_mut() {
            issue.strip_prefix(prefix);
        }
        for issue in self.problems.warnings_mut() {
            issue.strip_prefix(prefix);
        }
        self
    }
}

impl Serialize for Report<'_> {
    /// `{"valid", "errors", "warnings", "normalized"}`; `normalized` is `null` when invalid.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Report", 4)?;
        s.serialize_field("valid", &self.is_valid())?;
        s.serialize_field("errors", self.errors())?;
        s.serialize_field("warnings", self.warnings())?;
        s.serialize_field("normalized", &self.normalized)?;
        s.end()
    }
}

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

pub(crate) fn finish_report(out: Collect, normalized: Option<Normalized<'_>>) -> Report<'_> {
    let (problems, normalized) = finish_problems(out, normalized);
    Report {
        problems,
        normalized,
    }
}

/// The problems `out` collected, sorted by path, and `payload` (a
/// normalized payload or the plan for one) only if they make no error.
pub(crate) fn finish_problems<T>(out: Collect, payload: Option<T>) -> (Problems, Option<T>) {
    let mut problems = Problems::new(out.errors, out.warnings);
    problems.sort_by_path();
    let payload = payload.filter(|_| problems.is_valid());
    (problems, payload)
}
