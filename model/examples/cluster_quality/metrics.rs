//! Agreement between true intents and a grouping: the adjusted Rand index
//! (Hubert & Arabie), homogeneity, completeness and V-measure (Rosenberg &
//! Hirschberg), computed from the contingency table; plus what matters to
//! the gate: groups per intent, and the share of intents whose largest
//! group holds at least 80 % of their texts (a need that whole reaches the
//! gate as one).

use std::collections::HashMap;

/// One grouping's scores.
#[derive(Debug, Clone, Copy)]
pub struct Scores {
    pub ari: f64,
    pub homogeneity: f64,
    pub completeness: f64,
    pub v_measure: f64,
    /// Groups per intent.
    pub per_intent: f64,
    /// Share of intents whose largest group holds ≥ 80 % of their texts.
    pub whole: f64,
}

fn choose2(n: u64) -> f64 {
    let n = n as f64;
    n * (n - 1.0) / 2.0
}

/// Shannon entropy (nats) of a distribution given by counts summing to `total`.
fn entropy<'a>(counts: impl Iterator<Item = &'a u64>, total: f64) -> f64 {
    counts
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / total;
            -p * p.ln()
        })
        .sum()
}

/// Scores `groups` (one per text; `None`, a text with nothing to embed,
/// counts as a group of its own) against `labels`.
pub fn score(labels: &[usize], groups: &[Option<u64>]) -> Scores {
    let mut cells: HashMap<(usize, u64), u64> = HashMap::new();
    let mut by_label: HashMap<usize, u64> = HashMap::new();
    let mut by_group: HashMap<u64, u64> = HashMap::new();
    let mut singleton = 0u64;
    for (&label, group) in labels.iter().zip(groups) {
        let group = group.unwrap_or_else(|| {
            singleton += 1;
            u64::MAX - singleton
        });
        *cells.entry((label, group)).or_default() += 1;
        *by_label.entry(label).or_default() += 1;
        *by_group.entry(group).or_default() += 1;
    }
    let n = labels.len().min(groups.len()) as u64;
    let total = n as f64;
    let index: f64 = cells.values().map(|&c| choose2(c)).sum();
    let rows: f64 = by_label.values().map(|&c| choose2(c)).sum();
    let cols: f64 = by_group.values().map(|&c| choose2(c)).sum();
    let expected = rows * cols / choose2(n);
    let max = (rows + cols) / 2.0;
    let ari = if max == expected {
        1.0
    } else {
        (index - expected) / (max - expected)
    };
    let h_labels = entropy(by_label.values(), total);
    let h_groups = entropy(by_group.values(), total);
    let h_joint = entropy(cells.values(), total);
    let homogeneity = if h_labels == 0.0 {
        1.0
    } else {
        1.0 - (h_joint - h_groups) / h_labels
    };
    let completeness = if h_groups == 0.0 {
        1.0
    } else {
        1.0 - (h_joint - h_labels) / h_groups
    };
    let v_measure = if homogeneity + completeness == 0.0 {
        0.0
    } else {
        2.0 * homogeneity * completeness / (homogeneity + completeness)
    };
    let mut largest: HashMap<usize, u64> = HashMap::new();
    for (&(label, _), &count) in &cells {
        let best = largest.entry(label).or_default();
        *best = (*best).max(count);
    }
    let whole = by_label
        .iter()
        .filter(|(label, size)| largest.get(label).is_some_and(|&l| l * 5 >= **size * 4))
        .count() as f64
        / by_label.len().max(1) as f64;
    Scores {
        ari,
        homogeneity,
        completeness,
        v_measure,
        per_intent: by_group.len() as f64 / by_label.len().max(1) as f64,
        whole,
    }
}

/// Mean and (population) standard deviation of each score over runs.
pub fn summarize(runs: &[Scores]) -> [(f64, f64); 6] {
    let stat = |f: fn(&Scores) -> f64| {
        let n = runs.len().max(1) as f64;
        let mean = runs.iter().map(f).sum::<f64>() / n;
        let var = runs.iter().map(|s| (f(s) - mean).powi(2)).sum::<f64>() / n;
        (mean, var.sqrt())
    };
    [
        stat(|s| s.ari),
        stat(|s| s.homogeneity),
        stat(|s| s.completeness),
        stat(|s| s.v_measure),
        stat(|s| s.per_intent),
        stat(|s| s.whole),
    ]
}

/// The tables' columns after the first.
pub const COLUMNS: &str = "ARI | homogeneity | completeness | V-measure | groups per intent \
     | intents ≥ 80 % in one group |\n|---|---|---|---|---|---|---|";

/// One table row: `| name | mean ± sd | ... |`.
pub fn row(name: &str, runs: &[Scores]) -> String {
    let [ari, h, c, v, k, whole] = summarize(runs);
    format!(
        "| {name} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.3} ± {:.3} | {:.1} ± {:.1} | {:.0} % |",
        ari.0,
        ari.1,
        h.0,
        h.1,
        c.0,
        c.1,
        v.0,
        v.1,
        k.0,
        k.1,
        whole.0 * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(labels: &[usize], groups: &[u64]) -> Scores {
        let groups: Vec<Option<u64>> = groups.iter().copied().map(Some).collect();
        score(labels, &groups)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Values from scikit-learn's documentation of the same metrics.
    #[test]
    fn metrics_match_scikit_learn() {
        let s = scores(&[0, 0, 1, 1], &[0, 0, 1, 2]);
        assert!(close(s.ari, 0.571_428_571_428_571_5), "{s:?}");
        assert!(close(s.homogeneity, 1.0), "{s:?}");
        assert!(close(s.v_measure, 0.8), "{s:?}");
        let s = scores(&[0, 0, 1, 1], &[1, 1, 0, 0]);
        assert!(close(s.ari, 1.0) && close(s.v_measure, 1.0), "{s:?}");
        let s = scores(&[0, 0, 1, 1], &[0, 1, 0, 1]);
        assert!(close(s.ari, -0.5) && close(s.v_measure, 0.0), "{s:?}");
        let s = scores(&[0, 0, 1, 1], &[0, 0, 0, 0]);
        assert!(
            close(s.homogeneity, 0.0) && close(s.completeness, 1.0),
            "{s:?}"
        );
    }

    #[test]
    fn wholeness_counts_intents_mostly_in_one_group() {
        // Intent 0: 4 of 5 in one group (whole); intent 1: 2 of 4 (not).
        let s = scores(&[0, 0, 0, 0, 0, 1, 1, 1, 1], &[7, 7, 7, 7, 8, 9, 9, 10, 10]);
        assert!(close(s.whole, 0.5), "{s:?}");
        assert!(close(s.per_intent, 2.0), "{s:?}");
    }

    #[test]
    fn refused_items_are_singletons() {
        let s = score(&[0, 0, 1], &[Some(5), None, None]);
        assert!(close(s.per_intent, 1.5), "{s:?}");
    }
}
