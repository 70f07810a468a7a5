//! A key record as a store kept as rows writes it: a key row's body,
//! without the counts and clients the count and adoption rows hold (what
//! stands for a window is its length), written from the record's own parts
//! rather than serialized whole only to be stripped.

use serde::Serialize;
use time::OffsetDateTime;

use super::day_window::DayWindow;
use super::records::KeyRecord;
use super::state::KeyState;
use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::patch::schema_patch::PatchScope;

/// The member of [`WindowLength`], as [`super::counted::fill`] reads it.
pub(super) const WINDOW_DAYS: &str = "window_days";

/// What stands for a window in a split header or a key row: its length.
#[derive(Serialize)]
pub(super) struct WindowLength {
    window_days: usize,
}

impl From<&DayWindow> for WindowLength {
    fn from(window: &DayWindow) -> Self {
        Self {
            window_days: window.window_len(),
        }
    }
}

/// A key record without its counts and clients (what stands for them: the
/// window's length), serialized as a key row's body and in a split
/// header: every member of [`KeyRecord`] but `counts`, in its order.
#[derive(Serialize)]
pub(crate) struct RecordHeader<'a> {
    scope: &'a PatchScope,
    key_name: &'a KeyName,
    key_type: KeyType,
    definition: &'a KeyDefinition,
    patch_id: &'a str,
    state: KeyState,
    #[serde(with = "time::serde::iso8601")]
    introduced_at: OffsetDateTime,
    #[serde(with = "time::serde::iso8601")]
    offer_ends_at: OffsetDateTime,
    #[serde(with = "time::serde::iso8601")]
    state_since: OffsetDateTime,
    counts: WindowLength,
}

impl KeyRecord {
    /// The record as a key row's body holds it.
    pub(crate) fn header(&self) -> RecordHeader<'_> {
        RecordHeader {
            scope: &self.scope,
            key_name: &self.key_name,
            key_type: self.key_type,
            definition: &self.definition,
            patch_id: &self.patch_id,
            state: self.state,
            introduced_at: self.introduced_at,
            offer_ends_at: self.offer_ends_at,
            state_since: self.state_since,
            counts: WindowLength::from(&self.counts.present),
        }
    }
}
