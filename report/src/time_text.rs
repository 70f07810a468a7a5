//! Times as people read them in a report: RFC 3339 in UTC
//! (`2026-05-09T08:00:00Z`).

use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// `at` in RFC 3339, in UTC; a time RFC 3339 cannot write (a year outside
/// 0-9999) as seconds since the Unix epoch.
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.checked_to_offset(UtcOffset::UTC)
        .and_then(|utc| utc.format(&Rfc3339).ok())
        .unwrap_or_else(|| format!("{}s since 1970-01-01T00:00:00Z", at.unix_timestamp()))
}
