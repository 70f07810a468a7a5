//! The effective schema: a base template plus the patches that apply to one
//! client at `now`, merged by the rules of §6.2.2 and compiled.

use indexmap::IndexMap;
use serde_json::Value;
use time::OffsetDateTime;

use crate::digest::{DigestError, canonical_digest};
use crate::issue::{Issue, Problems};
use crate::key::{DEPRECATED_MEMBER, EXPERIMENTAL_MEMBER, KeyDefinition, KeyName};
use crate::patch::compile_error::CompileError;
use crate::patch::key_states::{AllExperimental, KeyStates};
use crate::patch::lifecycle::state::KeyState;
use crate::patch::merge_rules::{
    Conflicts, Entry, apply, check_own_rules, check_unique_ids, refused,
};
use crate::patch::schema_patch::SchemaPatch;
use crate::patch::security::{DenySensitive, PatchAuthorizer};
use crate::template::SchemaTemplate;
use crate::template::TemplateError;
use crate::validate::{CompiledSchema, ValidateOptions};

impl SchemaTemplate {
    /// The template's content digest: `sha256:` + hex over its RFC 8785
    /// canonical JSON. Patches name it in `parent_digest` so that a tampered
    /// or mismatched base refuses them. Fails only for a template holding a
    /// number no double holds (see [`DigestError`]).
    pub fn digest(&self) -> Result<String, DigestError> {
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
/// Every patch given is checked against its own rules whatever `now` is,
/// each refusal a [`PatchError`] with a code:
/// - a patch for another schema (`patch_parent_mismatch`) or another base
///   digest (`parent_digest_mismatch`) is refused; two different patches
///   may not share an id (`duplicate_patch_id`);
/// - `other` cannot be patched (`other_not_patchable`);
/// - a patch touching a sensitive key needs the authorizer's approval
///   (`unauthorized_sensitive_change`; the default authorizer refuses). A key
///   is sensitive when it says so, or when its name or description means
///   payment, identity, credentials, health or location
///   ([`crate::key::Sensitivity::classify`]), whatever the patch claims.
///
/// Patches apply in (timestamp, id) order while active (`timestamp <= now <
/// expires_at`); the same patch given twice applies once. Against the keys
/// in force when it applies:
/// - base keys are never removed or retyped; only their description is refined;
/// - a new key named like an existing key refines that key's description,
///   and must agree with it in type (`key_retype`), `required` and default
///   (`modification_not_allowed`);
/// - a new key must be optional (`new_key_required`), since a new required
///   key would break every client that does not know it yet;
/// - modified keys must exist (`unknown_modified_key`) and change only their
///   description (`key_retype`, `modification_not_allowed`: `required`, the
///   default and other members must stay as they are);
/// - a withdrawn key's name stays reserved (`reserved_key_name`).
///
/// By default a conflict refuses the whole merge. [`EffectiveSchema::lenient`]
/// refuses only what is a patch's own fault (its own rules, a conflict with
/// a base key, a new required key) and skips an entry that conflicts with
/// what other patches made or unmade, reporting it in
/// [`EffectiveSchema::warnings`]: a [`crate::SchemaStore`] and `sdsi
/// validate --patch` merge that way, so that a patch that expires (taking
/// its key with it) never breaks a later patch's merge.
///
/// Which patch keys exist, and in what state, comes from [`KeyStates`]:
/// with a [`Lifecycle`], from its records (a key stays after its patch
/// expires once promoted; an offer still on trial when its patch expires is
/// withdrawn); by default, from the active patches, each new key
/// experimental. Experimental keys carry `"experimental": true`, deprecated
/// ones `"deprecated": true` (accepted with warning `deprecated_key`),
/// withdrawn ones leave the template but are accepted with warning
/// `withdrawn_key`, gone ones are `unknown_key`.
///
/// [`Lifecycle`]: crate::patch::Lifecycle
/// [`PatchError`]: crate::patch::PatchError
pub struct EffectiveSchema<'a> {
    base: &'a SchemaTemplate,
    patches: Vec<&'a SchemaPatch>,
    client: Option<&'a str>,
    states: &'a dyn KeyStates,
    authorizer: &'a dyn PatchAuthorizer,
    options: ValidateOptions,
    lenient: bool,
}

/// What a merge produced.
pub(crate) struct Merged {
    pub(crate) keys: IndexMap<KeyName, Entry>,
    pub(crate) withdrawn: Vec<KeyDefinition>,
    pub(crate) warnings: Vec<Issue>,
}

impl<'a> EffectiveSchema<'a> {
    /// Starts from `base`, with no patches, no client, every patch key
    /// experimental, sensitive changes refused and conflicts refused.
    pub fn new(base: &'a SchemaTemplate) -> Self {
        Self {
            base,
            patches: Vec::new(),
            client: None,
            states: &AllExperimental,
            authorizer: &DenySensitive,
            options: ValidateOptions::default(),
            lenient: false,
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

    /// Where patch keys and their lifecycle states come from (usually a
    /// [`Lifecycle`](crate::patch::Lifecycle)).
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

    /// Skips a patch entry that conflicts with keys other patches made or
    /// unmade (a modification of a key whose patch expired, a retype of
    /// another patch's key...) with a warning, instead of refusing the
    /// merge. A patch's own faults (its own rules, a conflict with a base
    /// key, a new required key) still refuse it.
    pub fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// The merged template clients see at `now` (with lifecycle flags), without compiling.
    pub fn template(&self, now: OffsetDateTime) -> Result<SchemaTemplate, CompileError> {
        Ok(self.render(self.merge(now)?.keys))
    }

    /// Merges and compiles.
    pub fn compile(&self, now: OffsetDateTime) -> Result<CompiledSchema, CompileError> {
        let merged = self.merge(now)?;
        let withdrawn = merged.withdrawn.clone();
        let template = self.render(merged.keys);
        Ok(CompiledSchema::from_parts(
            template,
            &withdrawn,
            self.options,
        )?)
    }

    /// The digest of what a client sees at `now`: the merged template's
    /// digest, or, while withdrawn keys are still accepted, the digest of the
    /// template together with their names, so that a withdrawn key becoming
    /// gone (accepted with a warning, then refused) changes it too.
    pub fn digest(&self, now: OffsetDateTime) -> Result<String, CompileError> {
        let merged = self.merge(now)?;
        let withdrawn: Vec<&str> = merged
            .withdrawn
            .iter()
            .map(|k| k.key_name.as_str())
            .collect();
        let template = self.render(merged.keys);
        let digest = if withdrawn.is_empty() {
            template.digest()
        } else {
            canonical_digest(&serde_json::json!({"template": template, "withdrawn": withdrawn}))
        };
        digest.map_err(|e| TemplateError::from(Problems::error(e.to_issue(""))).into())
    }

    /// What a lenient merge skipped at `now` (empty for a strict one, which
    /// refuses instead).
    pub fn warnings(&self, now: OffsetDateTime) -> Result<Vec<Issue>, CompileError> {
        Ok(self.merge(now)?.warnings)
    }

    /// The patches that apply to the client, in order, each once.
    fn applying(&self) -> Result<Vec<&'a SchemaPatch>, CompileError> {
        let mut applying: Vec<&SchemaPatch> = self
            .patches
            .iter()
            .copied()
            .filter(|p| p.scope.applies_to(self.client))
            .collect();
        applying.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
        check_unique_ids(&applying)?;
        applying.dedup_by(|a, b| a.patch_id == b.patch_id);
        Ok(applying)
    }

    /// Merges the base, the patch keys and the active patches' refinements.
    pub(crate) fn merge(&self, now: OffsetDateTime) -> Result<Merged, CompileError> {
        let check = self.base.check();
        if !check.is_valid() {
            return Err(TemplateError::from(check).into());
        }
        let applying = self.applying()?;
        let mut base_digest = None;
        for patch in &applying {
            check_own_rules(self.base, patch, self.authorizer, None, &mut base_digest)?;
        }
        let mut merged = Merged {
            keys: self
                .base
                .keys
                .iter()
                .map(|k| {
                    let entry = Entry {
                        definition: k.clone(),
                        from_patch: false,
                        state: KeyState::Stable,
                    };
                    (k.key_name.clone(), entry)
                })
                .collect(),
            withdrawn: Vec::new(),
            warnings: Vec::new(),
        };
        let decided = self.states.keys_at(self.client, now);
        let introduce = decided.is_none();
        for (definition, state) in decided.into_iter().flatten() {
            if merged.keys.contains_key(&definition.key_name) {
                continue; // a base key wins; the store never lets this happen
            }
            match state {
                KeyState::Withdrawn => merged.withdrawn.push(definition),
                KeyState::Gone => {}
                state => {
                    let name = definition.key_name.clone();
                    let entry = Entry {
                        definition,
                        from_patch: true,
                        state,
                    };
                    merged.keys.insert(name, entry);
                }
            }
        }
        for patch in applying.into_iter().filter(|p| p.is_active_at(now)) {
            let Conflicts { mut hard, soft } =
                apply(self.states, patch, now, &mut merged.keys, introduce);
            if self.lenient {
                let prefix = format!("patch {:?}: ", patch.patch_id);
                merged.warnings.extend(soft.iter().map(|i| {
                    Issue::new(
                        i.code(),
                        i.path(),
                        format!("{prefix}{} (skipped)", i.message()),
                    )
                }));
            } else {
                hard.extend(soft);
            }
            if !hard.is_empty() {
                return Err(refused(patch, hard));
            }
        }
        Ok(merged)
    }

    /// Checks `candidate` as if it were added now to the patches given: its
    /// own rules, then every entry against the keys in force at
    /// `max(now, its timestamp)`, strictly. For a store's `submit`.
    pub(crate) fn check_candidate(
        &self,
        candidate: &SchemaPatch,
        now: OffsetDateTime,
        authorizer: &dyn PatchAuthorizer,
        submitter: Option<&str>,
    ) -> Result<(), CompileError> {
        check_own_rules(self.base, candidate, authorizer, submitter, &mut None)?;
        let at = now.max(candidate.timestamp);
        let mut keys = self.merge(at)?.keys;
        let Conflicts { mut hard, soft } = apply(self.states, candidate, at, &mut keys, true);
        hard.extend(soft);
        if hard.is_empty() {
            Ok(())
        } else {
            Err(refused(candidate, hard))
        }
    }

    /// The template clients see.
    fn render(&self, keys: IndexMap<KeyName, Entry>) -> SchemaTemplate {
        let mut template = SchemaTemplate {
            keys: Vec::new(),
            ..self.base.clone()
        };
        for (_, entry) in keys {
            let mut definition = entry.definition;
            if entry.from_patch {
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
            template.keys.push(definition);
        }
        template
    }
}
