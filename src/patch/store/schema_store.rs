//! The [`SchemaStore`] value: what it holds for one scenario, how one is
//! made, and what it lets a caller read directly (its base, its patches,
//! its queue, its lifecycle).

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::Value;

use super::cache::CompiledCache;
use crate::key::KeyName;
use crate::patch::integrity::{SIGNATURE_MEMBER, Signer};
use crate::patch::lifecycle::policy::LifecyclePolicy;
use crate::patch::lifecycle::records::Lifecycle;
use crate::patch::review::Review;
use crate::patch::schema_patch::SchemaPatch;
use crate::template::SchemaTemplate;
use crate::template::TemplateError;
use crate::validate::ValidateOptions;

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
    pub(super) base: SchemaTemplate,
    /// Accepted global patches, in acceptance order.
    pub(super) global: Vec<SchemaPatch>,
    /// Accepted personal patches per client, in acceptance order.
    pub(super) personal: HashMap<String, Vec<SchemaPatch>>,
    pub(super) queue: VecDeque<Waiting>,
    /// Every patch id the store has taken (accepted, queued or dropped),
    /// with the patch's content digest, so a replay is recognised and an id
    /// is never reused, while expired patches themselves are pruned.
    pub(super) seen: HashMap<String, Taken>,
    /// Key name → clients whose personal patches name it: the client views
    /// a global patch naming that key must suit.
    pub(super) personal_names: HashMap<KeyName, BTreeSet<String>>,
    pub(super) lifecycle: Lifecycle,
    pub(super) options: ValidateOptions,
    /// Client → a tag of each key definition it was last told about (a
    /// SHA-256 prefix, not the definition: this map grows with clients).
    /// A key's entries go when the key is gone.
    pub(super) delivered: HashMap<String, HashMap<KeyName, u64>>,
    /// When set, `submit` takes only patches signed with this key.
    pub(super) signer: Option<Signer>,
    /// Proposals held for an operator, and the denials remembered.
    pub(super) review: Review,
    /// Bumped whenever the accepted patches change.
    pub(super) generation: u64,
    /// The save number of the sealed snapshot it was restored from.
    pub(super) sealed_save: Option<u64>,
    /// Compiled schemas per client, valid while what the merge reads is unchanged.
    pub(super) compiled: CompiledCache,
}

/// What became of a patch id the store took.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct Taken {
    pub(super) digest: String,
    pub(super) dropped: bool,
}

/// A patch behind the convergence guard, who submitted it, and whether an
/// operator approved it (then no authorizer is asked again on release).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Waiting {
    pub(super) patch: SchemaPatch,
    pub(super) submitter: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) approved: bool,
}

/// Patches in the store were authorized when submitted (and again on release).
pub(super) fn already_authorized(_: &SchemaPatch, _: &[KeyName]) -> bool {
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
            sealed_save: None,
            compiled: CompiledCache::default(),
        })
    }

    /// Takes only patches that carry a valid `signature` made with
    /// `signer`'s key (see [`Signer::seal`]); others are refused with
    /// `invalid_signature`. For a store fed by more than one process, so that
    /// a patch altered on the way is never applied.
    ///
    /// Its snapshot is then sealed with the same key as one numbered save
    /// ([`SchemaStore::saved_as`]), and restores only through
    /// [`SchemaStore::from_sealed_slice`] with it (requiring signatures
    /// again): whoever can write the stored bytes cannot add a patch or a
    /// key, or drop the requirement, nor put back an older save where the
    /// loader is given the number of the last one it saw
    /// ([`SealPin`](crate::patch::SealPin)). Calling this on a store
    /// restored from an unsealed snapshot (one saved before it required
    /// signatures) trusts that snapshot as it is.
    pub fn require_signatures(mut self, signer: Signer) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Whether the store requires signatures
    /// ([`SchemaStore::require_signatures`]), and so seals its snapshot.
    pub fn requires_signatures(&self) -> bool {
        self.signer.is_some()
    }

    /// The save number of the sealed snapshot this store was restored from
    /// ([`SchemaStore::from_sealed_slice`]), `None` for a store not restored
    /// from one: what to pin a later restore at
    /// ([`SealPin::at_least`](crate::patch::SealPin::at_least)).
    pub fn sealed_save(&self) -> Option<u64> {
        self.sealed_save
    }

    /// Signs `patch` with the key the store requires, if it requires one:
    /// for the crate's evolution engine, which runs beside the store and
    /// hands it its patches directly (nothing on the way to alter them).
    /// Crate-private, so the store signs for no one else.
    pub(crate) fn sign_own(&self, patch: &mut SchemaPatch) {
        if let Some(signer) = &self.signer {
            patch.extra.shift_remove(SIGNATURE_MEMBER);
            let signature = signer.sign(&*patch);
            patch
                .extra
                .insert(SIGNATURE_MEMBER.to_owned(), Value::String(signature));
        }
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
    pub(super) fn patches_for<'a>(
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
}
