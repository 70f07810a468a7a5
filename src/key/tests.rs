//! Unit tests of key names and types.

use super::key_type::KeyType;
use super::name::{KeyName, is_snake_case};
use serde_json::{Value, json};

#[test]
fn snake_case_rule() {
    for good in [
        "a",
        "origin",
        "cabin_class",
        "a1",
        "x_1_y",
        "eye_size_scale",
    ] {
        assert!(is_snake_case(good), "{good}");
    }
    for bad in [
        "",
        "A",
        "_a",
        "a_",
        "a__b",
        "1a",
        "cabinClass",
        "a-b",
        "a b",
        "é",
    ] {
        assert!(!is_snake_case(bad), "{bad}");
    }
}

#[test]
fn key_name_error_text() {
    let err = KeyName::new("Bad").unwrap_err();
    assert_eq!(
        err.to_string(),
        "key name \"Bad\" is not snake_case (lowercase ascii words joined by single underscores)"
    );
}

#[test]
fn key_name_deserialize_checks() {
    assert!(serde_json::from_value::<KeyName>(json!("ok_name")).is_ok());
    assert!(serde_json::from_value::<KeyName>(json!("NotOk")).is_err());
}

#[test]
fn type_hints() {
    let err = "float".parse::<KeyType>().unwrap_err();
    assert_eq!(err.hint, Some(KeyType::Number));
    assert_eq!(
        err.to_string(),
        "unknown key type \"float\" (did you mean \"number\"?)"
    );
    assert_eq!(
        "String".parse::<KeyType>().unwrap_err().hint,
        Some(KeyType::String)
    );
    assert_eq!("widget".parse::<KeyType>().unwrap_err().hint, None);
    assert_eq!(
        "widget".parse::<KeyType>().unwrap_err().to_string(),
        "unknown key type \"widget\""
    );
}

#[test]
fn json_schema_type_semantics() {
    assert!(KeyType::Integer.matches(&json!(2.0)));
    assert!(KeyType::Integer.matches(&json!(-7)));
    assert!(!KeyType::Integer.matches(&json!(2.5)));
    assert!(KeyType::Number.matches(&json!(3)));
    assert!(!KeyType::Number.matches(&json!(true)));
    assert!(!KeyType::Integer.matches(&json!("1")));
    assert!(KeyType::Null.matches(&Value::Null));
    assert!(!KeyType::String.matches(&Value::Null));
}
