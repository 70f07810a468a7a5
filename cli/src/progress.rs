//! A progress bar on standard error for the long streaming commands
//! (`evolve`, `cluster`): bytes read with rate and ETA (a spinner with the
//! rate for standard input, whose size is unknown), drawn only when
//! standard error is a terminal, so pipes, logs and the JSON on standard
//! output are unchanged.

use std::io::{BufRead, IsTerminal};
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};

use crate::input;

/// `reader` (opened from `path`), counting what is read into a progress bar
/// when standard error is a terminal; `reader` itself otherwise. The bar is
/// cleared when the reader is dropped.
pub fn track(path: &Path, reader: Box<dyn BufRead>) -> Box<dyn BufRead> {
    if !std::io::stderr().is_terminal() {
        return reader;
    }
    let size = (!input::is_stdin(path))
        .then(|| std::fs::metadata(path).ok().map(|m| m.len()))
        .flatten();
    let (bar, template) = match size {
        Some(size) => (
            ProgressBar::new(size),
            "{spinner} {bar:30} {bytes}/{total_bytes} at {bytes_per_sec}, ETA {eta}",
        ),
        None => (
            ProgressBar::no_length(),
            "{spinner} {bytes} read at {bytes_per_sec}, {elapsed}",
        ),
    };
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = bar.with_style(style).with_finish(ProgressFinish::AndClear);
    bar.set_draw_target(ProgressDrawTarget::stderr());
    Box::new(std::io::BufReader::new(bar.wrap_read(reader)))
}
