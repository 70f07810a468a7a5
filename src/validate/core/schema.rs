//! `CompiledSchema`: a template turned into an immutable, shareable
//! validator, and `SchemaCore`, the compiled data every reader decides on.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::build_facts;
use super::check::Check;
use super::compiled_key::{CompiledKey, Fallback, KeyStatus, fallback};
use super::key_index::{Cursor, KeyIndex};
use super::options::ValidateOptions;
use crate::digest::{DigestError, canonical_digest};
use crate::issue::IssuePath;
use crate::key::{KeyDefinition, OTHER_KEY};
use crate::template::{SchemaTemplate, TemplateError};

/// The JSON Pointer of a message's payload.
const PAYLOAD_POINTER: &str = "/payload";

/// A compiled schema's data: the keys and their lookup tables, the options,
/// and the template they came from. Every reader (a `Value`, a serde
/// source, JSON text, a keyed payload, a typed read) decides on it.
#[derive(Debug)]
pub(crate) struct SchemaCore {
    /// The effective template this schema was compiled from.
    pub(crate) template: SchemaTemplate,
    pub(crate) schema_id: Box<str>,
    /// The template's keys in order, then `other` if the template omits it.
    pub(crate) keys: Vec<CompiledKey>,
    /// Finds a key by name.
    index: KeyIndex,
    pub(crate) required_count: usize,
    /// Each key's `/payload/<name>`, by key index: built when the first issue
    /// needs one (a valid message needs none), then copied into every issue.
    paths: OnceLock<Box<[IssuePath]>>,
    /// Indices of the keys with a default, in template order.
    pub(crate) defaulted: Vec<usize>,
    /// Whether serde_json's maps, as built into this program, keep members
    /// sorted (they do unless its `preserve_order` feature is on).
    /// Asked on first use (serializing a borrowed normalized payload), not
    /// at compile time.
    maps_are_sorted: OnceLock<bool>,
    pub(crate) options: ValidateOptions,
    pub(crate) digest: OnceLock<Result<String, DigestError>>,
    /// Whether this build's serde_json hands numbers to visitors as maps
    /// (its `arbitrary_precision` feature, which any crate in the tree can
    /// turn on): the single-pass bytes path cannot read them, so the bytes
    /// methods parse a `Value` first.
    /// Asked on the first bytes-path call, not at compile time.
    numbers_arrive_as_maps: OnceLock<bool>,
}

/// A template compiled for validation: immutable, cheap to clone (an `Arc`),
/// `Send + Sync`. Compile once, validate many.
///
/// Its methods sit with the reader they serve (a parsed `Value`, JSON
/// text, any serde source, a keyed payload, your own type); the crate
/// root's module map says which file holds each.
///
/// ```
/// use sdsi::{CompiledSchema, SchemaTemplate};
/// use serde_json::json;
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "coffee_v1", "scenario": "coffee_order",
///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
///               "semantic_description": "Cup size: small, medium, large."}]
/// }))?;
/// let schema = CompiledSchema::new(&template)?;
/// assert!(schema.is_valid(&json!({"schema_id": "coffee_v1", "payload": {"size": "large"}})));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct CompiledSchema {
    /// Shared by every clone.
    pub(crate) core: Arc<SchemaCore>,
}

impl CompiledSchema {
    /// Compiles `template` with default options.
    pub fn new(template: &SchemaTemplate) -> Result<Self, TemplateError> {
        Self::with_options(template, ValidateOptions::default())
    }

    /// Compiles `template` with `options`; fails with every problem
    /// [`SchemaTemplate::check`] finds.
    pub fn with_options(
        template: &SchemaTemplate,
        options: ValidateOptions,
    ) -> Result<Self, TemplateError> {
        Self::from_parts(template.clone(), &[], options)
    }

    /// Compiles `template`, taking it: the schema keeps the template it was
    /// compiled from (for [`template`](Self::template), the digest and the
    /// exports), and [`new`](Self::new) must copy a borrowed one, a large
    /// part of compiling's work for a template of many keys.
    /// Use this one when the template is not needed afterwards, as after
    /// [`SchemaTemplate::from_value`]. On error the template is dropped; the
    /// error lists every problem.
    ///
    /// ```
    /// use sdsi::{CompiledSchema, SchemaTemplate};
    /// use serde_json::json;
    ///
    /// let template = SchemaTemplate::from_value(&json!({
    ///     "schema_id": "coffee_v1", "scenario": "coffee_order",
    ///     "keys": [{"key_name": "size", "key_type": "string", "required": true,
    ///               "semantic_description": "Cup size: small, medium, large."}]
    /// }))?;
    /// let schema = CompiledSchema::from_template(template)?;
    /// assert_eq!(schema.template().keys.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_template(template: SchemaTemplate) -> Result<Self, TemplateError> {
        Self::from_template_with_options(template, ValidateOptions::default())
    }

    /// [`from_template`](Self::from_template) with `options`.
    pub fn from_template_with_options(
        template: SchemaTemplate,
        options: ValidateOptions,
    ) -> Result<Self, TemplateError> {
        Self::from_parts(template, &[], options)
    }

    /// Compiles an effective template plus the withdrawn keys still accepted
    /// (with a warning) during their backward-compatibility window.
    pub(crate) fn from_parts(
        template: SchemaTemplate,
        withdrawn: &[KeyDefinition],
        options: ValidateOptions,
    ) -> Result<Self, TemplateError> {
        let check = template.check();
        if !check.is_valid() {
            return Err(TemplateError::from(check));
        }
        let status = |k: &KeyDefinition| {
            if k.is_deprecated() {
                KeyStatus::Deprecated
            } else {
                KeyStatus::Active
            }
        };
        let mut keys: Vec<CompiledKey> = template
            .keys
            .iter()
            .map(|k| {
                CompiledKey::new(
                    k.key_name.shared(),
                    Check::of(k),
                    k.required,
                    fallback(k),
                    status(k),
                )
            })
            .collect();
        keys.extend(
            withdrawn
                .iter()
                .filter(|w| template.key(w.key_name.as_str()).is_none())
                .map(|w| {
                    CompiledKey::new(
                        w.key_name.shared(),
                        Check::of(w),
                        false,
                        Fallback::None,
                        KeyStatus::Withdrawn,
                    )
                }),
        );
        // `other` is reserved in every template: a payload may carry it even
        // when the template does not declare it (§4.3).
        if template.key(OTHER_KEY).is_none() {
            keys.push(CompiledKey::new(
                OTHER_KEY.into(),
                Check::Other,
                false,
                Fallback::None,
                KeyStatus::Active,
            ));
        }
        let index = KeyIndex::new(&keys);
        let required_count = keys.iter().filter(|k| k.required).count();
        let defaulted = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| !matches!(k.default, Fallback::None))
            .map(|(i, _)| i)
            .collect();
        Ok(Self {
            core: Arc::new(SchemaCore {
                schema_id: template.schema_id.as_str().into(),
                keys,
                index,
                required_count,
                defaulted,
                maps_are_sorted: OnceLock::new(),
                paths: OnceLock::new(),
                options,
                digest: OnceLock::new(),
                template,
                numbers_arrive_as_maps: OnceLock::new(),
            }),
        })
    }

    /// The content digest of the effective template (`sha256:` + hex over its
    /// RFC 8785 canonical JSON): a version a polling endpoint can serve, equal
    /// for equal schemas whatever their member order. Computed once, on
    /// first use. Fails only for a template holding a number no double holds
    /// (see [`DigestError`]).
    pub fn digest(&self) -> Result<&str, DigestError> {
        self.core
            .digest
            .get_or_init(|| canonical_digest(&self.core.template))
            .as_deref()
            .map_err(Clone::clone)
    }

    /// The `schema_id` payloads must carry.
    pub fn schema_id(&self) -> &str {
        &self.core.schema_id
    }

    /// The effective template: every key a payload may carry, in order, with
    /// its semantic description (what exports and prompts are built from).
    /// `other` is accepted even when this template does not declare it.
    pub fn template(&self) -> &SchemaTemplate {
        &self.core.template
    }

    /// The options this schema was compiled with.
    pub fn options(&self) -> &ValidateOptions {
        &self.core.options
    }
}

impl SchemaCore {
    /// Whether serde_json's maps keep members sorted in this build.
    pub(crate) fn maps_are_sorted(&self) -> bool {
        *self
            .maps_are_sorted
            .get_or_init(build_facts::maps_are_sorted)
    }

    /// Whether this build's serde_json hands numbers to visitors as maps.
    pub(crate) fn numbers_arrive_as_maps(&self) -> bool {
        *self
            .numbers_arrive_as_maps
            .get_or_init(build_facts::numbers_arrive_as_maps)
    }

    /// `/payload/<name>` for key number `index`: the JSON Pointer of its
    /// value in a message. The paths are built when the first issue needs
    /// one.
    // Only issues need a path: out of line, the validation loops stay as
    // tight as when every key held its path.
    #[cold]
    pub(crate) fn path(&self, index: usize) -> IssuePath {
        let paths = self.paths.get_or_init(|| {
            self.keys
                .iter()
                .map(|key| IssuePath::member(PAYLOAD_POINTER, &key.name))
                .collect()
        });
        paths
            .get(index)
            .map_or_else(|| PAYLOAD_POINTER.into(), IssuePath::clone)
    }

    /// The name and default of key number `index`, if it has a default.
    pub(crate) fn default_of(&self, index: usize) -> Option<(&str, &Value)> {
        let key = self.keys.get(index)?;
        let default = match &key.default {
            Fallback::None => return None,
            // Template keys come first, in the template's order.
            Fallback::Declared => self.template.keys.get(index)?.effective_default()?,
            Fallback::Rewritten(value) => value,
        };
        Some((&key.name, default))
    }

    /// The index of the key `name`, if the schema has one.
    #[inline]
    pub(crate) fn lookup(&self, name: &str) -> Option<usize> {
        self.index.find(&self.keys, name.as_bytes())
    }

    /// [`KeyIndex::lookup_from`] over this schema's keys.
    #[inline(always)]
    pub(crate) fn lookup_from(&self, cursor: &mut Cursor, name: &[u8]) -> Option<usize> {
        self.index.lookup_from(&self.keys, cursor, name)
    }

    /// [`KeyIndex::settle_next_sorted`] over this schema's keys.
    #[inline(always)]
    pub(crate) fn settle_next_sorted(
        &self,
        cursor: &mut Cursor,
        name: &[u8],
        value: &Value,
    ) -> Option<bool> {
        self.index.settle_next_sorted(cursor, name, value)
    }
}
