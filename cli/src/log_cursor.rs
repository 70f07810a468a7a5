//! Where `evolve --state` resumes, tied to the log it read: the number of
//! lines an earlier run replayed and a SHA-256 of those lines. A later run
//! skips them only when its log starts with the same lines (the same file,
//! perhaps grown since); any other log is read from its first line, so a
//! daily run with a new file loses nothing. A last line still being
//! written (no newline yet) counts as written: if the writer then extends
//! it, the log reads as another one and is replayed from its start.

use std::collections::VecDeque;
use std::io::{self, BufRead};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Most bytes of standard input held while checking whether it is the log
/// an earlier run read (a file is opened again instead).
pub const MAX_HELD_BYTES: usize = 64 << 20;

/// How far an earlier run got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// Lines it replayed.
    pub line: u64,
    /// SHA-256 (hex) of those lines, each followed by `\n`.
    pub digest: String,
}

/// What the check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resumed {
    /// Nothing was saved: every line is new.
    Fresh,
    /// The same log: its first lines were replayed before and are skipped.
    After(u64),
    /// Another log: read from its first line.
    NewLog,
}

/// Opens the log again from its start (`None` for standard input).
pub type Reopen = Box<dyn FnMut() -> io::Result<Box<dyn BufRead>>>;

/// The log's lines still to replay, numbered from 1, with the cursor of
/// what was read so far.
pub struct Lines {
    inner: io::Lines<Box<dyn BufRead>>,
    held: VecDeque<String>,
    number: u64,
    hasher: Sha256,
    /// What the check found.
    pub resumed: Resumed,
}

impl Lines {
    /// Checks `reader` against the `saved` cursor and positions it after
    /// the lines already replayed. Fails only when standard input is
    /// another log than the saved one and longer than [`MAX_HELD_BYTES`] up
    /// to the saved line.
    pub fn resume(
        reader: Box<dyn BufRead>,
        saved: Option<&Cursor>,
        reopen: Option<Reopen>,
    ) -> Result<Self, String> {
        let mut lines = Lines {
            inner: reader.lines(),
            held: VecDeque::new(),
            number: 0,
            hasher: Sha256::new(),
            resumed: Resumed::Fresh,
        };
        let Some(saved) = saved else {
            return Ok(lines);
        };
        let holding = reopen.is_none();
        let (mut held_bytes, mut overflow) = (0usize, false);
        while lines.number < saved.line {
            let Some(Ok(line)) = lines.inner.next() else {
                break; // shorter than the saved log, or unreadable: not it
            };
            lines.hasher.update(line.as_bytes());
            lines.hasher.update(b"\n");
            lines.number += 1;
            if holding && !overflow {
                held_bytes = held_bytes.saturating_add(line.len() + 1);
                overflow = held_bytes > MAX_HELD_BYTES;
                lines.held.push_back(line);
            }
        }
        if lines.number == saved.line && lines.digest() == saved.digest {
            lines.held.clear();
            lines.resumed = Resumed::After(saved.line);
            return Ok(lines);
        }
        // Another log: from its first line.
        lines.hasher = Sha256::new();
        lines.number = 0;
        lines.resumed = Resumed::NewLog;
        match reopen {
            Some(mut reopen) => {
                lines.held.clear();
                lines.inner = reopen()
                    .map_err(|e| format!("cannot read the log again from its start: {e}"))?
                    .lines();
            }
            None if overflow => {
                return Err(format!(
                    "standard input is not the log this state was saved from, and its first \
                     {} lines are over {MAX_HELD_BYTES} bytes: give the log as a file",
                    saved.line
                ));
            }
            None => {}
        }
        Ok(lines)
    }

    /// The cursor after the lines read so far.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            line: self.number,
            digest: self.digest(),
        }
    }

    fn digest(&self) -> String {
        crate::hex::hex(&self.hasher.clone().finalize())
    }
}

impl Iterator for Lines {
    type Item = (u64, io::Result<String>);

    fn next(&mut self) -> Option<Self::Item> {
        let line = match self.held.pop_front() {
            Some(line) => Ok(line),
            None => self.inner.next()?,
        };
        // A line that cannot be read is not counted: the cursor stays
        // before it, so a later run meets it at the same place.
        let Ok(text) = &line else {
            return Some((self.number.saturating_add(1), line));
        };
        self.hasher.update(text.as_bytes());
        self.hasher.update(b"\n");
        self.number += 1;
        Some((self.number, line))
    }
}
