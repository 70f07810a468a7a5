//! Planted bursts of real paraphrases with the sentence-transformer (the
//! streams are described in the core's tests/common/planted.rs).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
#[path = "../../tests/common/planted.rs"]
mod planted;

#[test]
fn bursts_yield_keys_named_after_them() {
    let Some(model) = common::model() else { return };
    // Every burst yields a key; order_physical_card's requests fall into two
    // sub-needs (ordering a card, and where cards are delivered), a key each.
    let expect = planted::Expect {
        bursts_with_a_key: 5,
        max_keys_per_burst: 2,
        max_mixed: 0,
    };
    planted::assert_bursts(model, &expect);
}

#[test]
fn a_flood_stays_with_its_client() {
    let Some(model) = common::model() else { return };
    planted::assert_a_flood_stays_with_its_client(model);
}
