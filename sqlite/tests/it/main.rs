//! The SQLite state file's integration tests: one test binary
//! (`cargo test -p sdsi-sqlite --test it`), one module per subject.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests: a panic is a failed test"
)]

mod attachments;
mod opening;
mod seal;
mod state;
