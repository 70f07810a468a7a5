//! What a page shows, gathered from the store, the shared pools and the
//! history: plain data, every client text redacted again on the way in.

use std::collections::HashMap;

use sdsi::SchemaStore;
use sdsi::evolution::{NeedView, Pool, redact};
use sdsi::patch::{KeyState, PatchScope};
use time::OffsetDateTime;

use crate::history::{History, Step};

/// Most needs listed (the hottest); the rest are counted.
pub const LISTED_NEEDS: usize = 25;

/// Needs drawn in the heat chart (the hottest at their peak).
pub const CHARTED_NEEDS: usize = 6;

/// Exemplars quoted per need.
const QUOTES: usize = 3;

/// Everything one page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// When the report was made (the replay's last time).
    pub at: OffsetDateTime,
    /// The scenario of the base template.
    pub scenario: String,
    /// The gate's settings.
    pub gate: GateSettings,
    /// The counts at the top of the page.
    pub summary: Summary,
    /// The hottest needs, hottest first.
    pub needs: Vec<NeedRow>,
    /// Heat over time of the hottest needs.
    pub series: Vec<Series>,
    /// Every evolved key, in the order the store introduced them.
    pub keys: Vec<KeyRow>,
    /// Proposals awaiting an operator.
    pub pending: Vec<PendingRow>,
}

/// The dual gate's settings, read from the pools.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateSettings {
    /// Heat at which the first gate opens.
    pub heat_threshold: f64,
    /// Distinct clients within the window that open the second.
    pub min_clients: usize,
    /// Requests within the window that open the second.
    pub min_requests: usize,
    /// The window, in hours.
    pub window_hours: f64,
}

/// The counts at the top of the page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Messages replayed.
    pub messages: u64,
    /// Needs in the shared pools now.
    pub needs: usize,
    /// Fine clusters under them.
    pub clusters: usize,
    /// Times a need's gate opened.
    pub triggers: u64,
    /// Keys proposed (applied or queued).
    pub proposed: usize,
    /// Keys held for an operator.
    pub held: usize,
    /// Keys that became stable.
    pub promoted: usize,
    /// Keys deprecated or withdrawn.
    pub retired: usize,
}

/// One need.
#[derive(Debug, Clone, PartialEq)]
pub struct NeedRow {
    /// Its id, as events print it (16 hex digits).
    pub id: String,
    /// Heat now.
    pub heat: f64,
    /// Distinct clients it remembers.
    pub clients: usize,
    /// Distinct clients within the window (counted up to the gate's minimum).
    pub recent_clients: usize,
    /// Requests within the window (counted up to the gate's minimum).
    pub recent_requests: usize,
    /// Requests in all.
    pub requests: u64,
    /// Where it stands at the gate.
    pub status: Status,
    /// When a deferred need is judged again.
    pub retry_at: Option<OffsetDateTime>,
    /// Redacted texts sent by several clients, most frequent first.
    pub quotes: Vec<Quote>,
    /// The key proposed from it.
    pub key: Option<String>,
    /// Its fine clusters.
    pub clusters: Vec<ClusterRow>,
}

/// Where a need stands at the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Below the heat threshold.
    Building,
    /// Hot enough, but too few clients and requests within the window.
    Hot,
    /// Both halves of the gate open: it proposes on its next request.
    Open,
    /// Put off (the inducer proposed nothing, the store refused, or most of
    /// its clients sent text that reads as instructions to a model): judged
    /// again from the time in [`NeedRow::retry_at`].
    Deferred,
    /// A key was proposed from it.
    Proposed,
    /// A key was proposed from it and waits for an operator.
    Held,
}

impl Status {
    /// The word the page prints.
    pub fn label(self) -> &'static str {
        match self {
            Status::Building => "building",
            Status::Hot => "hot, too few clients",
            Status::Open => "open",
            Status::Deferred => "put off",
            Status::Proposed => "proposed",
            Status::Held => "held for review",
        }
    }
}

/// A text several clients sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// The redacted text.
    pub text: String,
    /// How often it was seen.
    pub count: u64,
    /// Distinct clients seen sending it (a lower bound).
    pub clients: usize,
}

/// One fine cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterRow {
    /// Its id (16 hex digits).
    pub id: String,
    /// Its id as a number (as history samples hold it).
    pub raw_id: u64,
    /// Fragments it holds.
    pub members: u64,
    /// Its heat now.
    pub heat: f64,
}

/// One need's heat over time: at each sample, the heat of the sampled
/// clusters that make up the need now (so a need the grouping joined late
/// shows its whole rise).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend: the need's id, and its key if one was proposed.
    pub label: String,
    /// Runs of consecutive samples holding some of the need's clusters, each
    /// (time, heat) oldest first: between runs none of them was among the
    /// hottest sampled, so no line is drawn.
    pub runs: Vec<Run>,
}

/// Consecutive (time, heat) points, oldest first.
pub type Run = Vec<(OffsetDateTime, f64)>;

/// One evolved key.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRow {
    /// Its name.
    pub key_name: String,
    /// Its type.
    pub key_type: String,
    /// `global`, or `one client` for a personal key (no client id is shown).
    pub scope: &'static str,
    /// Its description (redacted).
    pub description: String,
    /// Its state now.
    pub state: KeyState,
    /// When its trial started.
    pub introduced_at: OffsetDateTime,
    /// Its steps, oldest first (from the history; a state saved before
    /// histories were kept has none).
    pub steps: Vec<Step>,
}

/// A proposal awaiting an operator.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRow {
    /// Its id.
    pub proposal: String,
    /// Why it waits (`sensitive`, `unauthorized`, `base_key`).
    pub reason: String,
    /// The problem in words (redacted).
    pub detail: String,
    /// Its keys: (name, type, redacted description).
    pub keys: Vec<(String, String, String)>,
    /// When it was held.
    pub held_at: OffsetDateTime,
}

impl Report {
    /// Gathers a report at `now` from the store, the shared pools (not the
    /// per-client ones: their clients are people) and the history.
    pub fn gather<'p>(
        store: &SchemaStore,
        pools: impl IntoIterator<Item = &'p Pool>,
        history: &History,
        now: OffsetDateTime,
    ) -> Self {
        let pools: Vec<&Pool> = pools.into_iter().collect();
        let gate = pools.first().map_or(
            GateSettings {
                heat_threshold: 0.0,
                min_clients: 0,
                min_requests: 0,
                window_hours: 0.0,
            },
            |pool| {
                let c = pool.config();
                GateSettings {
                    heat_threshold: c.heat_threshold,
                    min_clients: c.min_clients,
                    min_requests: c.min_occurrences,
                    window_hours: c.window_secs / 3600.0,
                }
            },
        );
        let mut needs: Vec<NeedRow> = pools
            .iter()
            .flat_map(|pool| pool.needs().map(|need| need_row(&need, &gate, now)))
            .collect();
        let series = series(&needs, history);
        needs.sort_by(|a, b| b.heat.total_cmp(&a.heat).then(a.id.cmp(&b.id)));
        let pending = pending_rows(store);
        for need in &mut needs {
            let held = need.key.as_ref().is_some_and(|key| {
                pending
                    .iter()
                    .any(|p| p.keys.iter().any(|(name, _, _)| name == key))
            });
            if held {
                need.status = Status::Held;
            }
        }
        let summary = Summary {
            messages: history.messages,
            needs: needs.len(),
            clusters: pools.iter().map(|p| p.len()).sum(),
            triggers: history.triggers,
            proposed: history
                .proposals
                .iter()
                .filter(|p| p.outcome != "held")
                .count(),
            held: history
                .proposals
                .iter()
                .filter(|p| p.outcome == "held")
                .count(),
            promoted: history.promoted(),
            retired: history.retired(),
        };
        needs.truncate(LISTED_NEEDS);
        Report {
            at: now,
            scenario: store.base().scenario.clone(),
            gate,
            summary,
            needs,
            series,
            keys: key_rows(store, history),
            pending,
        }
    }
}

fn need_row(need: &NeedView<'_>, gate: &GateSettings, now: OffsetDateTime) -> NeedRow {
    let heat = need.heat(now);
    let recent_clients = need.recent_clients(now);
    let recent_requests = need.recent_requests(now);
    let key = need.proposed().map(str::to_owned);
    let retry_at = need.retry_at().filter(|at| *at > now);
    let status = match key.as_deref() {
        Some(_) => Status::Proposed,
        None if retry_at.is_some() => Status::Deferred,
        None if heat < gate.heat_threshold => Status::Building,
        None if recent_clients >= gate.min_clients || recent_requests >= gate.min_requests => {
            Status::Open
        }
        None => Status::Hot,
    };
    NeedRow {
        id: format!("{:016x}", need.id()),
        heat,
        clients: need.clients().len(),
        recent_clients,
        recent_requests,
        requests: need.occurrences(),
        status,
        retry_at,
        quotes: need
            .quotable()
            .take(QUOTES)
            .map(|e| Quote {
                text: redact(&e.text).text,
                count: e.count,
                clients: e.distinct_clients(),
            })
            .collect(),
        key: key.filter(|k| !k.is_empty()),
        clusters: need
            .clusters()
            .map(|c| ClusterRow {
                id: format!("{:016x}", c.id()),
                raw_id: c.id(),
                members: c.members(),
                heat: c.heat(now),
            })
            .collect(),
    }
}

/// The charted needs: the hottest at their peak, each labelled with its
/// key if one was proposed from it.
fn series(needs: &[NeedRow], history: &History) -> Vec<Series> {
    let owner: HashMap<u64, usize> = needs
        .iter()
        .enumerate()
        .flat_map(|(n, need)| need.clusters.iter().map(move |c| (c.raw_id, n)))
        .collect();
    // Per need: its runs, and the run it is extending.
    let mut traces: Vec<(Vec<Run>, Run)> = vec![(Vec::new(), Vec::new()); needs.len()];
    for sample in &history.samples {
        let mut sums: HashMap<usize, f64> = HashMap::new();
        for (cluster, heat) in &sample.heats {
            if let Some(&n) = owner.get(cluster) {
                *sums.entry(n).or_default() += heat;
            }
        }
        for (n, (runs, run)) in traces.iter_mut().enumerate() {
            match sums.get(&n) {
                Some(&heat) => run.push((sample.at, heat)),
                None if !run.is_empty() => runs.push(std::mem::take(run)),
                None => {}
            }
        }
    }
    let mut charted: Vec<(f64, Series)> = needs
        .iter()
        .zip(traces)
        .map(|(need, (mut runs, run))| {
            if !run.is_empty() {
                runs.push(run);
            }
            let peak = runs.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
            let short = need.id.get(..8).unwrap_or(&need.id);
            let label = match &need.key {
                Some(key) => format!("{short} → {key}"),
                None => format!("need {short}"),
            };
            (peak, Series { label, runs })
        })
        .filter(|(peak, _)| *peak > 0.0)
        .collect();
    charted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.label.cmp(&b.1.label)));
    charted.truncate(CHARTED_NEEDS);
    charted.into_iter().map(|(_, series)| series).collect()
}

fn key_rows(store: &SchemaStore, history: &History) -> Vec<KeyRow> {
    store
        .lifecycle()
        .records()
        .iter()
        .map(|record| KeyRow {
            key_name: record.key_name.to_string(),
            key_type: record.key_type.to_string(),
            scope: match record.scope {
                PatchScope::Global => "global",
                _ => "one client",
            },
            description: redact(&record.definition.semantic_description).text,
            state: record.state,
            introduced_at: record.introduced_at,
            steps: history
                .steps
                .iter()
                .filter(|s| s.patch_id == record.patch_id && s.key_name == record.key_name.as_str())
                .cloned()
                .collect(),
        })
        .collect()
}

fn pending_rows(store: &SchemaStore) -> Vec<PendingRow> {
    store
        .pending()
        .map(|p| PendingRow {
            proposal: p.proposal.clone(),
            reason: serde_json::to_value(p.reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            // The store's words: patch ids and checked key names, no client text.
            detail: p.detail.clone(),
            keys: p
                .patch
                .new_keys
                .iter()
                .map(|k| {
                    (
                        k.key_name.to_string(),
                        k.key_type.to_string(),
                        redact(&k.semantic_description).text,
                    )
                })
                .collect(),
            held_at: p.held_at,
        })
        .collect()
}
