//! `--dump-vectors DIR`: each split's texts and the vectors the pool would
//! see for them (sanitized and redacted as the pipeline does), for offline
//! measurements (`scripts/whole-needs.py`).
//!
//! Per corpus, split and embedder: `{corpus}-{split}-{embedder}.f32`, the
//! vectors as little-endian `f32` rows of the embedder's dimension, and
//! `{corpus}-{split}.tsv`, one line per text in the same order: the intent's
//! index, a tab, the text as the corpus has it (line breaks as spaces).

use std::fmt::Write as _;
use std::path::Path;

use crate::corpus::Split;
use crate::{Args, embedders, prepare};

pub fn dump(args: &Args, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, embedder) in embedders(args)? {
        let tag = if name.starts_with("model") {
            "model"
        } else {
            "hash"
        };
        for corpus in &args.corpora {
            for (split, split_tag) in [(Split::Calibration, "cal"), (Split::HeldOut, "held")] {
                let raw = corpus.load(split)?;
                let data = prepare(corpus, split, embedder.as_ref(), args)?;
                let mut bytes = Vec::new();
                for vector in &data.vectors {
                    bytes.extend(vector.iter().flat_map(|x| x.to_le_bytes()));
                }
                let mut lines = String::new();
                for (label, text) in raw.labels.iter().zip(&raw.texts) {
                    let text = text.replace(['\n', '\r', '\t'], " ");
                    let _ = writeln!(lines, "{label}\t{text}");
                }
                let stem = format!("{}-{split_tag}", corpus.name());
                write(&dir.join(format!("{stem}-{tag}.f32")), &bytes)?;
                write(&dir.join(format!("{stem}.tsv")), lines.as_bytes())?;
                eprintln!("{stem}-{tag}: {} vectors", data.vectors.len());
            }
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}
