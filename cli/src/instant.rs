//! Instants on the command line: RFC 3339 times (`2026-06-01T08:00:00Z`).

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Parses `text` as an RFC 3339 time.
pub fn parse(text: &str) -> Result<OffsetDateTime, String> {
    OffsetDateTime::parse(text, &Rfc3339).map_err(|e| format!("not an RFC 3339 time: {e}"))
}
