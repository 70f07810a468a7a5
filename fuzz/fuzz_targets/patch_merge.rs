//! Arbitrary patch documents merged onto the draft's flight template
//! (Figure 2): parsing, the merge rules, and the store never panic, and the
//! merge's invariants hold; the store's snapshot restores to the same state,
//! and the input itself read as a snapshot never panics.
//!
//! Input layout: `[selector] patch \0 patch \0 …`. The selector picks the
//! client and the evaluation times; each chunk is one patch document.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use sdsi::patch::{DenySensitive, EffectiveSchema, LifecyclePolicy, SchemaPatch};
use sdsi::{SchemaStore, SchemaTemplate};
use sdsi_fuzz::check;
use serde_json::Value;
use time::{Duration, OffsetDateTime};

const FIGURE_2: &str = include_str!("../templates/flight_booking_v1.json");
static BASE: LazyLock<SchemaTemplate> =
    LazyLock::new(|| SchemaTemplate::from_json(FIGURE_2).expect("Figure 2 parses"));
const T0: i64 = 1_777_593_600; // 2026-05-01T00:00:00Z

/// The merge's outcome as comparable data: the effective template, or the codes.
fn outcome(
    patches: &[&SchemaPatch],
    client: Option<&str>,
    now: OffsetDateTime,
) -> Result<Value, Vec<String>> {
    let mut merge = EffectiveSchema::new(&BASE).patches(patches.iter().copied());
    if let Some(client) = client {
        merge = merge.client(client);
    }
    match merge.compile(now) {
        Ok(schema) => {
            for key in &BASE.keys {
                let merged = schema.template().key(key.key_name.as_str());
                check!(
                    "base-key-kept",
                    merged.is_some(),
                    "base key {} vanished",
                    key.key_name
                );
                if let Some(merged) = merged {
                    check!(
                        "base-key-kept",
                        merged.key_type == key.key_type
                            && merged.required == key.required
                            && merged.effective_default() == key.effective_default(),
                        "base key {} changed",
                        key.key_name
                    );
                }
            }
            Ok(serde_json::to_value(schema.template()).unwrap_or(Value::Null))
        }
        Err(error) => {
            check!(
                "refusal-has-reason",
                !error.errors().is_empty(),
                "a refusal without a reason"
            );
            Err(error
                .errors()
                .iter()
                .map(|i| format!("{} {}", i.code(), i.path()))
                .collect())
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let mut patches = Vec::new();
    for chunk in rest.split(|&b| b == 0).take(8) {
        match SchemaPatch::from_slice(chunk) {
            Ok(patch) => {
                let text = serde_json::to_vec(&patch).unwrap_or_default();
                let again = SchemaPatch::from_slice(&text);
                check!(
                    "patch-roundtrip",
                    again.as_ref() == Ok(&patch),
                    "patch round trip: {again:?}"
                );
                patches.push(patch);
            }
            Err(error) => {
                check!(
                    "patch-error-has-reason",
                    !error.errors().is_empty(),
                    "a patch error without a reason"
                );
            }
        }
    }
    let client = (selector & 1 == 1).then_some("agent-7");
    let now = OffsetDateTime::from_unix_timestamp(T0 + i64::from(selector >> 1) * 86_400)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let refs: Vec<&SchemaPatch> = patches.iter().collect();
    let first = outcome(&refs, client, now);
    check!(
        "merge-deterministic",
        first == outcome(&refs, client, now),
        "two merges differ"
    );
    let reversed: Vec<&SchemaPatch> = refs.iter().rev().copied().collect();
    check!(
        "merge-order-free",
        first == outcome(&reversed, client, now),
        "input order changed the merge"
    );
    let twice: Vec<&SchemaPatch> = refs.iter().chain(refs.iter()).copied().collect();
    check!(
        "merge-idempotent",
        first == outcome(&twice, client, now),
        "a patch given twice changed the merge"
    );

    // The store: submit, evaluate through a month, compile, suggest.
    let Ok(mut store) = SchemaStore::new(BASE.clone(), LifecyclePolicy::default()) else {
        return;
    };
    for patch in patches {
        let _ = store.submit(patch, now, &DenySensitive);
    }
    for day in 0..40 {
        let at = now + Duration::days(day);
        let evaluation = store.evaluate(at, &DenySensitive);
        for t in &evaluation.transitions {
            check!(
                "lifecycle-forward",
                t.to > t.from,
                "{:?} -> {:?}",
                t.from,
                t.to
            );
        }
        let compiled = store.compile_for(client, at);
        check!(
            "store-compiles",
            compiled.is_ok(),
            "accepted patches stopped merging: {compiled:?}"
        );
        let _ = store.suggestion_for("agent-7", at);
    }

    // Snapshot → restore: the same state (or a typed serialization error:
    // patches dated outside years 0-9999 have no RFC 3339 form). Only for a
    // store that took a patch: an empty one is the base alone, and the
    // round trip would cost more than the rest of the input.
    let took_a_patch = store.patches().next().is_some() || store.queued().next().is_some();
    if let (true, Ok(bytes)) = (took_a_patch, serde_json::to_vec(&store)) {
        let restored = serde_json::from_slice::<SchemaStore>(&bytes);
        check!(
            "store-snapshot",
            restored.as_ref().is_ok_and(|r| {
                serde_json::to_value(r).ok() == serde_json::to_value(&store).ok()
            }),
            "snapshot did not restore: {:?}",
            restored.err()
        );
    }
    // Any bytes as a snapshot: an error or a store, never a panic.
    let _ = serde_json::from_slice::<SchemaStore>(data);
});
