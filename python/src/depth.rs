//! How deep reading a Python object goes, and what happens below that.
//!
//! Reading is bounded: a self-referencing dict or a message nested
//! thousands deep cannot overflow the stack.

use pyo3::prelude::*;

use crate::errors::input_error;

/// The first nesting level (0 for the message) never read: JSON text
/// nested as deep is refused by serde_json's parser (its limit of 128
/// levels, measured: a container at level 127 is the first the text path
/// refuses), so a dict gets the same verdict; and the bound keeps the reader's recursion
/// within a small thread stack (Python objects can even contain
/// themselves).
pub const HARD_DEPTH: usize = 127;

/// How deep a conversion goes, and what happens below that.
#[derive(Clone, Copy)]
pub struct Depth {
    cap: usize,
    /// Past `cap`, put an empty list in place of the container instead of
    /// failing: set when the validator's own depth limit sits well above
    /// the cap, so that the placeholder (still a container past the limit)
    /// gets the same `limit_exceeded` answer as the real value would.
    placeholder: bool,
}

impl Depth {
    /// Everything up to [`HARD_DEPTH`]; deeper is an `InputError`.
    pub const FULL: Depth = Depth {
        cap: HARD_DEPTH,
        placeholder: false,
    };

    /// The first nesting level (0 for the message itself) not followed.
    pub fn cap(self) -> usize {
        self.cap
    }

    /// Whether a container at the cap is replaced (else it is an error).
    pub fn cuts(self) -> bool {
        self.placeholder
    }

    /// The error for a container at the cap when cutting is not allowed.
    pub fn too_deep(self) -> PyErr {
        input_error(format!(
            "nested deeper than {} levels (or a container that contains itself)",
            self.cap
        ))
    }

    /// For a message validated with `max_depth`: a key's value sits two
    /// levels below the message (`payload`, then the key), an envelope's one
    /// more; eight levels of margin leave the answer the whole value would
    /// get (past the hard bound of 128 levels, an error instead).
    pub fn for_limit(max_depth: usize) -> Depth {
        let cap = max_depth.saturating_add(8);
        if cap < HARD_DEPTH {
            Depth {
                cap,
                placeholder: true,
            }
        } else {
            Depth::FULL
        }
    }
}
