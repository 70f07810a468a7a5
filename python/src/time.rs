//! Time from Python: a timezone-aware `datetime`, never a naive one.
//!
//! The library never reads a clock; every call that depends on time takes
//! `now`. A naive datetime has no defined instant (local time? UTC?), so it
//! is refused rather than guessed.

use pyo3::prelude::*;
use pyo3::types::PyDateTime;
use time::OffsetDateTime;

use crate::errors::input_error;

/// Reads an aware `datetime` as an instant.
pub fn instant(value: &Bound<'_, PyAny>) -> PyResult<OffsetDateTime> {
    let Ok(datetime) = value.cast::<PyDateTime>() else {
        return Err(input_error(format!(
            "time must be a datetime.datetime, found a {}",
            value.get_type().name()?
        )));
    };
    if datetime.getattr("tzinfo")?.is_none() || datetime.call_method0("utcoffset")?.is_none() {
        return Err(input_error(
            "time must be timezone-aware (e.g. datetime.now(timezone.utc)); \
             a naive datetime names no instant",
        ));
    }
    value.extract::<OffsetDateTime>()
}
