//! The model that turns a mature need into a candidate key
//! ([`IntentInducer`]).

use crate::evolution::pool::needs::view::NeedView;
use crate::key::KeyDefinition;
use crate::template::SchemaTemplate;

/// A mature need plus the schema it would extend → a candidate key.
///
/// The candidate's `semantic_description` must quote real fragments from the
/// need (§6.2.2); use only exemplars that are not `flagged`.
///
/// A candidate named after a key the schema already has is that key refined
/// (conflict detection, §6.2.2), never a duplicate: the engine packages it
/// as a `modified_keys` entry whose description *replaces* the key's, so
/// write one text that keeps what the key's description says (its values,
/// its examples, an owner's wording) with what the need adds, and keep the
/// key's type (another type is deferred). A candidate whose description
/// equals the key's proposes nothing: the need counts as that key's
/// ([`EvolutionEvent::Covered`](crate::evolution::EvolutionEvent::Covered)).
///
/// ```
/// use sdsi::{KeyDefinition, KeyName, KeyType, SchemaTemplate};
/// use sdsi::evolution::{IntentInducer, NeedView};
/// /// Always proposes the same key.
/// struct Fixed;
/// impl IntentInducer for Fixed {
///     fn induce(&self, need: &NeedView<'_>, _: &SchemaTemplate) -> Option<KeyDefinition> {
///         let example = need.exemplars().iter().find(|e| !e.flagged)?;
///         let name = KeyName::new("seat_preference").ok()?;
///         Some(KeyDefinition::new(name, KeyType::String, false, format!("Example: '{}'", example.text)))
///     }
/// }
/// ```
pub trait IntentInducer: Send + Sync {
    /// The key the need asks for, or `None` to propose nothing.
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition>;
}

/// A boxed inducer is an inducer, so the inducer can be chosen at run time
/// (`Evolution<E, Box<dyn IntentInducer>>`).
impl<I: IntentInducer + ?Sized> IntentInducer for Box<I> {
    fn induce(&self, need: &NeedView<'_>, schema: &SchemaTemplate) -> Option<KeyDefinition> {
        (**self).induce(need, schema)
    }
}
