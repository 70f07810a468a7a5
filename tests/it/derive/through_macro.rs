//! Structs a `macro_rules!` declares, their fields passed in by the macro's
//! caller: the derive's output then mixes two macro contexts, and must
//! compile and read each field as serde does.

use sdsi::{CompiledSchema, KeyType, Template};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Declares a struct with a container `#[serde(default)]`, its body as the
/// caller wrote it (doc comments included).
macro_rules! defaulted {
    ($name:ident { $($body:tt)* }) => {
        #[derive(Debug, PartialEq, Serialize, Deserialize, Template)]
        #[serde(default)]
        struct $name { $($body)* }
    };
}

defaulted!(Paging {
    /// Results per page.
    page_size: u16,
    /// Language of the answer.
    #[serde(default = "german")]
    language: String,
    /// Whether to include drafts.
    drafts: bool,
});

fn german() -> String {
    "de".into()
}

impl Default for Paging {
    fn default() -> Self {
        Self {
            page_size: 50,
            language: "fr".into(),
            drafts: true,
        }
    }
}

/// Declares a struct field by field: each field's attributes (its doc
/// comment among them) pass through as `meta`, its type as `ty`.
macro_rules! fields {
    ($name:ident { $( $(#[$meta:meta])* $field:ident : $ty:ty ),* $(,)? }) => {
        #[derive(Debug, PartialEq, Deserialize, Template)]
        struct $name { $( $(#[$meta])* $field: $ty ),* }
    };
}

fields!(Spot {
    /// Place name.
    name: String,
    /// Latitude and longitude, named by hand.
    #[sdsi(key_type = "array")]
    at: Option<(f64, f64)>,
    /// Stars out of five.
    #[serde(default)]
    stars: u8,
});

#[test]
fn a_container_default_through_a_macro_gives_every_key_its_default() {
    let template = Paging::template();
    let keys: Vec<(&str, bool, Option<&Value>, &str)> = template
        .keys
        .iter()
        .map(|k| {
            (
                k.key_name.as_str(),
                k.required,
                k.default_value.as_ref(),
                k.semantic_description.as_str(),
            )
        })
        .collect();
    assert_eq!(
        keys[..3],
        [
            ("page_size", false, Some(&json!(50)), "Results per page."),
            (
                "language",
                false,
                Some(&json!("de")),
                "Language of the answer."
            ),
            (
                "drafts",
                false,
                Some(&json!(true)),
                "Whether to include drafts."
            ),
        ]
    );
    let schema = CompiledSchema::new(&template).unwrap();
    let text = br#"{"schema_id": "paging", "payload": {"drafts": false}}"#;
    assert_eq!(
        schema.deserialize_slice::<Paging>(text).unwrap().payload,
        Paging {
            page_size: 50,
            language: "de".into(),
            drafts: false
        }
    );
}

/// An `Option` passed as `$ty:ty` is still optional with a hand-named key
/// type: serde reads a missing member as `None`, so the key is not required.
#[test]
fn fields_passed_one_by_one_keep_their_docs_and_optionality() {
    let template = Spot::template();
    let keys: Vec<(&str, KeyType, bool, &str)> = template
        .keys
        .iter()
        .map(|k| {
            (
                k.key_name.as_str(),
                k.key_type,
                k.required,
                k.semantic_description.as_str(),
            )
        })
        .collect();
    assert_eq!(
        keys[..3],
        [
            ("name", KeyType::String, true, "Place name."),
            (
                "at",
                KeyType::Array,
                false,
                "Latitude and longitude, named by hand."
            ),
            ("stars", KeyType::Integer, false, "Stars out of five."),
        ]
    );
    let schema = CompiledSchema::new(&template).unwrap();
    let text = br#"{"schema_id": "spot", "payload": {"name": "Jardin"}}"#;
    assert_eq!(
        schema.deserialize_slice::<Spot>(text).unwrap().payload,
        Spot {
            name: "Jardin".into(),
            at: None,
            stars: 0
        }
    );
}
