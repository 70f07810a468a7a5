//! Patch authorization (§7): schema updates that touch security-relevant keys
//! must be authorized. The keys' own markers are [`crate::key::Sensitivity`].

use crate::key::KeyName;
use crate::patch::schema_patch::SchemaPatch;

/// Decides whether a patch may apply (§7: schema updates touching
/// security-relevant keys MUST be authorized).
///
/// Called for every patch checked (by a store's `submit`, again when a
/// queued patch is released, and by a strict or lenient merge), with the
/// names of the sensitive keys it adds or modifies — empty when it touches
/// none. An authorizer that only guards sensitive keys returns `true` for an
/// empty list; one that audits or restricts every change sees them all.
/// Closures implement it:
///
/// ```
/// use sdsi::KeyName;
/// use sdsi::patch::{PatchAuthorizer, SchemaPatch};
/// // Anyone may add ordinary keys; sensitive ones need an "ops-" patch.
/// let ops_for_sensitive = |patch: &SchemaPatch, keys: &[KeyName]| {
///     keys.is_empty() || patch.patch_id.starts_with("ops-")
/// };
/// fn takes(_: &dyn PatchAuthorizer) {}
/// takes(&ops_for_sensitive);
/// ```
pub trait PatchAuthorizer: Send + Sync {
    /// Whether `patch` may add or modify the sensitive keys `keys`.
    fn authorize(&self, patch: &SchemaPatch, keys: &[KeyName]) -> bool;

    /// The same question, knowing who submitted the patch (`None` when the
    /// caller did not say: [`crate::SchemaStore::submit`]); a store asks this
    /// at submit and again when the patch leaves the guard's queue. By
    /// default the submitter is ignored.
    fn authorize_by(&self, patch: &SchemaPatch, keys: &[KeyName], submitter: Option<&str>) -> bool {
        let _ = submitter;
        self.authorize(patch, keys)
    }
}

impl<F> PatchAuthorizer for F
where
    F: Fn(&SchemaPatch, &[KeyName]) -> bool + Send + Sync,
{
    fn authorize(&self, patch: &SchemaPatch, keys: &[KeyName]) -> bool {
        self(patch, keys)
    }
}

/// The default authorizer: refuses every change to a sensitive key, allows
/// every other patch.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenySensitive;

impl PatchAuthorizer for DenySensitive {
    fn authorize(&self, _patch: &SchemaPatch, keys: &[KeyName]) -> bool {
        keys.is_empty()
    }
}
