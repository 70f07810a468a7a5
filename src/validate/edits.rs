//! What normalizing a valid payload changes, for callers that keep the
//! payload in a form of their own (another language's objects) and apply
//! the changes there rather than building a JSON value.

use serde_json::Value;

use super::compile::CompiledSchema;
use super::normalized::Plan;
use crate::issue::Problems;
use crate::key::float_as_integer;

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
    pub(crate) plan: Plan,
}

impl Edits {
    /// The members to leave out.
    pub fn removed<'s>(&'s self, schema: &'s CompiledSchema) -> impl Iterator<Item = &'s str> + 's {
        self.names(schema, |plan, index| plan.is_dropped(index))
    }

    /// The members whose value, a whole-number float, becomes that integer
    /// ([`Edits::integer`] makes it).
    pub fn to_integer<'s>(
        &'s self,
        schema: &'s CompiledSchema,
    ) -> impl Iterator<Item = &'s str> + 's {
        self.names(schema, |plan, index| plan.is_rewritten(index))
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
        self.plan.added_defaults(&schema.inner)
    }

    fn names<'s>(
        &'s self,
        schema: &'s CompiledSchema,
        keep: impl Fn(&Plan, usize) -> bool + 's,
    ) -> impl Iterator<Item = &'s str> + 's {
        schema
            .inner
            .keys
            .iter()
            .enumerate()
            .filter(move |(index, _)| keep(&self.plan, *index))
            .map(|(_, key)| &*key.name)
    }
}
