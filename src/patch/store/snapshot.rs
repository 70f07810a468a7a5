//! The store's serialized form: everything a server needs to carry on after
//! a restart (base, accepted and queued patches, the ids it took, the
//! lifecycle with its metric windows, what each client was told, the
//! proposals held for an operator and the denials remembered), versioned.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::cache::CompiledCache;
#[cfg(feature = "evolution")]
use super::rows::StoreRows;
use super::schema_store::{SchemaStore, Taken, Waiting};
use super::seal::{Seal, SealError, SealPin};
use crate::key::{KeyDefinition, KeyName};
use crate::patch::integrity::Signer;
use crate::patch::lifecycle::records::Lifecycle;
use crate::patch::review::Review;
use crate::patch::schema_patch::SchemaPatch;
use crate::template::SchemaTemplate;
use crate::validate::ValidateOptions;

/// The snapshot format's name, in its `format` member.
const STORE_FORMAT: &str = "sdsi.store";

/// The version of the store's serialized form this crate writes and reads.
/// A snapshot of another version is refused with a clear error rather than
/// read wrongly; the version changes whenever the form does.
pub const STORE_FORMAT_VERSION: u32 = 1;

/// Borrowed, for writing. Maps are ordered so one state always serializes
/// to the same bytes. The lifecycle and the delivered keys are whole (`L`,
/// `D` as defaulted) or, in the header of a store kept as rows, without
/// what the rows hold ([`SchemaStore::split_rows`]).
#[derive(Serialize)]
struct SnapshotRef<'a, L = &'a Lifecycle, D = BTreeMap<&'a str, BTreeMap<&'a KeyName, Told>>> {
    /// Only in a split header, and first: see [`COUNTS_IN_ROWS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    counts_in_rows: Option<bool>,
    format: &'static str,
    version: u32,
    base: &'a SchemaTemplate,
    options: &'a ValidateOptions,
    global: &'a [SchemaPatch],
    personal: BTreeMap<&'a str, &'a Vec<SchemaPatch>>,
    queue: &'a VecDeque<Waiting>,
    seen: BTreeMap<&'a str, &'a Taken>,
    personal_names: BTreeMap<&'a KeyName, &'a BTreeSet<String>>,
    lifecycle: L,
    delivered: D,
    generation: u64,
    #[serde(skip_serializing_if = "Review::is_empty")]
    review: &'a Review,
    /// Present when the store requires signatures: see [`Seal`].
    #[serde(skip_serializing_if = "Option::is_none")]
    seal: Option<Seal>,
}

/// What a client was told about a key: the definition's tag as 16 hex
/// digits (snapshots written before tags hold the definition itself, read
/// as its tag).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum Told {
    Tag(String),
    Definition(Box<KeyDefinition>),
}

impl Told {
    fn of(tag: u64) -> Self {
        Told::Tag(super::retention::tag_hex(tag))
    }

    fn tag<E: serde::de::Error>(&self) -> Result<u64, E> {
        match self {
            Told::Tag(hex) => u64::from_str_radix(hex, 16)
                .map_err(|_| E::custom(format!("delivered tag {hex:?} is not 16 hex digits"))),
            Told::Definition(key) => Ok(super::retention::definition_tag(key)),
        }
    }
}

/// Owned, for reading. Every member but the header is optional here, so
/// that a snapshot of another format or version is named as such rather
/// than as a missing member.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot {
    /// Only in the header of a store kept as rows, first: refused there
    /// with a clear error rather than as a record with no counts.
    #[serde(default, rename = "counts_in_rows", deserialize_with = "refuse_split")]
    _counts_in_rows: (),
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
    delivered: Option<HashMap<String, HashMap<KeyName, Told>>>,
    generation: Option<u64>,
    /// Absent in snapshots written before the operator loop, or with
    /// nothing held or denied.
    #[serde(default)]
    review: Review,
    /// Absent unless the store required signatures.
    #[serde(default)]
    seal: Option<Seal>,
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
/// "sdsi.store", "version": 1, ...}`). The compiled-schema cache is not
/// written; it fills again on use. A store that requires signatures
/// ([`SchemaStore::require_signatures`]) is not written this way (an
/// error): its snapshot is sealed as one numbered save,
/// [`SchemaStore::saved_as`], so that a restore can refuse an older save.
impl Serialize for SchemaStore {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.signer.is_some() {
            return Err(serde::ser::Error::custom(
                "a store that requires signatures is written as a numbered save: \
                 serialize SchemaStore::saved_as(save) (or save it through \
                 SavedServer::encode or a storage back end)",
            ));
        }
        self.snapshot_ref().serialize(serializer)
    }
}

/// The store's snapshot as save number `save`: what
/// [`SchemaStore::saved_as`] gives to serialize.
#[derive(Debug, Clone, Copy)]
pub struct SavedAs<'a> {
    store: &'a SchemaStore,
    save: u64,
    with: Option<&'a str>,
}

impl Serialize for SavedAs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut snapshot = self.store.snapshot_ref();
        if let Some(signer) = &self.store.signer {
            snapshot.seal = Some(Seal::make(signer, &snapshot, self.save, self.with));
        }
        snapshot.serialize(serializer)
    }
}

impl SchemaStore {
    /// The store's snapshot, to serialize, as the save numbered `save`: the
    /// storage version this save writes (a back end's `expected + 1`, 1 for
    /// the first), which must grow with every save. A store that requires
    /// signatures writes a `seal` (the key's MAC of the snapshot and of
    /// `save`; the key itself is a secret and is never written), and only
    /// [`SchemaStore::from_sealed_slice`] with that key reads it back,
    /// refusing a save older than the pin it is given. A store that does
    /// not require signatures writes its plain snapshot (`save` unused).
    ///
    /// ```
    /// use sdsi::patch::{LifecyclePolicy, SealError, SealPin, Signer};
    /// use sdsi::{SchemaStore, SchemaTemplate};
    ///
    /// let base = SchemaTemplate::from_value(&serde_json::json!({
    ///     "schema_id": "booking_v1", "scenario": "booking", "keys": []
    /// }))?;
    /// let signer = Signer::new(*b"a 32-byte secret the server keeps")?;
    /// let store = SchemaStore::new(base, LifecyclePolicy::default())?
    ///     .require_signatures(signer.clone());
    /// let first = serde_json::to_vec(&store.saved_as(1))?;
    /// let second = serde_json::to_vec(&store.saved_as(2))?;
    ///
    /// // A loader that saw save 2 refuses save 1 put back.
    /// let again = SchemaStore::from_sealed_slice(&second, signer.clone(), SealPin::at_least(2))?;
    /// assert_eq!(again.sealed_save(), Some(2));
    /// assert_eq!(
    ///     SchemaStore::from_sealed_slice(&first, signer, SealPin::at_least(2)).unwrap_err(),
    ///     SealError::RolledBack { found: 1, expected_at_least: 2 }
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn saved_as(&self, save: u64) -> SavedAs<'_> {
        SavedAs {
            store: self,
            save,
            with: None,
        }
    }

    /// [`SchemaStore::saved_as`], the seal bound to `with` as well: the
    /// digest of what is saved beside the store (a saved server's cursor
    /// and engine state).
    #[cfg(feature = "evolution")]
    pub(crate) fn saved_with<'a>(&'a self, save: u64, with: Option<&'a str>) -> SavedAs<'a> {
        SavedAs {
            store: self,
            save,
            with,
        }
    }
}

impl SchemaStore {
    /// The snapshot of the store's state, unsealed.
    fn snapshot_ref(&self) -> SnapshotRef<'_> {
        let delivered = self
            .delivered
            .iter()
            .map(|(client, keys)| {
                let told = keys.iter().map(|(name, tag)| (name, Told::of(*tag)));
                (client.as_str(), told.collect())
            })
            .collect();
        self.snapshot_with(&self.lifecycle, delivered)
    }

    /// The snapshot with `lifecycle` and `delivered` standing for the
    /// store's own, unsealed.
    fn snapshot_with<L, D>(&self, lifecycle: L, delivered: D) -> SnapshotRef<'_, L, D> {
        SnapshotRef {
            counts_in_rows: None,
            format: STORE_FORMAT,
            version: STORE_FORMAT_VERSION,
            base: &self.base,
            options: &self.options,
            global: &self.global,
            personal: self.personal.iter().map(|(k, v)| (k.as_str(), v)).collect(),
            queue: &self.queue,
            seen: self.seen.iter().map(|(k, v)| (k.as_str(), v)).collect(),
            personal_names: self.personal_names.iter().collect(),
            lifecycle,
            delivered,
            generation: self.generation,
            review: &self.review,
            seal: None,
        }
    }

    /// Restores a store that required signatures from its sealed snapshot
    /// (see [`SchemaStore::saved_as`]): the snapshot must carry a seal made
    /// with `signer`'s key, over exactly what it holds, and be a save no
    /// older than `pin` (else [`SealError::RolledBack`]: see [`SealPin`] for
    /// where the pin must live); the restored store requires signatures
    /// with that key again and knows its save number
    /// ([`SchemaStore::sealed_save`]). A snapshot without a seal is refused
    /// too: whoever stripped it could have changed anything.
    pub fn from_sealed_slice(
        bytes: &[u8],
        signer: Signer,
        pin: SealPin,
    ) -> Result<Self, SealError> {
        let snapshot: Snapshot =
            serde_json::from_slice(bytes).map_err(|e| SealError::Snapshot(e.to_string()))?;
        Self::unseal(snapshot, signer, pin, None)
    }

    /// [`SchemaStore::from_sealed_slice`] from a parsed JSON value (the
    /// `store` member of a saved server, say).
    pub fn from_sealed_value(
        value: serde_json::Value,
        signer: Signer,
        pin: SealPin,
    ) -> Result<Self, SealError> {
        Self::from_sealed_value_with(value, signer, pin, None)
    }

    /// [`SchemaStore::from_sealed_value`], the seal required to be bound to
    /// `with` when given (see [`SchemaStore::saved_with`]).
    pub(crate) fn from_sealed_value_with(
        value: serde_json::Value,
        signer: Signer,
        pin: SealPin,
        with: Option<&str>,
    ) -> Result<Self, SealError> {
        let snapshot: Snapshot =
            serde_json::from_value(value).map_err(|e| SealError::Snapshot(e.to_string()))?;
        Self::unseal(snapshot, signer, pin, with)
    }

    fn unseal(
        mut snapshot: Snapshot,
        signer: Signer,
        pin: SealPin,
        with: Option<&str>,
    ) -> Result<Self, SealError> {
        let seal = snapshot.seal.take().ok_or(SealError::NotSealed)?;
        seal.check_key(&signer)?;
        let mut store =
            build::<serde_json::Error>(snapshot).map_err(|e| SealError::Snapshot(e.to_string()))?;
        let save = seal.check(&signer, &store.snapshot_ref(), with, pin)?;
        store.signer = Some(signer);
        store.sealed_save = Some(save);
        Ok(store)
    }
}

/// The member of a snapshot whose counters are rows, written first: a
/// whole-snapshot reader refuses it ([`refuse_split`]), so it is never read
/// as a store with no counts and nothing delivered.
#[cfg(feature = "evolution")]
const COUNTS_IN_ROWS: &str = "counts_in_rows";

/// What a whole-snapshot reader does on [`COUNTS_IN_ROWS`].
fn refuse_split<'de, D: Deserializer<'de>>(_: D) -> Result<(), D::Error> {
    Err(serde::de::Error::custom(
        "this store keeps its counters as rows: read it with them \
         (SavedServer::from_split, or the storage back end's load)",
    ))
}

impl SchemaStore {
    /// The snapshot as save `save` (sealed when the store requires
    /// signatures, bound to `with`: see [`SchemaStore::saved_as`]) without
    /// what [`StoreRows`] holds apart: what each client was told, each key
    /// record's counts and clients, the message totals. Those change with
    /// every message; the rest seldom. [`SchemaStore::join_rows`] puts them
    /// back.
    /// Written from the store's own parts, never by serializing what it
    /// then leaves out; only a sealed store serializes the whole snapshot,
    /// for its seal.
    #[cfg(feature = "evolution")]
    pub(crate) fn split_rows(
        &self,
        save: u64,
        with: Option<&str>,
    ) -> Result<(impl Serialize + '_, StoreRows), serde_json::Error> {
        let seal = self
            .signer
            .as_ref()
            .map(|signer| Seal::make(signer, &self.snapshot_ref(), save, with));
        // The rows hold every key told; the header keeps the clients told
        // none (the seal covers them as they are).
        let untold: BTreeMap<&str, BTreeMap<&KeyName, Told>> = self
            .delivered
            .iter()
            .filter(|(_, keys)| keys.is_empty())
            .map(|(client, _)| (client.as_str(), BTreeMap::new()))
            .collect();
        let mut header = self.snapshot_with(self.lifecycle.header(), untold);
        header.counts_in_rows = Some(true);
        header.seal = seal;
        Ok((header, self.rows()?))
    }

    /// The whole snapshot from what [`SchemaStore::split_rows`] gave: a
    /// snapshot that was not split, or rows that do not fit it (a count or
    /// client of a key it has no record of, a day outside its window, a
    /// client told twice of one key), is an error. The snapshot's own
    /// checks (and its seal) apply to the result.
    #[cfg(feature = "evolution")]
    pub(crate) fn join_rows(
        mut snapshot: serde_json::Value,
        rows: &StoreRows,
    ) -> Result<serde_json::Value, String> {
        let members = snapshot
            .as_object_mut()
            .ok_or("the store's snapshot is not an object")?;
        if members.remove(COUNTS_IN_ROWS) != Some(true.into()) {
            return Err("the store's snapshot does not keep its counters as rows".to_owned());
        }
        let mut delivered = match members.remove("delivered") {
            Some(serde_json::Value::Object(clients)) => clients,
            _ => return Err("the store's snapshot has no `delivered` clients".to_owned()),
        };
        for row in &rows.delivered {
            let keys = delivered
                .entry(row.client.clone())
                .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
            let told = keys
                .as_object_mut()
                .and_then(|keys| keys.insert(row.key_name.clone(), row.tag.clone().into()));
            if told.is_some() {
                return Err(format!(
                    "client {:?} is told of key {:?} twice",
                    row.client, row.key_name
                ));
            }
        }
        members.insert("delivered".to_owned(), delivered.into());
        let lifecycle = members
            .get_mut("lifecycle")
            .ok_or("the store's snapshot has no `lifecycle`")?;
        crate::patch::lifecycle::counted::fill(lifecycle, &rows.counts, &rows.adoptions)?;
        Ok(snapshot)
    }
}

/// Reads a snapshot written by [`Serialize`]: a snapshot of another format
/// or version, a base template that is not valid, or a lifecycle whose
/// indexes do not fit its records (a damaged file) is an error, never a
/// store that behaves wrongly. A sealed snapshot (written by a store that
/// required signatures) is refused here: only
/// [`SchemaStore::from_sealed_slice`] with its key reads it, so a restore
/// never silently drops the requirement.
impl<'de> Deserialize<'de> for SchemaStore {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let s = Snapshot::deserialize(deserializer)?;
        if s.seal.is_some() {
            return Err(D::Error::custom(
                "the store snapshot is sealed: the store required signatures; restore it with \
                 SchemaStore::from_sealed_slice, its key and a pin",
            ));
        }
        build(s)
    }
}

/// The store a snapshot (its seal already taken) describes, checked.
fn build<E: serde::de::Error>(s: Snapshot) -> Result<SchemaStore, E> {
    check_header(
        "schema store snapshot",
        (&s.format, s.version),
        (STORE_FORMAT, STORE_FORMAT_VERSION),
    )?;
    let base: SchemaTemplate = member(s.base, "base")?;
    let lifecycle: Lifecycle = member(s.lifecycle, "lifecycle")?;
    let check = base.check();
    if !check.is_valid() {
        return Err(E::custom(format!(
            "the snapshot's base template is not valid: {}",
            crate::template::TemplateError::from(check)
        )));
    }
    if !lifecycle.is_consistent() {
        return Err(E::custom(
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
        delivered: member(s.delivered, "delivered")?
            .into_iter()
            .map(|(client, keys)| {
                let tags = keys
                    .into_iter()
                    .map(|(name, told)| Ok((name, told.tag::<E>()?)))
                    .collect::<Result<_, E>>()?;
                Ok((client, tags))
            })
            .collect::<Result<_, E>>()?,
        signer: None,
        review: s.review,
        generation: member(s.generation, "generation")?,
        sealed_save: None,
        compiled: CompiledCache::default(),
    })
}
