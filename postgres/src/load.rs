//! Loading a saved state back into its parts, in one snapshot: the state
//! row, and the store's and the pools' rows when it keeps them apart.

use postgres::IsolationLevel;
use sdsi::SchemaStore;
use sdsi::evolution::{EngineRows, EvolutionState, SavedServer};
use sdsi::patch::{SealError, SealPin, Signer, StoreRows};

use crate::error::{Error, column};
use crate::state::{Known, PgState, stored_version};
use crate::{pool_rows, rows};

/// The store's and the pools' rows of a state that keeps them apart.
type SplitRows = (StoreRows, EngineRows);

/// What [`PgState::load_saved`] found for a scenario.
#[derive(Debug)]
#[non_exhaustive]
pub struct Saved {
    /// The version the save wrote; name it when saving again.
    pub version: u64,
    /// The application's cursor, as saved.
    pub cursor: u64,
    /// The schema store.
    pub store: SchemaStore,
    /// The evolution engine's state (give it to `Evolution::restore`).
    pub engine: EvolutionState,
}

impl PgState {
    /// The state saved for `scenario`, if any, read back into its parts, in
    /// one snapshot (with its pools' rows when it keeps them apart).
    /// [`StateStorage::load`] gives the bytes alone, which do not restore a
    /// state whose pools are rows.
    ///
    /// [`StateStorage::load`]: sdsi::evolution::StateStorage::load
    pub fn load_saved(&mut self, scenario: &str) -> Result<Option<Saved>, Error> {
        self.load_with(scenario, |_, bytes, rows| {
            match rows {
                Some((store, pools)) => SavedServer::from_split(bytes, store, pools),
                None => SavedServer::from_bytes(bytes),
            }
            .map_err(|e| Error::Damaged {
                scenario: scenario.to_owned(),
                message: e.to_string(),
            })
        })
    }

    /// [`PgState::load_saved`] for a store that required signatures with
    /// `signer`'s key: refused unless its sealed snapshot is intact and
    /// sealed with that key, saved with the engine state (header and pool
    /// rows) and cursor beside it, as the version the database holds it
    /// under, and no older than `pin` or than the newest version this
    /// connection saved or loaded sealed (an earlier state put back:
    /// [`SealError::RolledBack`]). The restored store requires signatures
    /// again.
    ///
    /// Whoever can write the database can put back an older sealed state:
    /// only a pin kept where they cannot write refuses it after a restart
    /// (docs/patches.md, "A seal and a rollback").
    pub fn load_saved_sealed(
        &mut self,
        scenario: &str,
        signer: Signer,
        pin: SealPin,
    ) -> Result<Option<Saved>, Error> {
        let pin = pin.max(SealPin::at_least(self.seen_version(scenario)));
        let seal_error = |error| Error::Seal {
            scenario: scenario.to_owned(),
            error,
        };
        let saved = self.load_with(scenario, |version, bytes, rows| {
            let saved = match rows {
                Some((store, pools)) => {
                    SavedServer::from_split_sealed(bytes, store, pools, signer.clone(), pin)
                }
                None => SavedServer::from_bytes_sealed(bytes, signer.clone(), pin),
            }
            .map_err(seal_error)?;
            match saved.store.sealed_save() {
                Some(sealed) if sealed != version => Err(seal_error(SealError::OtherSave {
                    sealed,
                    stored: version,
                })),
                _ => Ok(saved),
            }
        })?;
        if let Some(saved) = &saved {
            if saved.store.base().scenario != scenario {
                return Err(Error::Damaged {
                    scenario: scenario.to_owned(),
                    message: format!(
                        "the row holds the state of scenario {:?}",
                        saved.store.base().scenario
                    ),
                });
            }
            self.saw(scenario, saved.version);
        }
        Ok(saved)
    }

    /// Reads `scenario`'s state row and, when it keeps its pools apart,
    /// their rows, in one snapshot, and decodes them with `decode` (given
    /// the row's version).
    fn load_with(
        &mut self,
        scenario: &str,
        decode: impl Fn(u64, &[u8], Option<&SplitRows>) -> Result<SavedServer, Error>,
    ) -> Result<Option<Saved>, Error> {
        let mut transaction = self
            .client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()?;
        let row = transaction.query_opt(
            "SELECT s.version, s.state,
                    COALESCE(r.version = s.version AND r.pools_in_rows, FALSE), w.written_by
             FROM sdsi_state AS s LEFT JOIN sdsi_rows_version AS r USING (scenario)
                 LEFT JOIN sdsi_rows_written AS w USING (scenario)
             WHERE scenario = $1",
            &[&scenario],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let version = stored_version(scenario, column(&row, "sdsi_state", 0)?)?;
        let bytes: Vec<u8> = column(&row, "sdsi_state", 1)?;
        let token: Option<String> = column(&row, "sdsi_rows_written", 3)?;
        let pools = if column::<bool>(&row, "sdsi_rows_version", 2)? {
            Some((
                rows::read_tables(&mut transaction, scenario)?,
                pool_rows::read(&mut transaction, scenario)?,
            ))
        } else {
            None
        };
        transaction.commit()?;
        let saved = decode(version, &bytes, pools.as_ref())?;
        self.known_rows = pools.zip(token).map(|((store, pools), token)| {
            let known = Known {
                token,
                store: store.known(),
                pools: Some(pools.digests()),
            };
            (scenario.to_owned(), version, known)
        });
        Ok(Some(Saved {
            version,
            cursor: saved.cursor,
            store: saved.store,
            engine: saved.engine,
        }))
    }
}
