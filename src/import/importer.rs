//! The import's running state: the keys made so far and every difference
//! reported, plus the vocabulary the readers of the schema share.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode, Problems};
use crate::key::KeyDefinition;
use crate::template::TemplateError;

/// Keywords that describe rather than constrain: read or safely ignored
/// wherever they appear.
pub(super) const ANNOTATIONS: [&str; 8] = [
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "examples",
    "readOnly",
    "writeOnly",
];

/// The most differences an import lists; the rest are counted in one last
/// issue. A schema's author reads the list, and a hostile schema must not
/// make it unbounded.
pub(super) const MAX_REPORTS: usize = 1000;

/// The most bytes of paths and messages an import lists: a path holds the
/// property's name, so a long name in many reports would add up.
pub(super) const MAX_REPORT_BYTES: usize = 1 << 20;

/// Whether `keyword` only describes.
pub(super) fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword)
}

/// The keys made so far and what was reported on the way.
#[derive(Default)]
pub(super) struct Importer {
    keys: Vec<KeyDefinition>,
    unsupported: Vec<Issue>,
    /// Bytes of the paths and messages listed.
    listed_bytes: usize,
    /// Differences found past the bounds, counted only.
    not_listed: usize,
    /// The schema objects whose keywords were reported, by address: one
    /// that many properties reach (a shared `$defs` entry) is reported once.
    reported_schemas: HashSet<usize>,
}

impl Importer {
    /// Records a difference between the schema and the template, at `path`
    /// in the input.
    pub(super) fn report(&mut self, path: String, message: String) {
        self.report_with(|| (path, message));
    }

    /// Records the difference `make` writes (path and message), calling it
    /// only if the list has room: a report repeated for each property that
    /// reaches one place costs nothing once the list is full.
    pub(super) fn report_with(&mut self, make: impl FnOnce() -> (String, String)) {
        if self.unsupported.len() >= MAX_REPORTS || self.listed_bytes >= MAX_REPORT_BYTES {
            self.not_listed = self.not_listed.saturating_add(1);
            return;
        }
        let (path, message) = make();
        self.listed_bytes = self
            .listed_bytes
            .saturating_add(path.len())
            .saturating_add(message.len());
        self.unsupported
            .push(Issue::owned(IssueCode::NotExpressible, path, message));
    }

    /// Whether the keywords of `schema`, reached through a reference or an
    /// optional form, are still to be reported (and from now on, not).
    pub(super) fn first_report_of(&mut self, schema: &Map<String, Value>) -> bool {
        // The address names the object for the length of the import, which
        // borrows the input throughout.
        self.reported_schemas
            .insert(std::ptr::from_ref(schema).addr())
    }

    /// Adds a key made from a property.
    pub(super) fn push_key(&mut self, key: KeyDefinition) {
        self.keys.push(key);
    }

    /// The keys, in the schema's order, and the reports, in document order,
    /// ending with how many were not listed, if any.
    pub(super) fn into_parts(mut self) -> (Vec<KeyDefinition>, Vec<Issue>) {
        if self.not_listed > 0 {
            let more = match self.not_listed {
                1 => "1 more difference is".to_owned(),
                n => format!("{n} more differences are"),
            };
            self.unsupported.push(Issue::owned(
                IssueCode::NotExpressible,
                String::new(),
                format!(
                    "{more} not listed: an import lists at most {MAX_REPORTS}, in at most {} MiB of paths and messages",
                    MAX_REPORT_BYTES >> 20
                ),
            ));
        }
        (self.keys, self.unsupported)
    }
}

/// The error for an input no template can be made from.
pub(super) fn refuse(code: IssueCode, path: &str, message: &str) -> TemplateError {
    TemplateError::from(Problems::error(Issue::owned(
        code,
        path.to_owned(),
        message.to_owned(),
    )))
}
