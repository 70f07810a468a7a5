//! The attributes the derive reads: serde's (so a key is what serde reads)
//! and its own `#[sdsi(...)]`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, ExprPath, LitStr, Token};

use crate::case::{RULES, RenameRule};

/// Where a missing member's value comes from (`#[serde(default)]`).
pub(crate) enum DefaultFrom {
    /// `Default::default()` of the field's type (of the struct's, on the struct).
    Trait,
    /// A function returning the value (`default = "path"`).
    Path(ExprPath),
}

/// The attributes of a struct or enum.
pub(crate) struct Container {
    pub(crate) rename_all: RenameRule,
    pub(crate) default: Option<DefaultFrom>,
    /// The span of `deny_unknown_fields`.
    pub(crate) deny_unknown_fields: Option<Span>,
    pub(crate) schema_id: Option<LitStr>,
    pub(crate) scenario: Option<LitStr>,
}

/// The attributes of a named field.
pub(crate) struct Field {
    pub(crate) rename: Option<String>,
    pub(crate) default: Option<DefaultFrom>,
    pub(crate) skip_deserializing: bool,
    /// `flatten`'s span: a flattened field cannot be a key.
    pub(crate) flatten: Option<Span>,
    /// The span of `with` or `deserialize_with`: the wire type is then the
    /// function's, not the field's.
    pub(crate) deserialize_with: Option<Span>,
    /// `#[sdsi(key_type = "...")]`.
    pub(crate) key_type: Option<LitStr>,
}

/// The attributes of an enum variant.
pub(crate) struct Variant {
    pub(crate) rename: Option<String>,
    pub(crate) skip_deserializing: bool,
    /// `#[serde(other)]`: serde reads every name no other variant has as
    /// this one.
    pub(crate) other: bool,
}

/// serde container attributes under which the type's wire form is not the
/// one its fields or variants describe.
const REFUSED_CONTAINER: [(&str, &str); 9] = [
    (
        "transparent",
        "the type reads as its one field, not as an object of keys",
    ),
    ("from", "the type reads as another type"),
    ("try_from", "the type reads as another type"),
    ("remote", "the derive would describe another crate's type"),
    (
        "tag",
        "a tagged enum's values are objects, not the strings a key lists",
    ),
    (
        "content",
        "a tagged enum's values are objects, not the strings a key lists",
    ),
    (
        "untagged",
        "an untagged unit variant reads as null, not as its name",
    ),
    (
        "variant_identifier",
        "the type is an identifier, not a value",
    ),
    ("field_identifier", "the type is an identifier, not a value"),
];

impl Container {
    /// Reads the serde and sdsi attributes of the type; every problem found
    /// goes to `errors`.
    pub(crate) fn read(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Self {
        let mut container = Self {
            rename_all: RenameRule::None,
            default: None,
            deny_unknown_fields: None,
            schema_id: None,
            scenario: None,
        };
        for attr in attrs {
            if attr.path().is_ident("serde") {
                let read = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename_all") {
                        if let Some(rule) = deserialize_side(&meta)? {
                            container.rename_all = rename_rule(&rule)?;
                        }
                    } else if meta.path.is_ident("default") {
                        container.default = Some(default(&meta)?);
                    } else if meta.path.is_ident("deny_unknown_fields") {
                        container.deny_unknown_fields = Some(meta.path.span());
                    } else if let Some((name, why)) = REFUSED_CONTAINER
                        .iter()
                        .find(|(n, _)| meta.path.is_ident(n))
                    {
                        errors.push(meta.error(format!(
                            "`#[serde({name})]` cannot be expressed in a template: {why}"
                        )));
                        skip(&meta)?;
                    } else {
                        skip(&meta)?;
                    }
                    Ok(())
                });
                errors.extend(read.err());
            } else if attr.path().is_ident("sdsi") {
                let mut empty = Vec::new();
                let read = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("schema_id") {
                        container.schema_id = Some(non_empty(&meta, &mut empty)?);
                    } else if meta.path.is_ident("scenario") {
                        container.scenario = Some(non_empty(&meta, &mut empty)?);
                    } else {
                        empty.push(meta.error(
                            "unknown sdsi attribute: a struct takes `schema_id = \"...\"` and `scenario = \"...\"`",
                        ));
                        skip(&meta)?;
                    }
                    Ok(())
                });
                errors.extend(empty);
                errors.extend(read.err());
            }
        }
        container
    }
}

impl Field {
    /// Reads the serde and sdsi attributes of a field.
    pub(crate) fn read(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Self {
        let mut field = Self {
            rename: None,
            default: None,
            skip_deserializing: false,
            flatten: None,
            deserialize_with: None,
            key_type: None,
        };
        for attr in attrs {
            if attr.path().is_ident("serde") {
                let read = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename") {
                        if let Some(name) = deserialize_side(&meta)? {
                            field.rename = Some(name.value());
                        }
                    } else if meta.path.is_ident("default") {
                        field.default = Some(default(&meta)?);
                    } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing")
                    {
                        field.skip_deserializing = true;
                    } else if meta.path.is_ident("flatten") {
                        field.flatten = Some(meta.path.span());
                    } else if meta.path.is_ident("with") || meta.path.is_ident("deserialize_with") {
                        field.deserialize_with = Some(meta.path.span());
                        skip(&meta)?;
                    } else {
                        skip(&meta)?;
                    }
                    Ok(())
                });
                errors.extend(read.err());
            } else if attr.path().is_ident("sdsi") {
                let read = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("key_type") {
                        field.key_type = Some(meta.value()?.parse()?);
                    } else {
                        return Err(meta
                            .error("unknown sdsi attribute: a field takes `key_type = \"...\"`"));
                    }
                    Ok(())
                });
                errors.extend(read.err());
            }
        }
        field
    }
}

impl Variant {
    /// Reads the serde attributes of a variant (sdsi has none for variants).
    pub(crate) fn read(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Self {
        let mut variant = Self {
            rename: None,
            skip_deserializing: false,
            other: false,
        };
        for attr in attrs {
            if attr.path().is_ident("serde") {
                let read = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename") {
                        if let Some(name) = deserialize_side(&meta)? {
                            variant.rename = Some(name.value());
                        }
                    } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing")
                    {
                        variant.skip_deserializing = true;
                    } else if meta.path.is_ident("other") {
                        variant.other = true;
                    } else {
                        skip(&meta)?;
                    }
                    Ok(())
                });
                errors.extend(read.err());
            } else if attr.path().is_ident("sdsi") {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "sdsi takes no attribute on an enum variant",
                ));
            }
        }
        variant
    }
}

/// The value of `rename = "x"`, or the `deserialize` half of
/// `rename(serialize = "a", deserialize = "b")`: the name serde reads.
fn deserialize_side(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(Token![=]) {
        return meta.value()?.parse().map(Some);
    }
    let mut found = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("deserialize") {
            found = Some(inner.value()?.parse()?);
        } else {
            skip(&inner)?;
        }
        Ok(())
    })?;
    Ok(found)
}

/// A `rename_all` rule, refused when serde does not know it.
fn rename_rule(name: &LitStr) -> syn::Result<RenameRule> {
    RenameRule::from_name(&name.value()).ok_or_else(|| {
        let known: Vec<String> = RULES.iter().map(|(n, _)| format!("{n:?}")).collect();
        syn::Error::new(
            name.span(),
            format!(
                "unknown rename rule {:?}: serde knows {}",
                name.value(),
                known.join(", ")
            ),
        )
    })
}

/// `default` or `default = "path"`.
fn default(meta: &ParseNestedMeta) -> syn::Result<DefaultFrom> {
    if meta.input.peek(Token![=]) {
        let path: LitStr = meta.value()?.parse()?;
        Ok(DefaultFrom::Path(path.parse()?))
    } else {
        Ok(DefaultFrom::Trait)
    }
}

/// A string value that must not be empty (`schema_id`, `scenario`); an
/// empty one goes to `empty`, and the attribute's other members are read on.
fn non_empty(meta: &ParseNestedMeta, empty: &mut Vec<syn::Error>) -> syn::Result<LitStr> {
    let value: LitStr = meta.value()?.parse()?;
    if value.value().trim().is_empty() {
        empty.push(syn::Error::new(
            value.span(),
            "must not be empty: clients and stores tell templates apart by it",
        ));
    }
    Ok(value)
}

/// Passes over an attribute the derive does not read, whatever its form:
/// a flag, `name = value` or `name(...)`.
fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip(&inner))?;
    }
    Ok(())
}
