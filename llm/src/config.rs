//! Where and how to ask: the endpoint, the model, and how the reply's
//! schema is sent.

use std::time::Duration;

/// How the reply's JSON schema is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ResponseFormat {
    /// OpenAI's structured outputs: `{"type": "json_schema", "json_schema":
    /// {"name", "strict": true, "schema"}}` (OpenAI, vLLM, Ollama).
    #[default]
    JsonSchema,
    /// `{"type": "json_object", "schema"}`, as llama-cpp-python's server
    /// reads it.
    JsonObject,
}

/// Where and how to ask.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LlmConfig {
    /// The API base, up to and including `/v1` (`/chat/completions` is
    /// appended).
    pub url: String,
    /// The model name the endpoint serves.
    pub model: String,
    /// A bearer token, if the endpoint needs one.
    pub api_key: Option<String>,
    /// How the reply's schema is sent.
    pub format: ResponseFormat,
    /// The whole request's time limit.
    pub timeout: Duration,
    /// Tries after the first, on a timeout, a transport error or a 429 /
    /// 5xx status.
    pub retries: u32,
    /// The wait before the first retry; it doubles each time.
    pub backoff: Duration,
}

impl LlmConfig {
    /// `model` at `url`, OpenAI's response format, a 30 s timeout, two
    /// retries after 500 ms and 1 s.
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            model: model.into(),
            api_key: None,
            format: ResponseFormat::default(),
            timeout: Duration::from_secs(30),
            retries: 2,
            backoff: Duration::from_millis(500),
        }
    }

    /// Sets the bearer token (`None`: none is sent).
    pub fn api_key(mut self, key: Option<String>) -> Self {
        self.api_key = key.filter(|k| !k.is_empty());
        self
    }

    /// Sets the response format.
    pub fn format(mut self, format: ResponseFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets the time limit of one request.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the retries and the first backoff.
    pub fn retries(mut self, retries: u32, backoff: Duration) -> Self {
        self.retries = retries;
        self.backoff = backoff;
        self
    }
}
