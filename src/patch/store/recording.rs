//! What feeds the store's lifecycle metrics from clients: the messages they
//! send and the judgments of their values, refused while `now` lies too far
//! past the last evaluation.

use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::schema_store::SchemaStore;
use crate::key::KeyName;
use crate::patch::lifecycle::records::KeyRecord;
use crate::patch::lifecycle::state::KeyState;
use crate::patch::schema_patch::PatchScope;

impl SchemaStore {
    /// Feeds the lifecycle's metrics from one received message
    /// `{"schema_id", "payload"}` (valid or not): O(keys in the payload).
    /// Ignored when `now` lies more than
    /// [`LifecyclePolicy::max_clock_jump`] past the last evaluation.
    ///
    /// [`LifecyclePolicy::max_clock_jump`]: crate::patch::LifecyclePolicy::max_clock_jump
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

    /// The scope whose record counts `client`'s use of `name`: its personal
    /// key while that is not gone, else the global one (a gone personal key
    /// keeps no clients, and no longer hides the global key of that name).
    pub(super) fn scope_of(&self, client: &str, name: &KeyName) -> PatchScope {
        let personal = PatchScope::Client(client.to_owned());
        let live = |r: &KeyRecord| r.state < KeyState::Gone;
        if self
            .lifecycle
            .record(&personal, name.as_str())
            .is_some_and(live)
        {
            personal
        } else {
            PatchScope::Global
        }
    }
}
