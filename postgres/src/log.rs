//! The observation log: replicas append, one evaluator folds.

use std::time::Duration;

use postgres::Transaction;
use sdsi::SchemaStore;
use sdsi::evolution::{EvolutionState, Observation, SavedServer};
use time::OffsetDateTime;

use crate::error::{Error, column};
use crate::horizon::Horizon;
use crate::state::{Known, PgState, save_in};

/// One message's observation, as a replica appends it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Logged {
    /// The message's id: an append with an id already in the log is
    /// ignored, so a replica that retries after a lost connection counts
    /// the message once.
    pub message_id: String,
    /// Which embedder made the vectors (the evaluator re-embeds from the
    /// text when it is not its own).
    pub embedder: String,
    /// What was observed: redacted fragments, vectors, member types.
    pub observation: Observation,
}

impl Logged {
    /// A log entry.
    pub fn new(
        message_id: impl Into<String>,
        embedder: impl Into<String>,
        observation: Observation,
    ) -> Self {
        Self {
            message_id: message_id.into(),
            embedder: embedder.into(),
            observation,
        }
    }
}

/// How long the evaluator waits for replicas before it folds (see
/// [`PgState::unfolded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Watch {
    /// A replica not heard of for this long (no join, append, progress,
    /// heartbeat or finish) no longer holds the fold back, and its row is
    /// deleted: the replica table keeps only replicas heard of recently.
    pub heard_within: Duration,
    /// A row is folded only once it has been in the log this long.
    pub settle: Duration,
}

impl Watch {
    /// Waits of `heard_within` and `settle`.
    pub const fn new(heard_within: Duration, settle: Duration) -> Self {
        Self {
            heard_within,
            settle,
        }
    }
}

/// A logged observation the evaluator has not folded yet.
#[derive(Debug)]
#[non_exhaustive]
pub struct Unfolded {
    /// Its place in the log: name it in [`PgState::save_folded`].
    pub seq: i64,
    /// The replica that appended it.
    pub replica: String,
    /// The embedder that made its vectors.
    pub embedder: String,
    /// The observation, or why its bytes do not read as one (a damaged
    /// row is marked folded with the others, and never read again).
    pub observation: Result<Observation, String>,
}

/// `at` in microseconds since the Unix epoch (the log's time column).
fn micros(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos() / 1000).unwrap_or(i64::MAX)
}

impl PgState {
    /// Appends `entries`, observed by `replica` in time order, to
    /// `scenario`'s log in one statement, and records how far the replica
    /// got; entries whose message id is in the log already (or earlier in
    /// `entries`) are left out. Returns how many were new.
    pub fn append(
        &mut self,
        scenario: &str,
        replica: &str,
        entries: &[Logged],
    ) -> Result<u64, Error> {
        let (mut ids, mut embedders, mut times, mut observations) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for entry in entries {
            let bytes = serde_json::to_vec(&entry.observation).map_err(|e| Error::Serialize {
                message: e.to_string(),
            })?;
            ids.push(entry.message_id.as_str());
            embedders.push(entry.embedder.as_str());
            times.push(micros(entry.observation.at));
            observations.push(bytes);
        }
        let Some(&through) = times.iter().max() else {
            return Ok(0);
        };
        let mut transaction = self.client.transaction()?;
        // One statement for the batch: a round trip per row was most of an
        // append's time.
        let new = transaction.execute(
            "INSERT INTO sdsi_observation
                 (scenario, message_id, replica, embedder, at_micros, observation)
             SELECT $1, m, $2, e, a, o
             FROM UNNEST($3::TEXT[], $4::TEXT[], $5::BIGINT[], $6::BYTEA[]) AS t(m, e, a, o)
             ON CONFLICT (scenario, message_id) DO NOTHING",
            &[&scenario, &replica, &ids, &embedders, &times, &observations],
        )?;
        progress_in(&mut transaction, scenario, replica, through)?;
        transaction.commit()?;
        Ok(new)
    }

    /// Registers `replica` as running, with nothing appended yet: from now
    /// on the evaluator folds nothing newer than what it appends, until it
    /// finishes or is not heard of for a while. Call it before appending
    /// (a replica that restarts calls it again: it may append older
    /// messages again, which its retry makes count once).
    pub fn join(&mut self, scenario: &str, replica: &str) -> Result<(), Error> {
        self.client.execute(
            "INSERT INTO sdsi_replica (scenario, replica, appended_through) VALUES ($1, $2, $3)
             ON CONFLICT (scenario, replica) DO UPDATE SET
                 appended_through = EXCLUDED.appended_through, finished = FALSE, heard_at = now()",
            &[&scenario, &replica, &i64::MIN],
        )?;
        Ok(())
    }

    /// Records that `replica` will append nothing dated before `through`
    /// (a replica with no traffic says so now and then, or the evaluator
    /// waits for it until it is no longer heard of).
    pub fn progress(
        &mut self,
        scenario: &str,
        replica: &str,
        through: OffsetDateTime,
    ) -> Result<(), Error> {
        let mut transaction = self.client.transaction()?;
        progress_in(&mut transaction, scenario, replica, micros(through))?;
        transaction.commit()?;
        Ok(())
    }

    /// Records that `replica` is still running (an evaluator busy folding
    /// appends nothing for a while, and must not be taken for dead).
    pub fn heartbeat(&mut self, scenario: &str, replica: &str) -> Result<(), Error> {
        self.client.execute(
            "UPDATE sdsi_replica SET heard_at = now() WHERE scenario = $1 AND replica = $2",
            &[&scenario, &replica],
        )?;
        Ok(())
    }

    /// Records that `replica` has finished: the evaluator no longer waits
    /// for it.
    pub fn finish(&mut self, scenario: &str, replica: &str) -> Result<(), Error> {
        self.client.execute(
            "UPDATE sdsi_replica SET finished = TRUE, heard_at = now()
             WHERE scenario = $1 AND replica = $2",
            &[&scenario, &replica],
        )?;
        Ok(())
    }

    /// Up to `limit` observations of `scenario` not folded yet, in time
    /// order, none newer than the replicas' low watermark (the oldest
    /// progress of the replicas still running and heard of within
    /// `watch.heard_within`: one that died stops holding the others back
    /// then), and none as new as a row appended less than `watch.settle`
    /// ago (so a row folds only once every earlier row has had that long
    /// to arrive: a replica that starts as others are folding has that
    /// long to join).
    ///
    /// In the same statement it deletes the rows of `scenario`'s replicas
    /// not heard of within `watch.heard_within`, finished or not, so the
    /// replica table does not grow with every replica ever started. A
    /// replica that comes back is counted again from its next append
    /// (which records its progress anew) or [`PgState::join`].
    pub fn unfolded(
        &mut self,
        scenario: &str,
        limit: u32,
        watch: Watch,
    ) -> Result<Vec<Unfolded>, Error> {
        let rows = self.client.query(
            "WITH expired AS (
                 DELETE FROM sdsi_replica
                 WHERE scenario = $1 AND heard_at <= now() - make_interval(secs => $3)
             ), mark AS (
                 SELECT MIN(appended_through) AS through FROM sdsi_replica
                 WHERE scenario = $1 AND NOT finished
                   AND heard_at > now() - make_interval(secs => $3)
             ), fresh AS (
                 SELECT MIN(at_micros) AS earliest FROM sdsi_observation
                 WHERE scenario = $1 AND NOT folded
                   AND appended_at > now() - make_interval(secs => $4)
             )
             SELECT seq, replica, embedder, observation FROM sdsi_observation, mark, fresh
             WHERE scenario = $1 AND NOT folded
               AND (mark.through IS NULL OR at_micros <= mark.through)
               AND (fresh.earliest IS NULL OR at_micros < fresh.earliest)
             ORDER BY at_micros, seq LIMIT $2",
            &[
                &scenario,
                &i64::from(limit),
                &watch.heard_within.as_secs_f64(),
                &watch.settle.as_secs_f64(),
            ],
        )?;
        rows.iter()
            .map(|row| {
                Ok(Unfolded {
                    seq: column(row, "sdsi_observation", 0)?,
                    replica: column(row, "sdsi_observation", 1)?,
                    embedder: column(row, "sdsi_observation", 2)?,
                    observation: serde_json::from_slice(column::<&[u8]>(
                        row,
                        "sdsi_observation",
                        3,
                    )?)
                    .map_err(|e| e.to_string()),
                })
            })
            .collect()
    }

    /// How many observations of `scenario` the log holds, and how many of
    /// them are not folded yet.
    pub fn log_counts(&mut self, scenario: &str) -> Result<(u64, u64), Error> {
        let row = self.client.query_one(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE NOT folded)
             FROM sdsi_observation WHERE scenario = $1",
            &[&scenario],
        )?;
        let count = |i: usize| {
            column::<i64>(&row, "sdsi_observation", i).map(|n| u64::try_from(n).unwrap_or(0))
        };
        Ok((count(0)?, count(1)?))
    }

    /// Saves the state the evaluator folded the observations `folded` into
    /// (`store` and `engine`, with the application's `cursor`), if the
    /// saved version is still `expected`, and in the same transaction
    /// writes the store's rows that changed ([`PgState::store_rows`]) and,
    /// unless [`PgState::keep_state_as_rows`] is off, the pools' rows that changed;
    /// marks the observations folded, replaces the `attachments`, and
    /// notifies listeners ([`PgState::wait_for_change`]). With a `horizon`
    /// it also forgets the folded observations dated before
    /// [`Horizon::forget_before`] (a message retried after that counts
    /// again: the horizon follows the evaluator's clock, not the newest
    /// message alone) and deletes those dated after [`Horizon::latest`]
    /// (the rows the fold refused, [`Horizon::admit`]: a retry is refused
    /// again rather than remembered for ever). Either all of it happens or
    /// none.
    #[allow(clippy::too_many_arguments)]
    pub fn save_folded(
        &mut self,
        scenario: &str,
        expected: Option<u64>,
        cursor: u64,
        store: &SchemaStore,
        engine: &EvolutionState,
        folded: &[i64],
        attachments: &[(&str, &[u8])],
        horizon: Option<&Horizon>,
    ) -> Result<u64, Error> {
        let serialize = |e: serde_json::Error| Error::Serialize {
            message: e.to_string(),
        };
        // The number the seal of a store that requires signatures carries:
        // the version this save writes (a conflict writes nothing).
        let save = expected.map_or(1, |v| v.saturating_add(1));
        let (state, rows, pools) = if self.state_as_rows {
            let split =
                SavedServer::encode_split(save, cursor, store, engine).map_err(serialize)?;
            (split.bytes, split.store, Some(split.pools))
        } else {
            let rows = store.rows().map_err(serialize)?;
            let bytes = SavedServer::encode(save, cursor, store, engine).map_err(serialize)?;
            (bytes, rows, None)
        };
        // Taken: after a failed save the database's rows are not known.
        let known = self
            .known_rows
            .take()
            .filter(|(s, v, _)| s == scenario && Some(*v) == expected)
            .map(|(_, _, known)| known);
        let mut transaction = self.client.transaction()?;
        let Some(version) = save_in(&mut transaction, scenario, expected, &state)? else {
            drop(transaction);
            return Err(self.conflict(scenario, expected)?);
        };
        // What is known describes the database's rows only if it says they
        // are still those the known save wrote (not so after a restore from
        // a backup, even one that brings the same version back).
        let written = match &known {
            Some(known) => {
                crate::rows::written_at(&mut transaction, scenario, expected, &known.token)?
            }
            None => None,
        };
        let known = known.filter(|_| written.is_some());
        let token = crate::rows::new_token();
        let digests = known
            .as_ref()
            .and_then(|k| k.pools.as_ref())
            .filter(|_| written == Some(true));
        let stored = i64::try_from(version).unwrap_or(i64::MAX);
        let known_store = known.as_ref().map(|k| &k.store);
        let pools_in_rows = pools.is_some();
        let store = crate::rows::write(
            &mut transaction,
            scenario,
            stored,
            &rows,
            pools_in_rows,
            &token,
            known_store,
        )?;
        let digests = match &pools {
            Some(pools) => {
                let writes = pools.writes(digests);
                crate::pool_rows::write(&mut transaction, scenario, &writes)?;
                Some(writes.digests)
            }
            None => {
                crate::pool_rows::clear(&mut transaction, scenario)?;
                None
            }
        };
        transaction.execute(
            "UPDATE sdsi_observation SET folded = TRUE
             WHERE scenario = $1 AND seq = ANY($2)",
            &[&scenario, &folded],
        )?;
        for (name, bytes) in attachments {
            transaction.execute(
                "INSERT INTO sdsi_attachment (scenario, name, bytes) VALUES ($1, $2, $3)
                 ON CONFLICT (scenario, name) DO UPDATE SET bytes = EXCLUDED.bytes",
                &[&scenario, name, bytes],
            )?;
        }
        if let Some(horizon) = horizon {
            let before = horizon.forget_before().map_or(i64::MIN, micros);
            transaction.execute(
                "DELETE FROM sdsi_observation
                 WHERE scenario = $1 AND folded AND (at_micros < $2 OR at_micros > $3)",
                &[&scenario, &before, &micros(horizon.latest())],
            )?;
        }
        transaction.execute("SELECT pg_notify('sdsi_state', $1)", &[&scenario])?;
        transaction.commit()?;
        let known = Known {
            token,
            store,
            pools: digests,
        };
        self.known_rows = Some((scenario.to_owned(), version, known));
        self.saw(scenario, version);
        Ok(version)
    }
}

/// Records `replica`'s progress inside `transaction`.
fn progress_in(
    transaction: &mut Transaction<'_>,
    scenario: &str,
    replica: &str,
    through: i64,
) -> Result<(), Error> {
    transaction.execute(
        "INSERT INTO sdsi_replica (scenario, replica, appended_through) VALUES ($1, $2, $3)
         ON CONFLICT (scenario, replica) DO UPDATE SET
             appended_through = GREATEST(sdsi_replica.appended_through, EXCLUDED.appended_through),
             finished = FALSE, heard_at = now()",
        &[&scenario, &replica, &through],
    )?;
    Ok(())
}
