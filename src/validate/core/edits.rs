//! `Edits`: what normalizing a valid payload changes. The validation pass
//! records them member by member; `Normalized` applies them lazily; a
//! caller that keeps the payload in its own form (another language's
//! objects) reads them through the public methods and applies them there.

use serde_json::{Map, Value};

use super::key_set::KeySet;
use super::schema::{CompiledSchema, SchemaCore};
use crate::issue::Problems;
use crate::key::{float_as_integer, whole_number};

/// What [`CompiledSchema::problems_from`] found: every problem, and for a
/// valid message what normalizing its payload changes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Checked {
    /// The errors and warnings, sorted by path.
    pub problems: Problems,
    /// For a valid message, what normalizing the payload changes.
    pub edits: Option<Edits>,
}

/// What normalizing one valid payload changes: the members to leave out
/// (optional keys sent as `null`), the members whose whole-number float
/// becomes an integer, and the defaults to add. Every other member stays
/// as sent, nested values untouched. Applied to the payload as sent, these
/// give exactly [`crate::Report::normalized`] (a property test checks it).
///
/// The edits name keys of the schema that made them: read them with that
/// [`CompiledSchema`] (another one names other keys, or none).
#[derive(Debug, Clone)]
pub struct Edits {
    /// Keys present in the payload.
    pub(crate) seen: KeySet,
    /// Members removed or rewritten; `None`, with no allocation, in the
    /// usual case where normalizing only adds defaults.
    changes: Option<Box<Changes>>,
}

impl Edits {
    /// Whether every member stays as sent: normalizing only adds defaults
    /// ([`Edits::removed`] and [`Edits::to_integer`] name nothing). The
    /// usual case, told without walking the schema's keys.
    pub fn keeps_members(&self) -> bool {
        self.changes.is_none()
    }

    /// The members to leave out.
    pub fn removed<'s>(&'s self, schema: &'s CompiledSchema) -> impl Iterator<Item = &'s str> + 's {
        self.names(schema, Self::is_dropped)
    }

    /// The members whose value, a whole-number float, becomes that integer
    /// ([`Edits::integer`] makes it).
    pub fn to_integer<'s>(
        &'s self,
        schema: &'s CompiledSchema,
    ) -> impl Iterator<Item = &'s str> + 's {
        self.names(schema, Self::is_rewritten)
    }

    /// The integer a [`Edits::to_integer`] member's float becomes (`None`
    /// for a float that is not a whole number 64 bits hold, which the
    /// edits never name): the crate's own rule, so callers need no copy.
    pub fn integer(float: f64) -> Option<Value> {
        float_as_integer(float)
    }

    /// The defaults to add, in the template's order.
    pub fn defaults<'s>(
        &'s self,
        schema: &'s CompiledSchema,
    ) -> impl Iterator<Item = (&'s str, &'s Value)> + 's {
        self.added_defaults(&schema.core)
    }

    fn names<'s>(
        &'s self,
        schema: &'s CompiledSchema,
        keep: impl Fn(&Self, usize) -> bool + 's,
    ) -> impl Iterator<Item = &'s str> + 's {
        schema
            .core
            .keys
            .iter()
            .enumerate()
            .filter(move |(index, _)| keep(self, *index))
            .map(|(_, key)| &*key.name)
    }
}

/// What normalizing changes beyond adding defaults.
#[derive(Debug, Clone)]
struct Changes {
    /// Optional keys given as `null`: left out (their default, if any, added).
    dropped: KeySet,
    /// `integer` keys holding a whole-number float that 64 bits hold.
    rewritten: KeySet,
    /// Those integers, by key index, once read from a parsed payload.
    integers: Vec<(usize, Value)>,
}

/// Recording and applying: what the validation pass and the readers use.
impl Edits {
    pub(crate) fn new(keys: usize) -> Self {
        Self {
            seen: KeySet::new(keys),
            changes: None,
        }
    }

    fn changes(&mut self) -> &mut Changes {
        let keys = self.seen.capacity();
        self.changes.get_or_insert_with(|| {
            Box::new(Changes {
                dropped: KeySet::new(keys),
                rewritten: KeySet::new(keys),
                integers: Vec::new(),
            })
        })
    }

    /// Records that key `index`'s member (`null`) is left out.
    pub(crate) fn drop_member(&mut self, index: usize) {
        self.changes().dropped.insert(index);
    }

    /// Records that key `index`'s member (a whole-number float) becomes an integer.
    pub(crate) fn rewrite_member(&mut self, index: usize) {
        self.changes().rewritten.insert(index);
    }

    /// How many members normalizing leaves out.
    pub(crate) fn dropped_count(&self) -> usize {
        self.changes.as_ref().map_or(0, |c| c.dropped.len())
    }

    /// Whether normalizing only adds defaults (no member removed or rewritten).
    pub(crate) fn only_adds_defaults(&self) -> bool {
        self.changes.is_none()
    }

    /// Whether key `index`'s member (`null`) is left out.
    pub(crate) fn is_dropped(&self, index: usize) -> bool {
        self.changes
            .as_ref()
            .is_some_and(|c| c.dropped.contains(index))
    }

    /// Whether key `index`'s member (a whole-number float) becomes an integer.
    pub(crate) fn is_rewritten(&self, index: usize) -> bool {
        self.changes
            .as_ref()
            .is_some_and(|c| c.rewritten.contains(index))
    }

    /// The integer key `index`'s member becomes, when it is rewritten.
    pub(crate) fn integer_of(&self, index: usize) -> Option<&Value> {
        let changes = self.changes.as_ref()?;
        changes
            .integers
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, integer)| integer)
    }

    /// Whether key `index`'s default goes into the normalized payload.
    pub(crate) fn adds_default(&self, index: usize) -> bool {
        !self.seen.contains(index) || self.is_dropped(index)
    }

    /// Normalizes `payload`, the payload these edits were recorded from, in place:
    /// the members keep their order (as the borrowed view iterates them),
    /// then the defaults follow.
    pub(crate) fn apply(&self, schema: &SchemaCore, payload: &mut Map<String, Value>) {
        if let Some(changes) = &self.changes {
            // `retain`, not `remove`: under `preserve_order` `remove` swaps
            // the last member into the hole.
            payload.retain(|name, value| {
                let Some(index) = schema.lookup(name) else {
                    return true;
                };
                if changes.rewritten.contains(index) {
                    if let Some(integer) = whole_number(value) {
                        *value = integer;
                    }
                }
                !changes.dropped.contains(index)
            });
        }
        for (name, default) in self.added_defaults(schema) {
            payload.insert(name.to_owned(), default.clone());
        }
    }

    /// The defaults normalizing adds, in the template's order.
    pub(crate) fn added_defaults<'n>(&'n self, schema: &'n SchemaCore) -> AddedDefaults<'n> {
        AddedDefaults {
            schema,
            edits: self,
            indices: schema.defaulted.iter(),
        }
    }

    /// Reads the rewritten integers from the parsed payload they come from.
    pub(crate) fn read_integers(&mut self, schema: &SchemaCore, payload: &Map<String, Value>) {
        if let Some(changes) = &mut self.changes {
            changes.integers = schema
                .keys
                .iter()
                .enumerate()
                .filter(|(index, _)| changes.rewritten.contains(*index))
                .filter_map(|(index, key)| {
                    whole_number(payload.get(&*key.name)?).map(|integer| (index, integer))
                })
                .collect();
        }
    }
}

/// The defaults an [`Edits`] adds: keys with a default that the payload left
/// out or gave as `null`.
pub(crate) struct AddedDefaults<'n> {
    schema: &'n SchemaCore,
    edits: &'n Edits,
    indices: std::slice::Iter<'n, usize>,
}

impl<'n> Iterator for AddedDefaults<'n> {
    type Item = (&'n str, &'n Value);

    fn next(&mut self) -> Option<Self::Item> {
        let (schema, edits) = (self.schema, self.edits);
        self.indices.by_ref().find_map(|&index| {
            edits
                .adds_default(index)
                .then(|| schema.default_of(index))
                .flatten()
        })
    }
}
