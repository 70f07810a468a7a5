//! An enum with a `#[serde(other)]` variant: serde reads any name the other
//! variants do not have as that variant, so the key lists the named values
//! and says that any other value is accepted.

use sdsi::derive::TemplateField;
use sdsi::{CompiledSchema, Template};
use serde::Deserialize;

/// A meal preference.
#[derive(Debug, PartialEq, Deserialize, Template)]
#[serde(rename_all = "snake_case")]
enum Meal {
    Vegetarian,
    /// no pork
    Halal,
    /// a meal this kitchen does not know yet
    #[serde(other)]
    Unlisted,
}

/// The same, with no doc on the catch-all.
#[derive(Debug, PartialEq, Deserialize, Template)]
#[serde(rename_all = "snake_case")]
enum Seat {
    Aisle,
    Window,
    #[serde(other)]
    Unlisted,
}

#[derive(Debug, PartialEq, Deserialize, Template)]
#[allow(dead_code, reason = "only the template and `meal` are read")]
struct Order {
    /// The meal.
    meal: Meal,
    /// The seat, if the guest cares.
    seat: Option<Seat>,
}

#[test]
fn the_catch_all_is_not_a_listed_value_but_any_other_value_is_accepted() {
    assert_eq!(
        Meal::describe().unwrap(),
        r#"One of: "vegetarian", "halal" (no pork). Any other value is accepted (a meal this kitchen does not know yet)."#
    );
    assert_eq!(
        Seat::describe().unwrap(),
        r#"One of: "aisle", "window". Any other value is accepted."#
    );
}

/// What the description says is what serde does: an unlisted value reads
/// as the catch-all, as does the catch-all's own name.
#[test]
fn an_unlisted_value_reads_as_the_catch_all() {
    let schema = CompiledSchema::new(&Order::template()).unwrap();
    let meal = |value: &str| {
        let text = format!(r#"{{"schema_id": "order", "payload": {{"meal": "{value}"}}}}"#);
        schema
            .deserialize_slice::<Order>(text.as_bytes())
            .unwrap()
            .payload
            .meal
    };
    assert_eq!(meal("halal"), Meal::Halal);
    assert_eq!(meal("kosher"), Meal::Unlisted);
    assert_eq!(meal("unlisted"), Meal::Unlisted);
}
