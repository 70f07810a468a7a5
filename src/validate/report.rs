//! The `Report` of a validation, and where issues go while one runs.

use serde::Serialize;
use serde::ser::SerializeStruct;
use serde_json::{Map, Value};

use super::core::outcome::{Collect, finish_problems};
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

/// The report of what `out` collected, with `normalized` only if valid.
pub(crate) fn finish_report(out: Collect, normalized: Option<Normalized<'_>>) -> Report<'_> {
    let (problems, normalized) = finish_problems(out, normalized);
    Report {
        problems,
        normalized,
    }
}
