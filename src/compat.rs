//! Compatibility between versions of a schema template, with the semantics
//! of Confluent Schema Registry's JSON Schema checks for a *closed* content
//! model (`"additionalProperties": false`) and its modes (BACKWARD, FORWARD,
//! FULL and their TRANSITIVE forms), so a schema owner can check a new
//! version in CI.
//!
//! A template *reads* a payload when
//! [`CompiledSchema::validate_payload`] accepts it. A new version is
//! **backward** compatible when it reads every payload the old version read
//! (clients still on the old template keep working), **forward** compatible
//! when the old version reads every payload the new one reads (servers still
//! on the old template accept clients that moved on), **full** when both.
//! The transitive forms check against every earlier version, the others
//! against the latest only.
//!
//! What is compared is the payload, never the message's `schema_id`: the id
//! names the version a message was written for, so it differs between
//! versions by design (a server that serves several versions routes on it).
//! The registry likewise treats a changed `$id` as compatible. A template is a
//! closed content model because the validator rejects unknown keys by
//! default; where sdsi's verdict differs from the registry's, the reason is
//! the validator's own rules (a required key's default is never applied;
//! an optional key reads `null` as "not given"), listed in
//! `docs/interop.md` §8.
//!
//! Each [`ChangeCode`] names an edit from the old version to the new one;
//! [`Change::direction`] says which check it breaks, and an edit that breaks
//! both is listed once for each direction the mode checks.
//!
//! ```
//! use sdsi::SchemaTemplate;
//! use sdsi::compat::{Direction, Mode, check};
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
//! assert_eq!(report.breaking()[0].direction, Direction::Backward);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`CompiledSchema::validate_payload`]: crate::CompiledSchema::validate_payload

use std::collections::HashMap;
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

    /// Whether the mode checks payloads travelling in `direction`.
    fn checks(self, direction: Direction) -> bool {
        match direction {
            Direction::Backward => self.backward(),
            Direction::Forward => self.forward(),
        }
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

/// What changed between two versions: an edit from the old version to the
/// new one. Which check it breaks is [`Change::direction`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ChangeCode {
    /// A required key the new version has and the old one does not. Breaks
    /// backward (payloads for the old version do not carry it, and a default
    /// does not help: only optional keys get defaults) and forward (the old
    /// version rejects it as unknown).
    RequiredKeyAdded,
    /// An optional key the new version has and the old one does not. Breaks
    /// forward: the old version rejects it as unknown.
    KeyAdded,
    /// A key the old version has and the new one does not. Breaks backward
    /// (the new version rejects it as unknown, under the default
    /// `UnknownKeys::Reject`), and forward when the old version requires it.
    KeyRemoved,
    /// An optional key made required. Breaks backward: payloads for the old
    /// version may omit it.
    KeyMadeRequired,
    /// A required key made optional. Breaks forward: payloads for the new
    /// version may omit it, and the old version requires it.
    KeyMadeOptional,
    /// A key's type changed so that the reading version does not take every
    /// value of the writing one (`integer` → `number` breaks forward only;
    /// a `null` key made an optional key of any type breaks forward only,
    /// since an optional key reads `null` as "not given").
    TypeChanged,
    /// The default of a key optional in both versions changed: no payload
    /// becomes invalid, but a payload that omits the key is normalized
    /// with the reader's default, not the writer's. Not breaking.
    DefaultChanged,
}

impl ChangeCode {
    /// The code's name (`required_key_added`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeCode::RequiredKeyAdded => "required_key_added",
            ChangeCode::KeyAdded => "key_added",
            ChangeCode::KeyRemoved => "key_removed",
            ChangeCode::KeyMadeRequired => "key_made_required",
            ChangeCode::KeyMadeOptional => "key_made_optional",
            ChangeCode::TypeChanged => "type_changed",
            ChangeCode::DefaultChanged => "default_changed",
        }
    }

    /// Whether a change of this kind makes some payload unreadable (in the
    /// change's direction).
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
    /// Which check found it: the reader is the new version (backward) or
    /// the old one (forward).
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
    /// Every change, breaking ones first, then by version, path and
    /// direction (backward first).
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
        let new_keys = index(new);
        for (version, old) in history.iter().enumerate().skip(start) {
            let mut found = Found {
                mode,
                version,
                changes: &mut changes,
            };
            found.compare(old, new, &new_keys);
        }
    }
    changes.sort_by_key(|c| {
        (
            !c.code.is_breaking(),
            c.version,
            c.in_old,
            key_index(&c.path),
            c.direction == Direction::Forward,
        )
    });
    CompatReport {
        mode,
        compatible: changes.iter().all(|c| !c.code.is_breaking()),
        changes,
    }
}

/// A template's keys by name, each with its position (the first, should a
/// name repeat, as [`SchemaTemplate::key`] finds it).
type Index<'a> = HashMap<&'a str, (usize, &'a KeyDefinition)>;

fn index(template: &SchemaTemplate) -> Index<'_> {
    let mut keys = HashMap::with_capacity(template.keys.len());
    for (at, key) in template.keys.iter().enumerate() {
        keys.entry(key.key_name.as_str()).or_insert((at, key));
    }
    keys
}

/// Where a change points: `/keys/{index}` in the new template, or in the old
/// one for a key the new template does not have.
#[derive(Clone, Copy)]
struct At {
    index: usize,
    in_old: bool,
}

impl At {
    /// The key at `index` in the new template.
    fn new(index: usize) -> Self {
        Self {
            index,
            in_old: false,
        }
    }

    /// The key at `index` in the old template.
    fn old(index: usize) -> Self {
        Self {
            index,
            in_old: true,
        }
    }
}

/// The changes found so far, and what to record.
struct Found<'a> {
    mode: Mode,
    version: usize,
    changes: &'a mut Vec<Change>,
}

impl Found<'_> {
    /// Every edit from `old` to `new`, in the directions the mode checks.
    fn compare(&mut self, old: &SchemaTemplate, new: &SchemaTemplate, new_keys: &Index<'_>) {
        let old_keys = index(old);
        for (index, was) in old.keys.iter().enumerate() {
            match new_keys.get(was.key_name.as_str()) {
                Some(&(index, is)) => self.changed(was, is, At::new(index)),
                // `other` is accepted whether a version declares it or not.
                None if was.key_name.is_other() => {}
                None => self.removed(was, At::old(index)),
            }
        }
        for (index, is) in new.keys.iter().enumerate() {
            if !is.key_name.is_other() && !old_keys.contains_key(is.key_name.as_str()) {
                self.added(is, At::new(index));
            }
        }
    }

    fn added(&mut self, is: &KeyDefinition, at: At) {
        let name = is.key_name.as_str();
        if is.required {
            self.note(ChangeCode::RequiredKeyAdded, name, at, Direction::Backward, || {
                format!("the new version requires key {name:?}, which payloads for the old version do not carry")
            });
            self.note(ChangeCode::RequiredKeyAdded, name, at, Direction::Forward, || {
                format!("payloads for the new version carry key {name:?}, which the old version rejects as unknown")
            });
        } else {
            self.note(ChangeCode::KeyAdded, name, at, Direction::Forward, || {
                format!("payloads for the new version may carry key {name:?}, which the old version rejects as unknown")
            });
        }
    }

    fn removed(&mut self, was: &KeyDefinition, at: At) {
        let name = was.key_name.as_str();
        self.note(ChangeCode::KeyRemoved, name, at, Direction::Backward, || {
            format!("payloads for the old version may carry key {name:?}, which the new version rejects as unknown")
        });
        if was.required {
            self.note(ChangeCode::KeyRemoved, name, at, Direction::Forward, || {
                format!("the old version requires key {name:?}, which payloads for the new version do not carry")
            });
        }
    }

    fn changed(&mut self, was: &KeyDefinition, is: &KeyDefinition, at: At) {
        let name = was.key_name.as_str();
        // `other` always takes a string or strings, whatever either version
        // declares: only its default can change what a server sees.
        if !was.key_name.is_other() {
            if is.required && !was.required {
                self.note(ChangeCode::KeyMadeRequired, name, at, Direction::Backward, || {
                    format!("the new version requires key {name:?}, which payloads for the old version may omit")
                });
            }
            if was.required && !is.required {
                self.note(ChangeCode::KeyMadeOptional, name, at, Direction::Forward, || {
                    format!("payloads for the new version may omit key {name:?}, which the old version requires")
                });
            }
            if !takes(is, was) {
                self.note(ChangeCode::TypeChanged, name, at, Direction::Backward, || {
                    format!(
                        "key {name:?} is {} in the new version, which does not take every {} value of the old version",
                        is.key_type, was.key_type
                    )
                });
            }
            if !takes(was, is) {
                self.note(ChangeCode::TypeChanged, name, at, Direction::Forward, || {
                    format!(
                        "key {name:?} is {} in the old version, which does not take every {} value of the new version",
                        was.key_type, is.key_type
                    )
                });
            }
        }
        // A default fills in a key the payload omits, and only an optional
        // key's: the reader's default replaces the writer's either way.
        let (before, after) = (was.effective_default(), is.effective_default());
        if !was.required && !is.required && before != after {
            let (before, after) = (shown(before), shown(after));
            self.note(ChangeCode::DefaultChanged, name, at, Direction::Backward, || {
                format!("payloads for the old version that omit key {name:?} get {after} from the new version instead of {before}")
            });
            self.note(ChangeCode::DefaultChanged, name, at, Direction::Forward, || {
                format!("payloads for the new version that omit key {name:?} get {before} from the old version instead of {after}")
            });
        }
    }

    /// Records a change in `direction` when the mode checks that direction.
    fn note(
        &mut self,
        code: ChangeCode,
        key: &str,
        at: At,
        direction: Direction,
        message: impl FnOnce() -> String,
    ) {
        if !self.mode.checks(direction) {
            return;
        }
        self.changes.push(Change {
            code,
            key: key.to_owned(),
            path: format!("/keys/{}", at.index),
            in_old: at.in_old,
            version: self.version,
            direction,
            message: message(),
        });
    }
}

/// A default as a message shows it.
fn shown(default: Option<&serde_json::Value>) -> String {
    default.map_or_else(|| "no value".to_owned(), ToString::to_string)
}

/// Whether key `reader` takes every value a payload may carry in key
/// `writer`: the same type, an integer where a number is wanted, or the
/// `null` of a `null` key in an optional key, which reads it as "not given".
/// (The `null` an optional writer may send is taken by any optional reader;
/// a required reader of an optional writer is `key_made_required` already.)
fn takes(reader: &KeyDefinition, writer: &KeyDefinition) -> bool {
    let (r, w) = (reader.key_type, writer.key_type);
    r == w
        || (r == KeyType::Number && w == KeyType::Integer)
        || (w == KeyType::Null && !reader.required)
}

/// `/keys/12` → 12, for ordering; anything else first.
fn key_index(path: &str) -> usize {
    path.rsplit('/')
        .next()
        .and_then(|i| i.parse().ok())
        .unwrap_or(0)
}
