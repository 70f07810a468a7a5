//! `#[derive(Template)]` on an enum of unit variants: a `string` key whose
//! description lists the values serde reads, and says when a
//! `#[serde(other)]` variant takes any other value.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Fields};

use crate::attrs::{self, Container};
use crate::docs::doc_text;

/// The `TemplateField` impl for a unit-only enum, or nothing when `errors`
/// got a problem.
pub(crate) fn expand(
    input: &DeriveInput,
    data: &DataEnum,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let container = Container::read(&input.attrs, errors);
    if let Some(id) = container.schema_id.as_ref().or(container.scenario.as_ref()) {
        errors.push(syn::Error::new(
            id.span(),
            "an enum is a key's values, not a template: `schema_id` and `scenario` go on a struct",
        ));
    }
    let mut values = Vec::new();
    // The `#[serde(other)]` variant (serde allows one) and its doc.
    let mut catch_all: Option<(String, &syn::Ident)> = None;
    for variant in &data.variants {
        let variant_attrs = attrs::Variant::read(&variant.attrs, errors);
        if variant_attrs.skip_deserializing {
            continue;
        }
        if !matches!(variant.fields, Fields::Unit) {
            errors.push(syn::Error::new(
                variant.ident.span(),
                format!(
                    "variant `{}` carries data: only an enum of unit variants maps to a key (a string, one of the variants' names)",
                    variant.ident
                ),
            ));
            continue;
        }
        let name = variant_attrs.rename.unwrap_or_else(|| {
            container
                .rename_all
                .variant(&variant.ident.unraw().to_string())
        });
        // A variant's doc is one line in the list of values.
        let doc = match doc_text(&variant.attrs) {
            Ok(doc) => doc.unwrap_or_default().replace("\n\n", " "),
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        if variant_attrs.other {
            // Not a value to list: serde reads its name and every name the
            // other variants do not have as this variant, so the description
            // says that any other value is accepted instead.
            catch_all.get_or_insert((doc, &variant.ident));
            continue;
        }
        values.push(quote!((#name, #doc)));
    }
    if let (true, Some((_, variant))) = (values.is_empty() && errors.is_empty(), &catch_all) {
        errors.push(syn::Error::new(
            variant.span(),
            format!(
                "variant `{variant}` is `#[serde(other)]` and serde reads no other variant: a key of this type would list no value and take any string; declare the values the enum knows, or make the field a `String`"
            ),
        ));
    }
    if values.is_empty() && errors.is_empty() {
        errors.push(syn::Error::new(
            input.ident.span(),
            "an enum with no variant serde reads has no value to list: a key of this type could never be valid",
        ));
    }
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        errors.push(syn::Error::new(
            input.generics.span(),
            "a key's type cannot be generic: its values are fixed names",
        ));
    }
    if !errors.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let other = match catch_all {
        Some((doc, _)) => quote!(::core::option::Option::Some(#doc)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #[automatically_derived]
        impl ::sdsi::derive::TemplateField for #ident {
            const KEY_TYPE: ::sdsi::KeyType = ::sdsi::KeyType::String;
            fn describe() -> ::core::option::Option<::std::string::String> {
                ::core::option::Option::Some(::sdsi::derive::__private::values(&[#(#values),*], #other))
            }
        }
    }
}
