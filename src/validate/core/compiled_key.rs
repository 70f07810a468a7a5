//! `CompiledKey`: one key as validation reads it (its check, whether it is
//! required, where its default lives, its status and its scalar tables).

use std::sync::Arc;

use serde_json::Value;

use super::check::Check;
use super::scalars::Scalars;
use crate::key::{KeyDefinition, KeyType, whole_number};

/// Whether a key is accepted silently or with a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyStatus {
    /// In the schema, not deprecated.
    Active,
    /// Flagged `"deprecated": true`: accepted with `deprecated_key`.
    Deprecated,
    /// Out of the schema but inside its backward-compatibility window:
    /// accepted with `withdrawn_key`.
    Withdrawn,
}

/// Where a key's default lives. Most defaults are read from the template
/// the schema keeps, so compiling copies no default value.
#[derive(Debug)]
pub(crate) enum Fallback {
    /// No default applies.
    None,
    /// The template key's own `default_value` (the key at the same index).
    Declared,
    /// An integer key's whole-number default as an integer (`2.0` becomes
    /// `2`), so that a normalized payload holds what `as_i64` reads.
    Rewritten(Value),
}

/// One key of a compiled schema, as validation reads it.
#[derive(Debug)]
pub(crate) struct CompiledKey {
    /// Shared with the template's key name.
    pub(crate) name: Arc<str>,
    pub(crate) check: Check,
    pub(crate) required: bool,
    pub(crate) default: Fallback,
    pub(crate) status: KeyStatus,
    /// The scalars a verdict accepts from the tag alone.
    pub(crate) verdict_scalars: Scalars,
    /// The scalars the full pass accepts from the tag alone.
    pub(crate) kept_scalars: Scalars,
}

impl CompiledKey {
    pub(crate) fn new(
        name: Arc<str>,
        check: Check,
        required: bool,
        default: Fallback,
        status: KeyStatus,
    ) -> Self {
        Self {
            name,
            check,
            required,
            default,
            status,
            verdict_scalars: Scalars::verdict(check, required),
            kept_scalars: Scalars::kept(check, required, status == KeyStatus::Active),
        }
    }
}

/// Where `key`'s default comes from.
pub(crate) fn fallback(key: &KeyDefinition) -> Fallback {
    match (key.effective_default(), key.key_type) {
        (None, _) => Fallback::None,
        (Some(default), KeyType::Integer) => {
            whole_number(default).map_or(Fallback::Declared, Fallback::Rewritten)
        }
        (Some(_), _) => Fallback::Declared,
    }
}
