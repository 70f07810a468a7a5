//! Loading a saved state back into its parts, in one snapshot: the state
//! row, and the store's and the pools' rows when it keeps them apart.

use postgres::IsolationLevel;
use sdsi::SchemaStore;
use sdsi::evolution::{EngineRows, EvolutionState, SavedServer};
use sdsi::patch::{SealError, Signer, StoreRows};

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
        self.load_with(scenario, |bytes, rows| {
            match rows {
                Some((store, pools)) => SavedServer::from_split(bytes, store, pools),
                None => SavedServer::from_bytes(bytes),
            }
            .map_err(|e| e.to_string())
        })
    }

    /// [`PgState::load_saved`] for a store that required signatures with
    /// `signer`'s key: refused unless its sealed snapshot is intact and
    /// sealed with that key; the restored store requires signatures again.
    pub fn load_saved_sealed(
        &mut self,
        scenario: &str,
        signer: Signer,
    ) -> Result<Option<Saved>, Error> {
        let saved = self.load_with(scenario, |bytes, rows| {
            match rows {
                Some((store, pools)) => {
                    SavedServer::from_split_sealed(bytes, store, pools, signer.clone())
                }
                None => SavedServer::from_bytes_sealed(bytes, signer.clone()),
            }
            .map_err(|e: SealError| e.to_string())
        })?;
        if let Some(saved) = &saved
            && saved.store.base().scenario != scenario
        {
            return Err(Error::Damaged {
                scenario: scenario.to_owned(),
                message: format!(
                    "the row holds the state of scenario {:?}",
                    saved.store.base().scenario
                ),
            });
        }
        Ok(saved)
    }

    /// Reads `scenario`'s state row and, when it keeps its pools apart,
    /// their rows, in one snapshot, and decodes them with `decode`.
    fn load_with(
        &mut self,
        scenario: &str,
        decode: impl Fn(&[u8], Option<&SplitRows>) -> Result<SavedServer, String>,
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
        let saved = decode(&bytes, pools.as_ref()).map_err(|message| Error::Damaged {
            scenario: scenario.to_owned(),
            message,
        })?;
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
