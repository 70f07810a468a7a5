//! The sentence-transformer's integration tests (those that need the
//! weights find them through `SDSI_MODEL_DIR`, see [`common`]): one test binary
//! (`cargo test -p sdsi-model --test it`), one module per subject.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests: a panic is a failed test"
)]

mod common;

mod errors;
mod planted;
mod reference;
