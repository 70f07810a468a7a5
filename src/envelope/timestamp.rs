//! The envelope's `timestamp`: an RFC 3339 date-time.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::time::{SystemTime, UNIX_EPOCH};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// An envelope's `timestamp`: an RFC 3339 date-time (the ISO 8601 profile
/// with a UTC offset), representable in RFC 3339 both as written and in UTC
/// (years 0000 to 9999, an offset of whole minutes).
///
/// The document asks for UTC; another offset is accepted with the warning
/// [`NonUtcTimestamp`](crate::IssueCode::NonUtcTimestamp). The crate reads no clock: pass `now` in.
/// Two timestamps are equal when they name the same instant, whatever their
/// offsets; the offset is kept and written back.
///
/// ```
/// use sdsi::envelope::Timestamp;
/// let t: Timestamp = "2025-11-21T20:45:00Z".parse()?;
/// assert!(t.is_utc());
/// let local: Timestamp = "2025-11-22T04:45:00+08:00".parse()?;
/// assert!(!local.is_utc());
/// assert_eq!(local.to_utc(), t);
/// let now = Timestamp::try_from(std::time::SystemTime::now())?;
/// assert!(now.is_utc());
/// # Ok::<(), sdsi::envelope::InvalidTimestamp>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timestamp(OffsetDateTime);

/// Why a string or a date-time is not a valid envelope `timestamp`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidTimestamp {
    /// The text is not an RFC 3339 date-time with an offset.
    #[error(
        "{text:?} is not an rfc 3339 date-time with a utc offset, e.g. 2025-11-21T20:45:00Z ({reason})"
    )]
    Unparseable {
        /// The rejected text.
        text: String,
        /// What the parser found wrong.
        reason: String,
    },
    /// The date-time falls outside the years 0000-9999 (as written or in UTC).
    #[error("date-time is outside the years 0000-9999 that rfc 3339 can write")]
    OutOfRange,
    /// The offset has a seconds component, which RFC 3339 cannot write.
    #[error("utc offset {offset} has seconds, which rfc 3339 cannot write")]
    OffsetSeconds {
        /// The offset.
        offset: String,
    },
}

impl Timestamp {
    /// Wraps `date_time`, keeping its offset.
    pub fn new(date_time: OffsetDateTime) -> Result<Self, InvalidTimestamp> {
        let offset = date_time.offset();
        if offset.seconds_past_minute() != 0 {
            return Err(InvalidTimestamp::OffsetSeconds {
                offset: format!("{offset:?}"),
            });
        }
        let in_range = |t: &OffsetDateTime| (0..=9999).contains(&t.year());
        let utc = date_time
            .checked_to_offset(UtcOffset::UTC)
            .ok_or(InvalidTimestamp::OutOfRange)?;
        if in_range(&date_time) && in_range(&utc) {
            Ok(Self(date_time))
        } else {
            Err(InvalidTimestamp::OutOfRange)
        }
    }

    /// `date_time` converted to UTC: what [`new`](crate::Envelope::new) and
    /// [`reply`](crate::Envelope::reply) want for `now`.
    pub fn utc(date_time: OffsetDateTime) -> Result<Self, InvalidTimestamp> {
        Self::new(date_time).map(|t| t.to_utc())
    }

    /// Parses RFC 3339 text (`T` or a space between date and time, `Z` or
    /// `±hh:mm`; a leap second `:60` is read as the last nanosecond of the minute).
    pub fn parse(text: &str) -> Result<Self, InvalidTimestamp> {
        let date_time =
            OffsetDateTime::parse(text, &Rfc3339).map_err(|e| InvalidTimestamp::Unparseable {
                text: text.to_owned(),
                reason: e.to_string(),
            })?;
        Self::new(date_time)
    }

    /// Whether the offset is zero (`Z`, `+00:00` or `-00:00`).
    pub fn is_utc(&self) -> bool {
        self.0.offset().is_utc()
    }

    /// The same instant in UTC.
    pub fn to_utc(&self) -> Self {
        // `new` checked that the UTC form exists and is in range.
        Self(self.0.checked_to_offset(UtcOffset::UTC).unwrap_or(self.0))
    }

    /// The date-time, with its offset.
    pub fn as_offset_date_time(&self) -> OffsetDateTime {
        self.0
    }
}

impl TryFrom<OffsetDateTime> for Timestamp {
    type Error = InvalidTimestamp;

    /// Same as [`Timestamp::new`]: the offset is kept.
    fn try_from(date_time: OffsetDateTime) -> Result<Self, Self::Error> {
        Self::new(date_time)
    }
}

impl TryFrom<SystemTime> for Timestamp {
    type Error = InvalidTimestamp;

    /// The instant in UTC; fails only outside the years 0000-9999.
    fn try_from(time: SystemTime) -> Result<Self, Self::Error> {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i128::try_from(after.as_nanos()).ok(),
            Err(before) => i128::try_from(before.duration().as_nanos())
                .ok()
                .map(|n| -n),
        };
        let date_time = nanos
            .and_then(|n| OffsetDateTime::from_unix_timestamp_nanos(n).ok())
            .ok_or(InvalidTimestamp::OutOfRange)?;
        Self::new(date_time)
    }
}

impl FromStr for Timestamp {
    type Err = InvalidTimestamp;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Cannot fail: `new` keeps years and offsets RFC 3339 can write.
        match self.0.format(&Rfc3339) {
            Ok(text) => f.write_str(&text),
            Err(_) => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
