//! Reading a command's inputs: a file, or standard input for `-`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::output::Entry;

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How to name `path` in messages.
pub fn describe(path: &Path) -> String {
    if is_stdin(path) {
        "stdin".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Reads at most `max_bytes + 1` bytes from `path` (stdin for `-`), so that
/// an oversized input is noticed without being read whole.
///
/// Fails with an `unreadable_input` entry.
pub fn read_capped(path: &Path, max_bytes: usize) -> Result<Vec<u8>, Entry<'static>> {
    let cap = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let result = if is_stdin(path) {
        read_from(io::stdin().lock(), cap)
    } else {
        File::open(path).and_then(|file| read_from(file, cap))
    };
    result.map_err(|error| Entry::unreadable(&describe(path), error))
}

fn read_from(reader: impl Read, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(cap).read_to_end(&mut bytes)?;
    // Editors on some systems start files with a UTF-8 byte order mark,
    // which JSON parsers refuse; RFC 8259 lets a reader ignore it.
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    Ok(bytes)
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Opens `path` (stdin for `-`) for reading line by line, as the streaming
/// commands do, past a byte order mark at its start. Fails with an
/// `unreadable_input` entry.
pub fn lines(path: &Path) -> Result<Box<dyn io::BufRead>, Entry<'static>> {
    let mut reader: Box<dyn io::BufRead> = if is_stdin(path) {
        Box::new(io::BufReader::new(io::stdin()))
    } else {
        File::open(path)
            .map(|file| Box::new(io::BufReader::new(file)) as Box<dyn io::BufRead>)
            .map_err(|error| Entry::unreadable(&describe(path), error))?
    };
    let starts_with_bom = reader
        .fill_buf()
        .map_err(|error| Entry::unreadable(&describe(path), error))?
        .starts_with(BOM);
    if starts_with_bom {
        reader.consume(BOM.len());
    }
    Ok(reader)
}
