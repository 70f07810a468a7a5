//! The lifecycle's counters as the store's table rows: every metric count
//! of every key and the message totals, one row per UTC day, and per (key,
//! client) the days a client was first told of a key and last sent it,
//! with the scope column they share with key rows. A back end keeps them
//! as table rows and moves a counter in place (`count = count + n`) by what
//! a save added to it ([`crate::patch::StoreRows::writes`]), so counting a
//! message writes a handful of small rows, never the state they belong to
//! (docs/replicas.md, "Counters").

use crate::patch::schema_patch::PatchScope;

/// What a count row counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Metric {
    /// Payloads recorded: the scope's total (`global`: from every client;
    /// `client:ID`: from that client, kept for clients with personal keys).
    /// Its rows have an empty key name.
    Messages,
    /// Payloads in which the key was present (not `null`).
    Present,
    /// Of those, payloads whose value had the key's type.
    WellTyped,
    /// Judgments of the key's value against the request's intent.
    Judged,
    /// Of those, judgments that it matched.
    Aligned,
}

impl Metric {
    /// The column's text: `messages`, `present`, `well_typed`, `judged`,
    /// `aligned`.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Messages => "messages",
            Metric::Present => "present",
            Metric::WellTyped => "well_typed",
            Metric::Judged => "judged",
            Metric::Aligned => "aligned",
        }
    }

    /// The metric a column's text names, if any.
    pub fn parse(text: &str) -> Option<Self> {
        [
            Metric::Messages,
            Metric::Present,
            Metric::WellTyped,
            Metric::Judged,
            Metric::Aligned,
        ]
        .into_iter()
        .find(|metric| metric.as_str() == text)
    }
}

/// One counter: one metric of one key (or the scope's message total) on
/// one UTC day of its window. A window writes a row for each day with a
/// count and one for its newest day, which places it, even at zero.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CountRow {
    /// `global` or `client:` and the client's id, as in [`crate::patch::KeyRow`].
    pub scope: String,
    /// The key; empty for [`Metric::Messages`].
    pub key_name: String,
    /// What it counts.
    pub metric: Metric,
    /// The UTC day (days since 1970-01-01).
    pub day: i64,
    /// The count.
    pub count: i64,
}

impl CountRow {
    /// A row as a back end read it.
    pub fn from_columns(
        scope: String,
        key_name: String,
        metric: Metric,
        day: i64,
        count: i64,
    ) -> Self {
        Self {
            scope,
            key_name,
            metric,
            day,
            count,
        }
    }

    /// What names the row in its table.
    pub(crate) fn name(&self) -> CountName {
        (
            self.scope.clone(),
            self.key_name.clone(),
            self.metric,
            self.day,
        )
    }
}

/// One key and one client: the day the client was first told of the key
/// (the adoption rate's denominator) and the latest day it sent the key
/// well-typed (its numerator). Gone keys keep none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdoptionRow {
    /// `global` or `client:` and the client's id.
    pub scope: String,
    /// The key.
    pub key_name: String,
    /// The client.
    pub client: String,
    /// The UTC day it was first told of the key, if it was.
    pub delivered_day: Option<i64>,
    /// The latest UTC day it sent the key well-typed, if it did.
    pub adopted_day: Option<i64>,
}

impl AdoptionRow {
    /// A row as a back end read it.
    pub fn from_columns(
        scope: String,
        key_name: String,
        client: String,
        delivered_day: Option<i64>,
        adopted_day: Option<i64>,
    ) -> Self {
        Self {
            scope,
            key_name,
            client,
            delivered_day,
            adopted_day,
        }
    }
}

/// A count row's name: (scope, key name, metric, day).
pub type CountName = (String, String, Metric, i64);

/// The `scope` column of a key, count or adoption row.
pub(crate) fn scope_column(scope: &PatchScope) -> String {
    match scope {
        PatchScope::Global => "global".to_owned(),
        PatchScope::Client(client) => client_scope_column(client),
    }
}

/// The `scope` column of `client`'s personal keys and message total.
pub(crate) fn client_scope_column(client: &str) -> String {
    format!("client:{client}")
}
