//! The page's charts, drawn by plotters into SVG strings. Only our own
//! labels reach them (need ids, key names, which are checked names), and
//! every label is reduced to a safe alphabet before drawing all the same.

use plotters::prelude::*;
use sdsi::patch::KeyState;
use time::OffsetDateTime;

use crate::model::{KeyRow, Series};
use crate::time_text::rfc3339;

const WIDTH: u32 = 900;
const HEAT_HEIGHT: u32 = 360;
const ROW_HEIGHT: u32 = 30;

/// The font of axis labels and legends (the viewer's sans-serif: the SVG
/// names the family, nothing is embedded).
const LABEL: (&str, u32) = ("sans-serif", 14);

/// The palette of the heat lines (colour-blind safe, Okabe-Ito).
const LINE_COLOURS: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];

/// Heat over time of `series` against the gate's `threshold`; `None` when
/// there is nothing to draw or plotters fails.
pub fn heat_chart(series: &[Series], threshold: f64) -> Option<String> {
    let points = || series.iter().flat_map(|s| s.runs.iter().flatten());
    let start = points().map(|p| p.0).min()?;
    let end = points().map(|p| p.0).max()?;
    let hours = |at: OffsetDateTime| (at - start).as_seconds_f64() / 3600.0;
    let span = hours(end).max(1.0);
    let top = points().map(|p| p.1).fold(threshold, f64::max) * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEAT_HEIGHT)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..span, 0.0..top.max(1.0))
            .ok()?;
        chart
            .configure_mesh()
            .x_desc(format!("hours since {}", safe(&rfc3339(start))))
            .y_desc("heat")
            .label_style(LABEL)
            .axis_desc_style(LABEL)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .ok()?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, threshold), (span, threshold)],
                RED.stroke_width(2),
            ))
            .ok()?
            .label(format!("gate ({threshold})"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], RED.stroke_width(2)));
        for (series, colour) in series.iter().zip(LINE_COLOURS.iter().cycle()) {
            let colour = *colour;
            for (i, run) in series.runs.iter().enumerate() {
                let drawn = chart
                    .draw_series(LineSeries::new(
                        run.iter().map(|&(at, heat)| (hours(at), heat)),
                        colour.stroke_width(2),
                    ))
                    .ok()?;
                if i == 0 {
                    drawn.label(safe(&series.label)).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2))
                    });
                }
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font(LABEL)
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    Some(inline(svg))
}

/// Each key's life as a bar per state, from its introduction to `now`.
pub fn lifecycle_chart(keys: &[KeyRow], now: OffsetDateTime) -> Option<String> {
    let start = keys.iter().map(|k| k.introduced_at).min()?;
    let hours = |at: OffsetDateTime| (at - start).as_seconds_f64() / 3600.0;
    let span = hours(now).max(1.0);
    let rows = u32::try_from(keys.len()).ok()?;
    let height = ROW_HEIGHT.saturating_mul(rows).saturating_add(90);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(170)
            .build_cartesian_2d(0.0..span, 0.0..f64::from(rows))
            .ok()?;
        let names: Vec<String> = keys.iter().map(|k| safe(&k.key_name)).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(keys.len().saturating_mul(2).saturating_add(1))
            .y_label_formatter(&|y| {
                let row = y.floor();
                let centred = (y - row - 0.5).abs() < 1e-6;
                match (centred, names.get(row as usize)) {
                    (true, Some(name)) => name.clone(),
                    _ => String::new(),
                }
            })
            .x_desc(format!("hours since {}", safe(&rfc3339(start))))
            .label_style(LABEL)
            .axis_desc_style(LABEL)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .ok()?;
        for (row, key) in keys.iter().enumerate() {
            let y = row as f64;
            for (from, to, state) in spans(key, now) {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [
                            (hours(from), y + 0.15),
                            (hours(to).max(hours(from)), y + 0.85),
                        ],
                        state_colour(state).filled(),
                    )))
                    .ok()?;
            }
        }
        root.present().ok()?;
    }
    Some(inline(svg))
}

/// An SVG document as markup inside an HTML page: the namespace attribute
/// goes (an HTML parser puts `<svg>` in the SVG namespace anyway), so the
/// page holds no URL at all.
fn inline(svg: String) -> String {
    svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1)
}

/// A key's states as (from, to, state) spans, up to `now`.
fn spans(key: &KeyRow, now: OffsetDateTime) -> Vec<(OffsetDateTime, OffsetDateTime, KeyState)> {
    let mut spans = Vec::new();
    // The state before the first step kept (older steps may have been
    // dropped from a long history).
    let first = key.steps.first().map_or(KeyState::Experimental, |s| s.from);
    let (mut since, mut state) = (key.introduced_at, first);
    for step in &key.steps {
        spans.push((since, step.at, state));
        (since, state) = (step.at, step.to);
    }
    if key.steps.is_empty() {
        state = key.state;
    }
    spans.push((since, now.max(since), state));
    spans
}

/// A state's colour on the timeline (also the page's legend).
pub fn state_colour(state: KeyState) -> RGBColor {
    match state {
        KeyState::Experimental => RGBColor(230, 159, 0),
        KeyState::Stable => RGBColor(0, 158, 115),
        KeyState::Deprecated => RGBColor(204, 121, 167),
        KeyState::Withdrawn => RGBColor(150, 150, 150),
        _ => RGBColor(200, 200, 200),
    }
}

/// A label reduced to letters, digits and a few marks.
fn safe(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || " _-:.→()+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
