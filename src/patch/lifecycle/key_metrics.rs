//! A key's metrics over the observation window (§6.2.3: usage frequency,
//! semantic alignment accuracy, value type correctness, client adoption
//! rate), computed from its windowed counts, and how they compare with the
//! policy's thresholds.

use serde::Serialize;
use time::OffsetDateTime;

use super::day_window::{DayWindow, day_of};
use super::policy::Thresholds;
use super::records::{KeyRecord, Lifecycle};
use crate::patch::schema_patch::PatchScope;

/// A key's metrics over the observation window; `None` where nothing was
/// observed yet (no payloads, no judgments).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct KeyMetrics {
    /// Payloads carrying the key / payloads of the scenario (of the client,
    /// for a personal key), since the key was introduced.
    pub usage_frequency: Option<f64>,
    /// Judged correct / judged, from [`Lifecycle::record_alignment`].
    pub semantic_alignment_accuracy: Option<f64>,
    /// Payloads whose value had the key's type / payloads carrying the key.
    pub value_type_correctness: Option<f64>,
    /// Clients it was delivered to (by the window's end) that sent it
    /// well-typed inside the window / clients it was delivered to (so at most 1).
    pub client_adoption_rate: Option<f64>,
}

impl KeyMetrics {
    pub(super) fn promotes(&self, t: &Thresholds) -> bool {
        let at_least = |m: Option<f64>, t: f64| m.is_some_and(|m| m >= t);
        at_least(self.usage_frequency, t.usage_frequency)
            && at_least(
                self.semantic_alignment_accuracy,
                t.semantic_alignment_accuracy,
            )
            && at_least(self.value_type_correctness, t.value_type_correctness)
    }

    pub(super) fn deprecates(&self, t: &Thresholds) -> bool {
        let below = |m: Option<f64>, t: f64| m.is_some_and(|m| m < t);
        below(self.usage_frequency, t.usage_frequency)
            || below(
                self.semantic_alignment_accuracy,
                t.semantic_alignment_accuracy,
            )
            || below(self.value_type_correctness, t.value_type_correctness)
    }
}

impl Lifecycle {
    /// The metrics of the key `name` in `scope` over the observation window
    /// ending at `now` (and starting no earlier than the key's introduction).
    pub fn metrics(
        &self,
        scope: &PatchScope,
        name: &str,
        now: OffsetDateTime,
    ) -> Option<KeyMetrics> {
        let record = self
            .record_index(scope, name)
            .and_then(|i| self.records.get(i))?;
        Some(self.metrics_of(record, now))
    }

    pub(super) fn metrics_of(&self, record: &KeyRecord, now: OffsetDateTime) -> KeyMetrics {
        let to = day_of(now);
        let from = day_of(record.introduced_at).max(to - self.policy.window_days() as i64 + 1);
        let totals = match &record.scope {
            PatchScope::Global => Some(&self.totals),
            PatchScope::Client(client) => self.client_totals.get(client),
        };
        let c = &record.counts;
        // Count only days every window still holds, so that a window that
        // has moved further (a clock that went back) cannot skew a ratio.
        let from = [
            totals.map_or(i64::MIN, DayWindow::oldest),
            c.present.oldest(),
            c.judged.oldest(),
        ]
        .into_iter()
        .fold(from, i64::max);
        let ratio = |num: u64, den: u64| (den > 0).then(|| num as f64 / den as f64);
        let present = c.present.sum(from, to);
        KeyMetrics {
            usage_frequency: ratio(present, totals.map_or(0, |t| t.sum(from, to))),
            semantic_alignment_accuracy: ratio(c.aligned.sum(from, to), c.judged.sum(from, to)),
            value_type_correctness: ratio(c.well_typed.sum(from, to), present),
            client_adoption_rate: {
                // Clients told about the key by the window's end, and those of
                // them that sent it well-typed inside the window.
                let told: Vec<&String> = c
                    .delivered_to
                    .iter()
                    .filter(|(_, day)| **day <= to)
                    .map(|(client, _)| client)
                    .collect();
                let adopted = told
                    .iter()
                    .filter(|client| {
                        c.adopted_by
                            .get(client.as_str())
                            .is_some_and(|day| (from..=to).contains(day))
                    })
                    .count();
                ratio(adopted as u64, told.len() as u64)
            },
        }
    }
}
