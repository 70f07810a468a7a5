//! The PostgreSQL backend's integration tests, against a real server
//! (`scripts/with-postgres.sh`; without one each test says "skipped", unless
//! `SDSI_REQUIRE_POSTGRES` is set): one test binary
//! (`cargo test -p sdsi-postgres --test it`), one module per subject.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests: a panic is a failed test"
)]

mod common;

mod bookkeeping;
mod horizon;
mod log;
mod replicas;
mod seal;
