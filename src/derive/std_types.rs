//! The key types of the standard types a field can have, as serde_json
//! writes them: numbers, strings, sequences (arrays) and maps (objects).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI128, NonZeroIsize, NonZeroU8,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU128, NonZeroUsize,
};
use std::rc::Rc;
use std::sync::Arc;

use super::traits::TemplateField;
use crate::key::KeyType;

macro_rules! key_type {
    ($key_type:ident: $($ty:ty),+ $(,)?) => {
        $(impl TemplateField for $ty {
            const KEY_TYPE: KeyType = KeyType::$key_type;
        })+
    };
}

key_type!(Integer: i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
key_type!(
    Integer: NonZeroI8,
    NonZeroI16,
    NonZeroI32,
    NonZeroI64,
    NonZeroI128,
    NonZeroIsize,
    NonZeroU8,
    NonZeroU16,
    NonZeroU32,
    NonZeroU64,
    NonZeroU128,
    NonZeroUsize,
);
key_type!(Number: f32, f64);
key_type!(Boolean: bool);
// `str` for `Box<str>`, `Arc<str>` and `Cow<str>`; a `char` is a
// one-character string.
key_type!(String: String, str, char);
key_type!(Object: serde_json::Map<String, serde_json::Value>);

// Sequences are arrays whatever their items: a template types the key, not
// what the array holds, so the items need no key type of their own.
impl<T> TemplateField for Vec<T> {
    const KEY_TYPE: KeyType = KeyType::Array;
}
impl<T> TemplateField for [T] {
    const KEY_TYPE: KeyType = KeyType::Array;
}
impl<T, const N: usize> TemplateField for [T; N] {
    const KEY_TYPE: KeyType = KeyType::Array;
}
impl<T> TemplateField for VecDeque<T> {
    const KEY_TYPE: KeyType = KeyType::Array;
}
impl<T> TemplateField for LinkedList<T> {
    const KEY_TYPE: KeyType = KeyType::Array;
}
impl<T, S> TemplateField for HashSet<T, S> {
    const KEY_TYPE: KeyType = KeyType::Array;
}
impl<T> TemplateField for BTreeSet<T> {
    const KEY_TYPE: KeyType = KeyType::Array;
}

// Maps are objects whatever their values (serde_json writes integer and
// string keys alike as member names).
impl<K, V, S> TemplateField for HashMap<K, V, S> {
    const KEY_TYPE: KeyType = KeyType::Object;
}
impl<K, V> TemplateField for BTreeMap<K, V> {
    const KEY_TYPE: KeyType = KeyType::Object;
}

/// `None` is what serde reads for a missing member, so the key is optional;
/// a `null` value is dropped by normalizing and reads as `None` too.
impl<T: TemplateField> TemplateField for Option<T> {
    const KEY_TYPE: KeyType = T::KEY_TYPE;
    const OPTIONAL: bool = true;
    fn describe() -> Option<String> {
        T::describe()
    }
}

// Pointers serialize as what they point to.
macro_rules! pointer {
    ($($pointer:ident),+) => {
        $(impl<T: TemplateField + ?Sized> TemplateField for $pointer<T> {
            const KEY_TYPE: KeyType = T::KEY_TYPE;
            const OPTIONAL: bool = T::OPTIONAL;
            fn describe() -> Option<String> {
                T::describe()
            }
        })+
    };
}

pointer!(Box, Rc, Arc);

impl<T: TemplateField + ToOwned + ?Sized> TemplateField for Cow<'_, T> {
    const KEY_TYPE: KeyType = T::KEY_TYPE;
    const OPTIONAL: bool = T::OPTIONAL;
    fn describe() -> Option<String> {
        T::describe()
    }
}
