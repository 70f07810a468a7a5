//! Windowed counters: per-day buckets in a ring, so a 30-day window costs 30
//! counters whatever the traffic, and adding is O(1).

use time::OffsetDateTime;

const SECONDS_PER_DAY: i64 = 86_400;

/// The UTC day number of `at` (days since 1970-01-01).
pub(crate) fn day_of(at: OffsetDateTime) -> i64 {
    at.unix_timestamp().div_euclid(SECONDS_PER_DAY)
}

/// Counts per UTC day over the last `days` days.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "RawDayWindow")]
pub(crate) struct DayWindow {
    counts: Vec<u64>,
    /// The newest day with a bucket; buckets hold `latest - len + 1 ..= latest`.
    latest: i64,
}

/// Most days a deserialized window may hold (a policy's window is at most
/// 3,660 days).
const MAX_DAYS: usize = 100_000;

/// The UTC days a timestamp can fall on (`time`'s range of dates), so that
/// the sentinels `i64::MIN` and `i64::MAX` lie outside.
fn day_range() -> std::ops::RangeInclusive<i64> {
    let day = |date: time::Date| day_of(date.midnight().assume_utc());
    day(time::Date::MIN)..=day(time::Date::MAX)
}

/// A deserialized window before its check: an empty ring has no slot for
/// any day (and would divide by zero).
#[derive(serde::Deserialize)]
struct RawDayWindow {
    counts: Vec<u64>,
    latest: i64,
}

impl TryFrom<RawDayWindow> for DayWindow {
    type Error = &'static str;
    fn try_from(raw: RawDayWindow) -> Result<Self, Self::Error> {
        if raw.counts.is_empty() {
            return Err("a day window needs at least one day");
        }
        if raw.counts.len() > MAX_DAYS {
            return Err("a day window holds at most 100,000 days");
        }
        Ok(Self {
            counts: raw.counts,
            latest: raw.latest,
        })
    }
}

impl DayWindow {
    pub(crate) fn new(days: usize) -> Self {
        Self {
            counts: vec![0; days.max(1)],
            latest: i64::MIN,
        }
    }

    /// How many days the window holds.
    pub(crate) fn window_len(&self) -> usize {
        self.counts.len()
    }

    fn len(&self) -> i64 {
        self.counts.len() as i64
    }

    fn slot(&self, day: i64) -> usize {
        day.rem_euclid(self.len()) as usize
    }

    /// Adds `n` to `day`'s count. A day older than the window is dropped; a
    /// newer day moves the window forward, clearing the days it passes.
    pub(crate) fn add(&mut self, day: i64, n: u64) {
        if self.latest == i64::MIN || day > self.latest {
            let stale = if self.latest == i64::MIN {
                self.len()
            } else {
                day.saturating_sub(self.latest).min(self.len())
            };
            for step in 0..stale {
                let slot = self.slot(day.saturating_sub(step));
                if let Some(c) = self.counts.get_mut(slot) {
                    *c = 0;
                }
            }
            self.latest = day;
        } else if day <= self.latest.saturating_sub(self.len()) {
            return;
        }
        let slot = self.slot(day);
        if let Some(c) = self.counts.get_mut(slot) {
            *c = c.saturating_add(n);
        }
    }

    /// The oldest day the window still holds (`i64::MIN` while empty).
    pub(crate) fn oldest(&self) -> i64 {
        if self.latest == i64::MIN {
            i64::MIN
        } else {
            self.latest.saturating_sub(self.len()).saturating_add(1)
        }
    }

    /// Each day the window holds with its count, oldest first: the days
    /// with a count, and the newest day always (it places the window).
    pub(crate) fn days(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        let latest = self.latest;
        let first = if latest == i64::MIN {
            0
        } else {
            latest.saturating_sub(self.len()).saturating_add(1)
        };
        (first..=latest)
            .filter(move |_| latest != i64::MIN)
            .filter_map(move |day| Some((day, *self.counts.get(self.slot(day))?)))
            .filter(move |&(day, count)| count > 0 || day == latest)
    }

    /// The window of `len` days holding `days` (as [`DayWindow::days`]
    /// gives them): the newest names the window; a day outside it, or one
    /// given twice, is refused.
    pub(crate) fn from_days(len: usize, days: &[(i64, u64)]) -> Result<Self, String> {
        if len == 0 || len > MAX_DAYS {
            return Err(format!(
                "a day window holds 1 to {MAX_DAYS} days, not {len}"
            ));
        }
        let possible = day_range();
        if let Some(&(day, _)) = days.iter().find(|(day, _)| !possible.contains(day)) {
            return Err(format!(
                "day {day} is outside the years a timestamp can have"
            ));
        }
        let mut window = Self::new(len);
        let Some(latest) = days.iter().map(|&(day, _)| day).max() else {
            return Ok(window);
        };
        window.latest = latest;
        let oldest = window.oldest();
        let mut seen = std::collections::HashSet::new();
        for &(day, count) in days {
            if day < oldest || !seen.insert(day) {
                return Err(format!(
                    "day {day} is outside a {len}-day window ending on day {latest}, or given twice"
                ));
            }
            let slot = window.slot(day);
            if let Some(c) = window.counts.get_mut(slot) {
                *c = count;
            }
        }
        Ok(window)
    }

    /// The total over days `from ..= to`, as far as the window still holds them.
    pub(crate) fn sum(&self, from: i64, to: i64) -> u64 {
        if self.latest == i64::MIN {
            return 0;
        }
        let from = from.max(self.latest.saturating_sub(self.len()).saturating_add(1));
        let to = to.min(self.latest);
        (from..=to)
            .filter_map(|day| self.counts.get(self.slot(day)))
            .fold(0u64, |a, &c| a.saturating_add(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_slides_and_forgets() {
        let mut w = DayWindow::new(3);
        w.add(10, 1);
        w.add(11, 2);
        w.add(12, 4);
        assert_eq!(w.sum(10, 12), 7);
        w.add(13, 8); // day 10 leaves the window
        assert_eq!(w.sum(0, 13), 14);
        w.add(11, 16); // a late arrival inside the window still counts
        assert_eq!(w.sum(11, 11), 18);
        w.add(5, 100); // too old: dropped
        assert_eq!(w.sum(0, 13), 30);
        w.add(100, 1); // a long jump clears everything
        assert_eq!(w.sum(0, 100), 1);
    }

    #[test]
    fn a_window_comes_back_from_its_days() {
        let mut w = DayWindow::new(4);
        assert_eq!(w.days().count(), 0);
        assert_eq!(DayWindow::from_days(4, &[]).unwrap(), w);
        for (day, n) in [(3, 2), (5, 1), (7, 4), (8, 0)] {
            w.add(day, n);
        }
        // Day 3 left the window; day 6 has no count; day 8 places it.
        let days: Vec<_> = w.days().collect();
        assert_eq!(days, [(5, 1), (7, 4), (8, 0)]);
        assert_eq!(DayWindow::from_days(4, &days).unwrap(), w);
        assert!(DayWindow::from_days(4, &[(4, 1), (8, 0)]).is_err());
        assert!(DayWindow::from_days(4, &[(7, 1), (7, 2)]).is_err());
        // The first and last days a timestamp can have come back; the
        // sentinels do not.
        for date in [time::Date::MIN, time::Date::MAX] {
            let mut w = DayWindow::new(2);
            w.add(day_of(date.midnight().assume_utc()), 3);
            let days: Vec<_> = w.days().collect();
            assert_eq!(DayWindow::from_days(2, &days).unwrap(), w);
        }
        assert!(DayWindow::from_days(2, &[(i64::MIN, 1)]).is_err());
        assert!(DayWindow::from_days(2, &[(i64::MAX, 1)]).is_err());
    }

    #[test]
    fn extreme_days_from_a_damaged_snapshot_do_not_overflow() {
        for latest in [i64::MIN + 1, i64::MAX, -1] {
            let mut w = DayWindow {
                counts: vec![0; 3],
                latest,
            };
            w.add(0, 1);
            w.add(i64::MAX, 1);
            w.add(i64::MIN + 2, 1);
            let _ = (w.sum(i64::MIN, i64::MAX), w.oldest());
        }
    }
}
