//! Schema updates (§6.2.2, §6.2.3, §7): patches, the per-client effective
//! schema they make, the key lifecycle, patch authorization, and the
//! [`SchemaStore`] that holds a scenario's evolving schema.
//!
//! A [`SchemaPatch`] adds keys to a base template and refines the
//! descriptions of keys in force, for every client ([`PatchScope::Global`])
//! or for one. An [`EffectiveSchema`] merges a base with the patches that
//! apply to one client at `now`, and compiles the result; which patch keys
//! exist, and in what state, it learns from a [`KeyStates`]. The
//! [`Lifecycle`] moves each patch key from experimental to stable, or on
//! through deprecated and withdrawn to gone, on the metrics
//! ([`KeyMetrics`]) that clients' payloads give it, under a
//! [`LifecyclePolicy`]. A [`PatchAuthorizer`] decides on patches that touch
//! sensitive keys, a [`Signer`] signs patches and checks their signatures,
//! and a proposal the store may not apply on its own waits for an operator
//! as a [`PendingProposal`]. The [`SchemaStore`] ties them together for one
//! scenario; it is saved whole as a snapshot, or as table rows
//! ([`StoreRows`]).
//!
//! Everything here depends on time only through the `now` it is given.
//! Feature `patch` (on by default).

// Only declarations and the public names here: inside the crate, files name
// the file that defines what they use, never this facade, so that the
// module graph (scripts/check-module-cycles.py) shows the layers they form:
// the patch types at the bottom, the lifecycle above them, the merge
// (effective schemas) above the lifecycle it reads key states from, and the
// store, its rows and its snapshot on top.

mod compile_error;
mod effective;
mod integrity;
mod key_states;
mod lifecycle;
mod merge_rules;
mod review;
mod schema_patch;
mod security;
mod store;

pub use compile_error::CompileError;
pub use effective::EffectiveSchema;
pub use integrity::{IntegrityError, MIN_KEY_BYTES, SIGNATURE_MEMBER, Signer};
pub use key_states::{AllExperimental, KeyStates};
pub use lifecycle::clock::ClockJump;
pub use lifecycle::count_rows::{AdoptionRow, CountName, CountRow, Metric};
pub use lifecycle::evaluation::Transition;
pub use lifecycle::key_metrics::KeyMetrics;
pub use lifecycle::policy::{GuardScope, LifecyclePolicy, Thresholds};
pub use lifecycle::records::{KeyRecord, Lifecycle};
pub use lifecycle::state::KeyState;
pub use review::{
    Denial, Evidence, HoldReason, MATERIAL_CHANGE, MAX_DENIALS, MAX_PENDING, PendingProposal,
    ReviewError,
};
pub use schema_patch::{PatchError, PatchScope, SchemaPatch};
pub use security::{DenySensitive, PatchAuthorizer};
pub use store::evaluation::Evaluation;
pub use store::review::APPROVED_BY_MEMBER;
pub use store::row_writes::{AdoptionName, DeliveredName, KnownRows, StoreWrites};
pub use store::rows::{
    DeliveredRow, KeyRow, PatchRow, PatchStatus, PendingRow, RowError, StoreRows,
};
pub use store::schema_store::SchemaStore;
pub use store::seal::{SealError, SealPin};
#[cfg(feature = "evolution")]
pub(crate) use store::snapshot::check_header;
pub use store::snapshot::{STORE_FORMAT_VERSION, SavedAs};
pub use store::submission::Submission;
