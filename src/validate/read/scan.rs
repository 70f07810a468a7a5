//! A JSON scanner for the bytes path's usual message: it reads the text
//! once, byte by byte, and hands each payload member's name and [`Shape`]
//! to the same [`Pass`] the serde source reader feeds (`serde_source.rs`).
//!
//! Why its own: going through serde's visitor plumbing (a call per token,
//! a visitor per value) is most of the bytes verdict's work, as much again as
//! reading the text with `IgnoredAny`. The scanner only has to be right about what it
//! accepts: anything it is unsure of — a syntax error, an escaped member
//! name, a `schema_id` other than the schema's, a repeated member, a
//! lone surrogate, a number other than a short integer or fraction — ends the scan
//! with [`Unsure`], and the caller reads the text again with serde_json,
//! which then settles it (and words any error) exactly as before. So the
//! scanner accepts a subset of what serde_json accepts, and classifies
//! every value as `serde_json::Value` would (`tests/it/respelled.rs`,
//! `tests/it/properties.rs` and the fuzz targets compare the two on generated
//! and mutated text).

use serde_json::Value;

use super::probe::Probe;
use super::stream::{Payload, Stream};
use crate::key::JsonKind;
use crate::validate::core::edits::Edits;
use crate::validate::core::options::UnknownKeys;
use crate::validate::core::outcome::Outcome;
use crate::validate::core::pass::{Pass, Source, ValueOrShape};
use crate::validate::core::shape::{ContainerShape, Shape};

/// The scanner did not settle the text; serde_json's reader will.
pub(super) struct Unsure;

type Scanned<T> = Result<T, Unsure>;

/// How many levels of nesting the scanner follows inside one payload
/// member's value before it leaves the text to serde_json (whose own limit
/// is 128 for the whole document). Bounds the scanner's recursion.
const MAX_NESTING: usize = 64;

/// Runs the stream's checks over `text`, a whole message.
pub(super) fn message<O: Outcome>(stream: &mut Stream<'_, O>, text: &str) -> Scanned<()> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    if scanner.next_token() != Some(b'{') {
        return Err(Unsure);
    }
    stream.is_object = true;
    let mut seen_payload = false;
    if !scanner.empty_container(b'}') {
        loop {
            match scanner.name()? {
                b"schema_id" => {
                    if stream.seen_schema_id || scanner.next_token() != Some(b'"') {
                        return Err(Unsure);
                    }
                    let (id, escaped) = scanner.string()?;
                    // Another id is reported with the value found: serde_json's reader does that.
                    if escaped || id != stream.schema.schema_id.as_bytes() {
                        return Err(Unsure);
                    }
                    stream.seen_schema_id = true;
                }
                b"payload" => {
                    scanner.skip_whitespace();
                    if seen_payload || scanner.peek() != Some(b'{') {
                        return Err(Unsure);
                    }
                    seen_payload = true;
                    stream.payload = Payload::Object(scanner.payload(stream)?);
                }
                _ => {
                    scanner.value(0, false, MAX_NESTING)?;
                }
            }
            if scanner.end_of_member(b'}')? {
                break;
            }
        }
    }
    scanner.skip_whitespace();
    if scanner.at == scanner.bytes.len() {
        Ok(())
    } else {
        Err(Unsure)
    }
}

struct Scanner<'t> {
    bytes: &'t [u8],
    /// The next byte to read; never past `bytes.len()` but by one after
    /// the last byte was consumed, which `peek` reads as the end.
    at: usize,
}

impl<'t> Scanner<'t> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn rest(&self) -> &'t [u8] {
        self.bytes.get(self.at..).unwrap_or_default()
    }

    #[inline]
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The next byte that is not whitespace, consumed.
    #[inline]
    fn next_token(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    /// After a container's opening bracket: whether it closes at once (consumed).
    #[inline]
    fn empty_container(&mut self, close: u8) -> bool {
        self.skip_whitespace();
        let empty = self.peek() == Some(close);
        if empty {
            self.at += 1;
        }
        empty
    }

    /// After a member or element: `true` at the container's end, `false` after a comma.
    #[inline]
    fn end_of_member(&mut self, close: u8) -> Scanned<bool> {
        match self.next_token() {
            Some(b',') => Ok(false),
            Some(byte) if byte == close => Ok(true),
            _ => Err(Unsure),
        }
    }

    /// A member name (its raw bytes: the text is UTF-8) and its colon; a
    /// name with escapes is left to serde_json.
    #[inline]
    fn name(&mut self) -> Scanned<&'t [u8]> {
        if self.next_token() != Some(b'"') {
            return Err(Unsure);
        }
        let (name, escaped) = self.string()?;
        if escaped || self.next_token() != Some(b':') {
            return Err(Unsure);
        }
        Ok(name)
    }

    /// A string whose opening quote was just read: its raw bytes and
    /// whether it holds escapes (checked here, not decoded). Bytes, not a
    /// `str`: a `str` slice checks both ends for character boundaries, and
    /// most names are only compared.
    #[inline]
    fn string(&mut self) -> Scanned<(&'t [u8], bool)> {
        let start = self.at;
        let escaped = self.pass_string()?;
        let raw = self
            .bytes
            .get(start..self.at.saturating_sub(1))
            .ok_or(Unsure)?;
        Ok((raw, escaped))
    }

    /// Reads past a string whose opening quote was just read; whether it
    /// holds escapes.
    #[inline(always)]
    fn pass_string(&mut self) -> Scanned<bool> {
        let mut escaped = false;
        loop {
            self.at += special_offset(self.rest());
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    self.at += 1;
                    self.escape()?;
                    escaped = true;
                }
                // A control character, or the text ended inside the string.
                _ => return Err(Unsure),
            }
        }
    }

    /// The escape after a backslash. A lone surrogate is left to serde_json
    /// (which refuses it, as `Value` does).
    fn escape(&mut self) -> Scanned<()> {
        let byte = self.peek().ok_or(Unsure)?;
        self.at += 1;
        match byte {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(()),
            b'u' => match self.hex_unit()? {
                0xD800..=0xDBFF => {
                    if !self.rest().starts_with(b"\\u") {
                        return Err(Unsure);
                    }
                    self.at += 2;
                    match self.hex_unit()? {
                        0xDC00..=0xDFFF => Ok(()),
                        _ => Err(Unsure),
                    }
                }
                0xDC00..=0xDFFF => Err(Unsure),
                _ => Ok(()),
            },
            _ => Err(Unsure),
        }
    }

    /// Four hex digits.
    fn hex_unit(&mut self) -> Scanned<u16> {
        let digits = self.rest().first_chunk::<4>().ok_or(Unsure)?;
        let mut unit = 0u16;
        for &digit in digits {
            let value = (digit as char).to_digit(16).ok_or(Unsure)?;
            unit = unit << 4 | value as u16;
        }
        self.at += 4;
        Ok(unit)
    }

    /// One value and its shape, as [`super::stream::Probe`] reduces it: nesting
    /// followed up to `cap` levels (the limit plus one), the first element
    /// that is not a string when `track_strings`; `room`: how many more
    /// levels the scanner follows.
    fn value(&mut self, cap: usize, track_strings: bool, room: usize) -> Scanned<Shape> {
        self.skip_whitespace();
        match self.peek().ok_or(Unsure)? {
            b'"' => {
                self.at += 1;
                self.pass_string()?;
                Ok(Shape::scalar(JsonKind::String))
            }
            b'{' => self.object(cap, room),
            b'[' => self.array(cap, track_strings, room),
            b't' => self.literal(b"true", JsonKind::Boolean),
            b'f' => self.literal(b"false", JsonKind::Boolean),
            b'n' => self.literal(b"null", JsonKind::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Unsure),
        }
    }

    fn literal(&mut self, word: &[u8], kind: JsonKind) -> Scanned<Shape> {
        if !self.rest().starts_with(word) {
            return Err(Unsure);
        }
        self.at += word.len();
        Ok(Shape::scalar(kind))
    }

    /// A number. Two common forms are read here, as serde_json reads them:
    /// an integer of up to 18 digits (any 64-bit reader holds it) and a
    /// fraction of at most 15 digits in all with a non-zero digit after the
    /// point (the nearest double is then no whole number: its distance to
    /// one, at least 10^-f, exceeds half the spacing of doubles below
    /// 10^15). Everything else (exponents, `-0`, longer numbers) is
    /// classified by serde_json itself, so a float is the very float
    /// `Value` holds.
    fn number(&mut self) -> Scanned<Shape> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let whole = self.digits();
        let fraction = if self.peek() == Some(b'.') {
            self.at += 1;
            Some(self.digits())
        } else {
            None
        };
        let exponent = matches!(self.peek(), Some(b'e' | b'E'));
        let well_formed = whole == b"0" || whole.first().is_some_and(|d| *d != b'0');
        if well_formed && !exponent {
            match fraction {
                None if whole.len() <= 18 && !(negative && whole == b"0") => {
                    return Ok(Shape::scalar(JsonKind::Integer));
                }
                Some(fraction)
                    if whole.len() + fraction.len() <= 15
                        && fraction.iter().any(|d| *d != b'0') =>
                {
                    return Ok(Shape::scalar(JsonKind::Number));
                }
                _ => {}
            }
        }
        while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = self.peek() {
            self.at += 1;
        }
        let token = self.bytes.get(start..self.at).ok_or(Unsure)?;
        let value: Value = serde_json::from_slice(token).map_err(|_| Unsure)?;
        Ok(Shape::of(&value, 0, false))
    }

    /// A run of decimal digits (possibly empty).
    #[inline]
    fn digits(&mut self) -> &'t [u8] {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.bytes.get(start..self.at).unwrap_or_default()
    }

    #[inline(never)]
    fn array(&mut self, cap: usize, track_strings: bool, room: usize) -> Scanned<Shape> {
        let room = room.checked_sub(1).ok_or(Unsure)?;
        self.at += 1;
        let mut shape = ContainerShape::array(track_strings);
        if self.empty_container(b']') {
            return Ok(shape.finish(cap));
        }
        let child_cap = cap.saturating_sub(1);
        loop {
            let element = self.value(child_cap, false, room)?;
            shape.child(&element);
            if self.end_of_member(b']')? {
                break;
            }
        }
        Ok(shape.finish(cap))
    }

    #[inline(never)]
    fn object(&mut self, cap: usize, room: usize) -> Scanned<Shape> {
        let room = room.checked_sub(1).ok_or(Unsure)?;
        self.at += 1;
        let mut shape = ContainerShape::object();
        if self.empty_container(b'}') {
            return Ok(shape.finish(cap));
        }
        let child_cap = cap.saturating_sub(1);
        loop {
            if self.next_token() != Some(b'"') {
                return Err(Unsure);
            }
            self.pass_string()?;
            if self.next_token() != Some(b':') {
                return Err(Unsure);
            }
            let value = self.value(child_cap, false, room)?;
            shape.child(&value);
            if self.end_of_member(b'}')? {
                break;
            }
        }
        Ok(shape.finish(cap))
    }

    /// The payload object (at its `{`): each member checked by a [`Pass`].
    fn payload<O: Outcome>(&mut self, stream: &mut Stream<'_, O>) -> Scanned<Edits> {
        self.at += 1;
        let schema = stream.schema;
        let limits = &schema.options.limits;
        let mut pass = Pass::new(schema, Source::Text);
        let mut count = 0usize;
        if !self.empty_container(b'}') {
            loop {
                let name = self.name()?;
                count += 1;
                if count > limits.max_keys {
                    // Settled exactly by the `Value` path, as serde_json's reader does.
                    return Err(Unsure);
                }
                let flow = match pass.find(name) {
                    Some(index) => {
                        // What the serde reader's probe follows, the scanner follows.
                        let probe = Probe::for_key(schema, index);
                        let shape = self.value(probe.cap, probe.track_strings, MAX_NESTING)?;
                        pass.known(index, ValueOrShape::Shape(shape), &mut stream.out)
                    }
                    None => {
                        // Both ends are ASCII quotes in UTF-8 text: this
                        // cannot fail, and runs only for unknown names.
                        let name = std::str::from_utf8(name).map_err(|_| Unsure)?;
                        let cap = limits.max_depth.saturating_add(1);
                        let shape = self.value(cap, false, MAX_NESTING)?;
                        let kept = schema.options.unknown_keys == UnknownKeys::Warn;
                        pass.unknown(name, kept.then_some(shape), &mut stream.out)
                    }
                };
                // A repeated member, or a value too deep (a name repeated
                // inside it may hide its depth), is settled by the `Value`
                // path; an outcome that stops early by serde_json's reader.
                if pass.unsettled() || flow.is_break() {
                    return Err(Unsure);
                }
                if self.end_of_member(b'}')? {
                    break;
                }
            }
        }
        let _ = pass.finish(&mut stream.out);
        Ok(pass.into_edits())
    }
}

/// The offset of the first byte in `rest` that ends a plain run of string
/// text (a quote, a backslash or a control character), or `rest.len()`.
/// Eight bytes at a time: for each kind, the lowest flagged byte of a word
/// is exact (a borrow only flags bytes above a true match), so the lowest
/// flag of the three together is the first such byte.
#[inline(always)]
fn special_offset(rest: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    const SPACES: u64 = ONES * b' ' as u64;
    let mut chunks = rest.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let Some(bytes) = chunk.first_chunk::<8>() else {
            break;
        };
        let word = u64::from_le_bytes(*bytes);
        let quote = word ^ QUOTES;
        let backslash = word ^ BACKSLASHES;
        let flags = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | word.wrapping_sub(SPACES) & !word)
            & HIGHS;
        if flags != 0 {
            return offset + (flags.trailing_zeros() / 8) as usize;
        }
        offset += 8;
    }
    let tail = chunks.remainder();
    offset
        + tail
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < b' ')
            .unwrap_or(tail.len())
}

#[cfg(test)]
mod tests {
    use super::special_offset;

    #[test]
    fn special_offset_finds_the_first_quote_backslash_or_control_byte() {
        for len in 0..40 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    // Plain bytes around it, multi-byte UTF-8 and 0x7f included.
                    let mut text: Vec<u8> = (0..len)
                        .map(|i| [b'a', 0xc3, 0xa9, 0x7f, b' ', 0x80][i % 6])
                        .collect();
                    if at < len {
                        text[at] = special;
                        // A later special byte must not hide the first.
                        if at + 3 < len {
                            text[at + 3] = b'"';
                        }
                    }
                    assert_eq!(
                        special_offset(&text),
                        at,
                        "len {len} at {at} byte {special}"
                    );
                }
            }
        }
    }
}
