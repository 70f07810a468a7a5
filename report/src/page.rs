//! The HTML page: one self-contained file (inline CSS and SVG, no script,
//! nothing fetched), with a Content-Security-Policy that forbids scripts
//! and network loads should any markup ever slip through the escaping.

use maud::{DOCTYPE, Markup, PreEscaped, html};
use sdsi::patch::KeyState;

use crate::chart::{heat_chart, lifecycle_chart, state_colour};
use crate::model::{GateSettings, KeyRow, NeedRow, Report, Status};
use crate::time_text::rfc3339;

/// No script, no network: styles inline, images only as data.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE: &str = "
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1000px; color: #222; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
.muted { color: #666; } table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #eee; vertical-align: top; }
td.text { overflow-wrap: anywhere; min-width: 16rem; } td code { white-space: nowrap; } th { background: #f6f6f6; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.cards { display: flex; flex-wrap: wrap; gap: .6rem; } .card { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .9rem; min-width: 7.5rem; }
.card b { display: block; font-size: 1.4rem; } .bar { background: #eee; border-radius: 3px; height: .55rem; width: 8rem; }
.bar span { display: block; height: 100%; border-radius: 3px; background: #0072b2; } .bar span.full { background: #d55e00; }
code, .key { font-family: ui-monospace, monospace; } .key { background: #eef6ee; padding: 0 .3rem; border-radius: 3px; }
blockquote { margin: .2rem 0; padding-left: .6rem; border-left: 3px solid #ccc; }
.status-open, .status-proposed { color: #00734f; font-weight: 600; } .status-withheld { color: #a33; }
details summary { cursor: pointer; color: #0072b2; } .swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin: 0 .25rem 0 .8rem; }
svg { max-width: 100%; height: auto; }
";

/// The report as one HTML page.
pub fn render(report: &Report) -> String {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(POLICY);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "sdsi evolution report: " (report.scenario) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "What evolution did: " (report.scenario) }
                p.muted {
                    "As of " time { (rfc3339(report.at)) } ". The gate opens at heat "
                    (report.gate.heat_threshold) " with " (report.gate.min_clients)
                    " distinct clients or " (report.gate.min_requests) " requests within "
                    (report.gate.window_hours) " hours."
                }
                (summary(report))
                h2 id="heat" { "Heat over time against the gate" }
                (heat(report))
                h2 id="needs" { "Needs, hottest first" }
                (needs(report))
                h2 id="keys" { "Evolved keys" }
                (keys(report))
                h2 id="pending" { "Awaiting an operator" }
                (pending(report))
            }
        }
    };
    page.into_string()
}

fn summary(report: &Report) -> Markup {
    let s = &report.summary;
    let cards: [(&str, String); 8] = [
        ("messages", s.messages.to_string()),
        ("needs", s.needs.to_string()),
        ("fine clusters", s.clusters.to_string()),
        ("gate openings", s.triggers.to_string()),
        ("keys proposed", s.proposed.to_string()),
        ("held for review", s.held.to_string()),
        ("promoted", s.promoted.to_string()),
        ("retired", s.retired.to_string()),
    ];
    html! {
        section.cards id="summary" {
            @for (label, value) in &cards {
                div.card { b { (value) } span.muted { (label) } }
            }
        }
    }
}

fn heat(report: &Report) -> Markup {
    match heat_chart(&report.series, report.gate.heat_threshold) {
        None => html! { p.muted { "No heat was sampled yet." } },
        Some(svg) => html! {
            figure {
                (PreEscaped(svg))
                figcaption.muted {
                    "The hottest needs' heat (it decays with the half-life) and the gate's "
                    "heat threshold in red: a need proposes when it crosses the line with "
                    "enough clients behind it."
                }
            }
        },
    }
}

fn needs(report: &Report) -> Markup {
    if report.needs.is_empty() {
        return html! { p.muted { "No need yet." } };
    }
    let more = report.summary.needs.saturating_sub(report.needs.len());
    html! {
        table {
            thead { tr {
                th { "need" } th { "heat" } th { "toward the gate" } th { "clients" }
                th { "in the window" } th { "status" } th { "what clients sent" } th { "key" }
            } }
            tbody {
                @for need in &report.needs { (need_row(need, &report.gate)) }
            }
        }
        @if more > 0 { p.muted { (more) " colder needs not listed." } }
    }
}

/// A count the gate stops at its minimum: "≥ n" there.
fn at_least(count: usize, minimum: usize) -> String {
    if minimum > 0 && count >= minimum {
        format!("≥ {count}")
    } else {
        count.to_string()
    }
}

fn need_row(need: &NeedRow, gate: &GateSettings) -> Markup {
    let threshold = gate.heat_threshold;
    let share = if threshold > 0.0 {
        (need.heat / threshold).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let width = format!("width: {:.0}%", share * 100.0);
    let status_class = format!(
        "status-{}",
        match need.status {
            Status::Open => "open",
            Status::Proposed | Status::Held => "proposed",
            Status::Deferred => "withheld",
            _ => "closed",
        }
    );
    html! {
        tr {
            td {
                code { (need.id.get(..8).unwrap_or(&need.id)) }
                details {
                    summary { (need.clusters.len()) " fine clusters" }
                    table {
                        @for c in &need.clusters {
                            tr { td { code { (c.id.get(..8).unwrap_or(&c.id)) } }
                                 td.num { (c.members) " fragments" }
                                 td.num { "heat " (format!("{:.1}", c.heat)) } }
                        }
                    }
                }
            }
            td.num { (format!("{:.1}", need.heat)) }
            td { div.bar { span class=[(share >= 1.0).then_some("full")] style=(width) {} } }
            td.num { (need.clients) }
            td.num {
                div { (at_least(need.recent_requests, gate.min_requests)) " requests" }
                div { (at_least(need.recent_clients, gate.min_clients)) " clients" }
            }
            td class=(status_class) {
                (need.status.label())
                @if let Some(at) = need.retry_at { div.muted { "until " time { (rfc3339(at)) } } }
            }
            td.text {
                @if need.quotes.is_empty() {
                    span.muted { "nothing several clients sent alike" }
                }
                @for q in &need.quotes {
                    blockquote { (q.text) span.muted { " ×" (q.count) ", " (q.clients) "+ clients" } }
                }
            }
            td { @if let Some(key) = &need.key { span.key { (key) } } }
        }
    }
}

fn keys(report: &Report) -> Markup {
    if report.keys.is_empty() {
        return html! { p.muted { "No key has evolved yet." } };
    }
    let legend = [
        KeyState::Experimental,
        KeyState::Stable,
        KeyState::Deprecated,
        KeyState::Withdrawn,
    ];
    html! {
        @if let Some(svg) = lifecycle_chart(charted_keys(&report.keys), report.at) {
            figure {
                (PreEscaped(svg))
                figcaption.muted {
                    @for state in legend {
                        span.swatch style=(swatch(state)) {} (state_name(state))
                    }
                }
            }
        }
        table {
            thead { tr { th { "key" } th { "type" } th { "scope" } th { "state" } th { "life" } } }
            tbody { @for key in &report.keys { (key_row(key)) } }
        }
    }
}

/// Most keys drawn on the timeline (the newest); the table lists them all.
const CHARTED_KEYS: usize = 60;

fn charted_keys(keys: &[KeyRow]) -> &[KeyRow] {
    keys.get(keys.len().saturating_sub(CHARTED_KEYS)..)
        .unwrap_or(keys)
}

fn key_row(key: &KeyRow) -> Markup {
    html! {
        tr {
            td { span.key { (key.key_name) } div.muted { (key.description) } }
            td { code { (key.key_type) } }
            td { (key.scope) }
            td { (state_name(key.state)) }
            td {
                div { "experimental from " time { (rfc3339(key.introduced_at)) } }
                @for step in &key.steps {
                    div {
                        (state_name(step.from)) " → " b { (state_name(step.to)) } " at "
                        time { (rfc3339(step.at)) }
                        span.muted { " (" (metrics(step)) ")" }
                    }
                }
            }
        }
    }
}

fn metrics(step: &crate::history::Step) -> String {
    let share = |m: Option<f64>| m.map_or("n/a".to_owned(), |m| format!("{:.0} %", m * 100.0));
    format!(
        "usage {}, alignment {}, type correctness {}, adoption {}",
        share(step.metrics.usage_frequency),
        share(step.metrics.semantic_alignment_accuracy),
        share(step.metrics.value_type_correctness),
        share(step.metrics.client_adoption_rate)
    )
}

fn pending(report: &Report) -> Markup {
    if report.pending.is_empty() {
        return html! { p.muted { "Nothing is waiting." } };
    }
    html! {
        table {
            thead { tr { th { "proposal" } th { "reason" } th { "keys" } th { "held at" } } }
            tbody {
                @for p in &report.pending {
                    tr {
                        td { code { (p.proposal) } }
                        td { b { (p.reason) } div.muted { (p.detail) } }
                        td { @for (name, kind, description) in &p.keys {
                            div { span.key { (name) } " " code { (kind) } div.muted { (description) } }
                        } }
                        td { time { (rfc3339(p.held_at)) } }
                    }
                }
            }
        }
        p.muted { "Decide with " code { "sdsi review --state PATH --approve ID" } " or "
                  code { "--deny ID --reason TEXT" } "." }
    }
}

fn swatch(state: KeyState) -> String {
    let c = state_colour(state);
    format!("background: rgb({}, {}, {})", c.0, c.1, c.2)
}

fn state_name(state: KeyState) -> &'static str {
    match state {
        KeyState::Experimental => "experimental",
        KeyState::Stable => "stable",
        KeyState::Deprecated => "deprecated",
        KeyState::Withdrawn => "withdrawn",
        _ => "gone",
    }
}
