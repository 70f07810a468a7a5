//! Keeping a server's state between runs: what is saved ([`SavedServer`])
//! and the trait a storage back-end implements ([`StateStorage`]). The core
//! does no I/O; `sdsi-sqlite` is the embedded back-end.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::digest::push_hex;
use crate::evolution::persist::rows::{EngineRows, Header};
use crate::evolution::persist::state::EvolutionState;
use crate::patch::{SchemaStore, SealError, SealPin, Signer, StoreRows};

/// Everything a server running evolution needs to carry on after a restart:
/// the schema store, the engine's state and the application's cursor (how
/// far it got in its input, e.g. a log line or a queue offset).
#[derive(Debug, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SavedServer {
    /// The application's cursor.
    pub cursor: u64,
    /// The schema store (its own versioned form, see `docs/patches.md`).
    pub store: SchemaStore,
    /// The engine's state (its own versioned form).
    pub engine: EvolutionState,
}

impl SavedServer {
    /// Bundles the parts.
    pub fn new(cursor: u64, store: SchemaStore, engine: EvolutionState) -> Self {
        Self {
            cursor,
            store,
            engine,
        }
    }

    /// The bytes a [`StateStorage`] keeps (JSON), for a store that does
    /// not require signatures: a sealed store is saved with its save
    /// number ([`SavedServer::encode`]), and is an error here.
    pub fn to_bytes(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(self)
    }

    /// The same bytes from parts a server holds, without copying them, as
    /// save number `save`: the storage version this save writes
    /// (`expected + 1`, 1 for the first). A store that requires signatures
    /// seals its snapshot as that save, bound to `cursor` and `engine` (a
    /// digest of them in its seal), so that a loader refuses an older save
    /// put back ([`SavedServer::from_bytes_sealed`] with a [`SealPin`]), an
    /// engine or a cursor changed, or taken from another save; otherwise
    /// `save` is unused.
    pub fn encode(
        save: u64,
        cursor: u64,
        store: &SchemaStore,
        engine: &EvolutionState,
    ) -> Result<Vec<u8>, serde_json::Error> {
        #[derive(Serialize)]
        struct Parts<'a> {
            cursor: u64,
            store: crate::patch::SavedAs<'a>,
            engine: &'a EvolutionState,
        }
        let with = beside(store, cursor, engine)?;
        serde_json::to_vec(&Parts {
            cursor,
            store: store.saved_with(save, with.as_deref()),
            engine,
        })
    }

    /// The state kept apart as rows, as save number `save` (see
    /// [`SavedServer::encode`]): the bytes (the cursor, and the store's
    /// and the engine's headers, small) and, as rows, what changes with
    /// every message — the store's counters, clients and patches
    /// ([`StoreRows`]) and every fine cluster and need of every pool
    /// ([`EngineRows`]). A back end that keeps them as table rows moves
    /// counters in place ([`StoreRows::writes`]) and rewrites only
    /// the pool rows a fold changed ([`EngineRows::writes`]).
    /// [`SavedServer::from_split`] puts the parts together;
    /// [`SavedServer::from_bytes`] refuses the bytes alone. A sealed store's
    /// seal covers its rows and, through its digest, the engine's header
    /// and rows and the cursor.
    pub fn encode_split(
        save: u64,
        cursor: u64,
        store: &SchemaStore,
        engine: &EvolutionState,
    ) -> Result<SplitState, serde_json::Error> {
        #[derive(Serialize)]
        struct Parts<'a, S> {
            cursor: u64,
            store: &'a S,
            engine: &'a Header,
        }
        let with = beside(store, cursor, engine)?;
        let (header, pools) = engine.split()?;
        let (store_header, store_rows) = store.split_rows(save, with.as_deref())?;
        let bytes = serde_json::to_vec(&Parts {
            cursor,
            store: &store_header,
            engine: &header,
        })?;
        Ok(SplitState {
            bytes,
            store: store_rows,
            pools,
        })
    }

    /// Reads what [`SavedServer::encode_split`] wrote: the store is joined
    /// with its rows and each pool rebuilt from its header and its rows,
    /// with the checks of a whole snapshot and more (rows that do not fit
    /// are an error, never a partial state). A store that required
    /// signatures is refused, as by [`SavedServer::from_bytes`].
    pub fn from_split(
        bytes: &[u8],
        store: &StoreRows,
        pools: &EngineRows,
    ) -> Result<Self, serde_json::Error> {
        let parts: SplitParts = serde_json::from_slice(bytes)?;
        let custom = <serde_json::Error as serde::de::Error>::custom;
        let engine = EvolutionState::join(parts.engine, pools).map_err(custom)?;
        let store = SchemaStore::join_rows(parts.store, store).map_err(custom)?;
        Ok(Self {
            cursor: parts.cursor,
            store: serde_json::from_value(store)?,
            engine,
        })
    }

    /// [`SavedServer::from_split`] for a store that required signatures
    /// with `signer`'s key (see [`SavedServer::from_bytes_sealed`]): the
    /// seal covers the store's rows, and its digest the engine's header and
    /// rows and the cursor, so none of them can be changed, or put back
    /// from a save older than `pin`.
    pub fn from_split_sealed(
        bytes: &[u8],
        store: &StoreRows,
        pools: &EngineRows,
        signer: Signer,
        pin: SealPin,
    ) -> Result<Self, SealError> {
        let parts: SplitParts =
            serde_json::from_slice(bytes).map_err(|e| SealError::Snapshot(e.to_string()))?;
        let engine = EvolutionState::join(parts.engine, pools).map_err(SealError::Snapshot)?;
        let store = SchemaStore::join_rows(parts.store, store).map_err(SealError::Snapshot)?;
        Self::unseal(parts.cursor, store, engine, signer, pin)
    }

    /// Reads bytes written by [`SavedServer::encode`] for a store that does
    /// not require signatures; another version of either part, or damaged
    /// bytes, is an error, and so is a store that required signatures (its
    /// snapshot is sealed: see [`SavedServer::from_bytes_sealed`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// Reads bytes whose store required signatures with `signer`'s key:
    /// its sealed snapshot must be intact and sealed with that key
    /// ([`SchemaStore::from_sealed_slice`]), saved with this very engine
    /// state and cursor, and be a save no older than `pin` (else
    /// [`SealError::RolledBack`]); the restored store requires signatures
    /// again and knows its save number ([`SchemaStore::sealed_save`]).
    pub fn from_bytes_sealed(
        bytes: &[u8],
        signer: Signer,
        pin: SealPin,
    ) -> Result<Self, SealError> {
        #[derive(Deserialize)]
        struct Parts {
            cursor: u64,
            store: serde_json::Value,
            engine: EvolutionState,
        }
        let parts: Parts =
            serde_json::from_slice(bytes).map_err(|e| SealError::Snapshot(e.to_string()))?;
        Self::unseal(parts.cursor, parts.store, parts.engine, signer, pin)
    }

    /// The parts read, the store's seal checked against `signer`, `pin` and
    /// the digest of `cursor` and `engine`.
    fn unseal(
        cursor: u64,
        store: serde_json::Value,
        engine: EvolutionState,
        signer: Signer,
        pin: SealPin,
    ) -> Result<Self, SealError> {
        let with =
            beside_digest(cursor, &engine).map_err(|e| SealError::Snapshot(e.to_string()))?;
        Ok(Self {
            cursor,
            store: SchemaStore::from_sealed_value_with(store, signer, pin, Some(&with))?,
            engine,
        })
    }
}

/// What a sealed store's seal binds beside it: the digest of `cursor` and
/// `engine` ([`beside_digest`]); `None` for a store that does not require
/// signatures (nothing is sealed, so nothing is computed).
fn beside(
    store: &SchemaStore,
    cursor: u64,
    engine: &EvolutionState,
) -> Result<Option<String>, serde_json::Error> {
    if !store.requires_signatures() {
        return Ok(None);
    }
    beside_digest(cursor, engine).map(Some)
}

/// `sha256:` and the hex SHA-256 of `{"cursor": cursor, "engine": engine}`
/// as serde_json writes it: one state always gives the same bytes (pools in
/// key order, each pool's parts in a fixed order), and a state read back,
/// whole or from its rows, gives the bytes it was saved from. Hashed as it
/// is written, never held whole.
fn beside_digest(cursor: u64, engine: &EvolutionState) -> Result<String, serde_json::Error> {
    /// Hashes what is written to it.
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    #[derive(Serialize)]
    struct Beside<'a> {
        cursor: u64,
        engine: &'a EvolutionState,
    }
    let mut hashing = Hashing(Sha256::new());
    serde_json::to_writer(&mut hashing, &Beside { cursor, engine })?;
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    push_hex(&mut out, &hashing.0.finalize());
    Ok(out)
}

/// A state kept apart as rows ([`SavedServer::encode_split`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SplitState {
    /// The cursor and the store's and the engine's headers: what a back end
    /// keeps where it would keep the whole state's bytes.
    pub bytes: Vec<u8>,
    /// The store's patches, key records, pending proposals, delivered keys,
    /// counters and clients.
    pub store: StoreRows,
    /// The pools' fine clusters and needs.
    pub pools: EngineRows,
}

/// The bytes of a split state, read.
#[derive(Deserialize)]
struct SplitParts {
    cursor: u64,
    store: serde_json::Value,
    engine: Header,
}

/// What a back-end holds for one scenario: the bytes last saved and the
/// version that save wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Versioned {
    /// 1 for the first save, one more for each later one.
    pub version: u64,
    /// The saved bytes.
    pub bytes: Vec<u8>,
}

impl Versioned {
    /// Wraps a version and its bytes (for back-ends).
    pub fn new(version: u64, bytes: Vec<u8>) -> Self {
        Self { version, bytes }
    }
}

/// A place that keeps one versioned blob per scenario, with optimistic
/// concurrency: a save names the version it read, and a back-end must refuse
/// it (with an error of its own) if another writer saved since, so two
/// servers never silently overwrite each other. Whole-state saves rather
/// than a log of changes: the state is bounded (metric windows, pool and
/// exemplar caps), so a save has a bounded size, and there is nothing to
/// compact.
///
/// ```
/// use std::collections::HashMap;
/// use sdsi::evolution::{StateStorage, Versioned};
///
/// /// Keeps the state in memory (a test double; `sdsi-sqlite` keeps it in a file).
/// #[derive(Default)]
/// struct Memory(HashMap<String, Versioned>);
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("saved by another writer")]
/// struct Conflict;
///
/// impl StateStorage for Memory {
///     type Error = Conflict;
///     fn load(&mut self, scenario: &str) -> Result<Option<Versioned>, Conflict> {
///         Ok(self.0.get(scenario).cloned())
///     }
///     fn save(&mut self, scenario: &str, expected: Option<u64>, bytes: &[u8]) -> Result<u64, Conflict> {
///         if self.0.get(scenario).map(|v| v.version) != expected {
///             return Err(Conflict);
///         }
///         let version = expected.map_or(1, |v| v + 1);
///         self.0.insert(scenario.to_owned(), Versioned::new(version, bytes.to_vec()));
///         Ok(version)
///     }
/// }
///
/// let mut memory = Memory::default();
/// assert_eq!(memory.save("booking", None, b"first")?, 1);
/// assert!(memory.save("booking", None, b"stale").is_err());
/// assert_eq!(memory.save("booking", Some(1), b"second")?, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait StateStorage {
    /// Why a load or save failed, conflicts included.
    type Error: std::error::Error + Send + Sync + 'static;

    /// What was last saved for `scenario`, if anything. (`&mut`: a
    /// connection to a database server is used mutably even to read.)
    fn load(&mut self, scenario: &str) -> Result<Option<Versioned>, Self::Error>;

    /// Saves `bytes` for `scenario` if the saved version is still `expected`
    /// (`None`: nothing saved yet), atomically; returns the new version.
    fn save(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
        bytes: &[u8],
    ) -> Result<u64, Self::Error>;
}
