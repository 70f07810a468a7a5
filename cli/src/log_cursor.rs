//! Where `evolve --state` resumes, tied to the log it read: the number of
//! lines an earlier run replayed and a SHA-256 of those lines. A later run
//! skips them only when its log starts with the same lines (the same file,
//! perhaps grown since); any other log is read from its first line, so a
//! daily run with a new file loses nothing.
//!
//! A line counts once its newline is written. With a state, a last line
//! without one (a writer still writing it) is neither replayed nor counted
//! in the cursor: the next run reads it once it is complete, instead of
//! meeting a longer line than the one it counted and taking the log for
//! another. A log that truly ends without a newline keeps its last line
//! waiting ([`Lines::unfinished`] names it). Without a state there is no
//! next run, and such a line is read as it is.

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

/// What to do with a last line that has no newline (yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastLine {
    /// Leave it unread and uncounted, for a later run (`--state`).
    Wait,
    /// Read it as a line: no later run will.
    Read,
}

/// Opens the log again from its start (`None` for standard input).
pub type Reopen = Box<dyn FnMut() -> io::Result<Box<dyn BufRead>>>;

/// The log's lines still to replay, numbered from 1, with the cursor of
/// what was read so far.
pub struct Lines {
    reader: Box<dyn BufRead>,
    held: VecDeque<String>,
    number: u64,
    hasher: Sha256,
    last_line: LastLine,
    /// The number of a last line left unread for want of its newline.
    unfinished: Option<u64>,
    /// What the check found.
    pub resumed: Resumed,
}

impl Lines {
    /// Checks `reader` against the `saved` cursor and positions it after
    /// the lines already replayed; `last_line` says what becomes of a last
    /// line without its newline. Fails only when standard input is another
    /// log than the saved one and longer than [`MAX_HELD_BYTES`] up to the
    /// saved line.
    pub fn resume(
        reader: Box<dyn BufRead>,
        saved: Option<&Cursor>,
        reopen: Option<Reopen>,
        last_line: LastLine,
    ) -> Result<Self, String> {
        let mut lines = Lines {
            reader,
            held: VecDeque::new(),
            number: 0,
            hasher: Sha256::new(),
            last_line,
            unfinished: None,
            resumed: Resumed::Fresh,
        };
        let Some(saved) = saved else {
            return Ok(lines);
        };
        let holding = reopen.is_none();
        let (mut held_bytes, mut overflow) = (0usize, false);
        while lines.number < saved.line {
            // Shorter than the saved log (or its line there unfinished:
            // the saved one was complete), or unreadable: not it.
            let Some(Ok(line)) = lines.read() else {
                break;
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
                lines.unfinished = None;
                lines.reader = reopen()
                    .map_err(|e| format!("cannot read the log again from its start: {e}"))?;
            }
            None if overflow => {
                return Err(format!(
                    "standard input is not the log this state was saved from, and its first \
                     {} lines are over {MAX_HELD_BYTES} bytes: give the log as a file",
                    saved.line
                ));
            }
            // The held lines come first; an unfinished line met after them
            // keeps its number.
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

    /// The number of the last line, left unread because it has no newline
    /// yet (with [`LastLine::Wait`]); `None` when there was none, or only
    /// blanks.
    pub fn unfinished(&self) -> Option<u64> {
        self.unfinished
    }

    fn digest(&self) -> String {
        crate::hex::hex(&self.hasher.clone().finalize())
    }

    /// The next line from the reader, without its `\n` or `\r\n`; `None`
    /// at the end, and at a last line without its newline that waits.
    fn read(&mut self) -> Option<io::Result<String>> {
        let mut bytes = Vec::new();
        match self.reader.read_until(b'\n', &mut bytes) {
            Err(error) => return Some(Err(error)),
            Ok(0) => return None,
            Ok(_) => {}
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        } else if self.last_line == LastLine::Wait {
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                self.unfinished = Some(self.number.saturating_add(1));
            }
            return None;
        }
        Some(String::from_utf8(bytes).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )
        }))
    }
}

impl Iterator for Lines {
    type Item = (u64, io::Result<String>);

    fn next(&mut self) -> Option<Self::Item> {
        let line = match self.held.pop_front() {
            Some(line) => Ok(line),
            None => self.read()?,
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
