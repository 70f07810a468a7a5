//! The seal of a store that requires signatures: the key's MAC over its
//! snapshot, the number of the save that wrote it and what was saved with
//! it, and the pin a loader checks that number against, so that neither a
//! change nor a rollback to an older sealed save goes unnoticed by a loader
//! that remembers what it last saw.

use serde::{Deserialize, Serialize};

use crate::patch::integrity::Signer;

/// The text whose MAC identifies the sealing key.
const KEY_CHECK_TEXT: &str = "sdsi.store.key-check";

/// What a store that requires signatures writes into its snapshot, so that
/// whoever can write the stored bytes but holds no key cannot change them
/// (add a patch, a lifecycle record, a delivered key), strip the
/// requirement, or pass an older save off as a newer one: `key_check` is
/// the key's MAC of a fixed text (which key, without revealing it), `save`
/// the number of the save that wrote it (the storage version, strictly
/// increasing per save), `with` the digest of what was saved beside the
/// store (a saved server's cursor and engine state), and `mac` the key's
/// MAC of the save number, that digest and the whole snapshot without its
/// seal (canonical JSON, so member order does not matter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Seal {
    key_check: String,
    save: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    with: Option<String>,
    mac: String,
}

/// What a seal's MAC covers.
#[derive(Serialize)]
struct Covered<'a, T> {
    save: u64,
    with: Option<&'a str>,
    snapshot: &'a T,
}

impl Seal {
    /// The seal of `snapshot` (written without a seal) as save number
    /// `save`, bound to `with`.
    pub(super) fn make<T: Serialize>(
        signer: &Signer,
        snapshot: &T,
        save: u64,
        with: Option<&str>,
    ) -> Self {
        Self {
            key_check: signer.sign(&KEY_CHECK_TEXT),
            save,
            with: with.map(str::to_owned),
            mac: signer.sign(&Covered {
                save,
                with,
                snapshot,
            }),
        }
    }

    /// Whether the seal was made with `signer`'s key.
    pub(super) fn check_key(&self, signer: &Signer) -> Result<(), SealError> {
        signer
            .verify(&KEY_CHECK_TEXT, &self.key_check)
            .map_err(|_| SealError::WrongKey)
    }

    /// Checks that the seal covers exactly `snapshot` (rebuilt from what was
    /// read, without its seal), that it is bound to `with` when the caller
    /// names what was saved beside the store, and that its save is no older
    /// than `pin`; returns its save number.
    pub(super) fn check<T: Serialize>(
        &self,
        signer: &Signer,
        snapshot: &T,
        with: Option<&str>,
        pin: SealPin,
    ) -> Result<u64, SealError> {
        let covered = Covered {
            save: self.save,
            with: self.with.as_deref(),
            snapshot,
        };
        signer
            .verify(&covered, &self.mac)
            .map_err(|_| SealError::Tampered)?;
        // A store sealed alone (or with something else) paired with another
        // engine or cursor: each part intact, the whole not what was saved.
        if with.is_some() && self.with.as_deref() != with {
            return Err(SealError::Tampered);
        }
        if self.save < pin.at_least {
            return Err(SealError::RolledBack {
                found: self.save,
                expected_at_least: pin.at_least,
            });
        }
        Ok(self.save)
    }
}

/// The oldest sealed save a restore accepts: what the caller last saw (the
/// version a back end's load or save returned), kept where whoever can
/// write the stored state cannot also write it (the application's own
/// memory or configuration, another machine). A restore refuses an older
/// save with [`SealError::RolledBack`].
///
/// The seal cannot do this alone: every save it ever made is validly
/// sealed, so a loader that remembers nothing ([`SealPin::NONE`]) cannot
/// tell a withdrawn patch or a denied proposal put back with an older save
/// from the current state.
///
/// ```
/// use sdsi::patch::SealPin;
///
/// let pin = SealPin::at_least(7);
/// assert_eq!(pin.minimum(), 7);
/// assert_eq!(SealPin::NONE.minimum(), 0);
/// assert_eq!(pin.max(SealPin::at_least(9)), SealPin::at_least(9));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct SealPin {
    at_least: u64,
}

impl SealPin {
    /// No memory of an earlier save: any validly sealed save restores, an
    /// older one included. For a first start, or a caller that keeps its
    /// pin elsewhere and checks [`SchemaStore::sealed_save`] itself.
    ///
    /// [`SchemaStore::sealed_save`]: crate::SchemaStore::sealed_save
    pub const NONE: SealPin = SealPin { at_least: 0 };

    /// Accepts save number `save` and later ones, refusing older ones.
    pub const fn at_least(save: u64) -> Self {
        Self { at_least: save }
    }

    /// The oldest save number accepted.
    pub const fn minimum(self) -> u64 {
        self.at_least
    }
}

/// Why a sealed snapshot did not restore.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The snapshot carries no seal, so nothing vouches for it.
    #[error(
        "the store snapshot is not sealed: it was not saved by a store that required signatures, or its seal was removed"
    )]
    NotSealed,
    /// The seal was made with another key.
    #[error("the store snapshot was sealed with another key")]
    WrongKey,
    /// The snapshot was changed after it was sealed, or put together with
    /// an engine state or a cursor it was not saved with.
    #[error("the store snapshot was changed after it was sealed")]
    Tampered,
    /// The snapshot is intact, but an older save than the caller's pin
    /// ([`SealPin`]): an earlier state was put back, bringing back what
    /// later saves withdrew or denied.
    #[error(
        "the store snapshot is save {found}, older than save {expected_at_least} already seen: an earlier state was put back"
    )]
    RolledBack {
        /// The save number the seal carries.
        found: u64,
        /// The oldest save the caller accepts.
        expected_at_least: u64,
    },
    /// The snapshot is intact, but sealed as another save than the stored
    /// version it was read as: a state copied over a later one (or a save
    /// written with the wrong number).
    #[error(
        "the store snapshot was sealed as save {sealed} but is stored as version {stored}: a state was put back under another version"
    )]
    OtherSave {
        /// The save number the seal carries.
        sealed: u64,
        /// The version the storage holds it under.
        stored: u64,
    },
    /// The snapshot does not read (another format or version, damage).
    #[error("the store snapshot does not read: {0}")]
    Snapshot(String),
}
