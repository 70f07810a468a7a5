//! Key names, key types and key definitions: the building blocks of a template.

mod definition;
mod key_type;
mod name;
mod sensitivity;
#[cfg(test)]
mod tests;

pub(crate) use definition::KEY_MEMBERS;
pub use definition::{DEPRECATED_MEMBER, EXPERIMENTAL_MEMBER, KeyDefinition};
pub use key_type::{JsonKind, KeyType, UnknownKeyType};
pub(crate) use key_type::{float_as_integer, whole_number};
#[cfg(any(feature = "envelope", feature = "export"))]
pub(crate) use name::is_snake_case;
#[cfg(feature = "export")]
pub(crate) use name::snake_case;
pub use name::{InvalidKeyName, KeyName, OTHER_KEY};
pub use sensitivity::{SENSITIVE_MEMBER, Sensitivity};
