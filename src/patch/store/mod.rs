//! `SchemaStore`: a server's evolving schema for one scenario — accepted
//! patches, the convergence guard's queue, the key lifecycle, and what each
//! client has been told.

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::digest::canonical_digest;
use crate::issue::{Issue, IssueCode};
use crate::key::KeyName;
use crate::patch::compile_error::CompileError;
use crate::patch::effective::EffectiveSchema;
use crate::patch::integrity::Signer;
use crate::patch::lifecycle::clock::ClockJump;
use crate::patch::lifecycle::evaluation::Transition;
use crate::patch::lifecycle::policy::{GuardScope, LifecyclePolicy};
use crate::patch::lifecycle::records::Lifecycle;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::review::Review;
use crate::patch::schema_patch::{PatchError, PatchScope, SchemaPatch};
use crate::patch::security::PatchAuthorizer;
use crate::template::SchemaTemplate;
use crate::template::TemplateError;
use crate::validate::{CompiledSchema, ValidateOptions};

mod retention;
mod review;
mod row_writes;
mod rows;
use retention::definition_tag;
mod snapshot;
mod suggestion;

pub use review::APPROVED_BY_MEMBER;
pub use row_writes::{AdoptionName, DeliveredName, KnownRows, StoreWrites};
pub use rows::{DeliveredRow, KeyRow, PatchRow, PatchStatus, PendingRow, RowError, StoreRows};
#[cfg(feature = "evolution")]
pub(crate) use snapshot::check_header;
pub use snapshot::{STORE_FORMAT_VERSION, SealError};

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
    /// Queued patches dropped, with the reasons: expired while waiting,
    /// refused by the authorizer, or no longer merging (another patch took
    /// their key meanwhile).
    pub dropped: Vec<PatchError>,
    /// Set when `now` lay too far past the last evaluation: nothing moved.
    pub clock_refused: Option<ClockJump>,
}

/// A server's evolving schema for one scenario.
///
/// Pure and clock-free like the rest of the crate: every call that depends on
/// time takes `now`. Readers ([`SchemaStore::compile_for`],
/// [`SchemaStore::template_for`], [`SchemaStore::digest_for`],
/// [`SchemaStore::suggestion_for`]) give the same answer at `now` whether or
/// not [`SchemaStore::evaluate`] ran at `now`; `evaluate` records the moves
/// and releases queued patches.
///
/// The store never holds a patch that would break a client: `submit` checks
/// a patch against every client's view (a global patch against each client's
/// personal stack too), and the views are merged leniently, so a patch that
/// expires (taking its key with it) cannot break a later one.
#[derive(Debug, Clone)]
pub struct SchemaStore {
    base: SchemaTemplate,
    /// Accepted global patches, in acceptance order.
    global: Vec<SchemaPatch>,
    /// Accepted personal patches per client, in acceptance order.
    personal: HashMap<String, Vec<SchemaPatch>>,
    queue: VecDeque<Waiting>,
    /// Every patch id the store has taken (accepted, queued or dropped),
    /// with the patch's content digest, so a replay is recognised and an id
    /// is never reused, while expired patches themselves are pruned.
    seen: HashMap<String, Taken>,
    /// Key name → clients whose personal patches name it: the client views
    /// a global patch naming that key must suit.
    personal_names: HashMap<KeyName, BTreeSet<String>>,
    lifecycle: Lifecycle,
    options: ValidateOptions,
    /// Client → a tag of each key definition it was last told about (a
    /// SHA-256 prefix, not the definition: this map grows with clients).
    /// A key's entries go when the key is gone.
    delivered: HashMap<String, HashMap<KeyName, u64>>,
    /// When set, `submit` takes only patches signed with this key.
    signer: Option<Signer>,
    /// Proposals held for an operator, and the denials remembered.
    review: Review,
    /// Bumped whenever the accepted patches change.
    generation: u64,
    /// Compiled schemas per client, valid while what the merge reads is unchanged.
    compiled: CompiledCache,
}

/// What a client's merge reads: the store's patch generation, which of its
/// patches have started and are active, and its lifecycle records' states.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MergeInputs {
    generation: u64,
    patches: Vec<(bool, bool)>,
    records: Vec<(usize, KeyState)>,
}

/// Compiled schemas by client, each with the merge inputs it was built from.
/// Cloning a store starts it with an empty cache.
#[derive(Debug, Default)]
struct CompiledCache(std::sync::Mutex<HashMap<Option<String>, (MergeInputs, CompiledSchema)>>);

/// Clients whose compiled schema is kept at once; past it the cache starts over.
const CACHED_CLIENTS: usize = 4096;

impl Clone for CompiledCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl CompiledCache {
    fn get(&self, client: Option<&str>, inputs: &MergeInputs) -> Option<CompiledSchema> {
        let map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (cached, schema) = map.get(&client.map(str::to_owned))?;
        (cached == inputs).then(|| schema.clone())
    }

    fn put(&self, client: Option<&str>, inputs: MergeInputs, schema: CompiledSchema) {
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= CACHED_CLIENTS {
            map.clear();
        }
        map.insert(client.map(str::to_owned), (inputs, schema));
    }
}

/// What became of a patch id the store took.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Taken {
    digest: String,
    dropped: bool,
}

/// A patch behind the convergence guard, who submitted it, and whether an
/// operator approved it (then no authorizer is asked again on release).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Waiting {
    patch: SchemaPatch,
    submitter: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    approved: bool,
}

/// Patches in the store were authorized when submitted (and again on release).
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
            global: Vec::new(),
            personal: HashMap::new(),
            queue: VecDeque::new(),
            seen: HashMap::new(),
            personal_names: HashMap::new(),
            lifecycle: Lifecycle::new(policy),
            options: ValidateOptions::default(),
            delivered: HashMap::new(),
            signer: None,
            review: Review::default(),
            generation: 0,
            compiled: CompiledCache::default(),
        })
    }

    /// Takes only patches that carry a valid `signature` made with
    /// `signer`'s key (see [`Signer::seal`]); others are refused with
    /// `invalid_signature`. For a store fed by more than one process, so that
    /// a patch altered on the way is never applied.
    ///
    /// Its snapshot is then sealed with the same key, and restores only
    /// through [`SchemaStore::from_sealed_slice`] with it (requiring
    /// signatures again): whoever can write the stored bytes cannot add a
    /// patch or a key, or drop the requirement. Calling this on a store
    /// restored from an unsealed snapshot (one saved before it required
    /// signatures) trusts that snapshot as it is.
    pub fn require_signatures(mut self, signer: Signer) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Sets the validation options of the schemas the store compiles.
    pub fn with_options(mut self, options: ValidateOptions) -> Self {
        self.options = options;
        self.generation += 1;
        self
    }

    /// The base template.
    pub fn base(&self) -> &SchemaTemplate {
        &self.base
    }

    /// Accepted patches not yet expired (as of the last evaluation): the
    /// global ones, then each client's, each in acceptance order.
    pub fn patches(&self) -> impl Iterator<Item = &SchemaPatch> {
        self.global.iter().chain(self.personal.values().flatten())
    }

    /// The accepted patches `client` sees: the global ones and its own.
    fn patches_for<'a>(
        &'a self,
        client: Option<&str>,
    ) -> impl Iterator<Item = &'a SchemaPatch> + 'a {
        let own = client.and_then(|c| self.personal.get(c));
        self.global.iter().chain(own.into_iter().flatten())
    }

    /// Patches waiting for the convergence guard, oldest first.
    pub fn queued(&self) -> impl Iterator<Item = &SchemaPatch> {
        self.queue.iter().map(|w| &w.patch)
    }

    /// The key lifecycle.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.lifecycle
    }

    /// Checks `patch` (its window, its id, its own rules, the authorizer,
    /// and every client view it reaches), then applies it or queues it behind
    /// the convergence guard.
    ///
    /// Submitting a patch the store already took, unchanged, is a replay: it
    /// changes nothing and answers as the first time did (`Applied`, or
    /// `Queued` while it waits). Another patch with a taken id is refused
    /// (`duplicate_patch_id`), whatever its scope and however long ago.
    pub fn submit(
        &mut self,
        patch: SchemaPatch,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<Submission, CompileError> {
        self.submit_by(patch, None, now, authorizer)
    }

    /// [`SchemaStore::submit`] on behalf of `submitter` (an operator, a
    /// service, `"sdsi:evolution"`), whom the authorizer is told about
    /// through [`PatchAuthorizer::authorize_by`], now and on release from
    /// the guard's queue.
    pub fn submit_by(
        &mut self,
        patch: SchemaPatch,
        submitter: Option<&str>,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<Submission, CompileError> {
        self.take(patch, submitter, now, authorizer, false)
    }

    /// `submit_by`, for a patch an operator `approved` (see
    /// [`SchemaStore::approve`]): it is then authorized on release from the
    /// guard's queue too, whatever authorizer `evaluate` is given.
    fn take(
        &mut self,
        patch: SchemaPatch,
        submitter: Option<&str>,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
        approved: bool,
    ) -> Result<Submission, CompileError> {
        if let Some(signer) = &self.signer {
            if let Err(error) = signer.check(&patch) {
                return Err(refusal(
                    &patch,
                    IssueCode::InvalidSignature,
                    "/signature",
                    error.to_string(),
                ));
            }
        }
        let digest = match canonical_digest(&patch) {
            Ok(digest) => digest,
            Err(error) => {
                return Err(refusal(
                    &patch,
                    IssueCode::NotCanonical,
                    "",
                    error.to_string(),
                ));
            }
        };
        if let Some(taken) = self.seen.get(&patch.patch_id) {
            if taken.digest != digest {
                return Err(refusal(
                    &patch,
                    IssueCode::DuplicatePatchId,
                    "/patch_id",
                    "the store already took another patch with this id".to_owned(),
                ));
            }
            if taken.dropped {
                return Err(refusal(
                    &patch,
                    IssueCode::DuplicatePatchId,
                    "/patch_id",
                    "the store dropped this patch earlier; submit it under a new id".to_owned(),
                ));
            }
            let position = self
                .queue
                .iter()
                .position(|w| w.patch.patch_id == patch.patch_id);
            return Ok(match position {
                Some(position) => Submission::Queued {
                    ahead: self
                        .queue
                        .iter()
                        .take(position)
                        .filter(|w| self.guard_shared(&w.patch, &patch))
                        .count(),
                },
                None => Submission::Applied,
            });
        }
        self.check_window(&patch, now)?;
        let limit = self.lifecycle.policy().max_experimental;
        if patch.new_keys.len() > limit {
            let issue = Issue::limit(
                "/new_keys",
                "new keys in one patch (the convergence guard)",
                limit as u64,
            );
            return Err(PatchError::new(Some(patch.patch_id.clone()), vec![issue]).into());
        }
        self.check(&patch, submitter, now, authorizer)?;
        let taken = Taken {
            digest,
            dropped: false,
        };
        self.seen.insert(patch.patch_id.clone(), taken);
        let ahead = self
            .queue
            .iter()
            .filter(|w| self.guard_shared(&w.patch, &patch))
            .count();
        if ahead == 0 && self.has_room(&patch, now) {
            self.accept(patch, now);
            Ok(Submission::Applied)
        } else {
            self.queue.push_back(Waiting {
                patch,
                submitter: submitter.map(str::to_owned),
                approved,
            });
            Ok(Submission::Queued { ahead })
        }
    }

    /// A patch must start no later than `now` plus the allowed clock skew,
    /// and end after both its start and `now`.
    fn check_window(&self, patch: &SchemaPatch, now: OffsetDateTime) -> Result<(), CompileError> {
        let skew = self.lifecycle.policy().clock_skew;
        let latest_start = now.checked_add(skew).unwrap_or(now);
        let problem = if patch.expires_at <= patch.timestamp {
            Some((
                "/expires_at",
                "the patch expires at or before its own timestamp".to_owned(),
            ))
        } else if patch.expires_at <= now {
            Some(("/expires_at", "the patch has already expired".to_owned()))
        } else if patch.timestamp > latest_start {
            Some((
                "/timestamp",
                format!("the patch starts more than {skew} after now; submit it when it starts"),
            ))
        } else {
            None
        };
        match problem {
            Some((path, message)) => {
                Err(refusal(patch, IssueCode::InvalidPatchWindow, path, message))
            }
            None => Ok(()),
        }
    }

    /// The patch's own rules and the authorizer, then its entries against
    /// every client view it reaches, as of when it starts to apply.
    fn check(
        &self,
        patch: &SchemaPatch,
        submitter: Option<&str>,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Result<(), CompileError> {
        let views: Vec<Option<&str>> = match &patch.scope {
            PatchScope::Client(client) => vec![Some(client.as_str())],
            // The global view, and the views of clients whose own patches
            // name a key this patch names: no other view can conflict.
            PatchScope::Global => {
                let clients: BTreeSet<&str> = patch
                    .new_keys
                    .iter()
                    .chain(&patch.modified_keys)
                    .filter_map(|k| self.personal_names.get(&k.key_name))
                    .flatten()
                    .map(String::as_str)
                    .collect();
                std::iter::once(None)
                    .chain(clients.into_iter().map(Some))
                    .collect()
            }
        };
        for client in views {
            // The view's own patches were authorized; only the candidate is asked.
            self.effective(client)
                .check_candidate(patch, now, authorizer, submitter)?;
        }
        Ok(())
    }

    /// Whether two patches wait in one line of the guard's queue.
    fn guard_shared(&self, a: &SchemaPatch, b: &SchemaPatch) -> bool {
        self.lifecycle.policy().guard == GuardScope::Scenario || a.scope == b.scope
    }

    /// Whether the guard lets the patch's new keys in now. Entries that
    /// refine a key already in force are not new keys.
    fn has_room(&self, patch: &SchemaPatch, now: OffsetDateTime) -> bool {
        let fresh = patch
            .new_keys
            .iter()
            .filter(|k| {
                self.base.key(k.key_name.as_str()).is_none()
                    && self
                        .lifecycle
                        .state_at(&patch.scope, k.key_name.as_str(), now)
                        .is_none_or(|s| s >= KeyState::Withdrawn)
                    && self
                        .lifecycle
                        .state_at(&PatchScope::Global, k.key_name.as_str(), now)
                        .is_none_or(|s| s >= KeyState::Withdrawn)
            })
            .count();
        let experimental = self.lifecycle.experimental_count(&patch.scope, now);
        experimental + fresh <= self.lifecycle.policy().max_experimental
    }

    fn accept(&mut self, patch: SchemaPatch, now: OffsetDateTime) {
        self.generation += 1;
        self.lifecycle.track(&patch, now);
        if let PatchScope::Client(client) = &patch.scope {
            for key in patch.new_keys.iter().chain(&patch.modified_keys) {
                self.personal_names
                    .entry(key.key_name.clone())
                    .or_default()
                    .insert(client.clone());
            }
        }
        match &patch.scope {
            PatchScope::Global => self.global.push(patch),
            PatchScope::Client(client) => {
                self.personal.entry(client.clone()).or_default().push(patch)
            }
        }
    }

    fn drop_patch(&mut self, evaluation: &mut Evaluation, error: PatchError) {
        if let Some(taken) = error.patch_id().and_then(|id| self.seen.get_mut(id)) {
            taken.dropped = true;
        }
        evaluation.dropped.push(error);
    }

    /// Moves keys through their lifecycle at `now`, then releases queued
    /// patches, oldest first, as far as the guard allows; each is checked
    /// again (with `authorizer`) and its keys start their trial now. Patches
    /// that expired while waiting are dropped. A `now` earlier than a
    /// previous evaluation's changes nothing.
    ///
    /// A `now` more than the policy's
    /// [`LifecyclePolicy::max_clock_jump`] past the last evaluation is
    /// refused ([`Evaluation::clock_refused`]) and changes nothing; see
    /// [`SchemaStore::evaluate_after_pause`] for a server that really was
    /// away that long.
    pub fn evaluate(
        &mut self,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Evaluation {
        if let Some(jump) = self.lifecycle.clock_jump(now) {
            return Evaluation {
                clock_refused: Some(jump),
                ..Evaluation::default()
            };
        }
        self.evaluate_after_pause(now, authorizer)
    }

    /// [`SchemaStore::evaluate`] without the bound on how far `now` may lie
    /// past the last evaluation: for a server restarted after a pause
    /// longer than [`LifecyclePolicy::max_clock_jump`], once, with a clock
    /// it trusts.
    pub fn evaluate_after_pause(
        &mut self,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
    ) -> Evaluation {
        let mut evaluation = Evaluation {
            transitions: self.lifecycle.evaluate(now),
            ..Evaluation::default()
        };
        if self.lifecycle.evaluated_at() != Some(now) {
            return evaluation; // a clock that went back
        }
        // Expired patches leave the merge; their keys live on in the
        // lifecycle's records, and their ids in `seen`.
        self.generation += 1;
        self.global.retain(|p| p.expires_at > now);
        let personal_before: usize = self.personal.values().map(Vec::len).sum();
        for patches in self.personal.values_mut() {
            patches.retain(|p| p.expires_at > now);
        }
        self.personal.retain(|_, patches| !patches.is_empty());
        if self.personal.values().map(Vec::len).sum::<usize>() != personal_before {
            self.index_personal_names();
        }
        let personal_gone = evaluation
            .transitions
            .iter()
            .any(|t| t.to == KeyState::Gone && !t.scope.is_global());
        if personal_gone {
            self.index_personal_names();
        }
        self.forget_gone(&evaluation.transitions);
        let mut waiting = std::mem::take(&mut self.queue);
        let mut blocked: Vec<PatchScope> = Vec::new();
        let scenario = self.lifecycle.policy().guard == GuardScope::Scenario;
        while let Some(Waiting {
            patch,
            submitter,
            approved,
        }) = waiting.pop_front()
        {
            if patch.expires_at <= now {
                let error = PatchError::new(
                    Some(patch.patch_id.clone()),
                    vec![Issue::new(
                        IssueCode::InvalidPatchWindow,
                        "/expires_at",
                        "the patch expired while it waited for the convergence guard",
                    )],
                );
                self.drop_patch(&mut evaluation, error);
                continue;
            }
            let line_blocked = if scenario {
                !blocked.is_empty()
            } else {
                blocked.contains(&patch.scope)
            };
            if line_blocked || !self.has_room(&patch, now) {
                blocked.push(patch.scope.clone());
                self.queue.push_back(Waiting {
                    patch,
                    submitter,
                    approved,
                });
                continue;
            }
            let authorizer: &dyn PatchAuthorizer = if approved {
                &already_authorized
            } else {
                authorizer
            };
            match self.check(&patch, submitter.as_deref(), now, authorizer) {
                Ok(()) => {
                    evaluation.released.push(patch.patch_id.clone());
                    self.accept(patch, now);
                }
                Err(CompileError::Patch(error)) => self.drop_patch(&mut evaluation, error),
                Err(other) => {
                    let error =
                        PatchError::new(Some(patch.patch_id.clone()), other.errors().to_vec());
                    self.drop_patch(&mut evaluation, error);
                }
            }
        }
        evaluation
    }

    fn effective<'a>(&'a self, client: Option<&'a str>) -> EffectiveSchema<'a> {
        let merge = EffectiveSchema::new(&self.base)
            .patches(self.patches_for(client))
            .states(&self.lifecycle)
            .authorizer(&already_authorized)
            .options(self.options)
            .lenient();
        match client {
            Some(client) => merge.client(client),
            None => merge,
        }
    }

    /// The schema `client` sees at `now` (global patches plus its own),
    /// compiled. Cached per client while what the merge reads (the accepted
    /// patches, which of them are active at `now`, the visible keys' states)
    /// is unchanged, so a server may call it per request.
    pub fn compile_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<CompiledSchema, CompileError> {
        let inputs = MergeInputs {
            generation: self.generation,
            patches: self
                .patches_for(client)
                .map(|p| (p.timestamp <= now, p.is_active_at(now)))
                .collect(),
            records: self.lifecycle.visible_at(client, now),
        };
        if let Some(schema) = self.compiled.get(client, &inputs) {
            return Ok(schema);
        }
        let schema = self.effective(client).compile(now)?;
        self.compiled.put(client, inputs, schema.clone());
        Ok(schema)
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
    /// Ignored when `now` lies more than
    /// [`LifecyclePolicy::max_clock_jump`] past the last evaluation.
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
        // A clock far ahead would rotate every metric window away.
        if self.lifecycle.clock_jump(now).is_none() {
            self.lifecycle.record_payload(payload, client, now);
        }
    }

    /// Records a semantic-alignment judgment for key `name` (from an LLM judge
    /// or audit sampler outside the crate). False when the key is not
    /// tracked, or `now` lies too far past the last evaluation (as for
    /// [`SchemaStore::record`]).
    pub fn record_alignment(
        &mut self,
        scope: &PatchScope,
        name: &str,
        aligned: bool,
        now: OffsetDateTime,
    ) -> bool {
        self.lifecycle.clock_jump(now).is_none()
            && self.lifecycle.record_alignment(scope, name, aligned, now)
    }

    fn scope_of(&self, client: &str, name: &KeyName) -> PatchScope {
        let personal = PatchScope::Client(client.to_owned());
        if self.lifecycle.record(&personal, name.as_str()).is_some() {
            personal
        } else {
            PatchScope::Global
        }
    }

    /// The digest of the schema `client` sees at `now`: a version a polling
    /// endpoint can serve (an ETag); it changes exactly when what the client
    /// may send does (see [`EffectiveSchema::digest`]).
    pub fn digest_for(
        &self,
        client: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<String, CompileError> {
        self.effective(client).digest(now)
    }
}

/// A refusal of `patch` with one issue.
fn refusal(patch: &SchemaPatch, code: IssueCode, path: &str, message: String) -> CompileError {
    PatchError::new(
        Some(patch.patch_id.clone()),
        vec![Issue::new(code, path, message)],
    )
    .into()
}
