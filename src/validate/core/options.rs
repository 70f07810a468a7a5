//! Options fixed when a schema is compiled: the unknown-key policy and resource limits.

/// What to do with payload keys the schema does not define.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UnknownKeys {
    /// Report `unknown_key` as an error (the default).
    #[default]
    Reject,
    /// Accept the key, keep it in the normalized payload, and warn `unknown_key`.
    Warn,
}

/// Bounds on what one message may make the validator do; crossing one gives
/// `limit_exceeded`, never a panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
#[must_use]
pub struct Limits {
    /// Deepest nesting of arrays and objects inside one key's value
    /// (a scalar is depth 0, `[1]` is depth 1). Default 32.
    pub max_depth: usize,
    /// Most members a payload object may have. Default 1,024.
    pub max_keys: usize,
    /// Largest input the bytes path reads (`validate_slice`, `validate_str`,
    /// `is_valid_slice`). Default 4 MiB. It bounds text only: a `Value` was
    /// parsed by the caller, who has already paid for its size, so the
    /// `Value` path has no byte limit (the same message is valid there and
    /// `limit_exceeded` as text over the limit; every other answer is the
    /// same on both paths, which a property test checks under varied limits).
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_depth: 32,
            max_keys: 1024,
            max_bytes: 4 << 20,
        }
    }
}

impl Limits {
    /// Sets [`Limits::max_depth`].
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`Limits::max_keys`].
    pub fn with_max_keys(mut self, max_keys: usize) -> Self {
        self.max_keys = max_keys;
        self
    }

    /// Sets [`Limits::max_bytes`].
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

/// What to do with a whole number beyond 64 bits (`1e20`,
/// `18446744073709551616`) in an `integer` key: JSON Schema calls it an
/// integer, but no `i64` or `u64` holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BigIntegers {
    /// Accept it, as JSON Schema does; the normalized payload keeps it as a
    /// float (`as_i64()` is `None`).
    #[default]
    Accept,
    /// Refuse it with `integer_out_of_range`, for servers that read integer
    /// keys into `i64` / `u64`.
    Reject,
}

/// Options fixed when a schema is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
#[must_use]
pub struct ValidateOptions {
    /// Policy for keys the schema does not define.
    pub unknown_keys: UnknownKeys,
    /// Resource bounds.
    pub limits: Limits,
    /// Whole numbers beyond 64 bits in `integer` keys.
    #[serde(default)]
    pub big_integers: BigIntegers,
}

impl ValidateOptions {
    /// Sets the unknown-key policy.
    pub fn unknown_keys(mut self, policy: UnknownKeys) -> Self {
        self.unknown_keys = policy;
        self
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the policy for whole numbers beyond 64 bits in `integer` keys.
    pub fn big_integers(mut self, policy: BigIntegers) -> Self {
        self.big_integers = policy;
        self
    }
}
