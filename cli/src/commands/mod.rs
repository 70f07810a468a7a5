//! The subcommands, one file each; `main.rs` dispatches to their `run`.

pub mod check_compat;
pub mod check_envelope;
pub mod check_template;
pub mod cluster;
pub mod evolve;
pub mod export;
pub mod import;
pub mod report;
pub mod review;
pub mod validate;
