//! `SchemaStore`: a server's evolving schema for one scenario — accepted
//! patches, the convergence guard's queue, the key lifecycle, and what each
//! client has been told.

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::issue::Issue;
use crate::key::{KeyDefinition, KeyName};
use crate::negotiate::SchemaUpdateSuggestion;
use crate::patch::PatchAuthorizer;
use crate::patch::{CompileError, EffectiveSchema};
use crate::patch::{Lifecycle, LifecyclePolicy, Transition};
use crate::patch::{PatchError, PatchScope, SchemaPatch};
use crate::template::SchemaTemplate;
use crate::template::TemplateError;
use crate::validate::{CompiledSchema, ValidateOptions};

/// What became of a submitted patch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Submission {
    /// The patch applies from its timestamp on; its new keys are experimental.
    Applied,
    /// The convergence guard is full for the patch's scope: the patch waits,
    /// first in, first out, until promotions or deprecations make room.
    Queued {
        /// Patches ahead of it in its scope's queue.
        ahead: usize,
    },
}

/// What [`SchemaStore::evaluate`] did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Evaluation {
    /// Lifecycle moves, in order.
    pub transitions: Vec<Transition>,
    /// Queued patches that now apply.
    pub released: Vec<String>,
    /// Queued patches that no longer merge (another patch took their key
    /// meanwhile), dropped with the reasons.
    pub dropped: Vec<PatchError>,
}

/// A server's evolving schema for one scenario.
///
/// Pure and clock-free like the rest of the crate: every call that depends on
/// time takes `now`.
#[derive(Debug, Clone)]
pub struct SchemaStore {
    base: SchemaTemplate,
    patches: Vec<SchemaPatch>,
    queue: VecDeque<SchemaPatch>,
    lifecycle: Lifecycle,
    options: ValidateOptions,
    /// Client → the key definitions it was last told about.
    delivered: HashMap<String, HashMap<KeyName, KeyDefinition>>,
}

/// Patches in the store were authorized when submitted.
fn already_authorized(_: &SchemaPatch, _: &[KeyName]) -> bool {
    true
}

impl SchemaStore {
    /// A store over `base`, which must be a valid template.
    pub fn new(base: SchemaTemplate, policy: LifecyclePolicy) -> Result<Self, TemplateError> {
        let check = base.check();
        if !check.is_valid() {
            return Err(check.into());
        }
        Ok(Self {
            base,
            patches: Vec::new(),
            queue: VecDeque::new(),
            lifecycle: Lifecycle::new(policy),
            options: ValidateOptions::default(),
            delivered: HashMap::new(),
        })
    }

    /// Sets the validation options of the schemas the store compiles.
    pub fn with_options(mut self, options: ValidateOptions) -> Self {
        self.options = options;
        self
    }

    /// The base template.
    pub fn base(&self) -> &SchemaTemplate {
        &self.base
    }

    /// Accepted patches, in submission order.
    pub fn patches(&self) -> &[SchemaPatch] {
        &self.patches
    }

    /// Patches waiting for the convergence guard, oldest first.
    pub fn queued(&self) -> impl Iterator<Item = &SchemaPatch> {
        self.queue.iter()
    }

    /// The key lifecycle.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.lifecycle
    }

    /// Checks `patch` against the merge rules and the authorizer, then applies
    /// it or queues it behind the convergence guard.
    pub fn submit(
        &mut self,
        patch: SchemaPatch,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<Submission, CompileError> {
        self.check(&patch, now, authorizer)?;
        let ahead = self.queue.iter().filter(|q| q.scope == patch.scope).count();
        if ahead == 0 && self.has_room(&patch) {
            self.accept(patch);
            Ok(Submission::Applied)
        } else {
            self.queue.push_back(patch);
            Ok(Submission::Queued { ahead })
        }
    }

    fn check(
        &self,
        patch: &SchemaPatch,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<(), CompileError> {
        let limit = self.lifecycle.policy().max_experimental;
        if patch.new_keys.len() > limit {
            let issue = Issue::limit(
                "/new_keys",
                "new keys in one patch (the convergence guard)",
                limit as u64,
            );
            return Err(PatchError::new(Some(patch.patch_id.clone()), vec![issue]).into());
        }
        let mut merge = EffectiveSchema::new(&self.base)
            .patches(self.patches.iter().chain([patch]))
            .states(&self.lifecycle)
            .authorizer(authorizer);
        if let PatchScope::Client(client) = &patch.scope {
            merge = merge.client(client);
        }
        // Judged as of when the patch starts to apply, so a future-dated patch is checked too.
        merge.template(now.max(patch.timestamp)).map(|_| ())
    }

    /// Whether the guard lets the patch's new keys in now.
    fn has_room(&self, patch: &SchemaPatch) -> bool {
        let experimental = self.lifecycle.experimental_count(&patch.scope);
        experimental + patch.new_keys.len() <= self.lifecycle.policy().max_experimental
    }

    fn accept(&mut self, patch: SchemaPatch) {
        self.lifecycle.track(&patch);
        self.patches.push(patch);
    }

    /// Moves keys through their lifecycle at `now`, then releases queued
    /// patches, oldest first per scope, as far as the guard allows.
    pub fn evaluate(&mut self, now: OffsetDateTime) -> Evaluation {
        let mut evaluation = Evaluation {
            transitions: self.lifecycle.evaluate(now),
            ..Evaluation::default()
        };
        let mut waiting = std::mem::take(&mut self.queue);
        let mut blocked: Vec<PatchScope> = Vec::new();
        while let Some(patch) = waiting.pop_front() {
            if blocked.contains(&patch.scope) {
                self.queue.push_back(patch);
                continue;
            }
            if !self.has_room(&patch) {
                blocked.push(patch.scope.clone());
                self.queue.push_back(patch);
                continue;
            }
            match self.check(&patch, now, &already_authorized) {
                Ok(()) => {
                    evaluation.released.push(patch.patch_id.clone());
                    self.accept(patch);
                }
                Err(CompileError::Patch(error)) => evaluation.dropped.push(error),
                Err(other) => {
                    let errors = other.errors().to_vec();
                    evaluation
                        .dropped
                        .push(PatchError::new(Some(patch.patch_id.clone()), errors));
                }
            }
        }
        evaluation
    }

    fn effective<'a>(&'a self, client: Option<&'a str>) -> EffectiveSchema<'a> {
        let merge = EffectiveSchema::new(&self.base)
            .patches(&self.patches)
            .states(&self.lifecycle)
            .authorizer(&already_authorized)
            .options(self.options);
        match client {
            Some(client) => merge.client(client),
            None => merge,
        }
    }

    /// The schema `client` sees at `now` (global patches plus its own), compiled.
    pub fn compile_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<CompiledSchema, CompileError> {
        self.effective(client).compile(now)
    }

    /// The template `client` sees at `now`, with lifecycle flags.
    pub fn template_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<SchemaTemplate, CompileError> {
        self.effective(client).template(now)
    }

    /// Feeds the lifecycle's metrics from one received message
    /// `{"schema_id", "payload"}` (valid or not): O(keys in the payload).
    pub fn record(&mut self, message: &Value, client: &str, now: OffsetDateTime) {
        if let Some(payload) = message.get("payload").and_then(Value::as_object) {
            self.record_payload(payload, client, now);
        }
    }

    /// [`SchemaStore::record`] for an already extracted payload.
    pub fn record_payload(
        &mut self,
        payload: &Map<String, Value>,
        client: &str,
        now: OffsetDateTime,
    ) {
        self.lifecycle.record_payload(payload, client, now);
    }

    /// Records a semantic-alignment judgment for key `name` (from an LLM judge
    /// or audit sampler outside the crate). False when the key is not tracked.
    pub fn record_alignment(
        &mut self,
        scope: &PatchScope,
        name: &str,
        aligned: bool,
        now: OffsetDateTime,
    ) -> bool {
        self.lifecycle.record_alignment(scope, name, aligned, now)
    }

    /// The `schema_update_suggestion` to attach to `client`'s next execution
    /// result: keys it has not been told about (`new_keys`) and keys whose
    /// description or flags changed since (`modified_keys`). `None` when there
    /// is nothing new. Remembers what it returned, and counts the delivery
    /// for the adoption rate.
    pub fn suggestion_for(
        &mut self,
        client: &str,
        now: OffsetDateTime,
    ) -> Result<Option<SchemaUpdateSuggestion>, CompileError> {
        let template = self.template_for(Some(client), now)?;
        let seen = self.delivered.entry(client.to_owned()).or_default();
        let mut new_keys = Vec::new();
        let mut modified_keys = Vec::new();
        for key in &template.keys {
            let known = seen
                .get(&key.key_name)
                .or_else(|| self.base.key(key.key_name.as_str()));
            match known {
                None => new_keys.push(key.clone()),
                Some(previous) if previous != key => modified_keys.push(key.clone()),
                Some(_) => {}
            }
        }
        if new_keys.is_empty() && modified_keys.is_empty() {
            return Ok(None);
        }
        for key in new_keys.iter().chain(&modified_keys) {
            seen.insert(key.key_name.clone(), key.clone());
        }
        for key in &new_keys {
            let scope = self.scope_of(client, &key.key_name);
            self.lifecycle
                .record_delivery(&scope, key.key_name.as_str(), client);
        }
        Ok(Some(SchemaUpdateSuggestion {
            new_keys: (!new_keys.is_empty()).then_some(new_keys),
            modified_keys: (!modified_keys.is_empty()).then_some(modified_keys),
            ..SchemaUpdateSuggestion::default()
        }))
    }

    fn scope_of(&self, client: &str, name: &KeyName) -> PatchScope {
        let personal = PatchScope::Client(client.to_owned());
        let is_personal = self
            .lifecycle
            .records()
            .iter()
            .any(|r| r.scope == personal && r.key_name == *name);
        if is_personal {
            personal
        } else {
            PatchScope::Global
        }
    }

    /// The digest of the schema `client` sees at `now`: a version a polling
    /// endpoint can serve (an ETag); it changes exactly when the schema does.
    pub fn digest_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<String, CompileError> {
        Ok(self.template_for(client, now)?.digest())
    }
}
