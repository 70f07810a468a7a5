//! Templates from Rust types: the [`Template`] trait that `#[derive(Template)]`
//! implements (feature `derive`), [`TemplateField`], the key type a field's
//! Rust type declares, and [`Other`], the type of a struct's `other` field.
//!
//! The derive and its rules are described in the guide's section "Templates
//! from Rust types" (`docs/guide.md`). The traits are here whatever the
//! features, so code may implement them by hand.

#[doc(hidden)]
pub mod __private;
mod other;
mod std_types;
mod traits;

pub use other::Other;
pub use traits::{Template, TemplateField};
