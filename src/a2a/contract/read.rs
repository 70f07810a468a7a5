//! Reading a Schema Contract extension's `params` into a typed [`Catalog`],
//! with the structural rules of the draft's JSON Schemas: every member
//! typed, nothing the draft does not define (its objects are closed), ids
//! well formed and unique. Every problem is collected, none panics.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::issue::{Issue, IssueCode, pointer, quote_short};

use super::super::part_metadata::is_json_schema;
use super::model::{
    Bundle, Catalog, DigestAlgorithm, DirectionContract, Integrity, Presence, Representation,
    SchemaContract, SchemaDescriptor, SchemaSource,
};
use super::syntax::{
    is_absolute_uri, is_digest, is_entrypoint, is_media_type, is_representation_id,
};

/// The media type the draft requires of an external catalog.
const CATALOG_MEDIA_TYPE: &str = "application/json";

/// A walk over a JSON value that collects problems as it goes.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) errors: Vec<Issue>,
}

impl Walk {
    pub(crate) fn error(&mut self, code: IssueCode, path: String, message: impl Into<String>) {
        self.errors.push(Issue::new(code, path, message));
    }

    /// The object at `path`, each member outside `allowed` reported (the
    /// draft's objects are closed: `additionalProperties: false`).
    pub(crate) fn object<'v>(
        &mut self,
        value: &'v Value,
        path: &str,
        what: &str,
        allowed: &[&str],
    ) -> Option<&'v Map<String, Value>> {
        let Value::Object(object) = value else {
            self.error(
                IssueCode::InvalidMember,
                path.to_owned(),
                format!("{what} must be an object"),
            );
            return None;
        };
        self.members(object, path, what, allowed);
        Some(object)
    }

    /// Reports each member of `object` (at `path`) outside `allowed`.
    pub(crate) fn members(
        &mut self,
        object: &Map<String, Value>,
        path: &str,
        what: &str,
        allowed: &[&str],
    ) {
        for name in object
            .keys()
            .filter(|name| !allowed.contains(&name.as_str()))
        {
            self.error(
                IssueCode::InvalidMember,
                pointer(path, name),
                format!(
                    "{what} has no member {} in the schema contract draft",
                    quote_short(name)
                ),
            );
        }
    }

    /// What was read, when nothing was reported on the way.
    pub(crate) fn finish<T>(self, read: Option<T>) -> Result<T, Vec<Issue>> {
        match read {
            Some(read) if self.errors.is_empty() => Ok(read),
            _ => Err(self.errors),
        }
    }

    /// Member `name` of `object`, reported when absent.
    pub(crate) fn required<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        name: &str,
        path: &str,
    ) -> Option<&'v Value> {
        let member = object.get(name);
        if member.is_none() {
            self.error(
                IssueCode::MissingMember,
                pointer(path, name),
                format!("{name} is required"),
            );
        }
        member
    }

    /// The string at `path` when it passes `check`, described as `what`.
    pub(crate) fn text(
        &mut self,
        value: &Value,
        path: String,
        what: &str,
        check: fn(&str) -> bool,
    ) -> Option<String> {
        match value {
            Value::String(text) if check(text) => Some(text.clone()),
            _ => {
                self.error(IssueCode::InvalidMember, path, format!("must be {what}"));
                None
            }
        }
    }

    /// Member `name` when present: a string passing `check`.
    pub(crate) fn optional_text(
        &mut self,
        object: &Map<String, Value>,
        name: &str,
        path: &str,
        what: &str,
        check: fn(&str) -> bool,
    ) -> Option<String> {
        let value = object.get(name)?;
        self.text(value, pointer(path, name), what, check)
    }

    /// Required member `name`: a string passing `check`.
    pub(crate) fn required_text(
        &mut self,
        object: &Map<String, Value>,
        name: &str,
        path: &str,
        what: &str,
        check: fn(&str) -> bool,
    ) -> Option<String> {
        let value = self.required(object, name, path)?;
        self.text(value, pointer(path, name), what, check)
    }
}

/// Any string passes.
pub(crate) fn any_text(_: &str) -> bool {
    true
}

fn non_empty(text: &str) -> bool {
    !text.is_empty()
}

/// `params` of a Schema Contract extension entry, `at` its pointer.
pub(crate) fn read_params(params: &Value, at: &str) -> Result<Catalog, Vec<Issue>> {
    let mut walk = Walk::default();
    let catalog = walk
        .object(params, at, "params", &PARAMS)
        .and_then(|object| params_catalog(&mut walk, object, at));
    walk.finish(catalog)
}

/// [`read_params`] of `params` known to be an object (a typed entry's).
pub(crate) fn read_params_object(
    params: &Map<String, Value>,
    at: &str,
) -> Result<Catalog, Vec<Issue>> {
    let mut walk = Walk::default();
    walk.members(params, at, "params", &PARAMS);
    let catalog = params_catalog(&mut walk, params, at);
    walk.finish(catalog)
}

/// The members of `params`.
const PARAMS: [&str; 1] = ["catalog"];

fn params_catalog(walk: &mut Walk, params: &Map<String, Value>, at: &str) -> Option<Catalog> {
    let catalog = walk.required(params, "catalog", at)?;
    read_catalog(walk, catalog, &format!("{at}/catalog"))
}

fn read_catalog(walk: &mut Walk, value: &Value, at: &str) -> Option<Catalog> {
    let object = walk.object(
        value,
        at,
        "catalog",
        &["inline", "uri", "mediaType", "integrity"],
    )?;
    if let Some(inline) = object.get("inline") {
        for other in ["uri", "mediaType", "integrity"] {
            if object.contains_key(other) {
                walk.error(
                    IssueCode::InvalidMember,
                    pointer(at, other),
                    "a catalog is either inline or published at a uri, not both",
                );
            }
        }
        return read_contracts(walk, inline, &format!("{at}/inline")).map(Catalog::Inline);
    }
    let uri = walk.required_text(object, "uri", at, "an absolute URI", is_absolute_uri);
    let media_type = walk.required(object, "mediaType", at);
    if media_type.is_some_and(|m| m != CATALOG_MEDIA_TYPE) {
        walk.error(
            IssueCode::InvalidMember,
            pointer(at, "mediaType"),
            "an external catalog's mediaType must be application/json",
        );
    }
    let integrity = read_optional_integrity(walk, object, at);
    Some(Catalog::External {
        uri: uri?,
        integrity,
    })
}

fn read_contracts(walk: &mut Walk, value: &Value, at: &str) -> Option<Vec<SchemaContract>> {
    let object = walk.object(value, at, "an inline catalog", &["contracts"])?;
    let list = walk.required(object, "contracts", at)?;
    let at = format!("{at}/contracts");
    let Some(list) = list.as_array().filter(|list| !list.is_empty()) else {
        walk.error(
            IssueCode::InvalidMember,
            at,
            "contracts must be a non-empty array",
        );
        return None;
    };
    Some(read_each_once(
        walk,
        list,
        &at,
        "contract",
        read_contract,
        |c| &c.id,
    ))
}

/// Each item of `list` (at `at`) read by `read`, the ones that read; an id
/// (`id_of`) listed twice is an error at the second one's `/id`.
fn read_each_once<T>(
    walk: &mut Walk,
    list: &[Value],
    at: &str,
    what: &str,
    read: fn(&mut Walk, &Value, &str) -> Option<T>,
    id_of: fn(&T) -> &String,
) -> Vec<T> {
    let mut seen = HashSet::new();
    let mut items = Vec::with_capacity(list.len());
    for (index, value) in list.iter().enumerate() {
        let path = format!("{at}/{index}");
        if let Some(item) = read(walk, value, &path) {
            if !seen.insert(id_of(&item).clone()) {
                walk.error(
                    IssueCode::InvalidMember,
                    format!("{path}/id"),
                    format!("{what} id {} is listed twice", quote_short(id_of(&item))),
                );
            }
            items.push(item);
        }
    }
    items
}

fn read_contract(walk: &mut Walk, value: &Value, at: &str) -> Option<SchemaContract> {
    let allowed = [
        "id",
        "description",
        "skillIds",
        "supersedes",
        "input",
        "output",
    ];
    let object = walk.object(value, at, "a contract", &allowed)?;
    let id = walk.required_text(object, "id", at, "an absolute URI", is_absolute_uri);
    let description = walk.optional_text(object, "description", at, "a string", any_text);
    let skill_ids = read_unique_strings(
        walk,
        object,
        "skillIds",
        at,
        "a non-empty string",
        non_empty,
    );
    let supersedes = read_unique_strings(
        walk,
        object,
        "supersedes",
        at,
        "an absolute URI",
        is_absolute_uri,
    );
    let input = walk
        .required(object, "input", at)
        .and_then(|v| read_direction(walk, v, &format!("{at}/input")));
    let output = walk
        .required(object, "output", at)
        .and_then(|v| read_direction(walk, v, &format!("{at}/output")));
    Some(SchemaContract {
        id: id?,
        description,
        skill_ids,
        supersedes,
        input: input?,
        output: output?,
    })
}

/// An optional array of distinct strings, each passing `check`.
fn read_unique_strings(
    walk: &mut Walk,
    object: &Map<String, Value>,
    name: &str,
    at: &str,
    what: &str,
    check: fn(&str) -> bool,
) -> Vec<String> {
    let Some(value) = object.get(name) else {
        return Vec::new();
    };
    let at = pointer(at, name);
    let Some(list) = value.as_array() else {
        walk.error(
            IssueCode::InvalidMember,
            at,
            format!("{name} must be an array"),
        );
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let path = format!("{at}/{index}");
        if let Some(text) = walk.text(item, path.clone(), what, check) {
            if seen.insert(text.clone()) {
                out.push(text);
            } else {
                walk.error(
                    IssueCode::InvalidMember,
                    path,
                    format!("{} is listed twice", quote_short(&text)),
                );
            }
        }
    }
    out
}

fn read_direction(walk: &mut Walk, value: &Value, at: &str) -> Option<DirectionContract> {
    let object = walk.object(value, at, "a direction", &["presence", "representations"])?;
    let presence = match walk.required(object, "presence", at)?.as_str() {
        Some("required") => Presence::Required,
        Some("optional") => Presence::Optional,
        Some("none") => Presence::None,
        _ => {
            walk.error(
                IssueCode::InvalidMember,
                format!("{at}/presence"),
                "presence must be required, optional or none",
            );
            return None;
        }
    };
    let listed = object.get("representations");
    if presence == Presence::None {
        if listed.is_some() {
            walk.error(
                IssueCode::InvalidMember,
                format!("{at}/representations"),
                "a direction of presence none has no representations",
            );
        }
        return Some(DirectionContract::none());
    }
    let at_list = format!("{at}/representations");
    let Some(list) = listed.and_then(Value::as_array).filter(|l| !l.is_empty()) else {
        walk.error(
            IssueCode::MissingMember,
            at_list,
            "a direction of presence required or optional lists at least one representation",
        );
        return None;
    };
    let representations = read_each_once(
        walk,
        list,
        &at_list,
        "representation",
        read_representation,
        |r| &r.id,
    );
    Some(DirectionContract {
        presence,
        representations,
    })
}

fn read_representation(walk: &mut Walk, value: &Value, at: &str) -> Option<Representation> {
    let allowed = ["id", "mediaType", "description", "schema"];
    let object = walk.object(value, at, "a representation", &allowed)?;
    let id = walk.required_text(
        object,
        "id",
        at,
        "1 to 128 of A-Z a-z 0-9 . _ - (not starting with . _ -)",
        is_representation_id,
    );
    let media_type = walk.required_text(object, "mediaType", at, "a media type", is_media_type);
    let description = walk.optional_text(object, "description", at, "a string", any_text);
    let schema = match object.get("schema") {
        Some(value) => Some(read_schema(walk, value, &format!("{at}/schema"))?),
        None => None,
    };
    Some(Representation {
        id: id?,
        media_type: media_type?,
        description,
        schema,
    })
}

fn read_schema(walk: &mut Walk, value: &Value, at: &str) -> Option<SchemaDescriptor> {
    let allowed = [
        "inline",
        "uri",
        "integrity",
        "bundle",
        "entrypoint",
        "mediaType",
        "dialect",
    ];
    let object = walk.object(value, at, "a schema descriptor", &allowed)?;
    let sources: Vec<&str> = ["inline", "uri", "bundle"]
        .into_iter()
        .filter(|name| object.contains_key(*name))
        .collect();
    if sources.len() != 1 {
        walk.error(
            IssueCode::InvalidMember,
            at.to_owned(),
            "a schema descriptor has exactly one of inline, uri and bundle",
        );
    }
    let media_type = walk.required_text(object, "mediaType", at, "a media type", is_media_type);
    let dialect = walk.optional_text(object, "dialect", at, "an absolute URI", is_absolute_uri);
    let source = match sources.first().copied() {
        Some("inline") => {
            refuse_members(
                walk,
                object,
                at,
                &["integrity", "entrypoint"],
                "an inline schema",
            );
            let inline = object.get("inline").filter(|inline| {
                let schema = is_json_schema(inline);
                if !schema {
                    walk.error(
                        IssueCode::InvalidMember,
                        pointer(at, "inline"),
                        "an inline schema must be a JSON Schema (an object or a boolean)",
                    );
                }
                schema
            });
            inline.map(|inline| SchemaSource::Inline {
                inline: inline.clone(),
            })
        }
        Some("uri") => {
            refuse_members(walk, object, at, &["entrypoint"], "an external schema");
            let uri = walk.required_text(object, "uri", at, "an absolute URI", is_absolute_uri);
            let integrity = read_optional_integrity(walk, object, at);
            uri.map(|uri| SchemaSource::External { uri, integrity })
        }
        Some(_) => {
            refuse_members(walk, object, at, &["integrity"], "a bundled schema");
            let bundle = walk
                .required(object, "bundle", at)
                .and_then(|v| read_bundle(walk, v, &format!("{at}/bundle")));
            let entrypoint = walk.required_text(
                object,
                "entrypoint",
                at,
                "a relative path inside the bundle",
                is_entrypoint,
            );
            bundle
                .zip(entrypoint)
                .map(|(bundle, entrypoint)| SchemaSource::Bundled { bundle, entrypoint })
        }
        None => None,
    };
    Some(SchemaDescriptor {
        source: source?,
        media_type: media_type?,
        dialect,
    })
}

/// Reports each of `names` present in `object`: members of another form of descriptor.
fn refuse_members(
    walk: &mut Walk,
    object: &Map<String, Value>,
    at: &str,
    names: &[&str],
    what: &str,
) {
    for name in names.iter().filter(|name| object.contains_key(**name)) {
        walk.error(
            IssueCode::InvalidMember,
            pointer(at, name),
            format!("{what} has no {name}"),
        );
    }
}

fn read_bundle(walk: &mut Walk, value: &Value, at: &str) -> Option<Bundle> {
    let object = walk.object(value, at, "a bundle", &["uri", "mediaType", "integrity"])?;
    let uri = walk.required_text(object, "uri", at, "an absolute URI", is_absolute_uri);
    let media_type = walk.required_text(object, "mediaType", at, "a media type", is_media_type);
    let integrity = read_optional_integrity(walk, object, at);
    Some(Bundle {
        uri: uri?,
        media_type: media_type?,
        integrity,
    })
}

fn read_optional_integrity(
    walk: &mut Walk,
    object: &Map<String, Value>,
    at: &str,
) -> Option<Integrity> {
    let value = object.get("integrity")?;
    let at = format!("{at}/integrity");
    let object = walk.object(value, &at, "integrity", &["algorithm", "value"])?;
    let algorithm = match walk.required(object, "algorithm", &at)?.as_str() {
        Some("sha-256") => DigestAlgorithm::Sha256,
        Some("sha-512") => DigestAlgorithm::Sha512,
        _ => {
            walk.error(
                IssueCode::InvalidMember,
                format!("{at}/algorithm"),
                "algorithm must be sha-256 or sha-512",
            );
            return None;
        }
    };
    let value = walk.required(object, "value", &at)?;
    match value.as_str() {
        Some(digest)
            if is_digest(
                digest,
                algorithm.base64_shape().0,
                algorithm.base64_shape().1,
            ) =>
        {
            Some(Integrity::new(algorithm, digest))
        }
        _ => {
            walk.error(
                IssueCode::InvalidMember,
                format!("{at}/value"),
                "value must be the digest in base64, of the algorithm's length",
            );
            None
        }
    }
}
