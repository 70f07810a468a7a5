//! An LLM intent inducer for sdsi's self-evolution (the draft's first way
//! to induce a key, §6.2.2): [`LlmInducer`] asks any OpenAI-compatible
//! chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp's server) to
//! name, type and describe the key a need asks for.
//!
//! - **The data is data.** The prompt gives the template's keys and the
//!   need's redacted, unflagged, multi-client exemplars as one JSON document
//!   in the user message, and the system message says every string in it
//!   is quoted text, never an instruction.
//! - **The reply is constrained, then checked.** The reply's shape is an
//!   sdsi template ([`prompt::induction_template`]); its strict export is
//!   sent as `response_format` (OpenAI's `{type: json_schema, json_schema:
//!   {strict, schema}}`, or `{type: json_object, schema}` for servers that
//!   speak that dialect, such as llama-cpp-python's: [`ResponseFormat`]),
//!   and sdsi validates the reply against the same template. A name that is
//!   not snake_case, is `other` or a settled key, a type other than
//!   boolean / integer / number / string, a description that reads as an
//!   instruction or carries a personal value: refused.
//! - **It never blocks evolution.** A timeout, a transport error or a bad
//!   status is retried with a doubling backoff; then, as for any reply
//!   refused, the [`RuleInducer`] answers instead ([`Induction::source`]
//!   says which did). The engine's §7 checks (sensitive keys held for an
//!   operator) apply to whatever it proposes.
//! - The description's examples are quoted by sdsi from the need's
//!   multi-client exemplars, never by the model.
//!
//! ```no_run
//! use sdsi::evolution::{Evolution, EvolutionConfig, HashingEmbedder};
//! use sdsi_llm::{LlmConfig, LlmInducer};
//!
//! let config = LlmConfig::new("http://127.0.0.1:8080/v1", "smollm2")
//!     .api_key(std::env::var("SDSI_LLM_API_KEY").ok());
//! let inducer = LlmInducer::new(config)?;
//! let engine = Evolution::new(HashingEmbedder::default(), inducer, EvolutionConfig::default());
//! # Ok::<(), sdsi_llm::LlmError>(())
//! ```

pub mod prompt;
mod reply;

use std::time::Duration;

use sdsi::evolution::{IntentInducer, NeedView, RuleInducer};
use sdsi::{CompiledSchema, KeyDefinition, SchemaTemplate};
use serde_json::Value;

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

/// Who induced a key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// The model.
    Llm,
    /// The rule inducer, because the model's answer was not used (why).
    Fallback(String),
}

/// A key and who induced it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Induction {
    /// The key, or `None` when neither the model nor the rules proposed one.
    pub key: Option<KeyDefinition>,
    /// Who did.
    pub source: Source,
}

/// The LLM inducer. Blocking: it is asked when a need's gate opens, which
/// is rare; the engine waits for the answer (at most the timeout times the
/// tries, plus the backoff).
pub struct LlmInducer {
    config: LlmConfig,
    agent: ureq::Agent,
    reply: CompiledSchema,
}

impl std::fmt::Debug for LlmInducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmInducer")
            .field("url", &self.config.url)
            .field("model", &self.config.model)
            .field("format", &self.config.format)
            .finish_non_exhaustive()
    }
}

impl LlmInducer {
    /// An inducer asking `config`'s endpoint.
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let template =
            prompt::induction_template().map_err(|e| LlmError::Template(e.to_string()))?;
        let reply =
            CompiledSchema::new(&template).map_err(|e| LlmError::Template(e.to_string()))?;
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Self {
            config,
            agent,
            reply,
        })
    }

    /// The request body sent for `need` (for logs and tests; it holds only
    /// redacted, unflagged, multi-client text).
    pub fn request(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Value {
        prompt::body(
            &self.config.model,
            prompt::messages(need, schema),
            &self.reply,
            self.config.format,
        )
    }

    /// Asks the model; on any failure, the rule inducer answers.
    pub fn induce_traced(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Induction {
        match self.ask(need, schema) {
            Ok(key) => Induction {
                key: Some(key),
                source: Source::Llm,
            },
            Err(error) => Induction {
                key: RuleInducer.induce(need, schema),
                source: Source::Fallback(error.to_string()),
            },
        }
    }

    /// The model's key for `need`, checked.
    pub fn ask(
        &self,
        need: &NeedView<'_>,
        schema: &SchemaTemplate,
    ) -> Result<KeyDefinition, LlmError> {
        if need.quotable().next().is_none() {
            return Err(LlmError::Rejected(
                "no request several clients sent: nothing to show the model".to_owned(),
            ));
        }
        let reply = self.post(&self.request(need, schema))?;
        reply::key(reply::content(&reply)?, &self.reply, need, schema)
    }

    /// POSTs `body`, retrying timeouts, transport errors, 429 and 5xx with
    /// a doubling backoff.
    fn post(&self, body: &Value) -> Result<Value, LlmError> {
        let url = format!("{}/chat/completions", self.config.url.trim_end_matches('/'));
        let mut wait = self.config.backoff;
        let mut last = String::new();
        for attempt in 0..=self.config.retries {
            if attempt > 0 {
                std::thread::sleep(wait);
                wait = wait.saturating_mul(2);
            }
            let mut request = self.agent.post(&url);
            if let Some(key) = &self.config.api_key {
                request = request.header("Authorization", &format!("Bearer {key}"));
            }
            match request.send_json(body) {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    if status == 429 || status >= 500 {
                        last = format!("status {status}");
                        continue;
                    }
                    if status >= 400 {
                        return Err(LlmError::Transport(format!("status {status}")));
                    }
                    return response
                        .body_mut()
                        .read_json::<Value>()
                        .map_err(|e| LlmError::Reply(format!("not JSON: {e}")));
                }
                Err(error) => last = error.to_string(),
            }
        }
        Err(LlmError::Transport(last))
    }
}

impl IntentInducer for LlmInducer {
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition> {
        self.induce_traced(need, schema).key
    }
}
