//! The import's running state: the keys made so far and every difference
//! reported, plus the vocabulary the readers of the schema share.

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

/// Whether `keyword` only describes.
pub(super) fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword)
}

/// The keys made so far and what was reported on the way.
#[derive(Default)]
pub(super) struct Importer {
    keys: Vec<KeyDefinition>,
    unsupported: Vec<Issue>,
}

impl Importer {
    /// Records a difference between the schema and the template, at `path`
    /// in the input.
    pub(super) fn report(&mut self, path: String, message: String) {
        self.unsupported
            .push(Issue::owned(IssueCode::NotExpressible, path, message));
    }

    /// Adds a key made from a property.
    pub(super) fn push_key(&mut self, key: KeyDefinition) {
        self.keys.push(key);
    }

    /// The keys, in the schema's order, and the reports, in document order.
    pub(super) fn into_parts(self) -> (Vec<KeyDefinition>, Vec<Issue>) {
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
