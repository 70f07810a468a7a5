//! The guides of `docs/`, rendered here so that they travel with the API
//! reference (the `jiff` crate's pattern). Their Rust examples run as doctests.
//!
//! | guide | read it for |
//! |---|---|
//! | [`guide`] | the protocol walk-through, the API, options, the decisions taken where the draft is silent |
//! | [`derive`](mod@derive) | `#[derive(Template)]`: a template from a serde struct, the mapping, what does not compile |
//! | [`error_codes`] | every [`IssueCode`](crate::IssueCode), with an example |
//! | [`interop`] | the envelope, A2A fields, MCP / JSON Schema / constrained-decoding exports |
//! | [`patches`] | patches, per-client schemas, the key lifecycle |
//! | [`evolution`] | the Differential Semantic Pool and the evolution pipeline |
//! | [`cli`] | the `sdsi` command's contract |
//! | [`replicas`] | replicas sharing a PostgreSQL state: the observation log, one evaluator, retention, migrations, TLS |
//! | [`python`] | the Python package: install, API and the Rust names, threads, speed |
//! | [`benchmarks`] | what is measured against what, how to run it, how to read a figure (the figures: `benches/README.md`) |
//! | [`fuzzing`] | what the fuzz targets check, how to run them, how findings are kept (the figures: `fuzz/README.md`) |
//!
//! A guide links to another by a reference such as `[the CLI guide][cli.md]`,
//! defined at the end of the file as `[cli.md]: cli.md` so that it works on
//! GitHub; `links!` puts a definition of the same label first, which
//! Markdown prefers, so that here it leads to the rendered guide. A label a
//! guide uses must be defined in both places. Links to files outside
//! `docs/` (`benches/README.md`, `fuzz/README.md`) are relative file links:
//! they work in a checkout and on GitHub, and are not rendered here.

/// Link definitions put before every guide: the first definition of a
/// label wins, so these replace the guides' own file links in rustdoc.
macro_rules! links {
    () => {
        "[module-map]: crate#modules\n\
         [guide.md]: crate::_documentation::guide\n\
         [derive.md]: crate::_documentation::derive\n\
         [error-codes.md]: crate::_documentation::error_codes\n\
         [interop.md]: crate::_documentation::interop\n\
         [patches.md]: crate::_documentation::patches\n\
         [evolution.md]: crate::_documentation::evolution\n\
         [cli.md]: crate::_documentation::cli\n\
         [replicas.md]: crate::_documentation::replicas\n\
         [python.md]: crate::_documentation::python\n\
         [benchmarks.md]: crate::_documentation::benchmarks\n\
         [fuzzing.md]: crate::_documentation::fuzzing\n"
    };
}

#[doc = links!()]
#[doc = include_str!("../docs/guide.md")]
pub mod guide {}

#[cfg(feature = "derive")]
#[doc = links!()]
#[doc = include_str!("../docs/derive.md")]
pub mod derive {}

#[doc = links!()]
#[doc = include_str!("../docs/error-codes.md")]
pub mod error_codes {}

#[cfg(all(feature = "envelope", feature = "a2a", feature = "export"))]
#[doc = links!()]
#[doc = include_str!("../docs/interop.md")]
pub mod interop {}

#[cfg(feature = "patch")]
#[doc = links!()]
#[doc = include_str!("../docs/patches.md")]
pub mod patches {}

#[cfg(feature = "evolution")]
#[doc = links!()]
#[doc = include_str!("../docs/evolution.md")]
pub mod evolution {}

#[doc = links!()]
#[doc = include_str!("../docs/cli.md")]
pub mod cli {}

#[doc = links!()]
#[doc = include_str!("../docs/replicas.md")]
pub mod replicas {}

#[doc = links!()]
#[doc = include_str!("../docs/python.md")]
pub mod python {}

#[doc = links!()]
#[doc = include_str!("../docs/benchmarks.md")]
pub mod benchmarks {}

#[doc = links!()]
#[doc = include_str!("../docs/fuzzing.md")]
pub mod fuzzing {}
