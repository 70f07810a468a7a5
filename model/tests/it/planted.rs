//! Planted bursts of real paraphrases with the sentence-transformer (the
//! streams are described in the core's tests/it/common/planted.rs).

use crate::common::{self, planted};

#[test]
fn bursts_yield_keys_named_after_them() {
    let Some(model) = common::model() else { return };
    // Four of the five bursts yield a key. Card acceptance ("where is my
    // card accepted") and card ordering ("how do I order a physical card")
    // are one need at the need threshold (0.46): they share a proposal,
    // quoted mostly from card acceptance, so ordering gets none (before
    // needs, at the fine level, each had its own). Measured: docs/evolution.md.
    let expect = planted::Expect {
        bursts_with_a_key: 4,
        max_keys_per_burst: 2,
        max_mixed: 1,
    };
    planted::assert_bursts(model, &expect);
}

#[test]
fn a_flood_stays_with_its_client() {
    let Some(model) = common::model() else { return };
    planted::assert_a_flood_stays_with_its_client(model);
}
