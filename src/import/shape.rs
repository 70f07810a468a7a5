//! Where a property's type is written: in the property itself, in the
//! schema a local `$ref` names (`#/$defs/Size`, as pydantic and schemars
//! write enums and nested models), or in the one non-null branch of an
//! `anyOf` / `oneOf` whose other branches are `{"type": "null"}` (their
//! `Optional[T]`).
//!
//! Each `$ref` target is read once per import: what it leads to is kept
//! and shared by every property that names it, so a schema whose thousand
//! properties name one definition costs about what it costs to read that
//! definition once.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::importer::is_annotation;
use crate::issue::{describe_short, pointer};
use crate::key::KeyType;

/// How many schemas a property's type may be read through: more than any
/// generator writes.
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

    /// The pointer in the input of what `reference` names, and its
    /// fragment. Only same-document JSON Pointer fragments name anything: a
    /// template import follows no URL, and `$anchor` names are rare in
    /// generated schemas.
    fn target(&self, reference: &'a Value) -> Option<(String, &'a str)> {
        let fragment = reference.as_str()?.strip_prefix('#')?;
        (fragment.is_empty() || fragment.starts_with('/'))
            .then(|| (format!("{}{fragment}", self.at), fragment))
    }

    /// The schema object at `fragment`, if there is one.
    fn resolve(&self, fragment: &str) -> Option<&'a Map<String, Value>> {
        self.root.pointer(fragment)?.as_object()
    }
}

/// One schema object a property's type was read through.
pub(super) struct Hop<'a> {
    /// The schema object.
    pub(super) schema: &'a Map<String, Value>,
    /// Its pointer in the input.
    pub(super) at: String,
    /// The keyword followed from it to the next hop (`$ref`, `anyOf`,
    /// `oneOf`), none on the last: the one where the type is read.
    pub(super) followed: Option<&'static str>,
}

/// What the `type` of the last hop says, read once for every property
/// whose type is read there.
#[derive(Clone, Copy)]
pub(super) struct Typed<'a> {
    /// The first type named besides `null`, and the key type of that name
    /// if it is one.
    pub(super) first: Option<(&'a str, Option<KeyType>)>,
    /// Whether another type besides `null` follows the first.
    pub(super) several: bool,
    /// Whether `null` is among the types.
    pub(super) null: bool,
    /// Whether the schema is a union (`anyOf`, `oneOf`, `allOf`).
    pub(super) union: bool,
}

impl<'a> Typed<'a> {
    fn of(schema: &'a Map<String, Value>) -> Self {
        let mut typed = Typed {
            first: None,
            several: false,
            null: false,
            union: ["anyOf", "oneOf", "allOf"]
                .iter()
                .any(|k| schema.contains_key(*k)),
        };
        let mut note = |name: &'a str| {
            if name == "null" {
                typed.null = true;
            } else if typed.first.is_none() {
                let key_type = KeyType::ALL.iter().copied().find(|t| t.as_str() == name);
                typed.first = Some((name, key_type));
            } else {
                typed.several = true;
            }
        };
        match schema.get("type") {
            Some(Value::String(name)) => note(name.as_str()),
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).for_each(note),
            _ => {}
        }
        typed
    }
}

/// The schemas read through from one schema object, through the optional
/// forms written inside it, up to a `$ref` or to where the type is.
struct Segment<'a> {
    hops: Vec<Hop<'a>>,
    /// The `null` branch of the first optional form gone through.
    null_branch: Option<String>,
    end: End<'a>,
}

/// How a [`Segment`] ends.
enum End<'a> {
    /// Its last hop is where the type is read.
    Typed(Typed<'a>),
    /// Its last hop's `$ref`, followed elsewhere.
    Ref(&'a Value),
    /// It goes on past [`MAX_HOPS`].
    TooDeep,
}

/// The segment from `schema` at `at`.
fn segment<'a>(schema: &'a Map<String, Value>, at: String) -> Segment<'a> {
    let mut hops = Vec::new();
    let mut null_branch = None;
    let mut next = (schema, at);
    let end = loop {
        if hops.len() == MAX_HOPS {
            break End::TooDeep;
        }
        let (schema, at) = next;
        let mut hop = Hop {
            schema,
            at,
            followed: None,
        };
        if !schema.contains_key("type") {
            if let Some(reference) = schema.get("$ref") {
                hop.followed = Some("$ref");
                hops.push(hop);
                break End::Ref(reference);
            }
            if let Some((keyword, branch, null)) = optional_form(schema, &hop.at) {
                hop.followed = Some(keyword);
                null_branch.get_or_insert(null);
                hops.push(hop);
                next = branch;
                continue;
            }
        }
        hops.push(hop);
        break End::Typed(Typed::of(schema));
    };
    Segment {
        hops,
        null_branch,
        end,
    }
}

/// What a `$ref` target leads to: its segment, then the link of the
/// target its own `$ref` names, shared with every schema that names it.
struct Link<'a> {
    segment: Segment<'a>,
    next: Option<Rc<Link<'a>>>,
    /// Hops from here to the type.
    length: usize,
}

/// A target's link, or why no type can be read from it (where the chain of
/// schemas breaks, and how).
type Followed<'a> = Result<Rc<Link<'a>>, Rc<str>>;

/// A property's schema and every schema its type was read through.
pub(super) struct Shape<'a> {
    own: Segment<'a>,
    next: Option<Rc<Link<'a>>>,
}

impl<'a> Shape<'a> {
    /// Every schema the type was read through, the property's own first.
    pub(super) fn hops(&self) -> impl Iterator<Item = &Hop<'a>> {
        let links = std::iter::successors(self.next.as_deref(), |link| link.next.as_deref());
        self.own
            .hops
            .iter()
            .chain(links.flat_map(|link| link.segment.hops.iter()))
    }

    /// The segments in order.
    fn segments(&self) -> impl Iterator<Item = &Segment<'a>> {
        let links = std::iter::successors(self.next.as_deref(), |link| link.next.as_deref());
        std::iter::once(&self.own).chain(links.map(|link| &link.segment))
    }

    /// The hop where the type is read, and what its `type` says.
    pub(super) fn typed(&self) -> Option<(&Hop<'a>, Typed<'a>)> {
        let last = self.segments().last()?;
        match (&last.end, last.hops.last()) {
            (End::Typed(typed), Some(hop)) => Some((hop, *typed)),
            _ => None,
        }
    }

    /// The `null` branch of the first optional form the type was read through.
    pub(super) fn null_branch(&self) -> Option<&str> {
        self.segments().find_map(|s| s.null_branch.as_deref())
    }
}

/// Reads properties' types, each `$ref` target once.
pub(super) struct Shapes<'a> {
    document: Document<'a>,
    /// What each target followed so far leads to, by its pointer.
    followed: HashMap<String, Followed<'a>>,
}

impl<'a> Shapes<'a> {
    /// Types read in `document`.
    pub(super) fn new(document: Document<'a>) -> Self {
        Shapes {
            document,
            followed: HashMap::new(),
        }
    }

    /// Follows `schema` (the property at `at`) to where its type is
    /// written. `Err` says why no type can be read there, naming where the
    /// chain broke: a `$ref` that names nothing, references that loop, or
    /// more than 16 schemas on the way.
    pub(super) fn shape(
        &mut self,
        schema: &'a Map<String, Value>,
        at: &str,
    ) -> Result<Shape<'a>, Rc<str>> {
        let own = segment(schema, at.to_owned());
        let next = match own.end {
            End::Typed(_) => None,
            End::TooDeep => return Err(too_deep(at)),
            End::Ref(reference) => {
                let from = own.hops.last().map_or(at, |hop| hop.at.as_str());
                let link = self.follow(reference, from)?;
                if own.hops.len().saturating_add(link.length) > MAX_HOPS {
                    return Err(too_deep(at));
                }
                Some(link)
            }
        };
        Ok(Shape { own, next })
    }

    /// The link of the target `reference` names (written at `from`),
    /// walking on through targets not read before and keeping what each
    /// leads to.
    fn follow(&mut self, reference: &'a Value, from: &str) -> Followed<'a> {
        let mut walked: Vec<(String, Segment<'a>)> = Vec::new();
        let mut reference = reference;
        let mut from = from.to_owned();
        let mut length = 0usize;
        // What the last target walked leads to: Ok(None) when its own
        // segment ends at the type.
        let end: Result<Option<Rc<Link<'a>>>, Rc<str>> = loop {
            let Some((target, fragment)) = self.document.target(reference) else {
                break Err(unresolved(&from, reference));
            };
            if let Some(known) = self.followed.get(&target) {
                break known.clone().map(Some);
            }
            if walked.iter().any(|(seen, _)| *seen == target) {
                break Err(looped(&from, &target));
            }
            let Some(schema) = self.document.resolve(fragment) else {
                break Err(unresolved(&from, reference));
            };
            let segment = segment(schema, target.clone());
            length = length.saturating_add(segment.hops.len());
            if length > MAX_HOPS || matches!(segment.end, End::TooDeep) {
                // Only the first target is known to lead too deep: a later
                // one may be named from elsewhere, with fewer hops before it.
                let first = walked.into_iter().next().map_or(target, |(first, _)| first);
                let broken = too_deep(&first);
                self.followed.insert(first, Err(broken.clone()));
                return Err(broken);
            }
            let next = match segment.end {
                End::Ref(next) => Some(next),
                _ => None,
            };
            if let Some(last) = segment.hops.last() {
                from.clone_from(&last.at);
            }
            walked.push((target, segment));
            match next {
                Some(next) => reference = next,
                None => break Ok(None),
            }
        };
        let mut after = end;
        for (target, segment) in walked.into_iter().rev() {
            let followed: Followed<'a> = after.and_then(|next| {
                let length = segment
                    .hops
                    .len()
                    .saturating_add(next.as_ref().map_or(0, |n| n.length));
                if length > MAX_HOPS {
                    return Err(too_deep(&target));
                }
                Ok(Rc::new(Link {
                    segment,
                    next,
                    length,
                }))
            });
            self.followed.insert(target, followed.clone());
            after = followed.map(Some);
        }
        after.and_then(|link| link.ok_or_else(|| unresolved(&from, reference)))
    }
}

/// Why a `$ref` (written at `from`) names no type.
fn unresolved(from: &str, reference: &Value) -> Rc<str> {
    format!(
        "the $ref at {}, {}, names no schema object in this document",
        pointer(from, "$ref"),
        describe_short(reference)
    )
    .into()
}

/// Why references that come back to `target` name no type.
fn looped(from: &str, target: &str) -> Rc<str> {
    format!(
        "the $ref at {} leads back to {target}: the references loop",
        pointer(from, "$ref")
    )
    .into()
}

/// Why a type read on from `at` is not read.
fn too_deep(at: &str) -> Rc<str> {
    format!("from {at}, the type is more than {MAX_HOPS} references or unions deep").into()
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
        let mut value = None;
        let mut null = None;
        for (index, branch) in branches.iter().enumerate() {
            match branch.as_object() {
                Some(object) if is_null_schema(object) => {
                    null.get_or_insert(index);
                }
                Some(object) if value.is_none() => value = Some((object, index)),
                // A second value branch or a boolean schema: a real union.
                _ => return None,
            }
        }
        let ((object, index), null) = (value?, null?);
        // Pointers are made for the two branches kept only: the others may
        // be many.
        let list_at = pointer(at, keyword);
        let branch_at = |index: usize| pointer(&list_at, &index.to_string());
        Some((keyword, (object, branch_at(index)), branch_at(null)))
    })
}

/// `{"type": "null"}`, annotations allowed.
fn is_null_schema(schema: &Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        && schema
            .keys()
            .all(|keyword| keyword == "type" || is_annotation(keyword))
}
