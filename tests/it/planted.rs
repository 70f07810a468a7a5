//! Planted bursts of real paraphrases with the default hashing embedder
//! (the streams are described in tests/it/common/planted.rs).

use crate::common::planted;

use sdsi::evolution::HashingEmbedder;

#[test]
fn bursts_yield_keys_named_after_them() {
    // Measured (docs/measurements/evolution.md, "Planted bursts"): with needs and their neighbours' support,
    // all five bursts get a key, one each. With the claim on the plain
    // scale the fifth did not: bag-of-words similarity puts the card needs
    // near each other ("card" dominates them), and a proposal silenced a
    // neighbour for good; claimed from the centre, only needs that share
    // what sets the proposed one apart are silenced.
    let expect = planted::Expect {
        bursts_with_a_key: 5,
        max_keys_per_burst: 1,
        max_mixed: 0,
    };
    planted::assert_bursts(HashingEmbedder::default(), &expect);
}

#[test]
fn a_flood_stays_with_its_client() {
    planted::assert_a_flood_stays_with_its_client(HashingEmbedder::default());
}
