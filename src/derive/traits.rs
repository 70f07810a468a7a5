//! The traits a derived type implements: `Template` (the type is a whole
//! template) and `TemplateField` (the type as one key's value).

use crate::key::KeyType;
use crate::template::SchemaTemplate;

/// A Rust type that stands for a whole schema template: each field a key.
///
/// `#[derive(Template)]` implements it for a struct with named fields (see
/// the guide for the mapping). The template is built again on each call,
/// which costs a few allocations: compile it once into a
/// [`CompiledSchema`](crate::CompiledSchema) and keep that.
///
/// The derive refuses at compile time what would make the template invalid
/// (a field without a doc comment, a name that is not snake_case, two
/// fields with one name, an `other` field of the wrong type), so
/// `template()` cannot fail and
/// [`CompiledSchema::new`](crate::CompiledSchema::new) accepts what it returns.
pub trait Template {
    /// The template the type stands for.
    fn template() -> SchemaTemplate;
}

/// How a field of this Rust type appears as a template key: its key type,
/// whether it may be left out, and what its values are, for the key's
/// description.
///
/// Implemented for the standard types a key can hold (integers, floats,
/// `bool`, strings, sequences, maps, `Option`, smart pointers) and by
/// `#[derive(Template)]` for structs (an `object` key) and unit-only enums
/// (a `string` key listing the values).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no template key type",
    label = "no key type for this field",
    note = "a key holds a string, integer, number, boolean, array or object: use such a type, derive `Template` on `{Self}`, or name the key type with `#[sdsi(key_type = \"...\")]`"
)]
pub trait TemplateField {
    /// The key type of a field of this type.
    const KEY_TYPE: KeyType;

    /// Whether a payload may leave the field out (`Option<T>`: serde reads
    /// a missing member as `None`).
    const OPTIONAL: bool = false;

    /// What the type adds to the key's semantic description: the values of
    /// an enum, the members of a nested struct. `None` for most types.
    fn describe() -> Option<String> {
        None
    }
}
