//! Why the model's answer was not used.

/// Why the model's answer was not used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The endpoint could not be reached, timed out, or answered with an
    /// error status (after the retries).
    #[error("the endpoint failed: {0}")]
    Transport(String),
    /// The reply is not a chat completion whose content is a JSON object
    /// fitting the induction template.
    #[error("the reply is unusable: {0}")]
    Reply(String),
    /// The reply fits, but its key breaks a rule.
    #[error("the proposed key is refused: {0}")]
    Rejected(String),
    /// The inducer's own template did not compile (a bug, reported rather
    /// than panicking).
    #[error("the induction template: {0}")]
    Template(String),
}
