//! Security-relevant keys (§7): sensitivity markers and patch authorization.

use serde_json::Value;

use crate::key::{KeyDefinition, KeyName};
use crate::patch::SchemaPatch;

/// The wire member that marks a key as security-relevant.
pub const SENSITIVE_MEMBER: &str = "sensitive";

/// Why a key is security-relevant (§7 names payment, identity and access control).
///
/// On the wire a key carries `"sensitive": "payment" | "identity" |
/// "access_control"`, or `"sensitive": true` for another reason. Any other
/// non-false value also counts as sensitive: an unknown marker errs on the safe side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Sensitivity {
    /// Payment data or actions.
    Payment,
    /// Identity data.
    Identity,
    /// Access control.
    AccessControl,
    /// Marked sensitive for another reason.
    Other,
}

impl Sensitivity {
    /// The wire name (`true` stands for [`Sensitivity::Other`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Sensitivity::Payment => "payment",
            Sensitivity::Identity => "identity",
            Sensitivity::AccessControl => "access_control",
            Sensitivity::Other => "other",
        }
    }
}

impl KeyDefinition {
    /// The key's sensitivity, read from its `sensitive` member.
    pub fn sensitivity(&self) -> Option<Sensitivity> {
        match self.extra.get(SENSITIVE_MEMBER)? {
            Value::Bool(false) | Value::Null => None,
            Value::String(s) if s == "payment" => Some(Sensitivity::Payment),
            Value::String(s) if s == "identity" => Some(Sensitivity::Identity),
            Value::String(s) if s == "access_control" => Some(Sensitivity::AccessControl),
            _ => Some(Sensitivity::Other),
        }
    }

    /// Marks the key sensitive.
    pub fn with_sensitivity(mut self, sensitivity: Sensitivity) -> Self {
        let value = match sensitivity {
            Sensitivity::Other => Value::Bool(true),
            s => Value::from(s.as_str()),
        };
        self.extra.insert(SENSITIVE_MEMBER.to_owned(), value);
        self
    }
}

/// Decides whether a patch that adds or modifies sensitive keys may apply
/// (§7: schema updates touching security-relevant keys MUST be authorized).
///
/// Called only for patches that touch at least one sensitive key, with the
/// names of those keys. Closures implement it:
///
/// ```
/// use sdsi::{KeyName, PatchAuthorizer, SchemaPatch};
/// let only_ops = |patch: &SchemaPatch, _keys: &[KeyName]| patch.patch_id.starts_with("ops-");
/// fn takes(_: &dyn PatchAuthorizer) {}
/// takes(&only_ops);
/// ```
pub trait PatchAuthorizer: Send + Sync {
    /// Whether `patch` may add or modify the sensitive keys `keys`.
    fn authorize(&self, patch: &SchemaPatch, keys: &[KeyName]) -> bool;
}

impl<F> PatchAuthorizer for F
where
    F: Fn(&SchemaPatch, &[KeyName]) -> bool + Send + Sync,
{
    fn authorize(&self, patch: &SchemaPatch, keys: &[KeyName]) -> bool {
        self(patch, keys)
    }
}

/// The default authorizer: refuses every change to a sensitive key.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenySensitive;

impl PatchAuthorizer for DenySensitive {
    fn authorize(&self, _patch: &SchemaPatch, _keys: &[KeyName]) -> bool {
        false
    }
}
