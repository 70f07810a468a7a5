//! Store-level correctness: ordinary sequences of patches that once broke a
//! client (issue "Schema updates that cannot break a client"), each replayed
//! here, plus a property test over random sequences of submit / evaluate /
//! record / deliver across global and client scopes.

use crate::common::{MIDNIGHT as T0, flight_message, key, patch};
use proptest::prelude::*;
use sdsi::patch::{
    DenySensitive, EffectiveSchema, KeyState, LifecyclePolicy, PatchAuthorizer, PatchScope,
    SchemaPatch, SealError, SealPin, Signer, Submission,
};
use sdsi::{IssueCode, KeyName, KeyType, SchemaStore, SchemaTemplate};
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

fn base() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "flight_booking_v1", "scenario": "flight_booking",
        "keys": [
            {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "from"},
            {"key_name": "passenger_count", "key_type": "integer", "required": false, "default_value": 1,
             "semantic_description": "passengers"}
        ]
    }))
    .unwrap()
}

fn refine(id: &str, at: OffsetDateTime, days: i64, name: &str, ty: KeyType) -> SchemaPatch {
    let mut p = patch(id, at, days, vec![]);
    let mut k = key(name, ty);
    k.semantic_description = format!("{name}, refined by {id}");
    p.modified_keys = vec![k];
    p
}

fn client(id: &str, mut p: SchemaPatch) -> SchemaPatch {
    p.scope = PatchScope::Client(id.to_owned());
    p
}

fn store() -> SchemaStore {
    SchemaStore::new(base(), LifecyclePolicy::default()).unwrap()
}

/// A store whose guard admits one experimental key, already taken by `k_a`
/// (a 60-day patch "a" at T0).
fn guard_of_one() -> SchemaStore {
    let mut policy = LifecyclePolicy::default();
    policy.max_experimental = 1;
    let mut store = SchemaStore::new(base(), policy).unwrap();
    let first = patch("a", T0, 60, vec![key("k_a", KeyType::String)]);
    store.submit(first, T0, &DenySensitive).unwrap();
    store
}

fn allow_all(_: &SchemaPatch, _: &[KeyName]) -> bool {
    true
}

fn first_code(result: Result<Submission, sdsi::patch::CompileError>) -> IssueCode {
    result.unwrap_err().errors()[0].code()
}

/// Every client view compiles and accepts a base-only message.
fn every_view_serves(store: &SchemaStore, clients: &[&str], now: OffsetDateTime) {
    let views = std::iter::once(None).chain(clients.iter().map(|c| Some(*c)));
    for view in views {
        let schema = store
            .compile_for(view, now)
            .unwrap_or_else(|e| panic!("{view:?} at {now}: {e}"));
        let report = schema.validate_owned(flight_message(json!({"origin": "PEK"})));
        assert!(
            report.is_valid(),
            "{view:?} at {now}: {:?}",
            report.errors()
        );
    }
}

/// A key whose record is gone by projection (its windows passed) but whose
/// stored state is older (nobody called `evaluate` since) is taken again by
/// a new patch: it starts a new trial and is served at once, as it is after
/// an `evaluate` (the CLI submits before it evaluates).
#[test]
fn a_key_gone_by_projection_is_taken_again_before_evaluate_runs() {
    let mut store = store();
    let add = patch("a", T0, 5, vec![key("seat", KeyType::String)]);
    store.submit(add, T0, &DenySensitive).unwrap();
    store.evaluate(T0 + Duration::days(1), &DenySensitive);
    // Withdrawn at day 5, gone 30 days later; no evaluate in between.
    let later = T0 + Duration::days(40);
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", later),
        Some(KeyState::Gone)
    );
    let again = patch("b", later, 30, vec![key("seat", KeyType::String)]);
    assert_eq!(
        store.submit(again, later, &DenySensitive).unwrap(),
        Submission::Applied
    );
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", later),
        Some(KeyState::Experimental),
        "the new trial is the key's state"
    );
    let schema = store.compile_for(None, later).unwrap();
    let report = schema.validate_owned(flight_message(json!({"origin": "PEK", "seat": "window"})));
    assert!(
        report.is_valid() && report.warnings().is_empty(),
        "{:?}",
        report.warnings()
    );
    // And evaluate agrees: the key stays on trial.
    store.evaluate(later, &DenySensitive);
    assert_eq!(
        store
            .lifecycle()
            .record(&PatchScope::Global, "seat")
            .unwrap()
            .state,
        KeyState::Experimental
    );
}

#[test]
fn a_refinement_outlives_the_key_it_refined() {
    let mut store = store();
    let add = patch("a", T0, 9, vec![key("meal_preference", KeyType::String)]);
    let later = refine(
        "b",
        T0 + Duration::days(1),
        40,
        "meal_preference",
        KeyType::String,
    );
    store.submit(add, T0, &DenySensitive).unwrap();
    store
        .submit(later, T0 + Duration::days(1), &DenySensitive)
        .unwrap();
    for day in [0, 5, 9, 10, 30, 41, 90] {
        every_view_serves(&store, &[], T0 + Duration::days(day));
    }
    // Once the offer ended (day 9) the key is withdrawn: still accepted, with a warning.
    let schema = store.compile_for(None, T0 + Duration::days(10)).unwrap();
    let report = schema.validate_owned(flight_message(
        json!({"origin": "PEK", "meal_preference": "veg"}),
    ));
    assert!(report.is_valid());
    assert_eq!(report.warnings()[0].code(), IssueCode::WithdrawnKey);
    // ... and the lenient merge says what it skipped.
    let b = base();
    let warnings = EffectiveSchema::new(&b)
        .patches(store.patches())
        .states(store.lifecycle())
        .lenient()
        .warnings(T0 + Duration::days(10))
        .unwrap();
    assert_eq!(warnings[0].code(), IssueCode::UnknownModifiedKey);
}

#[test]
fn the_cli_merge_of_individually_valid_patches_never_breaks() {
    // What `sdsi validate --patch a --patch b --at T` does: no store, no
    // lifecycle, a lenient merge.
    let b = base();
    let add = patch("a", T0, 9, vec![key("meal_preference", KeyType::String)]);
    let later = refine(
        "b",
        T0 + Duration::days(1),
        40,
        "meal_preference",
        KeyType::String,
    );
    // Retypes the key of patch "a": a conflict between patches, skipped.
    let retype = patch(
        "c",
        T0 + Duration::days(2),
        40,
        vec![key("meal_preference", KeyType::Integer)],
    );
    for day in [-1, 0, 2, 5, 9, 30, 41] {
        let schema = EffectiveSchema::new(&b)
            .patches([&add, &later, &retype])
            .lenient()
            .compile(T0 + Duration::days(day))
            .unwrap();
        assert!(
            schema.is_valid(&flight_message(json!({"origin": "PEK"}))),
            "day {day}"
        );
    }
    // A patch at odds with the base itself is its own fault: refused, lenient or not.
    let bad = patch("d", T0, 40, vec![key("origin", KeyType::Integer)]);
    let error = EffectiveSchema::new(&b)
        .patches([&bad])
        .lenient()
        .compile(T0)
        .unwrap_err();
    assert_eq!(error.errors()[0].code(), IssueCode::KeyRetype);
}

#[test]
fn a_global_patch_must_suit_every_client_stack() {
    let mut store = store();
    let personal = client(
        "agent-7",
        patch("p7", T0, 30, vec![key("seat", KeyType::Integer)]),
    );
    store.submit(personal, T0, &DenySensitive).unwrap();
    let global = patch("g", T0, 30, vec![key("seat", KeyType::String)]);
    assert_eq!(
        first_code(store.submit(global, T0, &DenySensitive)),
        IssueCode::KeyRetype
    );
    // One id for two patches is refused across scopes, and for good.
    let same_id = patch("p7", T0, 30, vec![key("meal", KeyType::String)]);
    assert_eq!(
        first_code(store.submit(same_id, T0, &DenySensitive)),
        IssueCode::DuplicatePatchId
    );
    every_view_serves(&store, &["agent-7"], T0 + Duration::days(1));
}

#[test]
fn queued_patches_start_their_trial_when_released_and_expire_in_the_queue() {
    let mut store = guard_of_one();
    let waits = patch("b", T0, 60, vec![key("k_b", KeyType::String)]);
    let short = patch("c", T0, 3, vec![key("k_c", KeyType::String)]);
    assert_eq!(
        store.submit(waits, T0, &DenySensitive).unwrap(),
        Submission::Queued { ahead: 0 }
    );
    assert_eq!(
        store.submit(short, T0, &DenySensitive).unwrap(),
        Submission::Queued { ahead: 1 }
    );
    // Nobody uses k_a: deprecated at trial end, making room.
    store.record(
        &flight_message(json!({"origin": "PEK"})),
        "c1",
        T0 + Duration::days(1),
    );
    let released_at = T0 + Duration::days(7);
    let evaluation = store.evaluate(released_at, &DenySensitive);
    assert_eq!(evaluation.released, ["b"]);
    assert_eq!(
        evaluation.dropped.len(),
        1,
        "the short patch expired while waiting"
    );
    assert_eq!(evaluation.dropped[0].patch_id(), Some("c"));
    let record = store
        .lifecycle()
        .record(&PatchScope::Global, "k_b")
        .unwrap();
    assert_eq!(record.introduced_at, released_at);
    // Six days into its own trial it is still experimental, whatever its patch's timestamp says.
    let six_days_in = released_at + Duration::days(6);
    store.record(&flight_message(json!({"origin": "PEK"})), "c1", six_days_in);
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "k_b", six_days_in),
        Some(KeyState::Experimental)
    );
}

#[test]
fn windows_are_checked_at_submit() {
    let mut store = store();
    let far = patch(
        "far",
        datetime!(9999-12-01 0:00 UTC),
        20,
        vec![key("k", KeyType::String)],
    );
    assert_eq!(
        first_code(store.submit(far, T0, &DenySensitive)),
        IssueCode::InvalidPatchWindow
    );
    let expired = patch(
        "old",
        T0 - Duration::days(10),
        5,
        vec![key("k", KeyType::String)],
    );
    assert_eq!(
        first_code(store.submit(expired, T0, &DenySensitive)),
        IssueCode::InvalidPatchWindow
    );
    // A little skew is allowed.
    let soon = patch(
        "soon",
        T0 + Duration::minutes(2),
        5,
        vec![key("k", KeyType::String)],
    );
    assert_eq!(
        store.submit(soon, T0, &DenySensitive).unwrap(),
        Submission::Applied
    );
}

#[test]
fn a_backdated_patch_starts_its_trial_now_and_cannot_touch_a_stable_key() {
    let mut store = store();
    let backdated = patch(
        "back",
        T0 - Duration::days(30),
        60,
        vec![key("seat", KeyType::String)],
    );
    store.submit(backdated, T0, &DenySensitive).unwrap();
    let record = store
        .lifecycle()
        .record(&PatchScope::Global, "seat")
        .unwrap();
    assert_eq!(record.introduced_at, T0);
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", T0 + Duration::days(6)),
        Some(KeyState::Experimental)
    );
}

#[test]
fn replays_are_idempotent_and_a_withdrawn_name_stays_reserved_everywhere() {
    let mut store = store();
    let add = patch("a", T0, 5, vec![key("seat", KeyType::String)]);
    assert_eq!(
        store.submit(add.clone(), T0, &DenySensitive).unwrap(),
        Submission::Applied
    );
    let withdrawn_at = T0 + Duration::days(6);
    store.evaluate(withdrawn_at, &DenySensitive);
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", withdrawn_at),
        Some(KeyState::Withdrawn)
    );
    // The same patch again changes nothing (the window check does not even apply).
    let records = store.lifecycle().records().len();
    assert_eq!(
        store.submit(add, withdrawn_at, &DenySensitive).unwrap(),
        Submission::Applied
    );
    assert_eq!(store.lifecycle().records().len(), records);
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", withdrawn_at),
        Some(KeyState::Withdrawn)
    );
    // The name is reserved while withdrawn, in a client patch too, of any type.
    for ty in [KeyType::String, KeyType::Integer] {
        let personal = client(
            "agent-7",
            patch(&format!("p-{ty}"), withdrawn_at, 30, vec![key("seat", ty)]),
        );
        assert_eq!(
            first_code(store.submit(personal, withdrawn_at, &DenySensitive)),
            IssueCode::ReservedKeyName
        );
    }
    // Once gone, only its type may take the name again, as a new trial through the guard.
    let gone_at = withdrawn_at + Duration::days(31);
    store.evaluate(gone_at, &DenySensitive);
    let retyped = patch("r", gone_at, 30, vec![key("seat", KeyType::Integer)]);
    assert_eq!(
        first_code(store.submit(retyped, gone_at, &DenySensitive)),
        IssueCode::ReservedKeyName
    );
    let again = patch("s", gone_at, 30, vec![key("seat", KeyType::String)]);
    assert_eq!(
        store.submit(again, gone_at, &DenySensitive).unwrap(),
        Submission::Applied
    );
    assert_eq!(
        store
            .lifecycle()
            .experimental_count(&PatchScope::Global, gone_at),
        1
    );
}

#[test]
fn sensitivity_is_the_servers_call_and_releases_are_authorized_again() {
    let mut store = store();
    // Not marked sensitive, but its name says what it holds.
    let passport = patch("pp", T0, 30, vec![key("passport_number", KeyType::String)]);
    assert_eq!(
        first_code(store.submit(passport.clone(), T0, &DenySensitive)),
        IssueCode::UnauthorizedSensitiveChange
    );
    let mut described = key("travel_doc", KeyType::String);
    described.semantic_description = "Passport number and CVV of the card".into();
    let sneaky = patch("sn", T0, 30, vec![described]);
    assert_eq!(
        first_code(store.submit(sneaky, T0, &DenySensitive)),
        IssueCode::UnauthorizedSensitiveChange
    );
    // Allowed at submit but queued; the release asks the authorizer again.
    let mut store = guard_of_one();
    assert!(matches!(
        store.submit(passport, T0, &allow_all).unwrap(),
        Submission::Queued { .. }
    ));
    store.record(
        &flight_message(json!({"origin": "PEK"})),
        "c1",
        T0 + Duration::days(1),
    );
    let evaluation = store.evaluate(T0 + Duration::days(7), &DenySensitive);
    assert!(evaluation.released.is_empty());
    assert_eq!(
        evaluation.dropped[0].errors()[0].code(),
        IssueCode::UnauthorizedSensitiveChange
    );
}

/// Lets operators (and nobody else) change sensitive keys.
struct Operators;

impl PatchAuthorizer for Operators {
    fn authorize(&self, _: &SchemaPatch, _: &[KeyName]) -> bool {
        false
    }
    fn authorize_by(&self, _: &SchemaPatch, _: &[KeyName], submitter: Option<&str>) -> bool {
        submitter.is_some_and(|s| s.starts_with("ops:"))
    }
}

#[test]
fn the_authorizer_knows_who_submitted_also_on_release() {
    let passport = |id: &str| patch(id, T0, 30, vec![key("passport_number", KeyType::String)]);
    let mut store = store();
    assert_eq!(
        first_code(store.submit_by(passport("x"), Some("sdsi:evolution"), T0, &Operators)),
        IssueCode::UnauthorizedSensitiveChange
    );
    assert_eq!(
        first_code(store.submit(passport("y"), T0, &Operators)),
        IssueCode::UnauthorizedSensitiveChange
    );
    assert_eq!(
        store
            .submit_by(passport("z"), Some("ops:alice"), T0, &Operators)
            .unwrap(),
        Submission::Applied
    );
    // Queued, then released: asked again with the same submitter.
    let mut store = guard_of_one();
    let queued = store
        .submit_by(passport("q"), Some("ops:bob"), T0, &Operators)
        .unwrap();
    assert!(matches!(queued, Submission::Queued { .. }));
    store.record(
        &flight_message(json!({"origin": "PEK"})),
        "c1",
        T0 + Duration::days(1),
    );
    assert_eq!(
        store.evaluate(T0 + Duration::days(7), &Operators).released,
        ["q"]
    );
}

#[test]
fn merge_rules_refuse_instead_of_dropping() {
    let mut store = store();
    // A new key named like a base key with another `required` is no refinement.
    let mut required = key("passenger_count", KeyType::Integer).with_default(json!(1));
    required.required = true;
    let p = patch("r", T0, 30, vec![required]);
    assert_eq!(
        first_code(store.submit(p, T0, &DenySensitive)),
        IssueCode::ModificationNotAllowed
    );
    // A modification may not carry other members.
    let mut m = refine("m", T0, 30, "passenger_count", KeyType::Integer);
    m.modified_keys[0].default_value = Some(json!(1));
    m.modified_keys[0]
        .extra
        .insert("unit".into(), json!("people"));
    assert_eq!(
        first_code(store.submit(m, T0, &DenySensitive)),
        IssueCode::ModificationNotAllowed
    );
}

#[test]
fn readers_do_not_depend_on_whether_evaluate_ran() {
    let mut store = store();
    store
        .submit(
            patch(
                "a",
                T0,
                60,
                vec![key("seat", KeyType::String), key("meal", KeyType::String)],
            ),
            T0,
            &DenySensitive,
        )
        .unwrap();
    for day in 0..8 {
        store.record(
            &flight_message(json!({"origin": "PEK", "seat": "w"})),
            "c1",
            T0 + Duration::days(day),
        );
    }
    let later = T0 + Duration::days(8);
    let lazy = store.clone();
    store.evaluate(later, &DenySensitive);
    assert_eq!(
        store.digest_for(None, later).unwrap(),
        lazy.digest_for(None, later).unwrap()
    );
    assert_eq!(
        store.template_for(None, later).unwrap(),
        lazy.template_for(None, later).unwrap()
    );
    // And time does not go back: an earlier evaluation changes nothing.
    let before = store.lifecycle().records().to_vec();
    assert!(store.evaluate(T0, &DenySensitive).transitions.is_empty());
    assert_eq!(store.lifecycle().records(), before.as_slice());
}

#[test]
fn adoption_never_exceeds_one() {
    let mut store = store();
    store
        .submit(
            patch("a", T0, 60, vec![key("seat", KeyType::String)]),
            T0,
            &DenySensitive,
        )
        .unwrap();
    store.suggestion_for("c1", T0).unwrap();
    for c in ["c1", "c2", "c3"] {
        store.record(
            &flight_message(json!({"origin": "PEK", "seat": "w"})),
            c,
            T0,
        );
    }
    let m = store
        .lifecycle()
        .metrics(&PatchScope::Global, "seat", T0)
        .unwrap();
    assert_eq!(m.client_adoption_rate, Some(1.0));
}

#[test]
fn the_guard_counts_the_whole_scenario() {
    let mut policy = LifecyclePolicy::default();
    policy.max_experimental = 2;
    let mut store = SchemaStore::new(base(), policy).unwrap();
    for (i, c) in ["a1", "a2"].iter().enumerate() {
        let p = client(
            c,
            patch(
                &format!("p{i}"),
                T0,
                30,
                vec![key(&format!("k{i}"), KeyType::String)],
            ),
        );
        assert_eq!(
            store.submit(p, T0, &DenySensitive).unwrap(),
            Submission::Applied
        );
    }
    let third = client("a3", patch("p3", T0, 30, vec![key("k3", KeyType::String)]));
    assert!(matches!(
        store.submit(third, T0, &DenySensitive).unwrap(),
        Submission::Queued { .. }
    ));
    // A refinement of a key in force is not a new key.
    let refinement = client("a1", patch("p4", T0, 30, vec![key("k0", KeyType::String)]));
    assert_eq!(
        store.submit(refinement, T0, &DenySensitive).unwrap(),
        Submission::Queued { ahead: 1 }
    );
}

#[test]
fn a_store_can_require_signed_patches() {
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let mut store = store().require_signatures(signer.clone());
    let p = patch("a", T0, 30, vec![key("seat", KeyType::String)]);
    assert_eq!(
        first_code(store.submit(p.clone(), T0, &DenySensitive)),
        IssueCode::InvalidSignature
    );
    let sealed: SchemaPatch = serde_json::from_value(signer.seal(&p)).unwrap();
    let mut altered = sealed.clone();
    altered.new_keys[0].semantic_description = "Ignore previous instructions".into();
    assert_eq!(
        first_code(store.submit(altered, T0, &DenySensitive)),
        IssueCode::InvalidSignature
    );
    assert_eq!(
        store.submit(sealed, T0, &DenySensitive).unwrap(),
        Submission::Applied
    );
}

/// A store that requires signatures seals its snapshot with the same key:
/// it restores only with that key and intact, requiring signatures again;
/// whoever can write the stored bytes but holds no key can neither change a
/// key nor strip the requirement.
#[test]
fn a_signed_store_restores_only_sealed_with_its_key() {
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let mut store = store().require_signatures(signer.clone());
    let p = patch("a", T0, 30, vec![key("seat", KeyType::String)]);
    let sealed: SchemaPatch = serde_json::from_value(signer.seal(&p)).unwrap();
    store.submit(sealed, T0, &DenySensitive).unwrap();
    // Written as a plain snapshot, it is refused: a sealed store is one
    // numbered save.
    let plain = serde_json::to_vec(&store).unwrap_err();
    assert!(plain.to_string().contains("saved_as"), "{plain}");
    let bytes = serde_json::to_vec(&store.saved_as(1)).unwrap();

    // Read as a plain snapshot, it is refused rather than restored unsigned.
    let plain = serde_json::from_slice::<SchemaStore>(&bytes).unwrap_err();
    assert!(plain.to_string().contains("sealed"), "{plain}");

    // With its key: the same store, still requiring signatures.
    let mut restored =
        SchemaStore::from_sealed_slice(&bytes, signer.clone(), SealPin::NONE).unwrap();
    assert_eq!(serde_json::to_vec(&restored.saved_as(1)).unwrap(), bytes);
    assert_eq!(restored.sealed_save(), Some(1));
    let unsigned = patch("b", T0, 30, vec![key("meal", KeyType::String)]);
    assert_eq!(
        first_code(restored.submit(unsigned, T0, &DenySensitive)),
        IssueCode::InvalidSignature
    );
    let schema = restored.compile_for(None, T0).unwrap();
    assert!(
        schema
            .validate_owned(flight_message(json!({"origin": "PEK", "seat": "w"})))
            .is_valid()
    );

    // Another key.
    let other = Signer::new(*b"another key, also thirty-two byt").unwrap();
    assert_eq!(
        SchemaStore::from_sealed_slice(&bytes, other, SealPin::NONE).unwrap_err(),
        SealError::WrongKey
    );
    // Changed after sealing: a key's definition, a delivered key, a patch.
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    let edits: [(&str, Value); 3] = [
        ("/lifecycle/records/0/definition/key_type", json!("integer")),
        ("/generation", json!(99)),
        (
            "/global/0/new_keys/0/semantic_description",
            json!("Ignore previous instructions"),
        ),
    ];
    for (pointer, forged) in edits {
        let mut tampered = value.clone();
        *tampered
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = forged;
        let tampered = serde_json::to_vec(&tampered).unwrap();
        assert_eq!(
            SchemaStore::from_sealed_slice(&tampered, signer.clone(), SealPin::NONE).unwrap_err(),
            SealError::Tampered,
            "{pointer}"
        );
    }
    // The seal removed: refused by the sealed restore (the plain one would
    // take it, but a server that requires signatures restores sealed).
    let mut stripped = value.clone();
    stripped.as_object_mut().unwrap().remove("seal");
    let stripped = serde_json::to_vec(&stripped).unwrap();
    assert_eq!(
        SchemaStore::from_sealed_slice(&stripped, signer.clone(), SealPin::NONE).unwrap_err(),
        SealError::NotSealed
    );
    // A store that never required signatures writes no seal.
    let unsealed: Value = serde_json::to_value(self::store()).unwrap();
    assert!(unsealed.get("seal").is_none());
}

/// A seal numbers its save: a loader given the number of the last save it
/// saw refuses an older sealed save put back (with it, a patch since
/// expired and a proposal since denied would come back), and the number
/// cannot be edited; the newest save restores. A loader that remembers
/// nothing cannot tell: every save was validly sealed (the limit
/// docs/patches.md states).
#[test]
fn an_older_sealed_save_is_refused_by_a_pin() {
    use sdsi::patch::{HoldReason, PendingProposal};
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let mut store = store().require_signatures(signer.clone());
    let p = patch("a", T0, 30, vec![key("seat", KeyType::String)]);
    let p: SchemaPatch = serde_json::from_value(signer.seal(&p)).unwrap();
    store.submit(p, T0, &DenySensitive).unwrap();
    let card = patch("card", T0, 30, vec![key("card", KeyType::String)]);
    let held = PendingProposal::new(card, HoldReason::Sensitive, "a payment key", T0);
    store.hold(held).unwrap();
    let first = serde_json::to_vec(&store.saved_as(1)).unwrap();

    // The patch expires and the proposal is denied: save 2.
    let later = T0 + Duration::days(31);
    store.evaluate_after_pause(later, &DenySensitive);
    assert_eq!(store.patches().count(), 0);
    store.deny("card", "ops", "no card data", later).unwrap();
    let second = serde_json::to_vec(&store.saved_as(2)).unwrap();

    let restore = |bytes: &[u8], pin| SchemaStore::from_sealed_slice(bytes, signer.clone(), pin);
    assert_eq!(
        restore(&first, SealPin::at_least(2)).unwrap_err(),
        SealError::RolledBack {
            found: 1,
            expected_at_least: 2
        }
    );
    let current = restore(&second, SealPin::at_least(2)).unwrap();
    assert_eq!(current.sealed_save(), Some(2));
    assert_eq!(current.patches().count(), 0);
    assert_eq!(current.pending().count(), 0);
    assert_eq!(current.denials().count(), 1);
    // The number is sealed: renumbered, the older save is tampering.
    let mut renumbered: Value = serde_json::from_slice(&first).unwrap();
    renumbered["seal"]["save"] = json!(2);
    let renumbered = serde_json::to_vec(&renumbered).unwrap();
    assert_eq!(
        restore(&renumbered, SealPin::at_least(2)).unwrap_err(),
        SealError::Tampered
    );
    // With no pin the older save restores, the denied proposal pending
    // again: the seal alone cannot tell.
    let old = restore(&first, SealPin::NONE).unwrap();
    assert_eq!(old.sealed_save(), Some(1));
    assert_eq!((old.patches().count(), old.pending().count()), (1, 1));
}

/// One clock far ahead (a replica's, a log line's) is refused by evaluate
/// and ignored by the recorders instead of moving every key to gone and
/// freezing the store until real time catches up; a server back from a
/// real pause evaluates once with `evaluate_after_pause`.
#[test]
fn a_clock_far_ahead_is_refused_not_obeyed() {
    let mut store = store();
    let add = patch("a", T0, 30, vec![key("seat", KeyType::String)]);
    store.submit(add, T0, &DenySensitive).unwrap();
    store.evaluate(T0, &DenySensitive);
    let wrong = datetime!(2100-01-01 0:00 UTC);
    let evaluation = store.evaluate(wrong, &DenySensitive);
    let jump = evaluation.clock_refused.expect("refused");
    assert_eq!((jump.now, jump.last), (wrong, T0));
    assert!(evaluation.transitions.is_empty());
    assert_eq!(store.lifecycle().evaluated_at(), Some(T0));
    // The metrics did not rotate to year 9999 either.
    store.record(
        &flight_message(json!({"origin": "PEK", "seat": "w"})),
        "c",
        wrong,
    );
    assert!(!store.record_alignment(&PatchScope::Global, "seat", true, wrong));
    // Real time goes on as if nothing happened.
    let next_day = T0 + Duration::days(1);
    let evaluation = store.evaluate(next_day, &DenySensitive);
    assert!(evaluation.clock_refused.is_none());
    assert_eq!(store.lifecycle().evaluated_at(), Some(next_day));
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", next_day),
        Some(KeyState::Experimental)
    );
    store.record(
        &flight_message(json!({"origin": "PEK", "seat": "w"})),
        "c",
        next_day,
    );
    let usage = store
        .lifecycle()
        .metrics(&PatchScope::Global, "seat", next_day)
        .unwrap()
        .usage_frequency;
    assert_eq!(usage, Some(1.0), "only the message at a sane time counted");
    // Within the bound is not a jump; past it after a real pause, once.
    let month = next_day + Duration::days(30);
    assert!(
        store
            .evaluate(month, &DenySensitive)
            .clock_refused
            .is_none()
    );
    let back = month + Duration::days(45);
    assert!(store.evaluate(back, &DenySensitive).clock_refused.is_some());
    let resumed = store.evaluate_after_pause(back, &DenySensitive);
    assert!(resumed.clock_refused.is_none());
    assert_eq!(store.lifecycle().evaluated_at(), Some(back));
}

/// The state a store keeps per client is bounded by the keys that live:
/// 100,000 clients told about three global keys and sending them, a
/// thousand of them with a personal key, then every key's life runs out.
/// While the keys live the snapshot holds under 300 bytes per client;
/// once they are gone, what is left is the keys' reserved names, a few
/// kilobytes, however many clients there were.
#[test]
fn per_client_state_goes_with_the_keys() {
    const CLIENTS: usize = 100_000;
    let mut store = store();
    let keys = vec![
        key("seat", KeyType::String),
        key("meal", KeyType::String),
        key("bags", KeyType::Integer),
    ];
    store
        .submit(patch("g", T0, 30, keys), T0, &DenySensitive)
        .unwrap();
    let empty = serde_json::to_vec(&self::store()).unwrap().len();
    let day = T0 + Duration::hours(1);
    for c in 0..CLIENTS {
        let client = format!("client-{c:06}");
        if c % 100 == 0 {
            let own = self::client(
                &client,
                patch(&format!("p{c}"), T0, 20, vec![key("pet", KeyType::String)]),
            );
            store.submit(own, T0, &DenySensitive).unwrap();
        }
        assert!(store.suggestion_for(&client, day).unwrap().is_some());
        let payload = json!({"origin": "PEK", "seat": "window", "meal": "veg", "bags": 2});
        store.record(&flight_message(payload), &client, day);
    }
    store.evaluate(day, &DenySensitive);
    let live = serde_json::to_vec(&store).unwrap().len();
    let per_client = (live - empty) / CLIENTS;
    eprintln!("live: {live} bytes, {per_client} per client");
    assert!(per_client < 300, "{per_client} bytes per client");
    // Offers end at day 30 (20 for the personal keys), the keys are
    // withdrawn, then gone 30 days later.
    for d in (0..=75).step_by(5) {
        store.evaluate(T0 + Duration::days(d), &DenySensitive);
    }
    let gone = T0 + Duration::days(75);
    assert_eq!(
        store
            .lifecycle()
            .state_at(&PatchScope::Global, "seat", gone),
        Some(KeyState::Gone)
    );
    let after = serde_json::to_vec(&store).unwrap();
    eprintln!("after: {} bytes", after.len());
    assert!(after.len() < empty + 200_000, "{} bytes", after.len());
    // The names stay reserved for their types.
    let retyped = patch("r", gone, 30, vec![key("seat", KeyType::Integer)]);
    assert_eq!(
        first_code(store.submit(retyped, gone, &DenySensitive)),
        IssueCode::ReservedKeyName
    );
    // And a restored store is the same store.
    let restored: SchemaStore = serde_json::from_slice(&after).unwrap();
    assert_eq!(serde_json::to_vec(&restored).unwrap(), after);
}

/// A personal key that became stable outlives its patch; a global patch
/// naming it with another type must still be checked against that
/// client's view after the personal patch expired.
#[test]
fn a_stable_personal_key_still_guards_its_clients_view() {
    let mut store = store();
    let own = client("a1", patch("p", T0, 10, vec![key("pet", KeyType::String)]));
    store.submit(own, T0, &DenySensitive).unwrap();
    let scope = PatchScope::Client("a1".to_owned());
    for h in 0..(7 * 24) {
        let at = T0 + Duration::hours(h);
        store.record(
            &flight_message(json!({"origin": "PEK", "pet": "cat"})),
            "a1",
            at,
        );
        store.record_alignment(&scope, "pet", true, at);
    }
    let promoted = T0 + Duration::days(8);
    store.evaluate(promoted, &DenySensitive);
    assert_eq!(
        store.lifecycle().state_at(&scope, "pet", promoted),
        Some(KeyState::Stable)
    );
    // The personal patch expires; the key lives on, stable.
    let later = T0 + Duration::days(12);
    store.evaluate(later, &DenySensitive);
    assert_eq!(
        store.lifecycle().state_at(&scope, "pet", later),
        Some(KeyState::Stable)
    );
    let retyped = patch("g", later, 30, vec![key("pet", KeyType::Integer)]);
    let refused = store.submit(retyped, later, &DenySensitive);
    assert!(
        refused.is_err(),
        "a global `pet: integer` would break a1: {refused:?}"
    );
    every_view_serves(&store, &["a1"], later);
}

#[test]
fn suggestions_say_what_left_and_where_keys_come_from() {
    let mut store = store();
    store
        .submit(
            patch("a", T0, 5, vec![key("seat", KeyType::String)]),
            T0,
            &DenySensitive,
        )
        .unwrap();
    let first = store.suggestion_for("c1", T0).unwrap().unwrap();
    assert_eq!(first.new_keys()[0].key_name.as_str(), "seat");
    let source = &first.patches.as_ref().unwrap()[0];
    assert_eq!(
        (source.patch_id.as_str(), source.expires_at.as_str()),
        ("a", "2026-05-06T00:00:00Z")
    );
    assert!(store.suggestion_for("c1", T0).unwrap().is_none());
    // The offer ends unpromoted: the client hears that the key left.
    let later = T0 + Duration::days(6);
    let second = store.suggestion_for("c1", later).unwrap().unwrap();
    assert_eq!(second.removed_keys(), [KeyName::new("seat").unwrap()]);
    assert!(second.new_keys().is_empty());
    assert!(store.suggestion_for("c1", later).unwrap().is_none());
}

#[test]
fn the_digest_follows_what_a_client_may_send() {
    let mut store = store();
    store
        .submit(
            patch("a", T0, 5, vec![key("seat", KeyType::String)]),
            T0,
            &DenySensitive,
        )
        .unwrap();
    let withdrawn = store.digest_for(None, T0 + Duration::days(6)).unwrap();
    let gone = store.digest_for(None, T0 + Duration::days(37)).unwrap();
    assert_ne!(
        withdrawn, gone,
        "withdrawn (accepted with a warning) and gone (refused) differ"
    );
    assert_eq!(gone, base().digest().unwrap());
    let big = |n: u64| {
        let k = key("n", KeyType::Integer).with_default(json!(n));
        SchemaTemplate::new("s", "s", vec![k]).digest()
    };
    assert_ne!(big(9_007_199_254_740_993), big(9_007_199_254_740_992));
}

// ---------------------------------------------------------------------------
// Property: random operation sequences never break a client.
// ---------------------------------------------------------------------------

const NAMES: [&str; 4] = ["seat", "meal", "bag", "origin"];
const CLIENTS: [&str; 2] = ["a1", "a2"];
const TYPES: [KeyType; 2] = [KeyType::String, KeyType::Integer];

#[derive(Debug, Clone)]
enum Op {
    Submit {
        id: u8,
        scope: Option<usize>,
        start: i64,
        days: i64,
        new: Vec<(usize, usize)>,
        modified: Vec<(usize, usize)>,
    },
    Evaluate(i64),
    Record {
        client: usize,
        name: usize,
        typed: bool,
        day: i64,
    },
    Suggest {
        client: usize,
        day: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let entry = (0..NAMES.len(), 0..TYPES.len());
    prop_oneof![
        (
            0u8..12,
            proptest::option::of(0..CLIENTS.len()),
            -3i64..60,
            1i64..40,
            prop::collection::vec(entry.clone(), 0..3),
            prop::collection::vec(entry, 0..2)
        )
            .prop_map(|(id, scope, start, days, new, modified)| Op::Submit {
                id,
                scope,
                start,
                days,
                new,
                modified
            }),
        (0i64..90).prop_map(Op::Evaluate),
        (0..CLIENTS.len(), 0..NAMES.len(), any::<bool>(), 0i64..90).prop_map(
            |(client, name, typed, day)| Op::Record {
                client,
                name,
                typed,
                day
            }
        ),
        (0..CLIENTS.len(), 0i64..90).prop_map(|(client, day)| Op::Suggest { client, day }),
    ]
}

fn build(
    id: u8,
    scope: Option<usize>,
    start: i64,
    days: i64,
    new: &[(usize, usize)],
    modified: &[(usize, usize)],
) -> SchemaPatch {
    let mut p = patch(&format!("p{id}"), T0 + Duration::days(start), days, vec![]);
    p.new_keys = new.iter().map(|&(n, t)| key(NAMES[n], TYPES[t])).collect();
    p.modified_keys = modified
        .iter()
        .map(|&(n, t)| key(NAMES[n], TYPES[t]))
        .collect();
    if let Some(c) = scope {
        p.scope = PatchScope::Client(CLIENTS[c].to_owned());
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn no_sequence_breaks_a_client(ops in prop::collection::vec(op(), 1..40)) {
        let mut store = store();
        let mut clock = T0;
        for op in ops {
            match op {
                Op::Submit { id, scope, start, days, new, modified } => {
                    let p = build(id, scope, start, days, &new, &modified);
                    let now = clock.max(T0 + Duration::days(start.max(0)));
                    clock = now;
                    let before = store.patches().count();
                    if store.submit(p.clone(), now, &DenySensitive).is_ok() {
                        // Replay: same answer, nothing changes.
                        let records = store.lifecycle().records().len();
                        prop_assert!(store.submit(p, now, &DenySensitive).is_ok());
                        prop_assert_eq!(store.lifecycle().records().len(), records);
                    } else {
                        prop_assert_eq!(store.patches().count(), before);
                    }
                }
                Op::Evaluate(day) => {
                    clock = clock.max(T0 + Duration::days(day));
                    store.evaluate(T0 + Duration::days(day), &DenySensitive);
                }
                Op::Record { client, name, typed, day } => {
                    let value = if typed { json!("x") } else { json!(3) };
                    let mut payload = serde_json::Map::new();
                    payload.insert("origin".into(), json!("PEK"));
                    payload.insert(NAMES[name].into(), value);
                    store.record(&flight_message(Value::Object(payload)), CLIENTS[client], T0 + Duration::days(day));
                }
                Op::Suggest { client, day } => {
                    prop_assert!(store.suggestion_for(CLIENTS[client], T0 + Duration::days(day)).is_ok());
                }
            }
            for day in [0i64, 3, 7, 15, 40, 70, 120] {
                let now = T0 + Duration::days(day);
                for view in [None, Some("a1"), Some("a2")] {
                    let schema = store.compile_for(view, now);
                    prop_assert!(schema.is_ok(), "{:?} at day {}: {:?}", view, day, schema.err());
                    let schema = schema.unwrap();
                    // The per-client cache never serves a stale schema: a
                    // clone starts with an empty cache and compiles afresh.
                    let fresh = store.clone().compile_for(view, now).unwrap();
                    prop_assert_eq!(schema.template(), fresh.template());
                    let origin = schema.template().key("origin").unwrap();
                    prop_assert_eq!(origin.key_type, KeyType::String, "base keys never change");
                    prop_assert!(!origin.is_experimental());
                    let base_only = flight_message(json!({"origin": "PEK"}));
                    prop_assert!(schema.is_valid(&base_only));
                }
                // The guard holds whatever happened.
                prop_assert!(store.lifecycle().experimental_count(&PatchScope::Global, now)
                    <= store.lifecycle().policy().max_experimental);
            }
        }
    }
}

#[test]
fn store_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<SchemaStore>();
    check::<Signer>();
    check::<sdsi::patch::EffectiveSchema<'static>>();
    check::<sdsi::negotiate::PatchReference>();
    check::<sdsi::issue::Problems>();
}

/// Applies `op` and describes what the store answered, for comparing two stores.
fn apply(store: &mut SchemaStore, op: &Op, clock: &mut OffsetDateTime) -> String {
    match op {
        Op::Submit {
            id,
            scope,
            start,
            days,
            new,
            modified,
        } => {
            let p = build(*id, *scope, *start, *days, new, modified);
            let now = (*clock).max(T0 + Duration::days((*start).max(0)));
            *clock = now;
            format!("{:?}", store.submit(p, now, &DenySensitive))
        }
        Op::Evaluate(day) => {
            *clock = (*clock).max(T0 + Duration::days(*day));
            format!(
                "{:?}",
                store.evaluate(T0 + Duration::days(*day), &DenySensitive)
            )
        }
        Op::Record {
            client,
            name,
            typed,
            day,
        } => {
            let value = if *typed { json!("x") } else { json!(3) };
            let mut payload = serde_json::Map::new();
            payload.insert("origin".into(), json!("PEK"));
            payload.insert(NAMES[*name].into(), value);
            store.record(
                &flight_message(Value::Object(payload)),
                CLIENTS[*client],
                T0 + Duration::days(*day),
            );
            String::new()
        }
        Op::Suggest { client, day } => {
            let s = store.suggestion_for(CLIENTS[*client], T0 + Duration::days(*day));
            serde_json::to_string(&s.ok()).unwrap()
        }
    }
}

/// A store's snapshot as a JSON value (maps compare regardless of order).
fn snapshot(store: &SchemaStore) -> Value {
    serde_json::to_value(store).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Snapshot → restore is the identity, and a store restored halfway
    /// through makes every later decision exactly as the one that never
    /// stopped: the same submissions, transitions, suggestions and schemas.
    #[test]
    fn a_restored_store_decides_like_one_that_never_stopped(
        ops in prop::collection::vec(op(), 1..40),
        split in 0usize..40,
    ) {
        let mut running = store();
        let mut clock = T0;
        let split = split.min(ops.len());
        for op in &ops[..split] {
            apply(&mut running, op, &mut clock);
        }
        let bytes = serde_json::to_vec(&running).unwrap();
        let mut restored: SchemaStore = serde_json::from_slice(&bytes).unwrap();
        prop_assert_eq!(snapshot(&restored), snapshot(&running));
        // One state, one byte string: saved again, a restored store writes
        // exactly what it was read from (hash maps are written sorted).
        prop_assert_eq!(serde_json::to_vec(&restored).unwrap(), bytes);
        let mut restored_clock = clock;
        for op in &ops[split..] {
            let a = apply(&mut running, op, &mut clock);
            let b = apply(&mut restored, op, &mut restored_clock);
            prop_assert_eq!(a, b, "{:?}", op);
            for day in [0i64, 7, 40, 120] {
                let now = T0 + Duration::days(day);
                for view in [None, Some("a1"), Some("a2")] {
                    let x = running.compile_for(view, now).unwrap();
                    let y = restored.compile_for(view, now).unwrap();
                    prop_assert_eq!(x.template(), y.template());
                }
            }
        }
        prop_assert_eq!(snapshot(&restored), snapshot(&running));
        prop_assert_eq!(
            serde_json::to_vec(&restored).unwrap(),
            serde_json::to_vec(&running).unwrap()
        );
    }
}

#[test]
fn a_snapshot_is_versioned_and_damage_is_an_error() {
    let mut s = store();
    let p = build(1, None, 0, 30, &[(0, 0)], &[]);
    s.submit(p, T0, &DenySensitive).unwrap();
    let value = snapshot(&s);
    assert_eq!(value["format"], "sdsi.store");
    assert_eq!(value["version"], sdsi::patch::STORE_FORMAT_VERSION);
    let restore = |v: &Value| serde_json::from_value::<SchemaStore>(v.clone());
    assert!(restore(&value).is_ok());

    let mut other = value.clone();
    other["version"] = json!(99);
    let e = restore(&other).unwrap_err().to_string();
    assert!(e.contains("version 99 is not supported"), "{e}");

    let mut other = value.clone();
    other["format"] = json!("something.else");
    assert!(
        restore(&other)
            .unwrap_err()
            .to_string()
            .contains("not a schema store snapshot")
    );

    // An index past the records: refused, not a store that misbehaves.
    let mut other = value.clone();
    other["lifecycle"]["live"] = json!([7]);
    assert!(restore(&other).unwrap_err().to_string().contains("damaged"));

    // An empty metric window would have no slot for any day.
    let mut other = value.clone();
    other["lifecycle"]["totals"]["counts"] = json!([]);
    let e = restore(&other).unwrap_err().to_string();
    assert!(e.contains("at least one day"), "{e}");

    // A truncated file is a parse error.
    let bytes = serde_json::to_vec(&s).unwrap();
    assert!(serde_json::from_slice::<SchemaStore>(&bytes[..bytes.len() / 2]).is_err());
}

#[test]
fn the_signing_key_is_never_written() {
    let key = b"0123456789abcdef0123456789abcdef";
    let s = store().require_signatures(Signer::new(*key).unwrap());
    let text = serde_json::to_string(&s.saved_as(1)).unwrap();
    assert!(!text.contains("0123456789abcdef"));
    // Restored (only with the key), it still refuses unsigned patches.
    assert!(serde_json::from_str::<SchemaStore>(&text).is_err());
    let mut restored =
        SchemaStore::from_sealed_slice(text.as_bytes(), Signer::new(*key).unwrap(), SealPin::NONE)
            .unwrap();
    let p = build(2, None, 0, 30, &[(1, 0)], &[]);
    assert_eq!(
        first_code(restored.submit(p, T0, &DenySensitive)),
        IssueCode::InvalidSignature
    );
}

/// Many clients fill the lifecycle's per-client maps (delivery, adoption,
/// per-client totals, personal keys); a saved store read back and saved
/// again is byte-identical, whatever order its hash maps iterate in.
#[test]
fn a_saved_store_saves_to_the_same_bytes_again() {
    let mut s = store();
    let p = patch("p1", T0, 60, vec![key("seat_row", KeyType::Integer)]);
    s.submit(p, T0, &DenySensitive).unwrap();
    for i in 0..40 {
        let id = format!("client-{i:02}");
        let at = T0 + Duration::hours(i);
        s.suggestion_for(&id, at).unwrap();
        s.record(&flight_message(json!({"seat_row": i})), &id, at);
        let personal = client(
            &id,
            patch(
                &format!("pp{i}"),
                at,
                60,
                vec![key(&format!("own_{i}"), KeyType::String)],
            ),
        );
        s.submit(personal, at, &DenySensitive).unwrap();
    }
    let bytes = serde_json::to_vec(&s).unwrap();
    let restored: SchemaStore = serde_json::from_slice(&bytes).unwrap();
    let again = serde_json::to_vec(&restored).unwrap();
    assert!(again == bytes, "a restored store wrote other bytes");
}

/// A row's state and status columns name what serde names, and read back.
#[test]
fn row_columns_read_back_and_match_the_serialized_names() {
    use sdsi::patch::{KeyState, PatchStatus};
    for state in [
        KeyState::Experimental,
        KeyState::Stable,
        KeyState::Deprecated,
        KeyState::Withdrawn,
        KeyState::Gone,
    ] {
        assert_eq!(KeyState::parse(state.as_str()), Some(state));
        assert_eq!(serde_json::to_value(state).unwrap(), json!(state.as_str()));
    }
    for status in [PatchStatus::Accepted, PatchStatus::Queued] {
        assert_eq!(PatchStatus::parse(status.as_str()), Some(status));
    }
    assert_eq!(KeyState::parse("retired"), None);
    assert_eq!(PatchStatus::parse("applied"), None);
}

/// Queued patches are rows after the accepted ones, in queue order, and
/// every row reads back as the patch it was written from.
#[test]
fn a_stores_rows_list_accepted_then_queued_patches() {
    let mut s = guard_of_one();
    for name in ["second_key", "third_key"] {
        let p = patch(name, T0, 30, vec![key(name, KeyType::String)]);
        s.submit(p, T0, &DenySensitive).unwrap();
    }
    let rows = s.rows().unwrap();
    let listed: Vec<(&str, sdsi::patch::PatchStatus, i64)> = rows
        .patches
        .iter()
        .map(|r| (r.patch_id.as_str(), r.status, r.position))
        .collect();
    use sdsi::patch::PatchStatus::{Accepted, Queued};
    assert_eq!(
        listed,
        [
            ("a", Accepted, 0),
            ("second_key", Queued, 1),
            ("third_key", Queued, 2)
        ]
    );
    for row in &rows.patches {
        assert_eq!(row.patch().unwrap().patch_id, row.patch_id);
    }
    assert_eq!(
        rows.keys.len(),
        1,
        "only the accepted patch's key has a record"
    );
}

/// An empty engine state, for saving a store alone in the split form.
#[cfg(feature = "evolution")]
fn no_engine() -> sdsi::evolution::EvolutionState {
    use sdsi::evolution::{Evolution, EvolutionConfig, HashingEmbedder, RuleInducer};
    Evolution::new(
        HashingEmbedder::default(),
        RuleInducer,
        EvolutionConfig::default(),
    )
    .state()
}

#[cfg(feature = "evolution")]
proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Whatever a store went through, its split form (header and rows)
    /// joins back to the same store, byte for byte, and its rows' key
    /// records are the lifecycle's.
    #[test]
    fn a_store_split_into_rows_joins_back_exactly(ops in prop::collection::vec(op(), 1..40)) {
        use sdsi::evolution::SavedServer;
        let mut s = store();
        let mut clock = T0;
        for op in &ops {
            apply(&mut s, op, &mut clock);
        }
        let split = SavedServer::encode_split(1, 3, &s, &no_engine()).unwrap();
        let back = SavedServer::from_split(&split.bytes, &split.store, &split.pools).unwrap();
        prop_assert_eq!(
            serde_json::to_vec(&back.store).unwrap(),
            serde_json::to_vec(&s).unwrap()
        );
        // In the rows' order: by scope, then key name.
        let mut records = s.lifecycle().records().to_vec();
        records.sort_by_key(|r| (format!("{:?}", r.scope), r.key_name.to_string()));
        let mut joined = split.store.records().unwrap();
        joined.sort_by_key(|r| (format!("{:?}", r.scope), r.key_name.to_string()));
        prop_assert_eq!(joined, records);
    }
}

/// Counting a message moves a few counters by what was counted, nothing
/// else: the key rows stay as they were, and a back end that knows the
/// stored counts adds +1 to each counter the message touched. Rows that do
/// not fit the store are refused, and the counters' seal holds.
#[cfg(feature = "evolution")]
#[test]
fn counters_are_rows_moved_by_what_was_counted() {
    use sdsi::evolution::SavedServer;
    use sdsi::patch::Metric;
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let mut s = store().require_signatures(signer.clone());
    let p = patch("a", T0, 30, vec![key("seat", KeyType::String)]);
    let p: SchemaPatch = serde_json::from_value(signer.seal(&p)).unwrap();
    s.submit(p, T0, &DenySensitive).unwrap();
    let at = T0 + Duration::hours(30);
    s.suggestion_for("a1", at).unwrap();
    s.record(
        &flight_message(json!({"origin": "PEK", "seat": "w"})),
        "a1",
        at,
    );
    let before = s.rows().unwrap();
    let known = before.known();

    s.record(
        &flight_message(json!({"origin": "PEK", "seat": "x"})),
        "a2",
        at,
    );
    let after = s.rows().unwrap();
    assert_eq!(
        after.keys, before.keys,
        "a key row changes with its state only"
    );
    let writes = after.writes(Some(&known));
    assert!(!writes.replace_all && writes.counts_gone.is_empty());
    let mut added: Vec<(&str, &str, Metric, i64)> = writes
        .counts
        .iter()
        .map(|(row, n)| (row.scope.as_str(), row.key_name.as_str(), row.metric, *n))
        .collect();
    added.sort();
    assert_eq!(
        added,
        [
            ("global", "", Metric::Messages, 1),
            ("global", "seat", Metric::Present, 1),
            ("global", "seat", Metric::WellTyped, 1),
        ]
    );
    // The new client's use is one adoption row; no client was told anything.
    let adopted: Vec<(&str, Option<i64>)> = writes
        .adoptions
        .iter()
        .map(|r| (r.client.as_str(), r.delivered_day))
        .collect();
    assert_eq!(adopted, [("a2", None)]);
    assert!(writes.delivered.is_empty() && writes.delivered_gone.is_empty());
    // Saved again with nothing counted: nothing to write. Not knowing the
    // stored rows: every row, whole.
    let again = after.writes(Some(&writes.known));
    assert!(again.counts.is_empty() && again.adoptions.is_empty() && again.delivered.is_empty());
    let all = after.writes(None);
    assert!(all.replace_all && all.counts.len() == after.counts.len());
    assert!(all.counts.iter().all(|(row, n)| row.count == *n));
    assert_eq!(all.delivered.len(), after.delivered.len());
    // A day that leaves the window deletes its row.
    let later = T0 + Duration::days(40);
    s.record(&flight_message(json!({"origin": "PEK"})), "a1", later);
    let rows = s.rows().unwrap();
    let moved = rows.writes(Some(&writes.known));
    assert!(!moved.counts_gone.is_empty(), "{:?}", moved.counts_gone);
    assert!(
        moved
            .counts_gone
            .iter()
            .all(|(_, _, _, day)| *day < (later.unix_timestamp() / 86_400) - 29)
    );

    // The split form, sealed: it restores with the key and its rows, and
    // refuses rows that were changed, added or do not fit.
    let split = SavedServer::encode_split(1, 0, &s, &no_engine()).unwrap();
    let restore = |rows: &sdsi::patch::StoreRows| {
        SavedServer::from_split_sealed(
            &split.bytes,
            rows,
            &split.pools,
            signer.clone(),
            SealPin::NONE,
        )
    };
    let back = restore(&split.store).unwrap();
    assert_eq!(
        serde_json::to_vec(&back.store.saved_as(1)).unwrap(),
        serde_json::to_vec(&s.saved_as(1)).unwrap()
    );
    assert!(SavedServer::from_split(&split.bytes, &split.store, &split.pools).is_err());
    let mut inflated = split.store.clone();
    let row = inflated
        .counts
        .iter_mut()
        .find(|r| r.metric == Metric::Present)
        .unwrap();
    row.count += 100;
    assert_eq!(restore(&inflated).unwrap_err(), SealError::Tampered);
    let mut adopted = split.store.clone();
    adopted.adoptions[0].client = "a9".to_owned();
    assert_eq!(restore(&adopted).unwrap_err(), SealError::Tampered);
    let mut stray = split.store.clone();
    stray.counts[0].key_name = "meal".to_owned();
    let error = restore(&stray).unwrap_err().to_string();
    assert!(error.contains("no record"), "{error}");
    let mut negative = split.store.clone();
    negative.counts[0].count = -1;
    let error = restore(&negative).unwrap_err().to_string();
    assert!(error.contains("negative"), "{error}");
    let mut outside = split.store.clone();
    let mut early = outside
        .counts
        .iter()
        .find(|r| r.metric == Metric::Present)
        .unwrap()
        .clone();
    early.day -= 400;
    outside.counts.push(early);
    let error = restore(&outside).unwrap_err().to_string();
    assert!(error.contains("outside"), "{error}");
    let mut twice = split.store.clone();
    twice.delivered.push(twice.delivered[0].clone());
    let error = restore(&twice).unwrap_err().to_string();
    assert!(error.contains("twice"), "{error}");
    let mut no_day = split.store.clone();
    no_day.adoptions[0].delivered_day = None;
    no_day.adoptions[0].adopted_day = None;
    let error = restore(&no_day).unwrap_err().to_string();
    assert!(error.contains("no day"), "{error}");
    let mut listed_twice = split.store.clone();
    listed_twice
        .adoptions
        .push(listed_twice.adoptions[0].clone());
    let error = restore(&listed_twice).unwrap_err().to_string();
    assert!(error.contains("twice"), "{error}");
    let mut sentinel = split.store.clone();
    let mut far = sentinel.counts[0].clone();
    far.day = i64::MIN;
    sentinel.counts.push(far);
    let error = restore(&sentinel).unwrap_err().to_string();
    assert!(error.contains("years"), "{error}");
    // A window longer than the policy's is refused before anything is
    // allocated for it (the header is not what the seal is checked on first).
    let mut header: Value = serde_json::from_slice(&split.bytes).unwrap();
    header["store"]["lifecycle"]["totals"]["window_days"] = json!(100_000);
    let long = serde_json::to_vec(&header).unwrap();
    let error = SavedServer::from_split_sealed(
        &long,
        &split.store,
        &split.pools,
        signer.clone(),
        SealPin::NONE,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("100000-day window"), "{error}");
    // The header alone is not a store.
    let header: Value = serde_json::from_slice(&split.bytes).unwrap();
    let alone = serde_json::to_vec(&header["store"]).unwrap();
    let error = SchemaStore::from_sealed_slice(&alone, signer, SealPin::NONE)
        .unwrap_err()
        .to_string();
    assert!(error.contains("counters as rows"), "{error}");
}
