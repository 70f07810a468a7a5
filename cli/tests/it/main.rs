//! The CLI's integration tests, one crate (one binary to build and link):
//! each module runs the real `sdsi` binary over the fixtures in
//! `tests/fixtures/` and checks the contract of `docs/cli.md`. What the
//! modules share (the runner, the fixtures, the log and card generators)
//! is in `common`. Run one module with `cargo test -p sdsi-cli --test it
//! MODULE::`.

// clippy.toml allows these inside `#[test]` functions only; the helpers
// panic on purpose too: a panic there is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers: a panic is a failed test"
)]

mod common;

mod bursts;
mod cli;
mod clock;
mod compat;
mod contract;
mod evolve;
mod growing;
mod import;
mod interop;
mod interrupted;
mod jsonl;
mod patches;
mod replica_clock;
mod replica_names;
mod replicas;
mod report;
mod review;
mod state;
