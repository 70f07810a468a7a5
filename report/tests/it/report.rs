//! The report's parts on their own: the history stays bounded and even over
//! any replay, the page escapes and redacts whatever reached the pools, and
//! it is self-contained.

use sdsi::SchemaStore;
use sdsi::evolution::{Pool, PoolConfig};
use sdsi::patch::{KeyState, LifecyclePolicy};
use sdsi_report::{
    GateSettings, History, KeyRow, MAX_SAMPLES, NeedRow, PendingRow, Quote, Report, Status,
    Summary, render,
};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const START: OffsetDateTime = datetime!(2026-05-01 8:00 UTC);

fn store() -> SchemaStore {
    let template = serde_json::from_value(serde_json::json!({
        "schema_id": "s_v1", "scenario": "support",
        "keys": [{"key_name": "other", "key_type": "string", "required": false,
                  "semantic_description": "Anything else"}]}))
    .unwrap();
    SchemaStore::new(template, LifecyclePolicy::default()).unwrap()
}

#[test]
fn the_heat_trace_stays_bounded_and_spans_the_whole_replay() {
    let (store, mut history) = (store(), History::new());
    let mut pool = Pool::new(PoolConfig::new(2, 0.8)).unwrap();
    // A year of traffic, one message a minute, one growing cluster.
    let minutes = 365 * 24 * 60;
    for m in 0..minutes {
        let at = START + Duration::minutes(m);
        if m % 600 == 0 {
            pool.ingest(&[1.0, 0.0], "window seat", false, "a", at)
                .unwrap();
        }
        history.record(at, &[], &[], &store, [&pool]);
    }
    assert_eq!(history.messages, minutes as u64);
    let samples = &history.samples;
    assert!(samples.len() < MAX_SAMPLES, "{} samples", samples.len());
    assert!(
        samples.len() >= MAX_SAMPLES / 2,
        "halving keeps at least half"
    );
    assert!(
        samples.windows(2).all(|w| w[0].at < w[1].at),
        "oldest first"
    );
    assert_eq!(samples[0].at, START, "the first sample is kept");
    let last = samples.last().unwrap().at;
    assert!(
        START + Duration::days(365) - last < Duration::days(3),
        "the trace reaches the end of the replay (last sample {last})"
    );
    // Even: no gap is more than twice the typical step.
    let gaps: Vec<Duration> = samples.windows(2).map(|w| w[1].at - w[0].at).collect();
    let (min, max) = (gaps.iter().min().unwrap(), gaps.iter().max().unwrap());
    assert!(
        *max <= *min * 2 + Duration::minutes(1),
        "gaps {min} .. {max}"
    );
    assert!(samples.iter().all(|s| s.heats.len() <= 1));
    assert_eq!(
        history.last_at,
        Some(START + Duration::minutes(minutes - 1))
    );
}

/// A report whose every client-facing text is hostile.
fn hostile_report() -> Report {
    let attack = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>";
    Report {
        at: START,
        scenario: format!("support{attack}"),
        gate: GateSettings {
            heat_threshold: 50.0,
            min_clients: 5,
            min_requests: 10,
            window_hours: 168.0,
        },
        summary: Summary::default(),
        needs: vec![NeedRow {
            id: "00000000000000ab".into(),
            heat: 60.0,
            clients: 9,
            recent_clients: 5,
            recent_requests: 10,
            requests: 70,
            status: Status::Proposed,
            retry_at: None,
            quotes: vec![Quote {
                text: attack.into(),
                count: 7,
                clients: 3,
            }],
            key: Some(format!("seat{attack}")),
            clusters: Vec::new(),
        }],
        series: Vec::new(),
        keys: vec![KeyRow {
            key_name: format!("k{attack}"),
            key_type: "string".into(),
            scope: "global",
            description: attack.into(),
            state: KeyState::Experimental,
            introduced_at: START,
            steps: Vec::new(),
        }],
        pending: vec![PendingRow {
            proposal: attack.into(),
            reason: attack.into(),
            detail: attack.into(),
            keys: vec![(attack.into(), attack.into(), attack.into())],
            held_at: START,
        }],
    }
}

#[test]
fn every_text_is_escaped() {
    let page = render(&hostile_report());
    let lower = page.to_lowercase();
    assert!(!lower.contains("<script"), "a script element");
    assert!(!lower.contains("<img"), "an img element");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
    // Once per place the attack was put: scenario (twice: title and
    // heading), quote, key, key name, description, proposal, reason,
    // detail, and the pending key's three texts.
    assert_eq!(page.matches("&lt;script&gt;").count(), 12);
}

#[test]
fn the_page_is_self_contained() {
    let page = render(&hostile_report());
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        page.contains("default-src 'none'"),
        "the policy forbids loads and scripts"
    );
    for resource in ["http://", "https://", "url(", "@import", "<link"] {
        assert!(!page.contains(resource), "{resource}");
    }
}

#[test]
fn raw_personal_values_in_a_pool_are_redacted_on_the_page() {
    // A pool fed directly, skipping the engine's own redaction.
    let mut pool = Pool::new(PoolConfig::new(2, 0.8)).unwrap();
    let text = "charge card 4111 1111 1111 1111 or mail ann.lee@example.com";
    for (i, client) in ["a", "b", "c"].iter().enumerate() {
        let at = START + Duration::minutes(i as i64);
        pool.ingest(&[1.0, 0.0], text, false, client, at).unwrap();
    }
    let history = History::new();
    let report = Report::gather(&store(), [&pool], &history, START + Duration::hours(1));
    assert_eq!(report.needs.len(), 1);
    assert_eq!(report.needs[0].quotes.len(), 1, "three clients sent it");
    let page = render(&report);
    assert!(
        !page.replace(' ', "").contains("4111111111111111"),
        "a card number"
    );
    assert!(!page.contains("ann.lee@example.com"), "an email address");
    assert!(page.contains("&lt;card&gt;") && page.contains("&lt;email&gt;"));
}

#[test]
fn a_need_is_ranked_and_judged_against_the_gate() {
    let mut config = PoolConfig::new(2, 0.8);
    config.heat_threshold = 3.0;
    config.min_clients = 2;
    let mut pool = Pool::new(config).unwrap();
    for (i, client) in ["a", "b", "c", "d"].iter().enumerate() {
        let at = START + Duration::minutes(i as i64);
        pool.ingest(&[1.0, 0.0], "window seat", false, client, at)
            .unwrap();
    }
    pool.ingest(&[0.0, 1.0], "vegan meal", false, "a", START)
        .unwrap();
    let now = START + Duration::minutes(5);
    let report = Report::gather(&store(), [&pool], &History::new(), now);
    assert_eq!(report.summary.needs, 2);
    let (hot, cold) = (&report.needs[0], &report.needs[1]);
    assert!(hot.heat > cold.heat, "hottest first");
    assert_eq!(hot.status, Status::Open, "{hot:?}");
    assert_eq!(cold.status, Status::Building, "{cold:?}");
    assert_eq!(hot.recent_clients, 2, "counted up to the gate's minimum");
    assert!(hot.clients >= 2 && cold.clients == 1);
}
