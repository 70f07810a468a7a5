//! The inducer: asks the endpoint, checks the reply, and falls back to the
//! rule inducer when the answer is not used.

use sdsi::evolution::{IntentInducer, NeedView, RuleInducer};
use sdsi::{CompiledSchema, KeyDefinition, SchemaTemplate};
use serde_json::Value;

use crate::config::LlmConfig;
use crate::error::LlmError;
use crate::{prompt, reply};

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
