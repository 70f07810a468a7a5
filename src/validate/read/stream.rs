//! `Stream`: the state of one validation read in a single pass, fed by
//! the bytes scanner (`scan.rs`) and by the serde source reader
//! (`serde_source.rs`); it reports what only the end of the message can
//! tell.

use std::ops::ControlFlow;

use crate::validate::core::edits::Edits;
use crate::validate::core::outcome::Outcome;
use crate::validate::core::pass::{
    Source, check_schema_id, message_not_object, missing_payload, payload_not_object,
};
use crate::validate::core::schema::SchemaCore;

/// The message of the error that ends a read stopped at the first error.
pub(crate) const STOPPED: &str = "stopped at the first error";

/// What the message's `payload` member turned out to be.
pub(crate) enum Payload {
    Missing,
    NotObject,
    /// What normalizing the payload changes.
    Object(Edits),
}

/// The state of one streaming validation.
pub(crate) struct Stream<'s, O> {
    pub(crate) schema: &'s SchemaCore,
    pub(crate) out: O,
    pub(crate) is_object: bool,
    pub(crate) seen_schema_id: bool,
    pub(crate) payload: Payload,
    /// Where the message comes from: whether its names may repeat.
    pub(crate) source: Source,
    /// Set when the single pass cannot decide exactly (repeated members,
    /// too many members, a value too deep from a source that may repeat names).
    pub(crate) fallback: bool,
    /// Set when reading stopped at the first error (an outcome that fails
    /// fast said `Break`, and nothing left to the `Value` path could undo
    /// the error).
    pub(crate) stopped: bool,
}

impl<'s, O: Outcome> Stream<'s, O> {
    pub(crate) fn new(schema: &'s SchemaCore, out: O, source: Source) -> Self {
        Self {
            schema,
            out,
            is_object: false,
            seen_schema_id: false,
            payload: Payload::Missing,
            source,
            fallback: false,
            stopped: false,
        }
    }

    /// Whether to stop reading after a check that said `flow`: only when
    /// the outcome wants no more, and the message is not left to the
    /// `Value` path (where a repeated member could replace the offending one).
    pub(crate) fn stop(&mut self, flow: ControlFlow<()>) -> bool {
        self.stopped = flow.is_break() && !self.fallback;
        self.stopped
    }

    /// Reports what only the end of the message can tell; returns what
    /// normalizing the payload changes.
    pub(crate) fn conclude(&mut self) -> Option<Edits> {
        if !self.is_object {
            let _ = message_not_object(&mut self.out);
            return None;
        }
        if !self.seen_schema_id {
            let _ = check_schema_id(self.schema, None, &mut self.out);
        }
        match std::mem::replace(&mut self.payload, Payload::Missing) {
            Payload::Missing => {
                let _ = missing_payload(&mut self.out);
                None
            }
            Payload::NotObject => {
                let _ = payload_not_object(&mut self.out);
                None
            }
            Payload::Object(edits) => Some(edits),
        }
    }
}
