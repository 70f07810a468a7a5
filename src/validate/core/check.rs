//! `Check`: how a key's value is checked, the one fact every reader and
//! the scalar tables decide on.

use crate::key::{KeyDefinition, KeyType};

/// How a key's value is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The value must be an instance of the key type.
    Type(KeyType),
    /// The reserved `other` key: a string or an array of strings.
    Other,
}

impl Check {
    /// How `key`'s value is checked.
    pub(crate) fn of(key: &KeyDefinition) -> Self {
        if key.key_name.is_other() {
            Check::Other
        } else {
            Check::Type(key.key_type)
        }
    }
}
