//! `CompiledSchema`: a template turned into an immutable, shareable validator.

use std::sync::{Arc, OnceLock};

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use serde_json::Value;

use super::options::ValidateOptions;
use super::scalars::Scalars;
use crate::digest::{DigestError, canonical_digest};
use crate::issue::IssuePath;
use crate::key::{KeyDefinition, KeyType, OTHER_KEY, whole_number};
use crate::template::{SchemaTemplate, TemplateError};

/// How a key's value is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The value must be an instance of the key type.
    Type(KeyType),
    /// The reserved `other` key: a string or an array of strings.
    Other,
}

/// Whether a key is accepted silently or with a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyStatus {
    Active,
    /// Flagged `"deprecated": true`: accepted with `deprecated_key`.
    Deprecated,
    /// Out of the schema but inside its backward-compatibility window:
    /// accepted with `withdrawn_key`.
    Withdrawn,
}

/// Where a key's default lives. Most defaults are read from the template
/// the schema keeps, so compiling copies no default value.
#[derive(Debug)]
pub(crate) enum Fallback {
    /// No default applies.
    None,
    /// The template key's own `default_value` (the key at the same index).
    Declared,
    /// An integer key's whole-number default as an integer (`2.0` becomes
    /// `2`), so that a normalized payload holds what `as_i64` reads.
    Rewritten(Value),
}

#[derive(Debug)]
pub(crate) struct CompiledKey {
    /// Shared with the template's key name.
    pub(crate) name: Arc<str>,
    pub(crate) check: Check,
    pub(crate) required: bool,
    pub(crate) default: Fallback,
    pub(crate) status: KeyStatus,
    /// The scalars a verdict accepts from the tag alone.
    pub(crate) verdict_scalars: Scalars,
    /// The scalars the full pass accepts from the tag alone.
    pub(crate) kept_scalars: Scalars,
}

impl CompiledKey {
    fn new(
        name: Arc<str>,
        check: Check,
        required: bool,
        default: Fallback,
        status: KeyStatus,
    ) -> Self {
        Self {
            name,
            check,
            required,
            default,
            status,
            verdict_scalars: Scalars::verdict(check, required),
            kept_scalars: Scalars::kept(check, required, status == KeyStatus::Active),
        }
    }
}

/// The JSON Pointer of a message's payload.
const PAYLOAD_POINTER: &str = "/payload";

#[derive(Debug)]
pub(crate) struct Inner {
    /// The effective template this schema was compiled from.
    pub(crate) template: SchemaTemplate,
    pub(crate) schema_id: Box<str>,
    /// The template's keys in order, then `other` if the template omits it.
    pub(crate) keys: Vec<CompiledKey>,
    /// Key indices by name hash (names are not copied).
    pub(crate) index: HashTable<usize>,
    /// The keys in byte order of their names: serde_json's default map
    /// iterates members in that order, so lookups can walk instead of hash.
    sorted: Box<[SortedKey]>,
    /// Each key's place in `sorted`, by key index.
    rank: Vec<usize>,
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
/// Its methods sit with the concept they serve:
///
/// - compiling and reading back (`new`, `with_options`, `template`,
///   `schema_id`, `digest`, `options`): `validate/compile.rs`;
/// - a parsed message or payload (`validate`, `is_valid`,
///   `validate_payload`, `is_valid_payload`): `validate/value.rs`;
/// - JSON text (`validate_slice`, `validate_str`, `is_valid_slice`,
///   `is_valid_str`): `validate/stream.rs`;
/// - exports (`json_schema`, `mcp_input_schema`, `mcp_elicitation_schema`,
///   `strict_schema`, `prompt`; feature `export`): `export.rs`;
/// - envelopes (`validate_envelope`, `validate_envelope_slice`; feature
///   `envelope`): `envelope/parse.rs`;
/// - A2A data parts (`a2a_data_part`, `validate_a2a_data_part`; feature
///   `a2a`): `a2a/part.rs`.
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
    pub(crate) inner: Arc<Inner>,
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
    /// exports), and [`new`](Self::new) must copy a borrowed one (on the
    /// bench's 50-key template, about a third of compiling's instructions).
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
                    check_of(k),
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
                        check_of(w),
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
        let mut index = HashTable::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            // Names are unique (the template check refuses duplicates, and
            // withdrawn keys and `other` are added only when absent).
            index.insert_unique(name_hash(key.name.as_bytes()), i, |&j: &usize| {
                keys.get(j).map_or(0, |k| name_hash(k.name.as_bytes()))
            });
        }
        let mut sorted: Box<[SortedKey]> = keys
            .iter()
            .enumerate()
            .map(|(index, key)| SortedKey {
                name: Arc::clone(&key.name),
                index,
                verdict_scalars: key.verdict_scalars,
                required: key.required,
            })
            .collect();
        sorted.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let mut rank = vec![0; keys.len()];
        for (place, key) in sorted.iter().enumerate() {
            if let Some(slot) = rank.get_mut(key.index) {
                *slot = place;
            }
        }
        let required_count = keys.iter().filter(|k| k.required).count();
        let defaulted = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| !matches!(k.default, Fallback::None))
            .map(|(i, _)| i)
            .collect();
        Ok(Self {
            inner: Arc::new(Inner {
                schema_id: template.schema_id.as_str().into(),
                keys,
                index,
                sorted,
                rank,
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
        self.inner
            .digest
            .get_or_init(|| canonical_digest(&self.inner.template))
            .as_deref()
            .map_err(Clone::clone)
    }

    /// The `schema_id` payloads must carry.
    pub fn schema_id(&self) -> &str {
        &self.inner.schema_id
    }

    /// The effective template: every key a payload may carry, in order, with
    /// its semantic description (what exports and prompts are built from).
    /// `other` is accepted even when this template does not declare it.
    pub fn template(&self) -> &SchemaTemplate {
        &self.inner.template
    }

    /// The options this schema was compiled with.
    pub fn options(&self) -> &ValidateOptions {
        &self.inner.options
    }
}

/// `a == b`, inlined: member names are short, and a call to `memcmp` per
/// comparison was a quarter of `is_valid`'s time. Up to 16 bytes the
/// comparison is two overlapping word loads per side.
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same_name`] on raw names (the bytes path looks names up before
/// making them `str`s).
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        8..=16 => {
            a.first_chunk::<8>() == b.first_chunk::<8>()
                && a.last_chunk::<8>() == b.last_chunk::<8>()
        }
        4..=7 => {
            a.first_chunk::<4>() == b.first_chunk::<4>()
                && a.last_chunk::<4>() == b.last_chunk::<4>()
        }
        _ => a == b,
    }
}

/// The hash a key name is found by.
#[inline]
fn name_hash(name: &[u8]) -> u64 {
    FxBuildHasher.hash_one(name)
}

/// How a key's value is checked.
fn check_of(key: &KeyDefinition) -> Check {
    if key.key_name.is_other() {
        Check::Other
    } else {
        Check::Type(key.key_type)
    }
}

/// Where `key`'s default comes from.
fn fallback(key: &KeyDefinition) -> Fallback {
    match (key.effective_default(), key.key_type) {
        (None, _) => Fallback::None,
        (Some(default), KeyType::Integer) => {
            whole_number(default).map_or(Fallback::Declared, Fallback::Rewritten)
        }
        (Some(_), _) => Fallback::Declared,
    }
}

/// Whether serde_json's `Map` sorts its members (no `preserve_order`).
fn maps_are_sorted() -> bool {
    let mut map = serde_json::Map::new();
    map.insert("b".into(), Value::Null);
    map.insert("a".into(), Value::Null);
    map.keys().next().is_some_and(|first| first == "a")
}

impl Inner {
    /// Whether serde_json's maps keep members sorted in this build.
    pub(crate) fn maps_are_sorted(&self) -> bool {
        *self.maps_are_sorted.get_or_init(maps_are_sorted)
    }

    /// Whether this build's serde_json hands numbers to visitors as maps.
    pub(crate) fn numbers_arrive_as_maps(&self) -> bool {
        *self
            .numbers_arrive_as_maps
            .get_or_init(super::stream::numbers_arrive_as_maps)
    }

    /// `/payload/<name>` for key number `index`: the JSON Pointer of its
    /// value in a message. The paths are built when the first issue needs
    /// one.
    // Only issues need a path: out of line, the validation loops stay as
    // tight as when every key held its path (measured: inlined, `is_valid`
    // took ~1 % more instructions).
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
        self.lookup_bytes(name.as_bytes())
    }

    #[inline]
    fn lookup_bytes(&self, name: &[u8]) -> Option<usize> {
        self.index
            .find(name_hash(name), |&i| {
                self.keys
                    .get(i)
                    .is_some_and(|k| same_bytes(k.name.as_bytes(), name))
            })
            .copied()
    }

    /// Looks `name` up, guessing from where the previous member was found:
    /// members usually arrive in the template's order (a Python dict, a
    /// map with `preserve_order`, a model filling the keys in turn) or in
    /// byte order (serde_json's default map). So the guess that found the
    /// previous member is tried first: the key after it in template order,
    /// or a short walk of the sorted names; each is a length comparison or
    /// two and one short byte comparison. A miss (an unknown key, members
    /// in no order) hashes.
    #[inline(always)]
    pub(crate) fn lookup_from(&self, cursor: &mut Cursor, name: &[u8]) -> Option<usize> {
        // The usual member of serde_json's default map is the next key in
        // byte order: settled without the walk or the rank fetch below.
        if let Some(key) = self.next_in_byte_order(cursor, name) {
            cursor.step_past(key);
            return Some(key.index);
        }
        let mut found = if cursor.sorted_first {
            // The key at `cursor.sorted` was compared just above.
            self.next_sorted(cursor.sorted + 1, name)
        } else {
            self.next_declared(cursor, name)
        };
        if found.is_none() {
            found = if cursor.sorted_first {
                self.next_declared(cursor, name)
            } else {
                self.next_sorted(cursor.sorted, name)
            };
            if found.is_some() {
                // The other guess found it: it goes first from now on.
                cursor.sorted_first = !cursor.sorted_first;
            } else {
                found = self.lookup_bytes(name);
            }
        }
        if let Some(index) = found {
            // Both guesses continue from the member found, however it was
            // found: a template key the payload leaves out then costs no hash.
            cursor.declared = index + 1;
            cursor.sorted = self
                .rank
                .get(index)
                .map_or(cursor.sorted, |place| place + 1);
        }
        found
    }

    /// A verdict's shortcut for the usual member of a byte-ordered map:
    /// when `name` is the next key in byte order and that key takes `value`
    /// from its tag alone, moves `cursor` past it and says whether the key
    /// is required. `None` leaves everything to [`Inner::lookup_from`] and
    /// the full decision.
    #[inline(always)]
    pub(crate) fn settle_next_sorted(
        &self,
        cursor: &mut Cursor,
        name: &[u8],
        value: &Value,
    ) -> Option<bool> {
        let key = self.next_in_byte_order(cursor, name)?;
        if !key.verdict_scalars.take(value) {
            return None;
        }
        cursor.step_past(key);
        Some(key.required)
    }

    /// The next key in byte order, when the previous member was found in
    /// that order and `name` is this key's.
    #[inline(always)]
    fn next_in_byte_order(&self, cursor: &Cursor, name: &[u8]) -> Option<&SortedKey> {
        if !cursor.sorted_first {
            return None;
        }
        let key = self.sorted.get(cursor.sorted)?;
        same_bytes(key.name.as_bytes(), name).then_some(key)
    }

    /// Whether `name` is the key after the previous one in template order.
    #[inline(always)]
    fn next_declared(&self, cursor: &Cursor, name: &[u8]) -> Option<usize> {
        let key = self.keys.get(cursor.declared)?;
        same_bytes(key.name.as_bytes(), name).then_some(cursor.declared)
    }

    /// Whether `name` is one of the few keys from place `from` in byte order.
    #[inline(always)]
    #[allow(
        clippy::manual_find,
        reason = "`Iterator::find` here compiled to a third more instructions for `is_valid` (callgrind)"
    )]
    fn next_sorted(&self, from: usize, name: &[u8]) -> Option<usize> {
        const STEPS: usize = 4;
        let ahead = self.sorted.get(from..).unwrap_or_default();
        for key in ahead.iter().take(STEPS) {
            if same_bytes(key.name.as_bytes(), name) {
                return Some(key.index);
            }
        }
        None
    }
}

/// A key in the byte-ordered walk: its name beside its index, so that a
/// guess compares without first fetching the key, and what a verdict needs
/// of the key for the usual member ([`Inner::settle_next_sorted`]).
#[derive(Debug)]
struct SortedKey {
    name: Arc<str>,
    index: usize,
    verdict_scalars: Scalars,
    required: bool,
}

/// Where [`Inner::lookup_from`] expects the next member: just after the
/// previous one in template order, and in byte order; and which of the two
/// found the previous member.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cursor {
    declared: usize,
    sorted: usize,
    sorted_first: bool,
}

impl Cursor {
    /// Moves past `key`, the next key in byte order.
    #[inline(always)]
    fn step_past(&mut self, key: &SortedKey) {
        self.sorted += 1;
        self.declared = key.index + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::same_name;

    #[test]
    fn same_name_is_string_equality_at_every_length() {
        let names: Vec<String> = (0..40)
            .flat_map(|len| {
                let base: String = "abcdefghijklmnopqrstuvwxyz0123456789é_-/~"
                    .chars()
                    .cycle()
                    .take(len)
                    .collect();
                // The same name with its first, middle or last character changed.
                let mut variants = vec![base.clone()];
                for at in [0, len / 2, len.saturating_sub(1)] {
                    let changed: String = base
                        .chars()
                        .enumerate()
                        .map(|(i, c)| if i == at { 'Z' } else { c })
                        .collect();
                    variants.push(changed);
                }
                variants
            })
            .collect();
        for a in &names {
            for b in &names {
                assert_eq!(same_name(a, b), a == b, "{a:?} vs {b:?}");
            }
        }
    }
}
