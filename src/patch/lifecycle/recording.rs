//! What feeds a key's counts: the payloads clients send, the judgments of
//! whether a value matched the user's intent, and the deliveries of a key
//! to a client.

use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::day_window::day_of;
use super::records::Lifecycle;
use super::state::KeyState;
use crate::patch::schema_patch::PatchScope;

impl Lifecycle {
    /// Records one payload from `client`: O(members of the payload).
    pub fn record_payload(
        &mut self,
        payload: &Map<String, Value>,
        client: &str,
        now: OffsetDateTime,
    ) {
        let day = day_of(now);
        self.totals.add(day, 1);
        if let Some(totals) = self.client_totals.get_mut(client) {
            totals.add(day, 1);
        }
        if self.records.is_empty() {
            return;
        }
        let personal = self.personal.get(client);
        for (name, value) in payload {
            let index = self
                .global
                .get(name.as_str())
                .or_else(|| personal?.get(name.as_str()))
                .copied();
            let Some(record) = index.and_then(|i| self.records.get_mut(i)) else {
                continue;
            };
            if value.is_null() {
                continue; // `null` on an optional key means "not given"
            }
            record.counts.present.add(day, 1);
            if record.key_type.matches(value) {
                record.counts.well_typed.add(day, 1);
                if record.state == KeyState::Gone {
                    continue; // no metric is read for it: remember no client
                }
                match record.counts.adopted_by.get_mut(client) {
                    Some(latest) => *latest = (*latest).max(day),
                    None => {
                        record.counts.adopted_by.insert(client.to_owned(), day);
                    }
                }
            }
        }
    }

    /// Records a judgment of whether a payload's value for `name` matched the
    /// user's intent (from an LLM judge or an audit sampler outside the crate).
    /// Returns false when the key is not tracked.
    pub fn record_alignment(
        &mut self,
        scope: &PatchScope,
        name: &str,
        aligned: bool,
        now: OffsetDateTime,
    ) -> bool {
        let day = day_of(now);
        let Some(record) = self
            .record_index(scope, name)
            .and_then(|i| self.records.get_mut(i))
        else {
            return false;
        };
        record.counts.judged.add(day, 1);
        if aligned {
            record.counts.aligned.add(day, 1);
        }
        true
    }

    /// Records that the key `name` was delivered to `client` at `now` (the
    /// denominator of the adoption rate). Returns false when the key is not
    /// tracked, or is gone: a gone key keeps no clients.
    pub fn record_delivery(
        &mut self,
        scope: &PatchScope,
        name: &str,
        client: &str,
        now: OffsetDateTime,
    ) -> bool {
        let Some(record) = self
            .record_index(scope, name)
            .and_then(|i| self.records.get_mut(i))
            .filter(|r| r.state < KeyState::Gone)
        else {
            return false;
        };
        let day = day_of(now);
        record
            .counts
            .delivered_to
            .entry(client.to_owned())
            .and_modify(|first| *first = (*first).min(day))
            .or_insert(day);
        true
    }
}
