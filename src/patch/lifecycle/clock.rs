//! The bound on how far `now` may jump past the last evaluation.

use serde::Serialize;
use time::{Duration, OffsetDateTime};

use super::records::Lifecycle;

/// A `now` refused for lying too far past the last evaluation (see
/// [`crate::patch::LifecyclePolicy::max_clock_jump`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[error(
    "{now} is more than {allowed} after the last evaluation ({last}): a clock that jumped ahead is refused"
)]
#[non_exhaustive]
pub struct ClockJump {
    /// The time refused.
    #[serde(with = "time::serde::rfc3339")]
    pub now: OffsetDateTime,
    /// The last evaluation.
    #[serde(with = "time::serde::rfc3339")]
    pub last: OffsetDateTime,
    /// How far past it `now` may lie.
    #[serde(serialize_with = "seconds")]
    pub allowed: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_i64(d.whole_seconds())
}

impl Lifecycle {
    /// The refusal of `now` when it lies more than the policy's
    /// [`crate::patch::LifecyclePolicy::max_clock_jump`] past the last evaluation.
    pub fn clock_jump(&self, now: OffsetDateTime) -> Option<ClockJump> {
        let last = self.evaluated_at?;
        let allowed = self.policy.max_clock_jump;
        if !allowed.is_positive() {
            return None; // no bound set
        }
        let latest = last.checked_add(allowed)?;
        (now > latest).then_some(ClockJump { now, last, allowed })
    }
}
