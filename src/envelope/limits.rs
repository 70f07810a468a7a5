//! Bounds on what reading an envelope may cost, like the payload's
//! [`Limits`](crate::validate::Limits): a hostile envelope is refused with
//! `limit_exceeded` instead of being read, copied or reported in full.

/// Limits on an envelope's size, applied by [`Envelope::parse_with`]
/// (and, with the defaults, [`Envelope::parse`], [`Envelope::parse_slice`]
/// and the other readers).
///
/// [`CompiledSchema::validate_envelope`](crate::CompiledSchema::validate_envelope)
/// takes `max_bytes` and `max_depth` from the schema's own
/// [`Limits`](crate::validate::Limits) and the defaults for the rest.
///
/// [`Envelope::parse_with`]: crate::Envelope::parse_with
/// [`Envelope::parse`]: crate::Envelope::parse
/// [`Envelope::parse_slice`]: crate::Envelope::parse_slice
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EnvelopeLimits {
    /// Largest envelope text the bytes readers parse. Default 4 MiB.
    pub max_bytes: usize,
    /// Most entries in `capabilities`. Default 256.
    pub max_capabilities: usize,
    /// Longest `agent_id`, `target_agent`, `message_type` or capability, in
    /// bytes. Default 1,024.
    pub max_string_bytes: usize,
    /// Deepest nesting of arrays and objects inside one member of
    /// `payload` (a scalar is depth 0, `[1]` is depth 1), as
    /// [`Limits::max_depth`](crate::validate::Limits::max_depth). Default 32.
    pub max_depth: usize,
}

impl Default for EnvelopeLimits {
    fn default() -> Self {
        Self {
            max_bytes: 4 << 20,
            max_capabilities: 256,
            max_string_bytes: 1024,
            max_depth: 32,
        }
    }
}

impl EnvelopeLimits {
    /// Sets [`EnvelopeLimits::max_bytes`].
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets [`EnvelopeLimits::max_capabilities`].
    pub fn with_max_capabilities(mut self, max_capabilities: usize) -> Self {
        self.max_capabilities = max_capabilities;
        self
    }

    /// Sets [`EnvelopeLimits::max_string_bytes`].
    pub fn with_max_string_bytes(mut self, max_string_bytes: usize) -> Self {
        self.max_string_bytes = max_string_bytes;
        self
    }

    /// Sets [`EnvelopeLimits::max_depth`].
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }
}
