//! Where a property's type is written: in the property itself, in the
//! schema a local `$ref` names (`#/$defs/Size`, as pydantic and schemars
//! write enums and nested models), or in the one non-null branch of an
//! `anyOf` / `oneOf` whose other branches are `{"type": "null"}` (their
//! `Optional[T]`).

use serde_json::{Map, Value};

use super::importer::is_annotation;
use crate::issue::pointer;

/// How many schemas a property's type may be read through: more than any
/// generator writes, and a bound on `$ref` loops.
const MAX_HOPS: usize = 16;

/// A schema object and its pointer in the input.
type Located<'a> = (&'a Map<String, Value>, String);

/// The schema document `$ref`s resolve in, and where it sits in the input
/// (`/inputSchema` in an MCP tool), so pointers stay into the input.
#[derive(Clone, Copy)]
pub(super) struct Document<'a> {
    root: &'a Value,
    at: &'a str,
}

impl<'a> Document<'a> {
    /// The document `root`, found at pointer `at` in the input.
    pub(super) fn new(root: &'a Value, at: &'a str) -> Self {
        Document { root, at }
    }

    /// The schema object a reference names, with its pointer in the input.
    /// Only same-document JSON Pointer fragments resolve: a template import
    /// follows no URL, and `$anchor` names are rare in generated schemas.
    fn resolve(&self, reference: &str) -> Option<Located<'a>> {
        let fragment = reference.strip_prefix('#')?;
        if !(fragment.is_empty() || fragment.starts_with('/')) {
            return None;
        }
        let target = self.root.pointer(fragment)?.as_object()?;
        Some((target, format!("{}{fragment}", self.at)))
    }
}

/// One schema object a property's type was read through.
pub(super) struct Hop<'a> {
    /// The schema object.
    pub(super) schema: &'a Map<String, Value>,
    /// Its pointer in the input.
    pub(super) at: String,
    /// The keyword followed from it to the next hop (`$ref`, `anyOf`,
    /// `oneOf`), none on the last.
    pub(super) followed: Option<&'static str>,
}

/// A property's schema and every schema its type was read through.
pub(super) struct Shape<'a> {
    /// The property's own schema first; the last one is where the type is
    /// (or is missing).
    pub(super) hops: Vec<Hop<'a>>,
    /// The `null` branch of an optional form the property went through.
    pub(super) null_branch: Option<String>,
}

impl<'a> Shape<'a> {
    /// The last hop: where the type is read.
    pub(super) fn typed(&self) -> Option<&Hop<'a>> {
        self.hops.last()
    }
}

/// Follows `schema` (at `at`) to where its type is written. `Err` holds the
/// pointer and message of why no type can be found there: a `$ref` that
/// does not resolve, or references that loop.
pub(super) fn shape<'a>(
    document: Document<'a>,
    schema: &'a Map<String, Value>,
    at: &str,
) -> Result<Shape<'a>, (String, String)> {
    let mut shape = Shape {
        hops: Vec::new(),
        null_branch: None,
    };
    let mut next = Some((schema, at.to_owned()));
    while let Some((schema, at)) = next.take() {
        if shape.hops.len() >= MAX_HOPS {
            return Err((
                at,
                format!("more than {MAX_HOPS} references or unions deep (a loop?): left out"),
            ));
        }
        let mut hop = Hop {
            schema,
            at,
            followed: None,
        };
        if !schema.contains_key("type") {
            if let Some(reference) = schema.get("$ref") {
                let target = reference.as_str().and_then(|r| document.resolve(r));
                let Some(target) = target else {
                    return Err((
                        hop.at,
                        format!(
                            "$ref {reference} names no schema object in this document: left out"
                        ),
                    ));
                };
                hop.followed = Some("$ref");
                next = Some(target);
            } else if let Some((keyword, branch, null)) = optional_form(schema, &hop.at) {
                hop.followed = Some(keyword);
                shape.null_branch.get_or_insert(null);
                next = Some(branch);
            }
        }
        shape.hops.push(hop);
    }
    Ok(shape)
}

/// `anyOf` / `oneOf` with one schema-object branch and the rest
/// `{"type": "null"}`: the keyword, that branch with its pointer, and the
/// pointer of the first `null` branch.
fn optional_form<'a>(
    schema: &'a Map<String, Value>,
    at: &str,
) -> Option<(&'static str, Located<'a>, String)> {
    ["anyOf", "oneOf"].into_iter().find_map(|keyword| {
        let branches = schema.get(keyword)?.as_array()?;
        let list_at = pointer(at, keyword);
        let mut value = None;
        let mut null = None;
        for (index, branch) in branches.iter().enumerate() {
            let branch_at = pointer(&list_at, &index.to_string());
            match branch.as_object() {
                Some(object) if is_null_schema(object) => {
                    null.get_or_insert(branch_at);
                }
                Some(object) if value.is_none() => value = Some((object, branch_at)),
                // A second value branch or a boolean schema: a real union.
                _ => return None,
            }
        }
        Some((keyword, value?, null?))
    })
}

/// `{"type": "null"}`, annotations allowed.
fn is_null_schema(schema: &Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        && schema
            .keys()
            .all(|keyword| keyword == "type" || is_annotation(keyword))
}
