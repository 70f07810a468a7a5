//! `#[derive(Template)]` on a struct: a template with one key per field it
//! reads, and the struct as an `object` key of an enclosing template.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DataStruct, DeriveInput, Fields, Ident, LitStr, Type};

use crate::attrs::{self, Container, DefaultFrom};
use crate::case::{is_snake_case, type_to_snake};
use crate::docs::doc_text;

/// The name the draft reserves for unmapped fragments.
const OTHER: &str = "other";

/// The local that holds the struct's own default under a container
/// `#[serde(default)]`.
const CONTAINER_DEFAULT: &str = "__sdsi_default";

/// The key type names a `#[sdsi(key_type = "...")]` may give, with the
/// `sdsi::KeyType` variant each stands for.
const KEY_TYPES: [(&str, &str); 7] = [
    ("string", "String"),
    ("integer", "Integer"),
    ("number", "Number"),
    ("boolean", "Boolean"),
    ("array", "Array"),
    ("object", "Object"),
    ("null", "Null"),
];

/// One field the template has a key for.
struct Key<'a> {
    name: String,
    ident: &'a Ident,
    ty: &'a Type,
    doc: String,
    attrs: attrs::Field,
    /// The `sdsi::KeyType` variant `#[sdsi(key_type = "...")]` names.
    key_type: Option<Ident>,
}

/// The two impls for a struct, or nothing when `errors` got a problem.
pub(crate) fn expand(
    input: &DeriveInput,
    data: &DataStruct,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let container = Container::read(&input.attrs, errors);
    let Fields::Named(named) = &data.fields else {
        errors.push(syn::Error::new(
            input.ident.span(),
            "a template needs a struct with named fields: each field is a key, named by its field name",
        ));
        return TokenStream::new();
    };
    let mut keys = Vec::new();
    let mut seen: HashMap<String, &Ident> = HashMap::new();
    for field in &named.named {
        let Some(ident) = &field.ident else { continue };
        let field_attrs = attrs::Field::read(&field.attrs, errors);
        if field_attrs.skip_deserializing {
            continue;
        }
        if let Some(span) = field_attrs.flatten {
            errors.push(syn::Error::new(
                span,
                format!(
                    "field `{ident}`: `#[serde(flatten)]` cannot be expressed in a template, whose keys are this struct's fields: declare the flattened members here"
                ),
            ));
            continue;
        }
        let rust_name = ident.unraw().to_string();
        let name = field_attrs
            .rename
            .clone()
            .unwrap_or_else(|| container.rename_all.field(&rust_name));
        if !is_snake_case(&name) {
            errors.push(syn::Error::new(
                ident.span(),
                format!(
                    "field `{rust_name}` is read as {name:?}, which is not a key name: keys are snake_case (lowercase ASCII words joined by single underscores); rename it with `#[serde(rename = \"...\")]`"
                ),
            ));
            continue;
        }
        if let Some(first) = seen.get(&name) {
            errors.push(syn::Error::new(
                ident.span(),
                format!("field `{rust_name}` is read as {name:?}, as field `{first}` is: a template's key names are unique"),
            ));
            continue;
        }
        seen.insert(name.clone(), ident);
        let doc = match doc_text(&field.attrs) {
            Ok(Some(doc)) => doc,
            Ok(None) => {
                errors.push(syn::Error::new(
                    ident.span(),
                    format!(
                        "field `{rust_name}` has no doc comment: it becomes the key's semantic description, the text a client's model maps intent against; add a `///` comment saying what the key means, its values and an example"
                    ),
                ));
                continue;
            }
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        let own_type = field_attrs
            .key_type
            .as_ref()
            .map(LitStr::span)
            .or(field_attrs.deserialize_with);
        if let (OTHER, Some(span)) = (name.as_str(), own_type) {
            errors.push(syn::Error::new(
                span,
                "the reserved key `other` always takes a string or an array of strings, read as `sdsi::derive::Other`: it takes no key type and no function of its own",
            ));
            continue;
        }
        if let (Some(span), None) = (field_attrs.deserialize_with, &field_attrs.key_type) {
            errors.push(syn::Error::new(
                span,
                format!(
                    "field `{rust_name}` is read by a function, so its JSON type is not its Rust type's: name it with `#[sdsi(key_type = \"...\")]`"
                ),
            ));
            continue;
        }
        let key_type = match &field_attrs.key_type {
            Some(lit) => match KEY_TYPES.iter().find(|(n, _)| *n == lit.value()) {
                Some((_, variant)) => Some(Ident::new(variant, lit.span())),
                None => {
                    let known: Vec<&str> = KEY_TYPES.iter().map(|(n, _)| *n).collect();
                    errors.push(syn::Error::new(
                        lit.span(),
                        format!(
                            "unknown key type {:?}: one of {}",
                            lit.value(),
                            known.join(", ")
                        ),
                    ));
                    continue;
                }
            },
            None => None,
        };
        keys.push(Key {
            name,
            ident,
            ty: &field.ty,
            doc,
            attrs: field_attrs,
            key_type,
        });
    }
    if let (Some(span), false) = (container.deny_unknown_fields, seen.contains_key(OTHER)) {
        errors.push(syn::Error::new(
            span,
            "`#[serde(deny_unknown_fields)]` without an `other` field: every payload may carry the reserved key `other`, which this type would refuse; declare `other: Option<sdsi::derive::Other>`",
        ));
    }
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        errors.push(syn::Error::new(
            input.generics.span(),
            "a template type cannot be generic: a template is one fixed set of keys",
        ));
    }
    if !errors.is_empty() {
        return TokenStream::new();
    }
    generate(input, &container, &keys)
}

/// The `Template` and `TemplateField` impls.
fn generate(input: &DeriveInput, container: &Container, keys: &[Key]) -> TokenStream {
    let ident = &input.ident;
    let default_scenario = type_to_snake(&ident.unraw().to_string());
    let scenario = container
        .scenario
        .as_ref()
        .map_or(default_scenario.clone(), LitStr::value);
    let schema_id = container
        .schema_id
        .as_ref()
        .map_or(default_scenario, LitStr::value);

    let mut definitions = Vec::new();
    let mut members = Vec::new();
    let mut checks = Vec::new();
    let mut uses_container_default = false;
    // One identifier for the local's declaration and every read of it, with
    // the macro's own (mixed-site) hygiene: a read built under a field's
    // span would resolve in the field's macro context (a `macro_rules!`
    // that declares the struct) and not find it, and no name the user
    // writes can see or shadow it.
    let container_local = Ident::new(CONTAINER_DEFAULT, Span::mixed_site());
    for key in keys {
        let Key { name, ty, doc, .. } = key;
        let has_default = key.attrs.default.is_some() || container.default.is_some();
        if name == OTHER {
            // The validator takes a string or an array of strings here,
            // whatever the template says: only `Other` reads both.
            checks.push(if has_default {
                quote_spanned!(ty.span()=> ::sdsi::derive::__private::assert_other::<#ty>();)
            } else {
                quote_spanned!(ty.span()=> ::sdsi::derive::__private::assert_optional_other::<#ty>();)
            });
            definitions.push(quote! {
                ::sdsi::derive::__private::other_key(::core::option::Option::Some(#doc))
            });
            continue;
        }
        let (key_type, required, more) = match &key.key_type {
            Some(variant) => {
                // serde reads a missing `Option` as `None` unless a function
                // reads the field.
                let optional = is_option(ty) && key.attrs.deserialize_with.is_none();
                let required = !(has_default || optional);
                (
                    quote!(::sdsi::KeyType::#variant),
                    quote!(#required),
                    quote!(::core::option::Option::None),
                )
            }
            None => (
                quote_spanned!(ty.span()=> <#ty as ::sdsi::derive::TemplateField>::KEY_TYPE),
                if has_default {
                    quote!(false)
                } else {
                    quote_spanned!(ty.span()=> !<#ty as ::sdsi::derive::TemplateField>::OPTIONAL)
                },
                quote_spanned!(ty.span()=> <#ty as ::sdsi::derive::TemplateField>::describe()),
            ),
        };
        let default = default_value(
            key,
            container,
            &container_local,
            &mut uses_container_default,
        );
        definitions.push(quote! {
            ::sdsi::derive::__private::key(#name, #key_type, #required, #doc, #more, #default)
        });
        members.push(quote!((#name, #key_type, #required)));
    }
    if !keys.iter().any(|k| k.name == OTHER) {
        definitions.push(quote!(::sdsi::derive::__private::other_key(
            ::core::option::Option::None
        )));
    }
    let container_default = if uses_container_default {
        match &container.default {
            Some(DefaultFrom::Path(path)) => quote!(let #container_local: Self = #path();),
            _ => quote!(let #container_local: Self = ::core::default::Default::default();),
        }
    } else {
        TokenStream::new()
    };
    let count = definitions.len();
    quote! {
        #[automatically_derived]
        impl ::sdsi::derive::Template for #ident {
            fn template() -> ::sdsi::SchemaTemplate {
                #(#checks)*
                #container_default
                let keys: [::core::option::Option<::sdsi::KeyDefinition>; #count] = [#(#definitions),*];
                ::sdsi::SchemaTemplate::new(
                    #schema_id,
                    #scenario,
                    keys.into_iter().flatten().collect(),
                )
            }
        }

        #[automatically_derived]
        impl ::sdsi::derive::TemplateField for #ident {
            const KEY_TYPE: ::sdsi::KeyType = ::sdsi::KeyType::Object;
            fn describe() -> ::core::option::Option<::std::string::String> {
                ::core::option::Option::Some(::sdsi::derive::__private::members(&[#(#members),*]))
            }
        }
    }
}

/// The expression of a key's default: the JSON of what serde puts in a
/// missing member, or `None`. `container_local` names the struct's own
/// default, which the caller declares when `uses_container_default` is set.
fn default_value(
    key: &Key,
    container: &Container,
    container_local: &Ident,
    uses_container_default: &mut bool,
) -> TokenStream {
    let Key { ident, ty, .. } = key;
    // A function reads the field, so the field's `Serialize` may not write
    // what the function reads: no default in the template (serde still
    // applies it when the member is missing).
    if key.attrs.deserialize_with.is_some() {
        return quote!(::core::option::Option::None);
    }
    match (&key.attrs.default, &container.default) {
        (Some(DefaultFrom::Trait), _) => quote_spanned! {ty.span()=>
            ::sdsi::derive::__private::default_value(&<#ty as ::core::default::Default>::default())
        },
        (Some(DefaultFrom::Path(path)), _) => quote_spanned! {ty.span()=>
            ::sdsi::derive::__private::default_value::<#ty>(&#path())
        },
        (None, Some(_)) => {
            *uses_container_default = true;
            // Built outside the field's span, which is only for the call:
            // a missing `Serialize` is reported at the field's type.
            let field = quote!(#container_local.#ident);
            quote_spanned! {ty.span()=>
                ::sdsi::derive::__private::default_value::<#ty>(&#field)
            }
        }
        (None, None) => quote!(::core::option::Option::None),
    }
}

/// Whether the type is spelled `Option<...>` (serde's own test).
fn is_option(mut ty: &Type) -> bool {
    // A type a `macro_rules!` passed on as `$ty:ty` arrives wrapped in
    // invisible groups, which serde looks through too.
    while let Type::Group(group) = ty {
        ty = &group.elem;
    }
    let Type::Path(path) = ty else { return false };
    path.path
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "Option")
}
