//! The library's integration tests: one test binary (`cargo test --test it`),
//! one module per subject. Select a subject with its module path, e.g.
//! `cargo test --test it store::` or `cargo test --test it conformance::templates`.
//!
//! Helpers shared by more than one module live in [`common`]. Modules that
//! exercise an optional part of the library are compiled only with its
//! feature, so `cargo test -p sdsi --no-default-features` still builds and
//! runs the rest. Proptest keeps each module's recorded failures in
//! `tests/proptest-regressions/<module>.txt` (the directory beside the one
//! holding `main.rs`, as it does for `src/`) and replays them first.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests: a panic is a failed test"
)]

mod common;

#[cfg(feature = "a2a")]
mod a2a;
#[cfg(feature = "evolution")]
mod claim;
#[cfg(feature = "evolution")]
mod clock;
mod compat;
mod compiled;
mod conformance;
#[cfg(feature = "derive")]
mod derive;
#[cfg(all(feature = "a2a", feature = "envelope"))]
mod echo;
#[cfg(feature = "envelope")]
mod envelope;
#[cfg(feature = "evolution")]
mod evolution;
#[cfg(feature = "export")]
mod export;
mod figures;
#[cfg(feature = "export")]
mod import;
#[cfg(feature = "evolution")]
mod induction;
#[cfg(feature = "evolution")]
mod injection;
mod issues;
#[cfg(feature = "export")]
mod mcp;
mod messages;
#[cfg(feature = "evolution")]
mod needs;
mod normalized;
#[cfg(feature = "patch")]
mod patch_properties;
#[cfg(feature = "patch")]
mod patches;
#[cfg(feature = "evolution")]
mod planted;
#[cfg(feature = "evolution")]
mod pool_properties;
mod properties;
#[cfg(feature = "evolution")]
mod redact;
mod repeats;
mod respelled;
#[cfg(feature = "export")]
mod response;
#[cfg(feature = "evolution")]
mod review;
#[cfg(all(feature = "export", feature = "a2a"))]
mod sdk_interop;
#[cfg(feature = "evolution")]
mod signed;
#[cfg(feature = "patch")]
mod store;
