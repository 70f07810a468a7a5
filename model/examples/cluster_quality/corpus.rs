//! The labelled corpora and how they are split: thresholds are chosen on
//! the calibration split of both and reported on the held-out split of both,
//! which holds other intents (and, for HWU64, other folds).

use std::collections::HashMap;
use std::path::Path;

/// The rows of a CSV file, each a list of fields.
type Rows = Vec<Vec<String>>;

/// A labelled set: texts and the index of each one's intent.
pub struct Labelled {
    pub texts: Vec<String>,
    pub labels: Vec<usize>,
}

impl Labelled {
    /// How many intents have at least one text.
    pub fn intents(&self) -> usize {
        let mut seen: Vec<usize> = self.labels.clone();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }
}

/// Which split.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Split {
    /// Intents at even positions in name order (Banking77: `train.csv`;
    /// HWU64: folds 1-5).
    Calibration,
    /// Intents at odd positions (Banking77: `test.csv`; HWU64: folds 6-10).
    HeldOut,
}

/// A corpus on disk.
#[derive(Clone, Debug)]
pub enum Corpus {
    /// `train.csv` and `test.csv`, columns `text,category`.
    Banking77(std::path::PathBuf),
    /// `utterances.csv`, columns `text,intent,fold`.
    Hwu64(std::path::PathBuf),
}

impl Corpus {
    pub fn name(&self) -> &'static str {
        match self {
            Corpus::Banking77(_) => "Banking77",
            Corpus::Hwu64(_) => "HWU64",
        }
    }

    /// The texts of `split`.
    pub fn load(&self, split: Split) -> Result<Labelled, String> {
        let (rows, keep_fold): (Rows, fn(&str) -> bool) = match (self, split) {
            (Corpus::Banking77(dir), Split::Calibration) => {
                (read_csv(&dir.join("train.csv"))?, |_| true)
            }
            (Corpus::Banking77(dir), Split::HeldOut) => {
                (read_csv(&dir.join("test.csv"))?, |_| true)
            }
            (Corpus::Hwu64(dir), Split::Calibration) => {
                (read_csv(&dir.join("utterances.csv"))?, |f| {
                    f.parse::<u32>().is_ok_and(|f| f <= 5)
                })
            }
            (Corpus::Hwu64(dir), Split::HeldOut) => (read_csv(&dir.join("utterances.csv"))?, |f| {
                f.parse::<u32>().is_ok_and(|f| f > 5)
            }),
        };
        let mut names: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.get(1).map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        let rank: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let wanted = |rank: usize| (rank % 2 == 0) == (split == Split::Calibration);
        let mut set = Labelled {
            texts: Vec::new(),
            labels: Vec::new(),
        };
        for row in &rows {
            let (Some(text), Some(intent)) = (row.first(), row.get(1)) else {
                continue;
            };
            let fold = row.get(2).map_or("", String::as_str);
            let Some(&r) = rank.get(intent.as_str()) else {
                continue;
            };
            if wanted(r) && keep_fold(fold) {
                set.texts.push(text.clone());
                set.labels.push(r);
            }
        }
        if set.texts.is_empty() {
            return Err(format!("{}: no texts in the {split:?} split", self.name()));
        }
        Ok(set)
    }
}

/// Reads a CSV file (RFC 4180: quoted fields may hold commas, doubled
/// quotes and line breaks), skipping the header.
pub fn read_csv(path: &Path) -> Result<Vec<Vec<String>>, String> {
    let data = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = data.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, _) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, _) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    Ok(rows.into_iter().skip(1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_may_hold_commas_quotes_and_line_breaks() {
        let path = std::env::temp_dir().join("cluster_quality_test.csv");
        let data = "text,category\r\n\"a, \"\"b\"\"\nc\",x\r\nplain,y\r\n";
        std::fs::write(&path, data).unwrap();
        let rows = read_csv(&path).unwrap();
        assert_eq!(
            rows,
            [
                vec!["a, \"b\"\nc".to_owned(), "x".to_owned()],
                vec!["plain".to_owned(), "y".to_owned()]
            ]
        );
    }
}
