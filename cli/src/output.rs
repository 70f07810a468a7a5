//! What a command prints: one JSON object on stdout, and an exit status.

use std::io::{self, Write};
use std::process::ExitCode;

use sdsi::{Issue, IssueCode, Normalized, Report};
use serde::Serialize;
use serde_json::Value;

/// The exit status of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0: the input is valid.
    Valid,
    /// Exit 1: the input was read and parsed, and is invalid.
    Invalid,
    /// Exit 2: an input could not be read or parsed, or the template is unusable.
    Unusable,
}

impl Status {
    /// The status of a validation with these errors: unusable when the input
    /// was not JSON (`invalid_json`), else valid when there are none.
    pub fn of(errors: &[Issue]) -> Self {
        if errors
            .iter()
            .any(|issue| issue.code() == IssueCode::InvalidJson)
        {
            Status::Unusable
        } else if errors.is_empty() {
            Status::Valid
        } else {
            Status::Invalid
        }
    }

    /// The process exit code.
    fn code(self) -> u8 {
        match self {
            Status::Valid => 0,
            Status::Invalid => 1,
            Status::Unusable => 2,
        }
    }
}

/// One entry of `errors` or `warnings`: `{"code", "path", "message"}`, plus
/// `"limit"` for `limit_exceeded`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Entry<'a> {
    /// An issue found by the library, serialized as the library does.
    Issue(&'a Issue),
    /// A problem found by the tool itself (e.g. an unreadable file).
    Tool {
        /// The stable code, e.g. `unreadable_input`.
        code: &'static str,
        /// Always `""`: the problem concerns the whole input.
        path: &'static str,
        /// A readable message.
        message: String,
        /// The limit crossed, for `limit_exceeded`.
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<u64>,
    },
}

impl Entry<'_> {
    /// A problem of the tool's own, about the whole input (`path` `""`).
    pub fn tool(code: &'static str, message: String) -> Self {
        Entry::Tool {
            code,
            path: "",
            message,
            limit: None,
        }
    }

    /// `unreadable_input`: `cannot read WHAT: REASON`.
    pub fn unreadable(what: &str, reason: impl std::fmt::Display) -> Self {
        Self::tool("unreadable_input", format!("cannot read {what}: {reason}"))
    }

    /// `unwritable_output`: `cannot write WHAT: REASON` (a report page, a
    /// state that cannot be saved).
    pub fn unwritable(what: &str, reason: impl std::fmt::Display) -> Self {
        Self::tool(
            "unwritable_output",
            format!("cannot write {what}: {reason}"),
        )
    }

    /// `limit_exceeded` for an input larger than `max` bytes, worded as the library words it.
    pub fn too_large(max: usize) -> Self {
        Entry::Tool {
            code: "limit_exceeded",
            path: "",
            message: format!("input size in bytes exceeds the limit of {max}"),
            limit: Some(max as u64),
        }
    }
}

/// Wraps every issue of `issues` as an [`Entry`].
pub fn entries(issues: &[Issue]) -> Vec<Entry<'_>> {
    issues.iter().map(Entry::Issue).collect()
}

/// The object `sdsi validate` prints.
#[derive(Debug, Serialize)]
pub struct ValidateOutput<'a> {
    /// Whether the message is valid (no errors).
    pub valid: bool,
    /// Every error: about the message when the exit status is 0 or 1, about
    /// the template or the inputs when it is 2.
    pub errors: Vec<Entry<'a>>,
    /// Every warning about the message.
    pub warnings: Vec<Entry<'a>>,
    /// The payload with defaults applied, when valid; `null` otherwise.
    pub normalized: Option<&'a Normalized<'a>>,
}

impl<'a> ValidateOutput<'a> {
    /// A validation's report, with the patch entries the merge skipped
    /// among its warnings (first).
    pub fn of(report: &'a Report<'a>, skipped: &'a [Issue]) -> Self {
        let mut warnings = entries(skipped);
        warnings.extend(entries(report.warnings()));
        Self {
            valid: report.is_valid(),
            errors: entries(report.errors()),
            warnings,
            normalized: report.normalized(),
        }
    }
}

/// The object `sdsi check-template` prints.
#[derive(Debug, Serialize)]
pub struct CheckOutput<'a> {
    /// Whether the template is usable (no errors).
    pub valid: bool,
    /// Every error, with JSON Pointers into the template.
    pub errors: Vec<Entry<'a>>,
    /// Every warning; a valid template may have some.
    pub warnings: Vec<Entry<'a>>,
}

/// How the JSON object is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One line (the default).
    Compact,
    /// Indented, over several lines (`--pretty`).
    Pretty,
}

/// A command's result: its exit status and the JSON text to print.
#[derive(Debug)]
pub struct Outcome {
    status: Status,
    /// The serialized object, or why serialization failed.
    body: Result<String, serde_json::Error>,
}

impl Outcome {
    /// Serializes `object` in `format`, to be printed with `status`.
    pub fn new(status: Status, object: &impl Serialize, format: Format) -> Self {
        let body = match format {
            Format::Compact => serde_json::to_string(object),
            Format::Pretty => serde_json::to_string_pretty(object),
        };
        Self { status, body }
    }

    /// An outcome whose output was already streamed: `emit` prints nothing more.
    pub fn streamed(status: Status) -> Self {
        Self {
            status,
            body: Ok(String::new()),
        }
    }

    /// A streaming command's command-level error: the line
    /// `{"event": "error", "errors": [...]}`, printed last, exit 2. Every
    /// streaming mode (`validate --jsonl`, `cluster`, `evolve`) ends a run it
    /// cannot finish with this line, before or after other lines.
    pub fn stream_error(errors: &[Entry<'_>]) -> Self {
        let object = StreamError {
            event: "error",
            errors,
        };
        Self::new(Status::Unusable, &object, Format::Compact)
    }

    /// Prints the object on stdout and returns the exit code.
    ///
    /// Serializing cannot fail for these types (every map key is a string);
    /// were it to, or were stdout closed, this prints a fallback object (or a
    /// line on stderr) and exits 2 rather than panicking.
    pub fn emit(self) -> ExitCode {
        let (text, status) = match self.body {
            Ok(text) => (text, self.status),
            Err(error) => (fallback(&error), Status::Unusable),
        };
        let mut stdout = io::stdout().lock();
        let written = if text.is_empty() {
            Ok(())
        } else {
            writeln!(stdout, "{text}")
        };
        match written.and_then(|()| stdout.flush()) {
            Ok(()) => ExitCode::from(status.code()),
            Err(error) => {
                let _ = writeln!(io::stderr(), "sdsi: cannot write output: {error}");
                ExitCode::from(Status::Unusable.code())
            }
        }
    }
}

/// The line a streaming command ends with when it cannot go on.
#[derive(Serialize)]
struct StreamError<'a, 'b> {
    /// Always `"error"`, so that `evolve`'s consumers, who read `event`,
    /// meet it where they look; the other streams carry it too.
    event: &'static str,
    /// Why, as entries `{"code", "path", "message"}`.
    errors: &'a [Entry<'b>],
}

/// The object printed when the real one cannot be serialized.
fn fallback(error: &serde_json::Error) -> String {
    let message = Value::String(format!("cannot serialize output: {error}"));
    format!(
        r#"{{"valid":false,"errors":[{{"code":"internal_error","path":"","message":{message}}}],"warnings":[]}}"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_entries_serialize_like_issues() {
        let unreadable = Entry::unreadable("a.json", "gone");
        assert_eq!(
            serde_json::to_string(&unreadable).unwrap(),
            r#"{"code":"unreadable_input","path":"","message":"cannot read a.json: gone"}"#
        );
        let large = Entry::too_large(10);
        assert_eq!(
            serde_json::to_value(&large).unwrap(),
            serde_json::json!({"code": "limit_exceeded", "path": "",
                "message": "input size in bytes exceeds the limit of 10", "limit": 10})
        );
    }

    #[test]
    fn a_stream_error_is_one_line_with_event_and_errors() {
        let outcome = Outcome::stream_error(&[Entry::unwritable("s.db", "full")]);
        assert_eq!(outcome.status, Status::Unusable);
        assert_eq!(
            outcome.body.unwrap(),
            r#"{"event":"error","errors":[{"code":"unwritable_output","path":"","message":"cannot write s.db: full"}]}"#
        );
    }

    #[test]
    fn fallback_is_a_json_object() {
        let error = serde_json::from_str::<Value>("\"").unwrap_err();
        let value: Value = serde_json::from_str(&fallback(&error)).unwrap();
        assert_eq!(value["valid"], false);
        assert_eq!(value["errors"][0]["code"], "internal_error");
    }

    #[test]
    fn exit_codes() {
        assert_eq!(Status::Valid.code(), 0);
        assert_eq!(Status::Invalid.code(), 1);
        assert_eq!(Status::Unusable.code(), 2);
    }
}
