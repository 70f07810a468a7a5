//! The rules of §6.2.2 every patch keeps: its own (its parent, its base's
//! digest, the reserved key `other`, the authorizer's word on sensitive
//! keys), and those of each entry against the keys in force when it
//! applies (refine a description only, never retype, add optional keys
//! only, respect reserved names).

use indexmap::IndexMap;
use serde_json::Value;
use time::OffsetDateTime;

use crate::digest::DigestError;
use crate::issue::{Issue, IssueCode};
use crate::key::{
    DEPRECATED_MEMBER, EXPERIMENTAL_MEMBER, KeyDefinition, KeyName, KeyType, Sensitivity,
};
use crate::patch::compile_error::CompileError;
use crate::patch::key_states::KeyStates;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::schema_patch::{PatchError, SchemaPatch};
use crate::patch::security::PatchAuthorizer;
use crate::template::SchemaTemplate;

/// A key of the merge in progress.
#[derive(Clone)]
pub(crate) struct Entry {
    pub(super) definition: KeyDefinition,
    /// Whether a patch introduced the key (base keys get no lifecycle flags).
    pub(super) from_patch: bool,
    pub(super) state: KeyState,
}

/// What an active patch could not apply.
#[derive(Default)]
pub(super) struct Conflicts {
    /// Against the base, or the patch's own rules: refused even when lenient.
    pub(super) hard: Vec<Issue>,
    /// Against keys other patches made or unmade: skipped when lenient.
    pub(super) soft: Vec<Issue>,
}

impl Conflicts {
    fn push(&mut self, hard: bool, issue: Issue) {
        if hard {
            self.hard.push(issue);
        } else {
            self.soft.push(issue);
        }
    }
}

/// The rules a patch breaks on its own, whatever `now` is.
pub(super) fn check_own_rules(
    base: &SchemaTemplate,
    patch: &SchemaPatch,
    authorizer: &dyn PatchAuthorizer,
    submitter: Option<&str>,
    base_digest: &mut Option<Result<String, DigestError>>,
) -> Result<(), CompileError> {
    let mut errors = Vec::new();
    if patch.parent_schema_id != base.schema_id {
        errors.push(Issue::new(
            IssueCode::PatchParentMismatch,
            "/parent_schema_id",
            format!(
                "the patch is for schema {:?}, not {:?}",
                patch.parent_schema_id, base.schema_id
            ),
        ));
    }
    if let Some(expected) = &patch.parent_digest {
        let actual = base_digest.get_or_insert_with(|| base.digest());
        // A base without a digest matches no digest a patch names.
        if actual.as_ref().ok() != Some(expected) {
            errors.push(issue(
                IssueCode::ParentDigestMismatch,
                "/parent_digest",
                "the patch was made for a base schema with different content",
            ));
        }
    }
    for (i, key) in patch.new_keys.iter().enumerate() {
        if key.key_name.is_other() {
            errors.push(issue(
                IssueCode::OtherNotPatchable,
                format!("/new_keys/{i}"),
                "the reserved key \"other\" cannot be patched",
            ));
        }
    }
    let sensitive = sensitive_keys(patch, base);
    // The authorizer sees every patch (an audit hook), with the sensitive
    // keys it touches; `DenySensitive` refuses exactly those that touch one.
    if !authorizer.authorize_by(patch, &sensitive, submitter) {
        errors.push(Issue::new(
            IssueCode::UnauthorizedSensitiveChange,
            "",
            format!(
                "the authorizer refused changes to sensitive keys {}",
                names(&sensitive)
            ),
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(refused(patch, errors))
    }
}

/// Applies an active patch's entries to `keys`: refinements of keys in
/// force, and (when `introduce`) its new keys. Returns what could not
/// apply; every entry that can apply does. A conflict with a base key,
/// or a new required key, is the patch's own fault (`hard`); a conflict
/// with what other patches made (or unmade) is not (`soft`).
pub(super) fn apply(
    states: &dyn KeyStates,
    patch: &SchemaPatch,
    now: OffsetDateTime,
    keys: &mut IndexMap<KeyName, Entry>,
    introduce: bool,
) -> Conflicts {
    let mut problems = Conflicts::default();
    for (i, key) in patch.new_keys.iter().enumerate() {
        let path = format!("/new_keys/{i}");
        let name = &key.key_name;
        if name.is_other() {
            continue; // refused by the patch's own rules
        }
        if let Some(existing) = keys.get_mut(name) {
            match disagreement(&path, &existing.definition, key, false) {
                Some(problem) => problems.push(!existing.from_patch, problem),
                None => existing
                    .definition
                    .semantic_description
                    .clone_from(&key.semantic_description),
            }
        } else if !introduce {
            problems.soft.push(Issue::new(
                IssueCode::UnknownModifiedKey,
                format!("{path}/key_name"),
                format!(
                    "key {:?} is not in the schema now (not offered, withdrawn or gone)",
                    name.as_str()
                ),
            ));
        } else if let Some(message) = states.reserved(&patch.scope, name, key.key_type, now) {
            problems.soft.push(Issue::new(
                IssueCode::ReservedKeyName,
                format!("{path}/key_name"),
                message,
            ));
        } else if key.required {
            problems.hard.push(issue(
                IssueCode::NewKeyRequired,
                format!("{path}/required"),
                "a patch can only add optional keys: a new required key would break existing clients",
            ));
        } else {
            let mut definition = key.clone();
            definition.extra.shift_remove(EXPERIMENTAL_MEMBER);
            definition.extra.shift_remove(DEPRECATED_MEMBER);
            let entry = Entry {
                definition,
                from_patch: true,
                state: KeyState::Experimental,
            };
            keys.insert(name.clone(), entry);
        }
    }
    for (i, key) in patch.modified_keys.iter().enumerate() {
        let path = format!("/modified_keys/{i}");
        match keys.get_mut(&key.key_name) {
            None => problems.soft.push(Issue::new(
                IssueCode::UnknownModifiedKey,
                format!("{path}/key_name"),
                format!("there is no key {:?} to modify", key.key_name.as_str()),
            )),
            Some(existing) => match disagreement(&path, &existing.definition, key, true) {
                Some(problem) => problems.push(!existing.from_patch, problem),
                None => existing
                    .definition
                    .semantic_description
                    .clone_from(&key.semantic_description),
            },
        }
    }
    problems
}

/// Why `entry` may not refine `existing`, if it may not: it must keep the
/// type, `required` and the default; a modification must also keep every
/// other member (lifecycle flags aside), since only the description may change.
fn disagreement(
    path: &str,
    existing: &KeyDefinition,
    entry: &KeyDefinition,
    modification: bool,
) -> Option<Issue> {
    if existing.key_type != entry.key_type {
        return Some(retype(path, existing, entry.key_type));
    }
    let flag = |k: &String| k != EXPERIMENTAL_MEMBER && k != DEPRECATED_MEMBER;
    let members = |d: &KeyDefinition| -> Vec<(String, Value)> {
        let mut m: Vec<_> = d
            .extra
            .iter()
            .filter(|(k, _)| flag(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        m.sort_by(|a, b| a.0.cmp(&b.0));
        m
    };
    let changed = existing.required != entry.required
        || existing.effective_default() != entry.effective_default()
        || (modification && members(existing) != members(entry));
    changed.then(|| {
        issue(
            IssueCode::ModificationNotAllowed,
            path,
            "a patch may refine an existing key's semantic description only: its type, required flag, default and other members must stay as they are",
        )
    })
}

/// Refuses two different patches with one id; identical copies are fine
/// (the same patch twice applies once). Sorted input: copies are neighbours.
pub(super) fn check_unique_ids(sorted: &[&SchemaPatch]) -> Result<(), CompileError> {
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

pub(super) fn refused(patch: &SchemaPatch, errors: Vec<Issue>) -> CompileError {
    PatchError::new(Some(patch.patch_id.clone()), errors).into()
}

/// The keys `patch` adds or modifies that are sensitive: marked so on the
/// patch's key or on the base key it refines, or classified so from their
/// name and description whatever the patch claims.
fn sensitive_keys(patch: &SchemaPatch, base: &SchemaTemplate) -> Vec<KeyName> {
    let base_sensitive = |k: &KeyDefinition| {
        base.key(k.key_name.as_str())
            .is_some_and(|b| b.sensitivity().is_some())
    };
    patch
        .new_keys
        .iter()
        .chain(&patch.modified_keys)
        .filter(|k| {
            k.sensitivity().is_some() || Sensitivity::classify(k).is_some() || base_sensitive(k)
        })
        .map(|k| k.key_name.clone())
        .collect()
}

fn names(keys: &[KeyName]) -> String {
    keys.iter()
        .map(KeyName::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}
