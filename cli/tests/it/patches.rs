//! `sdsi validate --patch/--client/--at`.

use crate::common::{codes, fixture, run_with_stdin};
use serde_json::Value;

/// Runs `sdsi validate` on the flight template with `extra` arguments.
fn validate(message: &str, extra: &[&str]) -> (i32, Value) {
    let (schema, message) = (fixture("flight_template.json"), fixture(message));
    let mut args = vec!["validate", "--schema", &schema, &message];
    args.extend_from_slice(extra);
    let run = run_with_stdin(&args, b"");
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    (run.code, json)
}

#[test]
fn a_patch_key_is_accepted_inside_the_patch_window_only() {
    let patch = fixture("patch_seat.json");
    let (code, json) = validate(
        "message_with_seat.json",
        &["--patch", &patch, "--at", "2026-05-10T00:00:00Z"],
    );
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["normalized"]["seat_preference"], "window");

    let (code, json) = validate(
        "message_with_seat.json",
        &["--patch", &patch, "--at", "2026-06-01T00:00:00Z"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        codes(&json["errors"]),
        [(
            "unknown_key".to_owned(),
            "/payload/seat_preference".to_owned()
        )]
    );

    let (code, _) = validate("message_with_seat.json", &[]);
    assert_eq!(code, 1, "without the patch the key is unknown");
}

#[test]
fn a_refused_patch_exits_2_with_its_code() {
    let (code, json) = validate(
        "valid_message.json",
        &[
            "--patch",
            &fixture("patch_retype.json"),
            "--at",
            "2026-05-10T00:00:00Z",
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(
        codes(&json["errors"]),
        [(
            "key_retype".to_owned(),
            "/modified_keys/0/key_type".to_owned()
        )]
    );
    assert!(
        json["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("patch_retype.json")
    );
    assert_eq!(json["normalized"], Value::Null);
}

#[test]
fn client_patches_apply_to_their_client() {
    let patch = fixture("patch_client.json");
    let at = "2026-05-10T00:00:00Z";
    let (code, json) = validate(
        "message_with_legroom.json",
        &["--patch", &patch, "--client", "agent-7", "--at", at],
    );
    assert_eq!(code, 0, "{json}");
    let (code, _) = validate(
        "message_with_legroom.json",
        &["--patch", &patch, "--client", "agent-8", "--at", at],
    );
    assert_eq!(code, 1);
}

#[test]
fn bad_time_and_missing_patch_exit_2() {
    let (code, json) = validate(
        "valid_message.json",
        &["--patch", &fixture("patch_seat.json"), "--at", "yesterday"],
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&json["errors"])[0].0, "invalid_timestamp");
    let (code, json) = validate(
        "valid_message.json",
        &["--patch", &fixture("no_such_patch.json")],
    );
    assert_eq!(code, 2);
    assert_eq!(codes(&json["errors"])[0].0, "invalid_patch");
}

/// A refinement that outlives the key it refined (the key's patch expired)
/// is skipped with a warning: a base-only message stays valid at any time.
#[test]
fn an_expired_key_never_breaks_its_refinement() {
    let add = fixture("patch_meal.json");
    let refined = fixture("patch_meal_refined.json");
    for at in [
        "2026-04-30T00:00:00Z",
        "2026-05-05T00:00:00Z",
        "2026-05-20T00:00:00Z",
        "2026-07-01T00:00:00Z",
    ] {
        let (code, json) = validate(
            "valid_message.json",
            &["--patch", &add, "--patch", &refined, "--at", at],
        );
        assert_eq!(code, 0, "{at}: {json}");
        let skipped = json["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "unknown_modified_key");
        assert_eq!(skipped, at == "2026-05-20T00:00:00Z", "{at}: {json}");
    }
}
