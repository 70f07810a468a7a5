//! `sdsi validate --jsonl`: one message per line, against one compiled
//! schema, one result per line. Lines are read into one reused buffer and
//! each report is written and dropped before the next line, so memory stays
//! flat however long the input is.

use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use sdsi::{CompiledSchema, Issue};
use serde::Serialize;
use serde_json::json;

use crate::input;
use crate::output::{Entry, Outcome, Status, ValidateOutput, entries};

/// One line's result: its line number, then what `sdsi validate` prints.
#[derive(Serialize)]
struct LineOutput<'a> {
    line: u64,
    #[serde(flatten)]
    output: ValidateOutput<'a>,
}

/// Validates every non-blank line of `path` (stdin for `-`). Exit 0 when
/// every message is valid, 1 when one is not (a line that is not JSON
/// included), 2 when the input cannot be read: the stream then ends with
/// its error line. A summary with messages per second goes to stderr.
pub fn run(schema: &CompiledSchema, skipped: &[Issue], path: &Path) -> Outcome {
    let max_bytes = schema.options().limits.max_bytes;
    let mut reader = match input::lines(path) {
        Ok(reader) => reader,
        Err(entry) => return Outcome::stream_error(&[entry]),
    };
    let started = Instant::now();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    let (mut number, mut messages, mut valid) = (0u64, 0u64, 0u64);
    let mut failure = None;
    // A read that fails mid-stream: reported on stdout, where results go.
    let mut unreadable = None;
    loop {
        line.clear();
        let too_long = match read_line_capped(&mut reader, &mut line, max_bytes) {
            Ok(None) => break,
            Ok(Some(too_long)) => too_long,
            Err(error) => {
                let what = format!("line {} of {}", number + 1, input::describe(path));
                failure = Some(format!("cannot read {what}: {error}"));
                unreadable = Some(Entry::unreadable(&what, error));
                break;
            }
        };
        number += 1;
        let text = trim_line(&line);
        if !too_long && text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        messages += 1;
        let report = (!too_long).then(|| schema.validate_slice(text));
        let output = match &report {
            Some(report) => ValidateOutput::of(report, skipped),
            None => ValidateOutput {
                valid: false,
                errors: vec![Entry::too_large(max_bytes)],
                warnings: entries(skipped),
                normalized: None,
            },
        };
        valid += u64::from(output.valid);
        let written = serde_json::to_writer(
            &mut out,
            &LineOutput {
                line: number,
                output,
            },
        )
        .map_err(io::Error::from)
        .and_then(|()| out.write_all(b"\n"));
        if let Err(error) = written {
            failure = Some(format!("cannot write output: {error}"));
            break;
        }
    }
    let flushed = out.flush();
    let seconds = started.elapsed().as_secs_f64();
    let per_second = if seconds > 0.0 {
        messages as f64 / seconds
    } else {
        0.0
    };
    let error = failure.or_else(|| flushed.err().map(|e| format!("cannot write output: {e}")));
    let summary = json!({
        "messages": messages,
        "valid": valid,
        "invalid": messages.saturating_sub(valid),
        "seconds": seconds,
        "messages_per_second": per_second.round(),
        "error": error,
    });
    eprintln!("{summary}");
    drop(out);
    if let Some(entry) = unreadable {
        return Outcome::stream_error(&[entry]);
    }
    if error.is_some() {
        // The output itself failed: nothing more can be printed there.
        return Outcome::streamed(Status::Unusable);
    }
    Outcome::streamed(if valid == messages {
        Status::Valid
    } else {
        Status::Invalid
    })
}

/// Reads one line (through its `\n`) into `line`, keeping at most
/// `max_bytes` plus the line ending; a longer line is read to its end and
/// dropped. `None` at the end of the input, else whether the line was too long.
fn read_line_capped(
    reader: &mut dyn BufRead,
    line: &mut Vec<u8>,
    max_bytes: usize,
) -> io::Result<Option<bool>> {
    let keep = max_bytes.saturating_add(2);
    let (mut any, mut too_long) = (false, false);
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(any.then_some(too_long));
        }
        any = true;
        let (chunk, ends) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (buffer.get(..=end).unwrap_or(buffer), true),
            None => (buffer, false),
        };
        let taken = chunk.len();
        if !too_long {
            if line.len().saturating_add(taken) > keep {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(taken);
        if ends {
            return Ok(Some(too_long));
        }
    }
}

/// The line without its ending.
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
