//! `#[derive(Template)]` for the [`sdsi`](https://docs.rs/sdsi) crate: a
//! schema template from a serde struct, so the keys a server publishes are
//! the fields it reads.
//!
//! Use it through `sdsi` (feature `derive`, on by default) as
//! `sdsi::Template`; the mapping from Rust and serde to keys is in sdsi's
//! guide, section "Templates from Rust types".

mod attrs;
mod case;
mod docs;
mod enums;
mod structs;

use proc_macro::TokenStream;
use syn::{Data, DeriveInput, parse_macro_input};

/// Implements `sdsi::derive::Template` (a struct with named fields: one key
/// per field serde reads, each described by its doc comment) and
/// `sdsi::derive::TemplateField` (the type as a key of another template: a
/// struct is an `object`, an enum of unit variants a `string` listing its
/// values).
///
/// Every problem is reported at once, each at the field, variant or
/// attribute it comes from.
#[proc_macro_derive(Template, attributes(sdsi, serde))]
pub fn derive_template(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = Vec::new();
    let output = match &input.data {
        Data::Struct(data) => structs::expand(&input, data, &mut errors),
        Data::Enum(data) => enums::expand(&input, data, &mut errors),
        Data::Union(_) => {
            errors.push(syn::Error::new(
                input.ident.span(),
                "a union has no serde form: derive `Template` on a struct or an enum",
            ));
            proc_macro2::TokenStream::new()
        }
    };
    let mut errors = errors.into_iter();
    match errors.next() {
        None => output.into(),
        Some(mut first) => {
            first.extend(errors);
            first.to_compile_error().into()
        }
    }
}
