//! Validation straight from JSON text (`validate_slice`, `is_valid_slice`
//! and their `str` forms), in one pass without building a `Value`.
//!
//! A hand-written scanner (`scan.rs`) settles the usual message; what it
//! is unsure of is read by serde_json through the serde source reader.
//! Both reduce each member to a `Shape` and decide through the same
//! `Pass` as the `Value` path; the report's normalized payload parses the
//! validated text only when it is read. JSON that repeats a member is the
//! one case a single pass cannot settle the way `serde_json::Value` does
//! (the last one wins), so it falls back to the `Value` path: a repeated
//! payload member, and a value found deeper than the limit, which a name
//! repeated inside it may have made look deeper than it parses.

use serde::de::DeserializeSeed;
use serde_json::Value;

use super::scan;
use super::serde_source::MessageSeed;
use super::stream::Stream;
use crate::issue::Issue;
use crate::validate::core::outcome::{Collect, Outcome, Verdict};
use crate::validate::core::pass::Source;
use crate::validate::core::schema::{CompiledSchema, SchemaCore};
use crate::validate::normalized::Normalized;
use crate::validate::report::{Report, finish_report};

impl CompiledSchema {
    /// Validates a message given as JSON bytes; same [`Report`] as
    /// [`CompiledSchema::validate`] on the parsed value, or `invalid_json`.
    ///
    /// One pass over the text decides validity and builds every issue
    /// without building a `Value`; the normalized payload of a valid message
    /// parses the text when it is first read. A server that wants its own
    /// type rather than a map calls [`CompiledSchema::deserialize_slice`].
    pub fn validate_slice<'a>(&'a self, bytes: &'a [u8]) -> Report<'a> {
        let schema = &*self.core;
        if let Some(report) = oversized(schema, bytes) {
            return report;
        }
        if schema.numbers_arrive_as_maps() {
            return self.validate_parsed(bytes);
        }
        let mut stream = Stream::new(schema, Collect::default(), Source::Text);
        match run(&mut stream, bytes) {
            Err(error) => Report::invalid_json(&error),
            Ok(()) if stream.fallback => self.validate_parsed(bytes),
            Ok(()) => {
                // `finish_report` drops it again if the message is invalid.
                let normalized = stream
                    .conclude()
                    .map(|edits| Normalized::text(bytes, schema, edits));
                finish_report(stream.out, normalized)
            }
        }
    }

    /// The bytes path for what one pass cannot settle: parse, then validate.
    fn validate_parsed(&self, bytes: &[u8]) -> Report<'static> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => self.validate_owned(value),
            Err(error) => Report::invalid_json(&error),
        }
    }

    /// [`CompiledSchema::validate_slice`] on a string.
    pub fn validate_str<'a>(&'a self, text: &'a str) -> Report<'a> {
        self.validate_slice(text.as_bytes())
    }

    /// Whether JSON bytes are a valid message, without building a report or a
    /// `Value`; equal to `validate_slice(bytes).is_valid()`.
    pub fn is_valid_slice(&self, bytes: &[u8]) -> bool {
        let schema = &*self.core;
        if bytes.len() > schema.options.limits.max_bytes {
            return false;
        }
        if schema.numbers_arrive_as_maps() {
            return serde_json::from_slice::<Value>(bytes).is_ok_and(|value| self.is_valid(&value));
        }
        let mut stream = Stream::new(
            schema,
            Verdict {
                valid: true,
                fail_fast: false,
            },
            Source::Text,
        );
        match run(&mut stream, bytes) {
            Err(_) => false,
            Ok(()) if stream.fallback => {
                serde_json::from_slice::<Value>(bytes).is_ok_and(|value| self.is_valid(&value))
            }
            Ok(()) => {
                stream.conclude();
                stream.out.valid
            }
        }
    }

    /// [`CompiledSchema::is_valid_slice`] on a string.
    pub fn is_valid_str(&self, text: &str) -> bool {
        self.is_valid_slice(text.as_bytes())
    }
}

/// Reads JSON text into `stream`: the scanner settles the usual message,
/// and what it is unsure of is read again, from the start, by serde_json.
fn run<O: Outcome>(stream: &mut Stream<'_, O>, bytes: &[u8]) -> Result<(), serde_json::Error> {
    match std::str::from_utf8(bytes) {
        // UTF-8 checked once, here: the text parser does not check every
        // string again, which would be much of the verdict path's work.
        Ok(text) => {
            // The usual message is settled by the scanner; what it is
            // unsure of is read again, from the start, by serde_json.
            let fresh = stream.out.clone();
            if scan::message(stream, text).is_ok() {
                return Ok(());
            }
            *stream = Stream::new(stream.schema, fresh, stream.source);
            let mut de = serde_json::Deserializer::from_str(text);
            MessageSeed(&mut *stream).deserialize(&mut de)?;
            de.end()
        }
        // Not UTF-8: the slice parser finds the bad byte and says where.
        Err(_) => {
            let mut de = serde_json::Deserializer::from_slice(bytes);
            MessageSeed(&mut *stream).deserialize(&mut de)?;
            de.end()
        }
    }
}

fn oversized(schema: &SchemaCore, bytes: &[u8]) -> Option<Report<'static>> {
    let max = schema.options.limits.max_bytes;
    (bytes.len() > max).then(|| Report::single(Issue::limit("", "input size in bytes", max as u64)))
}
