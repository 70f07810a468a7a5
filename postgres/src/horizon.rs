//! What a fold may forget of the observation log: message times, which
//! any client may set, bounded by a clock the evaluator trusts.

use time::{Duration, OffsetDateTime};

/// A logged message refused by the fold: dated more than the allowed lead
/// past the evaluator's clock (a wrong or forged time). Folded, it would
/// move the forget horizon (and with it the whole folded log) and the
/// pools' clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("dated {at}, more than {ahead} after the evaluator's clock ({now}): refused, not folded")]
#[non_exhaustive]
pub struct AheadOfClock {
    /// The message's time.
    pub at: OffsetDateTime,
    /// The evaluator's clock.
    pub now: OffsetDateTime,
    /// How far past `now` a message may be dated.
    pub ahead: Duration,
}

/// One fold's bounds on time: which messages it may fold
/// ([`Horizon::admit`]) and which folded observations
/// [`PgState::save_folded`](crate::PgState::save_folded) forgets
/// ([`Horizon::forget_before`]), from the evaluator's clock (`now`: the
/// application's, never read by this crate; the CLI takes the database
/// server's, [`PgState::now`](crate::PgState::now)) rather than from the
/// newest message alone, so one message dated in the far future can
/// neither be counted nor make the log forget what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Horizon {
    /// The evaluator's clock.
    pub now: OffsetDateTime,
    /// How far past `now` a message may be dated (clocks that disagree).
    pub ahead: Duration,
    /// How long (in message time) a folded observation is kept after the
    /// newest one counted: within it a repeated message id is recognised.
    pub retention: Duration,
    /// The newest message time counted so far, if any.
    pub newest: Option<OffsetDateTime>,
}

impl Horizon {
    /// A fold's bounds at `now`, admitting messages up to `ahead` past it
    /// and keeping folded ones for `retention`.
    pub const fn new(now: OffsetDateTime, ahead: Duration, retention: Duration) -> Self {
        Self {
            now,
            ahead,
            retention,
            newest: None,
        }
    }

    /// The latest message time the fold admits: `ahead` past `now` (or
    /// the latest time there is, when that overflows).
    pub fn latest(&self) -> OffsetDateTime {
        self.now
            .checked_add(self.ahead.abs())
            .unwrap_or(time::PrimitiveDateTime::MAX.assume_utc())
    }

    /// Whether a message dated `at` may be folded: refused when it lies
    /// past [`Horizon::latest`]. The caller marks a refused row folded
    /// without folding it; the save deletes it (a retry is refused again).
    pub fn admit(&self, at: OffsetDateTime) -> Result<(), AheadOfClock> {
        if at > self.latest() {
            return Err(AheadOfClock {
                at,
                now: self.now,
                ahead: self.ahead.abs(),
            });
        }
        Ok(())
    }

    /// Records that a message dated `at` was folded and counted (for a
    /// store: its clock accepted `at`, no `clock_refused`): the horizon
    /// follows the newest such time.
    pub fn counted(&mut self, at: OffsetDateTime) {
        self.newest = Some(self.newest.map_or(at, |newest| newest.max(at)));
    }

    /// Folded observations dated before this may be forgotten: the newest
    /// time counted, or `now` when that is later, less the retention.
    /// `None` while nothing was counted.
    pub fn forget_before(&self) -> Option<OffsetDateTime> {
        let through = self.newest?.min(self.now);
        Some(
            through
                .checked_sub(self.retention.abs())
                .unwrap_or(time::PrimitiveDateTime::MIN.assume_utc()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn a_far_future_time_is_refused_and_never_moves_the_horizon() {
        let now = datetime!(2026-06-01 8:00 UTC);
        let mut horizon = Horizon::new(now, Duration::days(30), Duration::days(7));
        assert_eq!(horizon.forget_before(), None);
        let far = datetime!(9999-01-01 0:00 UTC);
        assert_eq!(
            horizon.admit(far),
            Err(AheadOfClock {
                at: far,
                now,
                ahead: Duration::days(30)
            })
        );
        horizon.admit(now + Duration::days(30)).unwrap();
        horizon.counted(datetime!(2026-05-20 8:00 UTC));
        assert_eq!(
            horizon.forget_before(),
            Some(datetime!(2026-05-13 8:00 UTC))
        );
        // Admitted but later than `now`: the horizon stops at `now`.
        horizon.counted(now + Duration::days(20));
        assert_eq!(
            horizon.forget_before(),
            Some(datetime!(2026-05-25 8:00 UTC))
        );
        // Bounds that overflow are the ends of time, not a panic.
        let end = Horizon::new(far, Duration::MAX, Duration::MAX);
        assert!(end.admit(far).is_ok());
        let mut start = Horizon::new(now, Duration::ZERO, Duration::MAX);
        start.counted(now);
        assert!(start.forget_before().is_some());
    }
}
