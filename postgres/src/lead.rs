//! One evaluator at a time, change notices, and the database's clock.

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use time::OffsetDateTime;

use crate::error::{Error, column};
use crate::state::PgState;

/// The advisory lock's key for `scenario`'s evaluator (a 64-bit hash, so
/// scenarios do not share a lock but for a collision, which only
/// serialises two evaluators).
const LOCK: &str = "hashtextextended('sdsi_evaluator:' || $1, 0)";

impl PgState {
    /// Becomes `scenario`'s evaluator, the one connection that folds the
    /// log into the state: true when this connection holds the lock (it
    /// may already have). With `wait`, blocks until the holder lets go.
    /// The lock is the connection's: it goes when the connection closes, so
    /// a replica that dies hands the work on to the next one that asks.
    pub fn lead(&mut self, scenario: &str, wait: bool) -> Result<bool, Error> {
        if self.leading.contains(scenario) {
            return Ok(true);
        }
        let held = if wait {
            self.client
                .execute(&format!("SELECT pg_advisory_lock({LOCK})"), &[&scenario])?;
            true
        } else {
            let row = self.client.query_one(
                &format!("SELECT pg_try_advisory_lock({LOCK})"),
                &[&scenario],
            )?;
            column::<bool>(&row, "pg_try_advisory_lock", 0)?
        };
        if held {
            self.leading.insert(scenario.to_owned());
        }
        Ok(held)
    }

    /// Lets go of `scenario`'s evaluator lock, if this connection holds it.
    pub fn resign(&mut self, scenario: &str) -> Result<(), Error> {
        if self.leading.remove(scenario) {
            self.client
                .execute(&format!("SELECT pg_advisory_unlock({LOCK})"), &[&scenario])?;
        }
        Ok(())
    }

    /// Asks to hear of every state saved by [`PgState::save_folded`] from
    /// now on ([`PgState::wait_for_change`]).
    pub fn listen(&mut self) -> Result<(), Error> {
        self.client.batch_execute("LISTEN sdsi_state")?;
        Ok(())
    }

    /// Waits up to `timeout` for a saved state (after [`PgState::listen`]):
    /// the scenarios saved since the last call, empty when none was. A
    /// replica reloads the store (patches, lifecycle) of those it serves.
    pub fn wait_for_change(&mut self, timeout: Duration) -> Result<Vec<String>, Error> {
        let mut notifications = self.client.notifications();
        let mut scenarios = Vec::new();
        if let Some(first) = notifications.timeout_iter(timeout).next()? {
            scenarios.push(first.payload().to_owned());
        }
        // And whatever else arrived meanwhile, without waiting again.
        let mut arrived = notifications.iter();
        while let Some(next) = arrived.next()? {
            scenarios.push(next.payload().to_owned());
        }
        scenarios.sort();
        scenarios.dedup();
        Ok(scenarios)
    }

    /// The database server's clock: replicas that share a database take
    /// their `now` from it, so one replica's wrong clock moves nothing.
    pub fn now(&mut self) -> Result<OffsetDateTime, Error> {
        let row = self.client.query_one(
            "SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT",
            &[],
        )?;
        let micros: i64 = column(&row, "clock_timestamp", 0)?;
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1000).map_err(|e| {
            Error::Damaged {
                scenario: String::new(),
                message: format!("the server's clock reads {micros} µs: {e}"),
            }
        })
    }
}
