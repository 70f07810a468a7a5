//! Compatibility between versions of a schema template, in the terms schema
//! registries use (Confluent's BACKWARD, FORWARD, FULL and their TRANSITIVE
//! forms), so a schema owner can check a new version in CI.
//!
//! A template *reads* a payload when [`CompiledSchema::validate`]
//! accepts it. A new version is **backward** compatible when it reads every
//! payload the old version read (clients still on the old template keep
//! working), **forward** compatible when the old version reads every payload
//! the new one reads (servers still on the old template accept clients that
//! moved on), **full** when both. The transitive forms check against every
//! earlier version, the others against the latest only.
//!
//! ```
//! use sdsi::SchemaTemplate;
//! use sdsi::compat::{Mode, check};
//! use serde_json::json;
//!
//! let v1 = SchemaTemplate::from_value(&json!({"schema_id": "coffee_v1", "scenario": "coffee",
//!     "keys": [{"key_name": "size", "key_type": "string", "required": true, "semantic_description": "Cup size."}]}))?;
//! let v2 = SchemaTemplate::from_value(&json!({"schema_id": "coffee_v2", "scenario": "coffee",
//!     "keys": [{"key_name": "size", "key_type": "string", "required": true, "semantic_description": "Cup size."},
//!              {"key_name": "milk", "key_type": "string", "required": true, "semantic_description": "Milk."}]}))?;
//! let report = check(&[v1], &v2, Mode::Backward);
//! assert!(!report.is_compatible());
//! assert_eq!(report.breaking()[0].code.as_str(), "required_key_added");
//! assert_eq!(report.breaking()[0].path, "/keys/1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`CompiledSchema::validate`]: crate::CompiledSchema::validate

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::key::{KeyDefinition, KeyType};
use crate::template::SchemaTemplate;

/// Which versions must read which payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Mode {
    /// The new version reads what the latest old one read.
    Backward,
    /// ... what every old version read.
    BackwardTransitive,
    /// The latest old version reads what the new one reads.
    Forward,
    /// Every old version reads what the new one reads.
    ForwardTransitive,
    /// Backward and forward against the latest old version.
    Full,
    /// Backward and forward against every old version.
    FullTransitive,
    /// No check.
    None,
}

impl Mode {
    /// Every mode, in the order of [`Mode::as_str`]'s names.
    pub const ALL: &'static [Mode] = &[
        Mode::Backward,
        Mode::BackwardTransitive,
        Mode::Forward,
        Mode::ForwardTransitive,
        Mode::Full,
        Mode::FullTransitive,
        Mode::None,
    ];

    /// The registry's name, in snake case (`backward_transitive`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Backward => "backward",
            Mode::BackwardTransitive => "backward_transitive",
            Mode::Forward => "forward",
            Mode::ForwardTransitive => "forward_transitive",
            Mode::Full => "full",
            Mode::FullTransitive => "full_transitive",
            Mode::None => "none",
        }
    }

    fn backward(self) -> bool {
        matches!(
            self,
            Mode::Backward | Mode::BackwardTransitive | Mode::Full | Mode::FullTransitive
        )
    }

    fn forward(self) -> bool {
        matches!(
            self,
            Mode::Forward | Mode::ForwardTransitive | Mode::Full | Mode::FullTransitive
        )
    }

    fn transitive(self) -> bool {
        matches!(
            self,
            Mode::BackwardTransitive | Mode::ForwardTransitive | Mode::FullTransitive
        )
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is not one of [`Mode::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown compatibility mode {0:?}: expected backward, backward_transitive, forward, forward_transitive, full, full_transitive or none"
)]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;
    /// Reads a mode name, in any case, with `_` or `-` (`BACKWARD_TRANSITIVE`,
    /// `full-transitive`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase().replace('-', "_");
        Mode::ALL
            .iter()
            .copied()
            .find(|mode| mode.as_str() == wanted)
            .ok_or_else(|| UnknownMode(text.to_owned()))
    }
}

/// What changed between two versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChangeCode {
    /// A required key the reading version has and the writing one does not
    /// (a default does not help: only optional keys get defaults).
    RequiredKeyAdded,
    /// A key the writing version has and the reading one does not (it
    /// rejects the key as unknown, under the default policy).
    KeyRemoved,
    /// An optional key became required in the reading version.
    KeyMadeRequired,
    /// The reading version's type does not take every value of the
    /// writing version's (`integer` → `number` is fine, the reverse is not).
    TypeChanged,
    /// A key's default changed: no payload becomes invalid, but the
    /// normalized payload a server sees differs. Not breaking.
    DefaultChanged,
}

impl ChangeCode {
    /// The code's name (`required_key_added`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeCode::RequiredKeyAdded => "required_key_added",
            ChangeCode::KeyRemoved => "key_removed",
            ChangeCode::KeyMadeRequired => "key_made_required",
            ChangeCode::TypeChanged => "type_changed",
            ChangeCode::DefaultChanged => "default_changed",
        }
    }

    /// Whether a change of this kind makes some payload unreadable.
    pub fn is_breaking(self) -> bool {
        !matches!(self, ChangeCode::DefaultChanged)
    }
}

/// Which way a payload travels in a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The new version reads payloads written for an old one.
    Backward,
    /// An old version reads payloads written for the new one.
    Forward,
}

/// One change found, breaking or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// What kind of change.
    pub code: ChangeCode,
    /// The key concerned.
    pub key: String,
    /// A JSON Pointer to the key in the new template (`/keys/2`), or in the
    /// old one when the new template does not have it (`in_old`).
    pub path: String,
    /// Whether `path` points into the old template.
    pub in_old: bool,
    /// The old version compared: its index in the history (0 is the oldest).
    pub version: usize,
    /// Which check found it.
    pub direction: Direction,
    /// A readable, lowercase explanation.
    pub message: String,
}

/// The result of [`check`]: every change found, breaking ones first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CompatReport {
    /// The mode checked.
    pub mode: Mode,
    /// Whether no breaking change was found.
    pub compatible: bool,
    /// Every change, breaking ones first, then by version and path.
    pub changes: Vec<Change>,
}

impl CompatReport {
    /// Whether no breaking change was found.
    pub fn is_compatible(&self) -> bool {
        self.compatible
    }

    /// The breaking changes.
    pub fn breaking(&self) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|c| c.code.is_breaking())
            .collect()
    }
}

/// Checks `new` against `history` (oldest first) under `mode`. An empty
/// history is compatible.
pub fn check(history: &[SchemaTemplate], new: &SchemaTemplate, mode: Mode) -> CompatReport {
    let start = if mode.transitive() {
        0
    } else {
        history.len().saturating_sub(1)
    };
    let mut changes = Vec::new();
    if mode != Mode::None {
        for (version, old) in history.iter().enumerate().skip(start) {
            if mode.backward() {
                compare(new, old, Direction::Backward, version, &mut changes);
            }
            if mode.forward() {
                compare(old, new, Direction::Forward, version, &mut changes);
            }
            default_changes(old, new, version, &mut changes);
        }
    }
    changes.sort_by_key(|c| {
        (
            !c.code.is_breaking(),
            c.version,
            c.in_old,
            key_index(&c.path),
        )
    });
    CompatReport {
        mode,
        compatible: changes.iter().all(|c| !c.code.is_breaking()),
        changes,
    }
}

/// The changes that keep `reader` from reading every payload `writer` reads.
fn compare(
    reader: &SchemaTemplate,
    writer: &SchemaTemplate,
    direction: Direction,
    version: usize,
    changes: &mut Vec<Change>,
) {
    // Paths point into the new template when it has the key.
    let (new, old) = match direction {
        Direction::Backward => (reader, writer),
        Direction::Forward => (writer, reader),
    };
    let mut push = |code: ChangeCode, key: &KeyDefinition, message: String| {
        let name = key.key_name.as_str();
        let (path, in_old) = match position(new, name) {
            Some(i) => (format!("/keys/{i}"), false),
            None => (
                position(old, name).map_or_else(String::new, |i| format!("/keys/{i}")),
                true,
            ),
        };
        changes.push(Change {
            code,
            key: name.to_owned(),
            path,
            in_old,
            version,
            direction,
            message,
        });
    };
    let (reader_name, writer_name) = match direction {
        Direction::Backward => ("the new version", "the old version"),
        Direction::Forward => ("the old version", "the new version"),
    };
    for key in reader.keys.iter().filter(|k| !k.key_name.is_other()) {
        let name = key.key_name.as_str();
        match writer.key(name) {
            None if key.required => push(
                ChangeCode::RequiredKeyAdded,
                key,
                format!(
                    "{reader_name} requires key {name:?}, which payloads for {writer_name} do not carry"
                ),
            ),
            None => {}
            Some(written) => {
                if key.required && !written.required {
                    push(
                        ChangeCode::KeyMadeRequired,
                        key,
                        format!(
                            "{reader_name} requires key {name:?}, which is optional in {writer_name}"
                        ),
                    );
                }
                if !takes(key.key_type, written.key_type) {
                    push(
                        ChangeCode::TypeChanged,
                        key,
                        format!(
                            "key {name:?} is {} in {reader_name}, which does not take every {} value of {writer_name}",
                            key.key_type, written.key_type
                        ),
                    );
                }
            }
        }
    }
    for key in writer.keys.iter().filter(|k| !k.key_name.is_other()) {
        let name = key.key_name.as_str();
        if reader.key(name).is_none() {
            push(
                ChangeCode::KeyRemoved,
                key,
                format!(
                    "payloads for {writer_name} may carry key {name:?}, which {reader_name} rejects as unknown"
                ),
            );
        }
    }
}

/// Keys in both versions whose default differs (not breaking).
fn default_changes(
    old: &SchemaTemplate,
    new: &SchemaTemplate,
    version: usize,
    changes: &mut Vec<Change>,
) {
    for (index, key) in new.keys.iter().enumerate() {
        let name = key.key_name.as_str();
        let Some(before) = old.key(name) else {
            continue;
        };
        let (was, is) = (before.effective_default(), key.effective_default());
        if was != is {
            let show = |v: Option<&serde_json::Value>| {
                v.map_or_else(|| "none".to_owned(), ToString::to_string)
            };
            changes.push(Change {
                code: ChangeCode::DefaultChanged,
                key: name.to_owned(),
                path: format!("/keys/{index}"),
                in_old: false,
                version,
                direction: Direction::Backward,
                message: format!(
                    "the default of key {name:?} changed from {} to {}",
                    show(was),
                    show(is)
                ),
            });
        }
    }
}

/// Whether a key of type `reader` accepts every value a key of type
/// `writer` accepts.
fn takes(reader: KeyType, writer: KeyType) -> bool {
    reader == writer || (reader == KeyType::Number && writer == KeyType::Integer)
}

fn position(template: &SchemaTemplate, name: &str) -> Option<usize> {
    template
        .keys
        .iter()
        .position(|k| k.key_name.as_str() == name)
}

/// `/keys/12` → 12, for ordering; anything else first.
fn key_index(path: &str) -> usize {
    path.rsplit('/')
        .next()
        .and_then(|i| i.parse().ok())
        .unwrap_or(0)
}
