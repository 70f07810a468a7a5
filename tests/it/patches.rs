//! Schema patches, effective schemas, the key lifecycle and the store, with explicit `now`s.

use crate::common::{MIDNIGHT as T0, flight_message, key, pairs, patch};
use sdsi::key::Sensitivity;
use sdsi::patch::{
    DenySensitive, EffectiveSchema, KeyState, Lifecycle, LifecyclePolicy, PatchScope, SchemaPatch,
    Submission,
};
use sdsi::{IssueCode, KeyDefinition, KeyName, KeyType, SchemaStore, SchemaTemplate};
use serde_json::json;
use time::{Duration, OffsetDateTime};

fn base() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "from"},
            {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1,
             "semantic_description": "passengers"},
            {"key_name": "card_number", "key_type": "string", "required": false, "sensitive": "payment",
             "semantic_description": "card"}
        ]
    }))
    .unwrap()
}

fn refused(p: &SchemaPatch) -> Vec<(&'static str, String)> {
    let b = base();
    pairs(
        EffectiveSchema::new(&b)
            .patches([p])
            .compile(T0 + Duration::days(1))
            .unwrap_err()
            .errors(),
    )
}

#[test]
fn every_merge_refusal_has_its_code() {
    let mut p = patch("p", T0, 365, vec![key("origin", KeyType::Integer)]);
    assert_eq!(
        refused(&p),
        [("key_retype", "/new_keys/0/key_type".to_owned())]
    );

    p.new_keys = vec![key("other", KeyType::String)];
    assert_eq!(
        refused(&p),
        [("other_not_patchable", "/new_keys/0".to_owned())]
    );

    let mut required = key("seat", KeyType::String);
    required.required = true;
    p.new_keys = vec![required];
    assert_eq!(
        refused(&p),
        [("new_key_required", "/new_keys/0/required".to_owned())]
    );

    p.new_keys = vec![];
    p.modified_keys = vec![key("nonexistent", KeyType::String)];
    assert_eq!(
        refused(&p),
        [(
            "unknown_modified_key",
            "/modified_keys/0/key_name".to_owned()
        )]
    );

    p.modified_keys = vec![key("passenger_count", KeyType::Number)];
    assert_eq!(
        refused(&p),
        [("key_retype", "/modified_keys/0/key_type".to_owned())]
    );

    // Changing the default (1 → none) is more than a description refinement.
    p.modified_keys = vec![key("passenger_count", KeyType::Integer)];
    assert_eq!(
        refused(&p),
        [("modification_not_allowed", "/modified_keys/0".to_owned())]
    );

    p.modified_keys = vec![];
    p.parent_schema_id = "hotel_v1".into();
    assert_eq!(
        refused(&p),
        [("patch_parent_mismatch", "/parent_schema_id".to_owned())]
    );

    p.parent_schema_id = "flight_booking_v1".into();
    p.parent_digest = Some("sha256:0000".into());
    assert_eq!(
        refused(&p),
        [("parent_digest_mismatch", "/parent_digest".to_owned())]
    );
    p.parent_digest = Some(base().digest().unwrap());
    assert!(refused_ok(&p));

    let mut twin = patch("p", T0, 365, vec![key("seat", KeyType::String)]);
    twin.timestamp = p.timestamp;
    let b = base();
    let err = EffectiveSchema::new(&b)
        .patches([&p, &twin])
        .compile(T0 + Duration::days(1))
        .unwrap_err();
    assert_eq!(
        pairs(err.errors()),
        [("duplicate_patch_id", "/patch_id".to_owned())]
    );
}

fn refused_ok(p: &SchemaPatch) -> bool {
    let b = base();
    EffectiveSchema::new(&b)
        .patches([p])
        .compile(T0 + Duration::days(1))
        .is_ok()
}

#[test]
fn collisions_refine_descriptions_and_base_keys_survive() {
    let b = base();
    let mut refine = key("passenger_count", KeyType::Integer).with_default(json!(1));
    refine.semantic_description = "Number of travellers, 1-9".into();
    // Another default is not a refinement: refused, never silently reduced.
    let other_default = patch("q", T0, 365, vec![refine.clone().with_default(json!(2))]);
    assert_eq!(
        refused(&other_default),
        [("modification_not_allowed", "/new_keys/0".to_owned())]
    );
    let p = patch("p", T0, 365, vec![refine]);
    let schema = EffectiveSchema::new(&b).patches([&p]).compile(T0).unwrap();
    let merged = schema.template().key("passenger_count").unwrap();
    assert_eq!(merged.semantic_description, "Number of travellers, 1-9");
    assert_eq!(merged.effective_default(), Some(&json!(1)));
    assert!(!merged.is_experimental(), "a base key stays a base key");
    assert_eq!(schema.template().keys.len(), 3);
}

#[test]
fn patches_apply_from_timestamp_until_expiry() {
    let b = base();
    let p = patch("p", T0, 365, vec![key("seat", KeyType::String)]);
    let at = |t| EffectiveSchema::new(&b).patches([&p]).compile(t).unwrap();
    assert!(
        at(T0 - Duration::seconds(1))
            .template()
            .key("seat")
            .is_none()
    );
    assert!(at(T0).template().key("seat").unwrap().is_experimental());
    assert!(
        at(p.expires_at - Duration::seconds(1))
            .template()
            .key("seat")
            .is_some()
    );
    assert!(at(p.expires_at).template().key("seat").is_none());
    let late =
        at(p.expires_at).validate_owned(flight_message(json!({"origin": "PEK", "seat": "window"})));
    assert_eq!(late.errors()[0].code(), IssueCode::UnknownKey);
}

#[test]
fn client_patches_apply_to_that_client_only() {
    let b = base();
    let mut p = patch("p", T0, 365, vec![key("cabin_zone", KeyType::String)]);
    p.scope = PatchScope::Client("agent-7".into());
    let merge = || EffectiveSchema::new(&b).patches([&p]);
    assert!(
        merge()
            .client("agent-7")
            .compile(T0)
            .unwrap()
            .template()
            .key("cabin_zone")
            .is_some()
    );
    assert!(
        merge()
            .client("agent-8")
            .compile(T0)
            .unwrap()
            .template()
            .key("cabin_zone")
            .is_none()
    );
    assert!(
        merge()
            .compile(T0)
            .unwrap()
            .template()
            .key("cabin_zone")
            .is_none()
    );
}

#[test]
fn sensitive_changes_need_the_authorizer() {
    let b = base();
    let new_sensitive = patch(
        "p",
        T0,
        365,
        vec![key("passport_number", KeyType::String).with_sensitivity(Sensitivity::Identity)],
    );
    let err = EffectiveSchema::new(&b)
        .patches([&new_sensitive])
        .compile(T0)
        .unwrap_err();
    assert_eq!(
        pairs(err.errors()),
        [("unauthorized_sensitive_change", String::new())]
    );
    let allow =
        |_: &SchemaPatch, keys: &[KeyName]| keys.iter().all(|k| k.as_str() == "passport_number");
    assert!(
        EffectiveSchema::new(&b)
            .patches([&new_sensitive])
            .authorizer(&allow)
            .compile(T0)
            .is_ok()
    );

    // Refining the description of a key the base marks sensitive needs approval too.
    let mut refine = patch("q", T0, 365, vec![]);
    refine.modified_keys = vec![key("card_number", KeyType::String)];
    let err = EffectiveSchema::new(&b)
        .patches([&refine])
        .authorizer(&DenySensitive)
        .compile(T0)
        .unwrap_err();
    assert_eq!(
        err.errors()[0].code(),
        IssueCode::UnauthorizedSensitiveChange
    );
}

/// A store with one global key `seat` introduced at T0, and a second key
/// `meal` that nobody uses.
fn store_with_two_keys() -> SchemaStore {
    let mut store = SchemaStore::new(base(), LifecyclePolicy::default()).unwrap();
    let p = patch(
        "p1",
        T0,
        365,
        vec![key("seat", KeyType::String), key("meal", KeyType::String)],
    );
    assert_eq!(
        store.submit(p, T0, &DenySensitive).unwrap(),
        Submission::Applied
    );
    store
}

fn state_of(store: &SchemaStore, name: &str) -> KeyState {
    store
        .lifecycle()
        .records()
        .iter()
        .rev()
        .find(|r| r.key_name.as_str() == name)
        .unwrap()
        .state
}

#[test]
fn a_key_walks_its_whole_life_at_the_exact_edges() {
    let mut store = store_with_two_keys();
    // Day 0-6: 10 payloads a day, 3 use `seat` (30 % usage), all well typed; judged aligned.
    for day in 0..7 {
        let now = T0 + Duration::days(day) + Duration::hours(12);
        for i in 0..10 {
            let payload = if i < 3 {
                json!({"origin": "PEK", "seat": "window"})
            } else {
                json!({"origin": "PEK"})
            };
            store.record(&flight_message(payload), &format!("client-{i}"), now);
        }
        assert!(store.record_alignment(&PatchScope::Global, "seat", true, now));
    }
    let trial_end = T0 + Duration::days(7);
    assert!(
        store
            .evaluate(trial_end - Duration::seconds(1), &DenySensitive)
            .transitions
            .is_empty(),
        "still on trial"
    );
    let moves = store.evaluate(trial_end, &DenySensitive).transitions;
    let summary: Vec<_> = moves
        .iter()
        .map(|t| (t.key_name.as_str(), t.from, t.to, t.at))
        .collect();
    assert_eq!(
        summary,
        [
            ("seat", KeyState::Experimental, KeyState::Stable, trial_end),
            (
                "meal",
                KeyState::Experimental,
                KeyState::Deprecated,
                trial_end
            ),
        ]
    );
    let metrics = store
        .lifecycle()
        .metrics(&PatchScope::Global, "seat", trial_end)
        .unwrap();
    assert_eq!(metrics.usage_frequency, Some(0.3));
    assert_eq!(metrics.value_type_correctness, Some(1.0));

    // Stable: no flag; deprecated: flagged and warned.
    let schema = store.compile_for(None, trial_end).unwrap();
    assert!(!schema.template().key("seat").unwrap().is_experimental());
    assert!(schema.template().key("meal").unwrap().is_deprecated());
    let report = schema.validate_owned(flight_message(json!({"origin": "PEK", "meal": "vegan"})));
    assert!(report.is_valid());
    assert_eq!(report.warnings()[0].code(), IssueCode::DeprecatedKey);

    // Grace: 14 days after deprecation, to the second.
    let withdrawn_at = trial_end + Duration::days(14);
    assert!(
        store
            .evaluate(withdrawn_at - Duration::seconds(1), &DenySensitive)
            .transitions
            .is_empty()
    );
    assert_eq!(
        store.evaluate(withdrawn_at, &DenySensitive).transitions[0].to,
        KeyState::Withdrawn
    );
    let schema = store.compile_for(None, withdrawn_at).unwrap();
    assert!(
        schema.template().key("meal").is_none(),
        "withdrawn keys leave the schema"
    );
    let report = schema.validate_owned(flight_message(json!({"origin": "PEK", "meal": "vegan"})));
    assert!(report.is_valid());
    assert_eq!(report.warnings()[0].code(), IssueCode::WithdrawnKey);

    // Backward compatibility: 30 more days, then an unknown key.
    let gone_at = withdrawn_at + Duration::days(30);
    assert!(
        store
            .evaluate(gone_at - Duration::seconds(1), &DenySensitive)
            .transitions
            .is_empty()
    );
    assert_eq!(
        store.evaluate(gone_at, &DenySensitive).transitions[0].to,
        KeyState::Gone
    );
    let report = store
        .compile_for(None, gone_at)
        .unwrap()
        .validate_owned(flight_message(json!({"origin": "PEK", "meal": "vegan"})));
    assert_eq!(report.errors()[0].code(), IssueCode::UnknownKey);
    assert_eq!(state_of(&store, "seat"), KeyState::Stable);

    // The withdrawn name stays reserved for its type.
    let comeback = patch("p2", gone_at, 365, vec![key("meal", KeyType::Integer)]);
    let err = store.submit(comeback, gone_at, &DenySensitive).unwrap_err();
    assert_eq!(err.errors()[0].code(), IssueCode::ReservedKeyName);
    let same_type = patch("p3", gone_at, 365, vec![key("meal", KeyType::String)]);
    assert_eq!(
        store.submit(same_type, gone_at, &DenySensitive).unwrap(),
        Submission::Applied
    );
    assert!(
        store
            .compile_for(None, gone_at)
            .unwrap()
            .template()
            .key("meal")
            .unwrap()
            .is_experimental()
    );
}

#[test]
fn one_late_evaluation_gives_the_same_history_as_punctual_ones() {
    let mut late = store_with_two_keys();
    let mut punctual = store_with_two_keys();
    let end = T0 + Duration::days(60);
    let mut steps = Vec::new();
    let mut now = T0;
    while now <= end {
        steps.extend(punctual.evaluate(now, &DenySensitive).transitions);
        now += Duration::hours(6);
    }
    let at_once = late.evaluate(end, &DenySensitive).transitions;
    // Metric decisions are stamped `now`; the timed ones must agree exactly.
    let timed = |v: &[sdsi::patch::Transition]| {
        v.iter()
            .filter(|t| t.from >= KeyState::Deprecated)
            .map(|t| (t.key_name.clone(), t.to))
            .collect::<Vec<_>>()
    };
    assert_eq!(timed(&at_once), timed(&steps));
    assert_eq!(state_of(&late, "meal"), state_of(&punctual, "meal"));
}

#[test]
fn an_undecided_key_is_deprecated_after_a_whole_window() {
    let mut store = store_with_two_keys();
    // 10 % usage and no alignment judgments: neither promoted nor deprecated at trial end.
    for day in 0..45 {
        let now = T0 + Duration::days(day);
        for i in 0..10 {
            let payload = if i == 0 {
                json!({"origin": "PEK", "seat": "w"})
            } else {
                json!({"origin": "PEK"})
            };
            store.record(&flight_message(payload), "c", now);
        }
        store.evaluate(now, &DenySensitive);
    }
    let record = store
        .lifecycle()
        .records()
        .iter()
        .find(|r| r.key_name.as_str() == "seat")
        .unwrap();
    assert_eq!(record.state, KeyState::Withdrawn);
    assert_eq!(
        record.state_since,
        T0 + Duration::days(30) + Duration::days(14)
    );
}

#[test]
fn the_convergence_guard_queues_fifo_and_releases_as_keys_leave_trial() {
    let mut policy = LifecyclePolicy::default();
    policy.max_experimental = 2;
    let mut store = SchemaStore::new(base(), policy).unwrap();
    let submit = |store: &mut SchemaStore, id: &str, name: &str| {
        store
            .submit(
                patch(id, T0, 365, vec![key(name, KeyType::String)]),
                T0,
                &DenySensitive,
            )
            .unwrap()
    };
    assert_eq!(submit(&mut store, "a", "k_a"), Submission::Applied);
    assert_eq!(submit(&mut store, "b", "k_b"), Submission::Applied);
    assert_eq!(
        submit(&mut store, "c", "k_c"),
        Submission::Queued { ahead: 0 }
    );
    assert_eq!(
        submit(&mut store, "d", "k_d"),
        Submission::Queued { ahead: 1 }
    );
    assert!(
        store
            .compile_for(None, T0)
            .unwrap()
            .template()
            .key("k_c")
            .is_none()
    );
    // A patch too big for the guard can never apply: refused outright.
    let many: Vec<_> = (0..3)
        .map(|i| key(&format!("x{i}"), KeyType::String))
        .collect();
    let err = store
        .submit(patch("big", T0, 365, many), T0, &DenySensitive)
        .unwrap_err();
    assert_eq!(err.errors()[0].code(), IssueCode::LimitExceeded);

    // Traffic that never uses the trial keys: 0 % usage deprecates both at
    // trial end, freeing two places.
    store.record(
        &flight_message(json!({"origin": "PEK"})),
        "c",
        T0 + Duration::days(1),
    );
    let evaluation = store.evaluate(T0 + Duration::days(7), &DenySensitive);
    assert_eq!(evaluation.released, ["c", "d"]);
    assert_eq!(
        store
            .lifecycle()
            .experimental_count(&PatchScope::Global, T0 + Duration::days(7)),
        2
    );
    assert_eq!(store.queued().count(), 0);
}

#[test]
fn suggestions_tell_each_client_only_what_is_new() {
    let mut store = store_with_two_keys();
    let first = store.suggestion_for("agent-1", T0).unwrap().unwrap();
    let names: Vec<_> = first
        .new_keys()
        .iter()
        .map(|k| k.key_name.as_str())
        .collect();
    assert_eq!(names, ["seat", "meal"]);
    assert!(first.new_keys().iter().all(KeyDefinition::is_experimental));
    assert!(
        store.suggestion_for("agent-1", T0).unwrap().is_none(),
        "nothing new the second time"
    );
    assert!(
        store.suggestion_for("agent-2", T0).unwrap().is_some(),
        "another client is told separately"
    );

    // A refinement reaches agent-1 as a modified key.
    let mut refine = patch("r", T0 + Duration::days(1), 365, vec![]);
    refine.modified_keys = vec![KeyDefinition::new(
        KeyName::new("seat").unwrap(),
        KeyType::String,
        false,
        "window, aisle or none",
    )];
    store
        .submit(refine, T0 + Duration::days(1), &DenySensitive)
        .unwrap();
    let second = store
        .suggestion_for("agent-1", T0 + Duration::days(1))
        .unwrap()
        .unwrap();
    assert!(second.new_keys().is_empty());
    assert_eq!(
        second.modified_keys()[0].semantic_description,
        "window, aisle or none"
    );

    // Adoption: agent-1 sends the key, agent-2 does not.
    store.record(
        &flight_message(json!({"origin": "PEK", "seat": "window"})),
        "agent-1",
        T0 + Duration::days(1),
    );
    let m = store
        .lifecycle()
        .metrics(&PatchScope::Global, "seat", T0 + Duration::days(1))
        .unwrap();
    assert_eq!(m.client_adoption_rate, Some(0.5));
}

#[test]
fn digests_change_exactly_when_the_schema_does() {
    let mut store = store_with_two_keys();
    let d0 = store.digest_for(None, T0).unwrap();
    assert_eq!(d0, store.digest_for(None, T0 + Duration::days(1)).unwrap());
    assert_eq!(d0, store.compile_for(None, T0).unwrap().digest().unwrap());
    assert_ne!(d0, base().digest().unwrap());
    store.record(&flight_message(json!({"origin": "PEK"})), "c", T0);
    store.evaluate(T0 + Duration::days(7), &DenySensitive); // unused keys deprecated: flags change
    assert_ne!(d0, store.digest_for(None, T0 + Duration::days(7)).unwrap());
}

#[test]
fn clocks_going_backwards_change_nothing() {
    // Two stores see the same traffic; one also sees a clock that went back:
    // an evaluation and a message stamped 400 days before the first patch.
    let mut store = store_with_two_keys();
    let mut twin = store_with_two_keys();
    for s in [&mut store, &mut twin] {
        s.record(
            &flight_message(json!({"seat": "x"})),
            "c",
            T0 + Duration::days(1),
        );
        s.evaluate(T0 + Duration::days(7), &DenySensitive);
    }
    let before: Vec<_> = store.lifecycle().records().to_vec();
    let back = T0 - Duration::days(400);
    assert!(store.evaluate(back, &DenySensitive).transitions.is_empty());
    assert_eq!(store.lifecycle().records(), before.as_slice());
    store.record(&flight_message(json!({"seat": 7, "meal": "x"})), "c", back);
    // Whatever the late message did, it is outside every window now: the
    // metrics and every later move are those of the twin.
    for day in [8, 20, 45, 100] {
        let now = T0 + Duration::days(day);
        for name in ["seat", "meal"] {
            assert_eq!(
                store.lifecycle().metrics(&PatchScope::Global, name, now),
                twin.lifecycle().metrics(&PatchScope::Global, name, now),
                "{name} at day {day}"
            );
        }
        assert_eq!(
            store.evaluate(now, &DenySensitive).transitions,
            twin.evaluate(now, &DenySensitive).transitions,
            "day {day}"
        );
    }
}

#[test]
fn extreme_policies_do_not_panic() {
    let mut policy = LifecyclePolicy::default();
    policy.trial = Duration::MAX;
    policy.grace = Duration::MIN;
    policy.observation_window = Duration::ZERO;
    let mut lifecycle = Lifecycle::new(policy);
    lifecycle.track(&patch("p", T0, 365, vec![key("seat", KeyType::String)]), T0);
    lifecycle.record_payload(
        json!({"seat": "w"}).as_object().unwrap(),
        "c",
        OffsetDateTime::UNIX_EPOCH,
    );
    // The trial never ends, so the key is never judged on its metrics; a
    // zero window leaves it undecided at once (deprecated), and a grace of
    // `Duration::MIN` never ends.
    let moves = lifecycle.evaluate(T0 + Duration::days(10_000));
    let states: Vec<KeyState> = moves.iter().map(|t| t.to).collect();
    assert_eq!(states, [KeyState::Deprecated]);
}
