//! What intake keeps of each line of a file: the text after the parts that
//! speak to the system, a model or the schema are dropped, and whether any
//! was. For measuring the filter on phrasings it was not written for.
//!
//! ```text
//! cargo run --release --example intake_filter -- ATTACKS.txt [BENIGN.txt]
//! ```
//!
//! Prints one JSON object per line (`file`, `line`, `kept`, `flagged`,
//! `dropped_whole`), then per file how many lines were flagged, dropped whole
//! or not flagged.

use std::process::ExitCode;

use sdsi::evolution::sanitize_fragment;

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: intake_filter FILE [FILE ...] (one fragment per line)");
        return ExitCode::from(2);
    }
    for path in &paths {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("{path}: {error}");
                return ExitCode::from(2);
            }
        };
        let (mut lines, mut flagged, mut whole, mut not_flagged) = (0, 0, 0, 0);
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            lines += 1;
            let clean = sanitize_fragment(line);
            let kept = clean.as_ref().map(|c| c.text.clone());
            let is_flagged = clean.as_ref().is_some_and(|c| c.flagged);
            flagged += usize::from(is_flagged);
            whole += usize::from(clean.is_none());
            not_flagged += usize::from(clean.as_ref().is_some_and(|c| !c.flagged));
            println!(
                "{}",
                serde_json::json!({"file": path, "line": n + 1, "kept": kept,
                    "flagged": is_flagged, "dropped_whole": clean.is_none()})
            );
        }
        println!(
            "{}",
            serde_json::json!({"file": path, "lines": lines, "flagged": flagged,
                "dropped_whole": whole, "not_flagged": not_flagged})
        );
    }
    ExitCode::SUCCESS
}
