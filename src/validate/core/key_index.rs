//! `KeyIndex`: finds a payload member's key by name. Members usually
//! arrive in the template's order or in byte order, so the index guesses
//! the next key from where the previous one was found before it hashes.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use serde_json::Value;

use super::compiled_key::CompiledKey;
use super::scalars::Scalars;

/// The lookup tables of a compiled schema's keys: by name hash, and in
/// byte order of the names. Names are not copied: the tables hold indices
/// into the keys (and shared names for the byte-ordered walk).
#[derive(Debug)]
pub(crate) struct KeyIndex {
    /// Key indices by name hash.
    by_hash: HashTable<usize>,
    /// The keys in byte order of their names: serde_json's default map
    /// iterates members in that order, so lookups can walk instead of hash.
    sorted: Box<[SortedKey]>,
    /// Each key's place in `sorted`, by key index.
    rank: Vec<usize>,
}

// The keys come as `&Vec`, a thin pointer, not as a slice: in the
// validation loops, where these methods are inlined, a slice's two words
// stay live across every member and push other values out of registers.
#[allow(
    clippy::ptr_arg,
    reason = "a thin `&Vec` keeps the inlined lookup loops out of register spills"
)]
impl KeyIndex {
    /// The tables for `keys`, whose names are unique.
    pub(crate) fn new(keys: &Vec<CompiledKey>) -> Self {
        let mut by_hash = HashTable::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            // Names are unique (the template check refuses duplicates, and
            // withdrawn keys and `other` are added only when absent).
            by_hash.insert_unique(name_hash(key.name.as_bytes()), i, |&j: &usize| {
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
        Self {
            by_hash,
            sorted,
            rank,
        }
    }

    /// The index of the key named `name` among `keys`, by hash.
    #[inline]
    pub(crate) fn find(&self, keys: &Vec<CompiledKey>, name: &[u8]) -> Option<usize> {
        self.by_hash
            .find(name_hash(name), |&i| {
                keys.get(i)
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
    pub(crate) fn lookup_from(
        &self,
        keys: &Vec<CompiledKey>,
        cursor: &mut Cursor,
        name: &[u8],
    ) -> Option<usize> {
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
            Self::next_declared(keys, cursor, name)
        };
        if found.is_none() {
            found = if cursor.sorted_first {
                Self::next_declared(keys, cursor, name)
            } else {
                self.next_sorted(cursor.sorted, name)
            };
            if found.is_some() {
                // The other guess found it: it goes first from now on.
                cursor.sorted_first = !cursor.sorted_first;
            } else {
                found = self.find(keys, name);
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
    /// is required. `None` leaves everything to [`KeyIndex::lookup_from`] and
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
    fn next_declared(keys: &Vec<CompiledKey>, cursor: &Cursor, name: &[u8]) -> Option<usize> {
        let key = keys.get(cursor.declared)?;
        same_bytes(key.name.as_bytes(), name).then_some(cursor.declared)
    }

    /// Whether `name` is one of the few keys from place `from` in byte order.
    #[inline(always)]
    #[allow(
        clippy::manual_find,
        reason = "`Iterator::find` here compiles to a slower loop on `is_valid`'s hottest path"
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
/// of the key for the usual member ([`KeyIndex::settle_next_sorted`]).
#[derive(Debug)]
struct SortedKey {
    name: Arc<str>,
    index: usize,
    verdict_scalars: Scalars,
    required: bool,
}

/// Where [`KeyIndex::lookup_from`] expects the next member: just after the
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

/// `a == b`, inlined: member names are short, and a call to `memcmp` per
/// comparison would dominate `is_valid`'s time. Up to 16 bytes the
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
