//! The guides of `docs/`, rendered here so that they travel with the API
//! reference (the `jiff` crate's pattern). Their Rust examples run as doctests.
//!
//! | guide | read it for |
//! |---|---|
//! | [`guide`] | the protocol walk-through, the API, options, the decisions taken where the draft is silent |
//! | [`error_codes`] | every [`IssueCode`](crate::IssueCode), with an example |
//! | [`interop`] | the envelope, A2A fields, MCP / JSON Schema / constrained-decoding exports |
//! | [`patches`] | patches, per-client schemas, the key lifecycle |
//! | [`evolution`] | the Differential Semantic Pool and the evolution pipeline |
//! | [`cli`] | the `sdsi` command's contract |
//! | [`replicas`] | replicas sharing a PostgreSQL state: the observation log, one evaluator, retention, migrations, TLS |
//! | [`python`] | the Python package: install, API and the Rust names, threads, speed |
//! | [`benchmarks`] | measurements against `jsonschema` and a plain scan |
//! | [`fuzzing`] | the fuzz targets and how to run them |

#[doc = include_str!("../docs/guide.md")]
pub mod guide {}

#[doc = include_str!("../docs/error-codes.md")]
pub mod error_codes {}

#[cfg(all(feature = "envelope", feature = "a2a", feature = "export"))]
#[doc = include_str!("../docs/interop.md")]
pub mod interop {}

#[cfg(feature = "patch")]
#[doc = include_str!("../docs/patches.md")]
pub mod patches {}

#[cfg(feature = "evolution")]
#[doc = include_str!("../docs/evolution.md")]
pub mod evolution {}

#[doc = include_str!("../docs/cli.md")]
pub mod cli {}

#[doc = include_str!("../docs/replicas.md")]
pub mod replicas {}

#[doc = include_str!("../docs/python.md")]
pub mod python {}

#[doc = include_str!("../docs/benchmarks.md")]
pub mod benchmarks {}

#[doc = include_str!("../docs/fuzzing.md")]
pub mod fuzzing {}
