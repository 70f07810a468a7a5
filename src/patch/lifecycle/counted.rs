//! The lifecycle's counters out as rows ([`crate::patch::CountRow`],
//! [`crate::patch::AdoptionRow`]) and back in: the rows of every window and
//! client, and on load the counts put back into a lifecycle its split header
//! or key rows wrote, with the same checks a snapshot gets.

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::count_rows::{AdoptionRow, CountRow, Metric, client_scope_column, scope_column};
use super::day_window::DayWindow;
use super::policy::LifecyclePolicy;
use super::records::{Counts, Lifecycle};
use super::split_header::WINDOW_DAYS;
use crate::patch::schema_patch::PatchScope;

/// The metrics of a key record, in their order.
const KEY_METRICS: [Metric; 4] = [
    Metric::Present,
    Metric::WellTyped,
    Metric::Judged,
    Metric::Aligned,
];

impl Counts {
    fn windows(&self) -> [&DayWindow; 4] {
        [&self.present, &self.well_typed, &self.judged, &self.aligned]
    }
}

/// The rows of one window.
fn window_rows<'a>(
    scope: &'a str,
    key_name: &'a str,
    metric: Metric,
    window: &'a DayWindow,
) -> impl Iterator<Item = CountRow> + 'a {
    window.days().map(move |(day, count)| {
        CountRow::from_columns(
            scope.to_owned(),
            key_name.to_owned(),
            metric,
            day,
            i64::try_from(count).unwrap_or(i64::MAX),
        )
    })
}

impl Lifecycle {
    /// Every counter as a row, and every (key, client) told of or sending
    /// a key.
    pub(crate) fn count_rows(&self) -> (Vec<CountRow>, Vec<AdoptionRow>) {
        let mut counts: Vec<CountRow> =
            window_rows("global", "", Metric::Messages, &self.totals).collect();
        for (client, window) in &self.client_totals {
            let scope = client_scope_column(client);
            counts.extend(window_rows(&scope, "", Metric::Messages, window));
        }
        let mut adoptions = Vec::new();
        for record in &self.records {
            let scope = scope_column(&record.scope);
            let key = record.key_name.as_str();
            for (metric, window) in KEY_METRICS.into_iter().zip(record.counts.windows()) {
                counts.extend(window_rows(&scope, key, metric, window));
            }
            let c = &record.counts;
            let clients = c.delivered_to.keys().chain(
                c.adopted_by
                    .keys()
                    .filter(|client| !c.delivered_to.contains_key(*client)),
            );
            adoptions.extend(clients.map(|client| {
                AdoptionRow::from_columns(
                    scope.clone(),
                    key.to_owned(),
                    client.clone(),
                    c.delivered_to.get(client).copied(),
                    c.adopted_by.get(client).copied(),
                )
            }));
        }
        (counts, adoptions)
    }
}

/// The rows of one owner (a key in a scope, or a scope's totals).
#[derive(Default)]
struct Owned {
    days: HashMap<Metric, Vec<(i64, u64)>>,
    delivered_to: FxHashMap<String, i64>,
    adopted_by: FxHashMap<String, i64>,
}

/// The window a stripped one stands for, from its owner's rows of `metric`;
/// its length must be the policy's (`expected`), when known.
fn window_from(
    stripped: Option<&Value>,
    owned: &mut Owned,
    metric: Metric,
    expected: Option<usize>,
) -> Result<Value, String> {
    let days = stripped
        .and_then(|v| v.get(WINDOW_DAYS))
        .and_then(Value::as_u64)
        .and_then(|d| usize::try_from(d).ok())
        .ok_or_else(|| format!("a window has no `{WINDOW_DAYS}`"))?;
    if expected.is_some_and(|e| e != days) {
        return Err(format!(
            "a {days}-day window in a lifecycle whose windows are {} days",
            expected.unwrap_or_default()
        ));
    }
    let rows = owned.days.remove(&metric).unwrap_or_default();
    let window = DayWindow::from_days(days, &rows)?;
    serde_json::to_value(window).map_err(|e| e.to_string())
}

/// Puts the rows back into a lifecycle `LifecycleHeader` (lifecycle_header.rs) wrote (or into
/// `{"records": [...]}` alone, given no message totals): every row must
/// belong to a record or a total it has, and every window's days must fit.
pub(crate) fn fill<'a>(
    lifecycle: &mut Value,
    counts: impl IntoIterator<Item = &'a CountRow>,
    adoptions: &[AdoptionRow],
) -> Result<(), String> {
    let mut owners: HashMap<(String, String), Owned> = HashMap::new();
    for row in counts {
        let count = u64::try_from(row.count)
            .map_err(|_| format!("a negative count ({}) for {:?}", row.count, row.key_name))?;
        let owner = owners
            .entry((row.scope.clone(), row.key_name.clone()))
            .or_default();
        owner
            .days
            .entry(row.metric)
            .or_default()
            .push((row.day, count));
    }
    for row in adoptions {
        let owner = owners
            .entry((row.scope.clone(), row.key_name.clone()))
            .or_default();
        let client = || row.client.clone();
        let twice = owner.delivered_to.contains_key(&row.client)
            || owner.adopted_by.contains_key(&row.client);
        if twice || (row.delivered_day.is_none() && row.adopted_day.is_none()) {
            return Err(format!(
                "client {:?} of key {:?} is listed twice, or with no day",
                row.client, row.key_name
            ));
        }
        if let Some(day) = row.delivered_day {
            owner.delivered_to.insert(client(), day);
        }
        if let Some(day) = row.adopted_day {
            owner.adopted_by.insert(client(), day);
        }
    }
    let object = lifecycle
        .as_object_mut()
        .ok_or("the lifecycle is not an object")?;
    // Every window is as long as the policy says (a record's rows alone,
    // read for a query, come without it).
    let expected = match object.get("policy") {
        Some(policy) => Some(
            serde_json::from_value::<LifecyclePolicy>(policy.clone())
                .map_err(|e| e.to_string())?
                .window_days(),
        ),
        None => None,
    };
    let mut totals = owners
        .remove(&("global".to_owned(), String::new()))
        .unwrap_or_default();
    if object.contains_key("totals") {
        let filled = window_from(
            object.get("totals"),
            &mut totals,
            Metric::Messages,
            expected,
        )?;
        object.insert("totals".to_owned(), filled);
    }
    if let Some(Value::Object(clients)) = object.get_mut("client_totals") {
        for (client, window) in clients.iter_mut() {
            let scope = client_scope_column(client);
            let mut owned = owners
                .remove(&(scope.clone(), String::new()))
                .unwrap_or_default();
            *window = window_from(Some(window), &mut owned, Metric::Messages, expected)?;
            unclaimed(&owned, &scope, "")?;
        }
    }
    unclaimed(&totals, "global", "")?;
    let records = object.get_mut("records").and_then(Value::as_array_mut);
    for record in records.into_iter().flatten() {
        let scope: PatchScope = record
            .get("scope")
            .map(|s| serde_json::from_value(s.clone()))
            .transpose()
            .map_err(|e| e.to_string())?
            .ok_or("a key record has no scope")?;
        let scope = scope_column(&scope);
        let key = record
            .get("key_name")
            .and_then(Value::as_str)
            .ok_or("a key record has no key name")?
            .to_owned();
        let mut owned = owners
            .remove(&(scope.clone(), key.clone()))
            .unwrap_or_default();
        let stripped = record.get("counts");
        let mut filled = Map::new();
        for (metric, name) in
            KEY_METRICS
                .into_iter()
                .zip(["present", "well_typed", "judged", "aligned"])
        {
            filled.insert(
                name.to_owned(),
                window_from(stripped, &mut owned, metric, expected)?,
            );
        }
        unclaimed(&owned, &scope, &key)?;
        let gone = record.get("state").and_then(Value::as_str) == Some("gone");
        if gone && !(owned.delivered_to.is_empty() && owned.adopted_by.is_empty()) {
            return Err(format!("clients of {key:?}, a gone key (which keeps none)"));
        }
        let maps = [
            ("delivered_to", owned.delivered_to),
            ("adopted_by", owned.adopted_by),
        ];
        for (name, map) in maps {
            let value = serde_json::to_value(map).map_err(|e| e.to_string())?;
            filled.insert(name.to_owned(), value);
        }
        if let Some(slot) = record.get_mut("counts") {
            *slot = Value::Object(filled);
        }
    }
    match owners.keys().next() {
        Some((scope, key)) => Err(format!(
            "count rows for {key:?} in scope {scope:?}, which the lifecycle has no record of"
        )),
        None => Ok(()),
    }
}

/// Refuses rows of a metric the owner has no window for.
fn unclaimed(owned: &Owned, scope: &str, key: &str) -> Result<(), String> {
    match owned.days.keys().next() {
        Some(metric) => Err(format!(
            "{} rows for {key:?} in scope {scope:?}, which counts no such thing",
            metric.as_str()
        )),
        None if key.is_empty()
            && !(owned.delivered_to.is_empty() && owned.adopted_by.is_empty()) =>
        {
            Err(format!("adoption rows with no key in scope {scope:?}"))
        }
        None => Ok(()),
    }
}
