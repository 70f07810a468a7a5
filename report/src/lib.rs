//! What sdsi's self-evolution did, as one HTML page a schema owner can open
//! from a file: the needs ranked by heat against the dual gate, heat over
//! time with the gate drawn, every evolved key's lifecycle with its metrics
//! at each step, and the proposals awaiting an operator.
//!
//! Feed a [`History`] once per message while the engine runs (it keeps
//! counts, proposals, lifecycle steps and a bounded heat trace; save it with
//! serde beside the engine's state), then [`Report::gather`] at the end and
//! [`render`] the page. The page is self-contained: inline CSS and SVG (drawn
//! with plotters), no script and nothing fetched, under a
//! Content-Security-Policy that forbids both. Every text that came from a
//! client is escaped (maud) and passed through the engine's redaction again.
//!
//! ```
//! use sdsi::evolution::{Evolution, EvolutionEngine};
//! use sdsi::patch::{DenySensitive, LifecyclePolicy};
//! use sdsi::{SchemaStore, SchemaTemplate};
//! use sdsi_report::{History, Report, render};
//! use time::macros::datetime;
//!
//! let template: SchemaTemplate = serde_json::from_str(
//!     r#"{"schema_id": "flights_v1", "scenario": "booking", "keys": [
//!         {"key_name": "destination", "key_type": "string", "required": true,
//!          "semantic_description": "Where to"},
//!         {"key_name": "other", "key_type": "string", "required": false,
//!          "semantic_description": "Anything else"}]}"#,
//! )?;
//! let mut store = SchemaStore::new(template, LifecyclePolicy::default())?;
//! let mut engine = Evolution::default();
//! let mut history = History::new();
//! let start = datetime!(2026-05-09 08:00 UTC);
//! let mut now = start;
//! for i in 0..100 {
//!     now = start + time::Duration::minutes(10 * i);
//!     let message = serde_json::json!({"schema_id": "flights_v1", "payload": {
//!         "destination": "Oslo", "other": "I would like a window seat please"}});
//!     let events = engine.observe(&mut store, &message, &format!("agent-{}", i % 8), now);
//!     let transitions = store.evaluate(now, &DenySensitive).transitions;
//!     history.record(now, &events, &transitions, &store, engine.pools().map(|(_, p)| p));
//! }
//! let report = Report::gather(&store, engine.pools().map(|(_, p)| p), &history, now);
//! assert_eq!(report.summary.messages, 100);
//! let page = render(&report);
//! assert!(page.contains("<svg"));
//! let proposed = &history.proposals[0].key_name;
//! assert!(page.contains(proposed.as_str()), "the page names {proposed}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod chart;
mod history;
mod model;
mod page;
mod time_text;

pub use history::{
    History, MAX_RECORDS, MAX_SAMPLES, Metrics, Proposal, SAMPLED_CLUSTERS, Sample, Step,
};
pub use model::{
    CHARTED_NEEDS, ClusterRow, GateSettings, KeyRow, LISTED_NEEDS, NeedRow, PendingRow, Quote,
    Report, Run, Series, Status, Summary,
};
pub use page::render;
pub use time_text::rfc3339;
