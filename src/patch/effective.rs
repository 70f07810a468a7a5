//! The effective schema: a base template plus the patches that apply to one
//! client at `now`, merged by the rules of §6.2.2 and compiled.

use indexmap::IndexMap;
use serde_json::Value;
use time::OffsetDateTime;

use crate::digest::canonical_digest;
use crate::issue::{Issue, IssueCode};
use crate::key::{DEPRECATED_MEMBER, EXPERIMENTAL_MEMBER, KeyDefinition, KeyName, KeyType};
use crate::patch::{DenySensitive, PatchAuthorizer};
use crate::patch::{KeyState, Lifecycle};
use crate::patch::{PatchError, PatchScope, SchemaPatch};
use crate::template::SchemaTemplate;
use crate::template::TemplateError;
use crate::validate::{CompiledSchema, ValidateOptions};

/// Where the merge learns each patch key's lifecycle state.
///
/// [`Lifecycle`] implements it; without one, every patch key is experimental
/// and no name is reserved.
pub trait KeyStates: Send + Sync {
    /// The state of `name` as introduced by `patch_id` in `scope`.
    fn state(&self, scope: &PatchScope, name: &KeyName, patch_id: &str) -> KeyState;
    /// The type a withdrawn key's name stays reserved for, if any.
    fn reserved_type(&self, scope: &PatchScope, name: &KeyName) -> Option<KeyType>;
}

/// Every patch key experimental, nothing reserved.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllExperimental;

impl KeyStates for AllExperimental {
    fn state(&self, _: &PatchScope, _: &KeyName, _: &str) -> KeyState {
        KeyState::Experimental
    }
    fn reserved_type(&self, _: &PatchScope, _: &KeyName) -> Option<KeyType> {
        None
    }
}

impl KeyStates for Lifecycle {
    fn state(&self, scope: &PatchScope, name: &KeyName, patch_id: &str) -> KeyState {
        Lifecycle::state(self, scope, name, patch_id).unwrap_or(KeyState::Experimental)
    }
    fn reserved_type(&self, scope: &PatchScope, name: &KeyName) -> Option<KeyType> {
        Lifecycle::reserved_type(self, scope, name)
    }
}

/// Why an effective schema could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// The base template (or the merged result) breaks a template rule.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A patch was refused.
    #[error(transparent)]
    Patch(#[from] PatchError),
}

impl CompileError {
    /// Every problem, whichever layer it came from.
    pub fn errors(&self) -> &[Issue] {
        match self {
            CompileError::Template(e) => e.errors(),
            CompileError::Patch(e) => e.errors(),
        }
    }
}

impl SchemaTemplate {
    /// The template's content digest: `sha256:` + hex over its RFC 8785
    /// canonical JSON. Patches name it in `parent_digest` so that a tampered
    /// or mismatched base refuses them.
    pub fn digest(&self) -> String {
        canonical_digest(self)
    }
}

/// Builds the schema one client sees at `now`: base + active global patches
/// + that client's patch stack, merged and compiled.
///
/// ```
/// use sdsi::{KeyDefinition, KeyName, KeyType, SchemaTemplate};
/// use sdsi::patch::{EffectiveSchema, SchemaPatch};
/// use time::macros::datetime;
///
/// let base = SchemaTemplate::new("flight_booking_v1", "flight_booking", vec![]);
/// let mut patch = SchemaPatch::new("p1", "flight_booking_v1",
///     datetime!(2026-05-01 0:00 UTC), datetime!(2026-06-01 0:00 UTC));
/// patch.new_keys.push(KeyDefinition::new(KeyName::new("seat_preference")?, KeyType::String,
///     false, "window, aisle or none"));
///
/// let schema = EffectiveSchema::new(&base).patches([&patch]).compile(datetime!(2026-05-02 0:00 UTC))?;
/// assert!(schema.template().key("seat_preference").is_some_and(|k| k.is_experimental()));
/// let later = EffectiveSchema::new(&base).patches([&patch]).compile(datetime!(2026-06-01 0:00 UTC))?;
/// assert!(later.template().key("seat_preference").is_none()); // expired
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The rules, each refusal a [`PatchError`] with a code:
/// - patches apply in (timestamp, id) order, from their timestamp until
///   `expires_at`; the same patch given twice applies once;
/// - base keys are never removed or retyped; only their description is refined;
/// - a new key named like an existing key refines that key's description
///   (`key_retype` if the types differ);
/// - `other` cannot be patched (`other_not_patchable`); new keys must be
///   optional (`new_key_required`), since a new required key would break
///   every client that does not know it yet;
/// - modified keys must exist (`unknown_modified_key`) and change only their
///   description (`key_retype`, `modification_not_allowed`);
/// - a withdrawn key's name stays reserved for its type (`reserved_key_name`);
/// - a patch for another schema (`patch_parent_mismatch`) or another base
///   digest (`parent_digest_mismatch`) is refused;
/// - a patch touching a sensitive key needs the authorizer's approval
///   (`unauthorized_sensitive_change`; the default authorizer refuses).
///
/// Keys follow their lifecycle state: experimental keys carry
/// `"experimental": true`, deprecated ones `"deprecated": true` (accepted with
/// warning `deprecated_key`), withdrawn ones leave the template but are
/// accepted with warning `withdrawn_key`, gone ones are `unknown_key`. A patch
/// that expires takes its experimental keys and refinements with it; keys the
/// lifecycle has promoted or is winding down follow their lifecycle instead.
pub struct EffectiveSchema<'a> {
    base: &'a SchemaTemplate,
    patches: Vec<&'a SchemaPatch>,
    client: Option<&'a str>,
    states: &'a dyn KeyStates,
    authorizer: &'a dyn PatchAuthorizer,
    options: ValidateOptions,
}

/// A key of the merge in progress.
struct Entry {
    definition: KeyDefinition,
    /// The patch that introduced the key; `None` for base keys.
    origin: Option<(PatchScope, String)>,
    state: KeyState,
}

impl<'a> EffectiveSchema<'a> {
    /// Starts from `base`, with no patches, no client, every patch key
    /// experimental and sensitive changes refused.
    pub fn new(base: &'a SchemaTemplate) -> Self {
        Self {
            base,
            patches: Vec::new(),
            client: None,
            states: &AllExperimental,
            authorizer: &DenySensitive,
            options: ValidateOptions::default(),
        }
    }

    /// Adds patches of any scope; only global ones and the client's own apply.
    pub fn patches(mut self, patches: impl IntoIterator<Item = &'a SchemaPatch>) -> Self {
        self.patches.extend(patches);
        self
    }

    /// The client whose personal patch stack applies.
    pub fn client(mut self, client: &'a str) -> Self {
        self.client = Some(client);
        self
    }

    /// Where patch keys' lifecycle states come from (usually a [`Lifecycle`]).
    pub fn states(mut self, states: &'a dyn KeyStates) -> Self {
        self.states = states;
        self
    }

    /// Who approves patches that touch sensitive keys.
    pub fn authorizer(mut self, authorizer: &'a dyn PatchAuthorizer) -> Self {
        self.authorizer = authorizer;
        self
    }

    /// Validation options for the compiled schema.
    pub fn options(mut self, options: ValidateOptions) -> Self {
        self.options = options;
        self
    }

    /// The merged template clients see at `now` (with lifecycle flags), without compiling.
    pub fn template(&self, now: OffsetDateTime) -> Result<SchemaTemplate, CompileError> {
        Ok(self.merge(now)?.0)
    }

    /// Merges and compiles.
    pub fn compile(&self, now: OffsetDateTime) -> Result<CompiledSchema, CompileError> {
        let (template, withdrawn) = self.merge(now)?;
        Ok(CompiledSchema::from_parts(
            template,
            &withdrawn,
            self.options,
        )?)
    }

    /// The merged template and the withdrawn keys still accepted.
    fn merge(
        &self,
        now: OffsetDateTime,
    ) -> Result<(SchemaTemplate, Vec<KeyDefinition>), CompileError> {
        let check = self.base.check();
        if !check.is_valid() {
            return Err(TemplateError::from(check).into());
        }
        let mut keys: IndexMap<KeyName, Entry> = self
            .base
            .keys
            .iter()
            .map(|k| {
                let entry = Entry {
                    definition: k.clone(),
                    origin: None,
                    state: KeyState::Stable,
                };
                (k.key_name.clone(), entry)
            })
            .collect();
        let mut applicable: Vec<&SchemaPatch> = self
            .patches
            .iter()
            .copied()
            .filter(|p| p.scope.applies_to(self.client) && p.timestamp <= now)
            .collect();
        applicable.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        check_unique_ids(&applicable)?;
        applicable.dedup_by(|a, b| a.patch_id == b.patch_id);
        let mut base_digest = None;
        for patch in applicable {
            self.apply(patch, now, &mut keys, &mut base_digest)?;
        }
        Ok(self.render(keys))
    }

    /// Applies one patch to the keys, or refuses it with every reason.
    fn apply(
        &self,
        patch: &SchemaPatch,
        now: OffsetDateTime,
        keys: &mut IndexMap<KeyName, Entry>,
        base_digest: &mut Option<String>,
    ) -> Result<(), CompileError> {
        let mut errors = Vec::new();
        if patch.parent_schema_id != self.base.schema_id {
            errors.push(Issue::new(
                IssueCode::PatchParentMismatch,
                "/parent_schema_id",
                format!(
                    "the patch is for schema {:?}, not {:?}",
                    patch.parent_schema_id, self.base.schema_id
                ),
            ));
        }
        if let Some(expected) = &patch.parent_digest {
            let actual = base_digest.get_or_insert_with(|| self.base.digest());
            if expected != actual {
                errors.push(issue(
                    IssueCode::ParentDigestMismatch,
                    "/parent_digest",
                    "the patch was made for a base schema with different content",
                ));
            }
        }
        let sensitive = sensitive_keys(patch, keys);
        if !sensitive.is_empty() && !self.authorizer.authorize(patch, &sensitive) {
            errors.push(Issue::new(
                IssueCode::UnauthorizedSensitiveChange,
                "",
                format!(
                    "the authorizer refused changes to sensitive keys {}",
                    names(&sensitive)
                ),
            ));
        }
        let active = patch.is_active_at(now);
        let mut additions = Vec::new();
        for (i, key) in patch.new_keys.iter().enumerate() {
            let path = format!("/new_keys/{i}");
            let name = &key.key_name;
            if name.is_other() {
                errors.push(issue(
                    IssueCode::OtherNotPatchable,
                    path,
                    "the reserved key \"other\" cannot be patched",
                ));
            } else if let Some(existing) = keys.get(name) {
                if existing.definition.key_type != key.key_type {
                    errors.push(retype(&path, &existing.definition, key.key_type));
                }
            } else if let Some(reserved) = self
                .states
                .reserved_type(&patch.scope, name)
                .filter(|t| *t != key.key_type)
            {
                errors.push(Issue::new(
                    IssueCode::ReservedKeyName,
                    format!("{path}/key_name"),
                    format!("{name:?} belonged to a withdrawn {reserved} key; its name stays reserved for that type"),
                ));
            } else if key.required {
                errors.push(issue(
                    IssueCode::NewKeyRequired,
                    format!("{path}/required"),
                    "a patch can only add optional keys: a new required key would break existing clients",
                ));
            }
            additions.push(key);
        }
        for (i, key) in patch.modified_keys.iter().enumerate() {
            let path = format!("/modified_keys/{i}");
            match keys.get(&key.key_name) {
                None => errors.push(Issue::new(
                    IssueCode::UnknownModifiedKey,
                    format!("{path}/key_name"),
                    format!("there is no key {:?} to modify", key.key_name.as_str()),
                )),
                Some(existing) if existing.definition.key_type != key.key_type => {
                    errors.push(retype(&path, &existing.definition, key.key_type));
                }
                Some(existing)
                    if existing.definition.required != key.required
                        || existing.definition.effective_default() != key.effective_default() =>
                {
                    errors.push(issue(
                        IssueCode::ModificationNotAllowed,
                        path,
                        "a modification may refine the semantic description only",
                    ));
                }
                Some(_) => {}
            }
        }
        if !errors.is_empty() {
            return Err(refused(patch, errors));
        }
        for key in additions {
            let state = self
                .states
                .state(&patch.scope, &key.key_name, &patch.patch_id);
            match keys.get_mut(&key.key_name) {
                Some(existing) if active => existing
                    .definition
                    .semantic_description
                    .clone_from(&key.semantic_description),
                Some(_) => {}
                // Expiry ends a trial offer; promoted or retiring keys follow their lifecycle.
                None if state == KeyState::Gone || (!active && state == KeyState::Experimental) => {
                }
                None => {
                    let entry = Entry {
                        definition: key.clone(),
                        origin: Some((patch.scope.clone(), patch.patch_id.clone())),
                        state,
                    };
                    keys.insert(key.key_name.clone(), entry);
                }
            }
        }
        if active {
            for key in &patch.modified_keys {
                if let Some(existing) = keys.get_mut(&key.key_name) {
                    existing
                        .definition
                        .semantic_description
                        .clone_from(&key.semantic_description);
                }
            }
        }
        Ok(())
    }

    /// The template clients see, and the withdrawn keys.
    fn render(&self, keys: IndexMap<KeyName, Entry>) -> (SchemaTemplate, Vec<KeyDefinition>) {
        let mut template = SchemaTemplate {
            keys: Vec::new(),
            ..self.base.clone()
        };
        let mut withdrawn = Vec::new();
        for (_, entry) in keys {
            let mut definition = entry.definition;
            if entry.origin.is_some() {
                definition.extra.shift_remove(EXPERIMENTAL_MEMBER);
                definition.extra.shift_remove(DEPRECATED_MEMBER);
                match entry.state {
                    KeyState::Experimental => {
                        definition
                            .extra
                            .insert(EXPERIMENTAL_MEMBER.to_owned(), Value::Bool(true));
                    }
                    KeyState::Deprecated => {
                        definition
                            .extra
                            .insert(DEPRECATED_MEMBER.to_owned(), Value::Bool(true));
                    }
                    _ => {}
                }
            }
            match entry.state {
                KeyState::Withdrawn => withdrawn.push(definition),
                KeyState::Gone => {}
                _ => template.keys.push(definition),
            }
        }
        (template, withdrawn)
    }
}

/// Refuses two different patches with one id; identical copies are fine
/// (the same patch twice applies once). Sorted input: copies are neighbours.
fn check_unique_ids(sorted: &[&SchemaPatch]) -> Result<(), CompileError> {
    let mut by_id: std::collections::HashMap<&str, &SchemaPatch> = std::collections::HashMap::new();
    for patch in sorted {
        match by_id.insert(&patch.patch_id, patch) {
            Some(other) if other != *patch => {
                let message = "another patch with different content has this id";
                return Err(refused(
                    patch,
                    vec![issue(IssueCode::DuplicatePatchId, "/patch_id", message)],
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn issue(code: IssueCode, path: impl Into<String>, message: &str) -> Issue {
    Issue::new(code, path, message)
}

fn retype(path: &str, existing: &KeyDefinition, to: KeyType) -> Issue {
    Issue::new(
        IssueCode::KeyRetype,
        format!("{path}/key_type"),
        format!(
            "key {:?} has type {}; a patch cannot change it to {to}",
            existing.key_name.as_str(),
            existing.key_type
        ),
    )
}

fn refused(patch: &SchemaPatch, errors: Vec<Issue>) -> CompileError {
    PatchError::new(Some(patch.patch_id.clone()), errors).into()
}

/// The keys `patch` adds or modifies that are sensitive (marked on the patch's
/// key, or on the existing key it modifies).
fn sensitive_keys(patch: &SchemaPatch, keys: &IndexMap<KeyName, Entry>) -> Vec<KeyName> {
    let existing_sensitive = |k: &KeyDefinition| {
        keys.get(&k.key_name)
            .is_some_and(|e| e.definition.sensitivity().is_some())
    };
    patch
        .new_keys
        .iter()
        .chain(&patch.modified_keys)
        .filter(|k| k.sensitivity().is_some() || existing_sensitive(k))
        .map(|k| k.key_name.clone())
        .collect()
}

fn names(keys: &[KeyName]) -> String {
    keys.iter()
        .map(KeyName::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}
