//! The store's serialized form: everything a server needs to carry on after
//! a restart (base, accepted and queued patches, the ids it took, the
//! lifecycle with its metric windows, what each client was told, the
//! proposals held for an operator and the denials remembered), versioned.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{CompiledCache, SchemaStore, Taken, Waiting};
use crate::key::{KeyDefinition, KeyName};
use crate::patch::review::Review;
use crate::patch::{Lifecycle, SchemaPatch};
use crate::template::SchemaTemplate;
use crate::validate::ValidateOptions;

/// The snapshot format's name, in its `format` member.
const STORE_FORMAT: &str = "sdsi.store";

/// The version of the store's serialized form this crate writes and reads.
/// A snapshot of another version is refused with a clear error rather than
/// read wrongly; the version changes whenever the form does.
pub const STORE_FORMAT_VERSION: u32 = 1;

/// Borrowed, for writing. Maps are ordered so one state always serializes
/// to the same bytes.
#[derive(Serialize)]
struct SnapshotRef<'a> {
    format: &'static str,
    version: u32,
    base: &'a SchemaTemplate,
    options: &'a ValidateOptions,
    global: &'a [SchemaPatch],
    personal: BTreeMap<&'a str, &'a Vec<SchemaPatch>>,
    queue: &'a VecDeque<Waiting>,
    seen: BTreeMap<&'a str, &'a Taken>,
    personal_names: BTreeMap<&'a KeyName, &'a BTreeSet<String>>,
    lifecycle: &'a Lifecycle,
    delivered: BTreeMap<&'a str, BTreeMap<&'a KeyName, &'a KeyDefinition>>,
    generation: u64,
    #[serde(skip_serializing_if = "Review::is_empty")]
    review: &'a Review,
}

/// Owned, for reading. Every member but the header is optional here, so
/// that a snapshot of another format or version is named as such rather
/// than as a missing member.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot {
    format: String,
    version: u32,
    base: Option<SchemaTemplate>,
    options: Option<ValidateOptions>,
    global: Option<Vec<SchemaPatch>>,
    personal: Option<HashMap<String, Vec<SchemaPatch>>>,
    queue: Option<VecDeque<Waiting>>,
    seen: Option<HashMap<String, Taken>>,
    personal_names: Option<HashMap<KeyName, BTreeSet<String>>>,
    lifecycle: Option<Lifecycle>,
    delivered: Option<HashMap<String, HashMap<KeyName, KeyDefinition>>>,
    generation: Option<u64>,
    /// Absent in snapshots written before the operator loop, or with
    /// nothing held or denied.
    #[serde(default)]
    review: Review,
}

/// Refuses a saved form (`what`: "schema store snapshot", "evolution
/// state") whose `(format, version)` is not the `expected` one, naming both.
pub(crate) fn check_header<E: serde::de::Error>(
    what: &str,
    (format, version): (&str, u32),
    (expected_format, expected_version): (&str, u32),
) -> Result<(), E> {
    if format != expected_format {
        return Err(E::custom(format!(
            "not a {what}: format {format:?}, expected {expected_format:?}"
        )));
    }
    if version != expected_version {
        return Err(E::custom(format!(
            "{what} version {version} is not supported (this build reads version {expected_version})"
        )));
    }
    Ok(())
}

/// `value`, or an error naming the missing member.
fn member<T, E: serde::de::Error>(value: Option<T>, name: &str) -> Result<T, E> {
    value.ok_or_else(|| E::custom(format!("schema store snapshot has no `{name}`")))
}

/// Writes the store's state as a versioned snapshot (`{"format":
/// "sdsi.store", "version": 1, ...}`). The signing key of
/// [`SchemaStore::require_signatures`] is a secret and is never written:
/// give it again after restoring. The compiled-schema cache is not written
/// either; it fills again on use.
impl Serialize for SchemaStore {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SnapshotRef {
            format: STORE_FORMAT,
            version: STORE_FORMAT_VERSION,
            base: &self.base,
            options: &self.options,
            global: &self.global,
            personal: self.personal.iter().map(|(k, v)| (k.as_str(), v)).collect(),
            queue: &self.queue,
            seen: self.seen.iter().map(|(k, v)| (k.as_str(), v)).collect(),
            personal_names: self.personal_names.iter().collect(),
            lifecycle: &self.lifecycle,
            delivered: self
                .delivered
                .iter()
                .map(|(client, keys)| (client.as_str(), keys.iter().collect()))
                .collect(),
            generation: self.generation,
            review: &self.review,
        }
        .serialize(serializer)
    }
}

/// Reads a snapshot written by [`Serialize`]: a snapshot of another format
/// or version, a base template that is not valid, or a lifecycle whose
/// indexes do not fit its records (a damaged file) is an error, never a
/// store that behaves wrongly. The restored store requires no signatures
/// until [`SchemaStore::require_signatures`] is called again.
impl<'de> Deserialize<'de> for SchemaStore {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let s = Snapshot::deserialize(deserializer)?;
        check_header(
            "schema store snapshot",
            (&s.format, s.version),
            (STORE_FORMAT, STORE_FORMAT_VERSION),
        )?;
        let base: SchemaTemplate = member(s.base, "base")?;
        let lifecycle: Lifecycle = member(s.lifecycle, "lifecycle")?;
        let check = base.check();
        if !check.is_valid() {
            return Err(D::Error::custom(format!(
                "the snapshot's base template is not valid: {}",
                crate::template::TemplateError::from(check)
            )));
        }
        if !lifecycle.is_consistent() {
            return Err(D::Error::custom(
                "the snapshot's lifecycle is damaged: an index points past its records",
            ));
        }
        Ok(SchemaStore {
            base,
            global: member(s.global, "global")?,
            personal: member(s.personal, "personal")?,
            queue: member(s.queue, "queue")?,
            seen: member(s.seen, "seen")?,
            personal_names: member(s.personal_names, "personal_names")?,
            lifecycle,
            options: member(s.options, "options")?,
            delivered: member(s.delivered, "delivered")?,
            signer: None,
            review: s.review,
            generation: member(s.generation, "generation")?,
            compiled: CompiledCache::default(),
        })
    }
}
