//! A serde `Deserializer` over Python objects, so the validator reads a
//! dict where it lies: one pass, no JSON value built
//! (`CompiledSchema::is_valid_from` / `problems_from` in the crate).
//!
//! The same reader builds a JSON value when one is needed
//! (`convert::to_value`), so both accept and refuse exactly the same
//! objects.

use std::fmt;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::borrowed::{DictItems, SeqItems, small_int};
use crate::coerce::json_form;
use crate::depth::Depth;
use crate::errors::input_error;
use crate::scalar::{int_number, json_float, lone_surrogate, type_name};

/// An error carried through serde: a Python exception already made, or a
/// message that becomes `sdsi.InputError` only if it reaches Python. The
/// validator also uses an error to stop reading early (`is_valid_from`),
/// so making one must cost no more than the message. Boxed, so that every
/// `Result` passed up the reader's levels stays two words.
pub struct DeError(Box<Failure>);

enum Failure {
    Python(PyErr),
    Message(String),
}

impl DeError {
    fn python(error: PyErr) -> Self {
        DeError(Box::new(Failure::Python(error)))
    }
}

impl fmt::Debug for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Failure::Python(error) => fmt::Debug::fmt(error, f),
            Failure::Message(message) => fmt::Debug::fmt(message, f),
        }
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Failure::Python(error) => fmt::Display::fmt(error, f),
            Failure::Message(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DeError(Box::new(Failure::Message(message.to_string())))
    }
}

impl From<PyErr> for DeError {
    fn from(error: PyErr) -> Self {
        DeError::python(error)
    }
}

impl From<DeError> for PyErr {
    fn from(error: DeError) -> Self {
        match *error.0 {
            Failure::Python(error) => error,
            Failure::Message(message) => input_error(message),
        }
    }
}

/// One Python object at one nesting level.
pub struct PyDe<'a, 'py> {
    object: &'a Bound<'py, PyAny>,
    level: usize,
    depth: Depth,
    /// Whether a `str` here is handed over without its text: the validator
    /// never reads the text of a string inside a payload member's value,
    /// nor of a member name below the payload (the crate's documented
    /// contract for `is_valid_from` / `problems_from`), and getting it is
    /// most of the cost of a string.
    opaque: bool,
    /// Set when reading into a value: every string's text is read.
    all_text: bool,
}

impl<'a, 'py> PyDe<'a, 'py> {
    /// The message `object` for the validator, read with the depth bound
    /// `depth`.
    pub fn new(object: &'a Bound<'py, PyAny>, depth: Depth) -> Self {
        PyDe {
            object,
            level: 0,
            depth,
            opaque: false,
            all_text: false,
        }
    }

    /// A payload member's value, handed over on its own (the keyed check):
    /// at its level in the message, so strings in it are opaque and the
    /// depth bound counts from the message.
    pub fn member(object: &'a Bound<'py, PyAny>, depth: Depth) -> Self {
        PyDe {
            level: 2,
            opaque: true,
            ..PyDe::new(object, depth)
        }
    }

    /// `object` for building a value: every string's text is read.
    pub fn reading_all(object: &'a Bound<'py, PyAny>, depth: Depth) -> Self {
        PyDe {
            all_text: true,
            ..PyDe::new(object, depth)
        }
    }

    /// A member value or an item: from the payload's members down (level 2
    /// and below), strings are opaque.
    fn child<'b>(&self, object: &'b Bound<'py, PyAny>) -> PyDe<'b, 'py> {
        let level = self.level + 1;
        PyDe {
            object,
            level,
            depth: self.depth,
            opaque: level >= 2 && !self.all_text,
            all_text: self.all_text,
        }
    }

    /// A member name: the message's and the payload's are read; names
    /// inside a member's value are opaque.
    fn name<'b>(&self, text: &'b Bound<'py, PyString>) -> Name<'b, 'py> {
        Name {
            text,
            opaque: self.level + 1 >= 3 && !self.all_text,
        }
    }

    /// `Some(visit of an empty list)` for a container past the bound (when
    /// cutting is allowed), an error when not.
    fn container<'de, V: Visitor<'de>>(&self, visitor: V) -> Result<Result<V::Value, V>, DeError> {
        if self.level < self.depth.cap() {
            return Ok(Err(visitor));
        }
        if self.depth.cuts() {
            return visitor.visit_seq(Empty).map(Ok);
        }
        Err(DeError::python(self.depth.too_deep()))
    }

    fn dict<'de, V: Visitor<'de>>(
        self,
        dict: &Bound<'py, PyDict>,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let visitor = match self.container(visitor)? {
            Ok(cut) => return Ok(cut),
            Err(visitor) => visitor,
        };
        visitor.visit_map(Dict {
            parent: &self,
            left: dict.len(),
            items: DictItems::new(dict),
        })
    }

    fn list<'de, V: Visitor<'de>>(
        self,
        items: SeqItems<'py>,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let visitor = match self.container(visitor)? {
            Ok(cut) => return Ok(cut),
            Err(visitor) => visitor,
        };
        visitor.visit_seq(Items {
            parent: &self,
            items,
        })
    }

    fn int<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if let Some(n) = small_int(self.object) {
            return visitor.visit_i64(n);
        }
        // Past i64 the conversions allocate, and an allocation can run any
        // finalizer: hold the int by a reference of our own (borrowed.rs).
        let object = self.object.clone();
        let number = int_number(&object)?;
        if let Some(n) = number.as_i64() {
            visitor.visit_i64(n)
        } else if let Some(n) = number.as_u64() {
            visitor.visit_u64(n)
        } else {
            visitor.visit_f64(number.as_f64().unwrap_or(f64::NAN))
        }
    }

    /// An object that stands for JSON (`coerce.rs`), read as that JSON.
    fn converted<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // The conversion runs Python code, which could drop a borrowed
        // object from its container: hold it first (borrowed.rs).
        let object = self.object.clone();
        let not_json = || {
            DeError::python(input_error(format!(
                "a {} is not JSON (dict, list, tuple, str, int, float, bool or None; \
                 or a Mapping, a pydantic model, a Decimal, a NumPy value)",
                type_name(&object)
            )))
        };
        let Some(json) = json_form(&object)? else {
            return Err(not_json());
        };
        // Once: a conversion that gives another stand-in is refused.
        if Json::of(&json).is_none() {
            return Err(not_json());
        }
        de::Deserializer::deserialize_any(
            PyDe {
                object: &json,
                ..self
            },
            visitor,
        )
    }

    fn float<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_f64(json_float(self.object.extract::<f64>()?)?)
    }
}

impl<'de> de::Deserializer<'de> for PyDe<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match Json::of(self.object) {
            Some(Json::Null) => visitor.visit_unit(),
            Some(Json::Str(text)) => visit_text(text, self.opaque, visitor),
            Some(Json::Dict(dict)) => self.dict(dict, visitor),
            // `bool` has no subclasses: `True` is the one true object.
            Some(Json::Bool) => {
                visitor.visit_bool(self.object.is(PyBool::new(self.object.py(), true)))
            }
            Some(Json::Int) => self.int(visitor),
            Some(Json::Float) => self.float(visitor),
            Some(Json::List(list)) => self.list(SeqItems::list(list), visitor),
            Some(Json::Tuple(tuple)) => self.list(SeqItems::tuple(tuple), visitor),
            None => self.converted(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A `str`'s text for a visitor: `""` when `opaque` (module doc), else
/// its UTF-8, borrowed.
fn visit_text<'de, V: Visitor<'de>>(
    text: &Bound<'_, PyString>,
    opaque: bool,
    visitor: V,
) -> Result<V::Value, DeError> {
    if opaque {
        return visitor.visit_str("");
    }
    match crate::borrowed::utf8(text) {
        Some(text) => visitor.visit_str(text),
        None => Err(DeError::python(lone_surrogate())),
    }
}

/// A dict's member name (known to be a `str`): read without asking again
/// what it is.
struct Name<'a, 'py> {
    text: &'a Bound<'py, PyString>,
    opaque: bool,
}

impl<'de> de::Deserializer<'de> for Name<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visit_text(self.text, self.opaque, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// What JSON value a Python object is, with the object as that type where
/// reading it needs one.
enum Json<'a, 'py> {
    Null,
    Str(&'a Bound<'py, PyString>),
    Dict(&'a Bound<'py, PyDict>),
    Bool,
    Int,
    Float,
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
}

impl<'a, 'py> Json<'a, 'py> {
    /// Exact types first, each one pointer compare (under the stable ABI a
    /// subclass test is a call into libpython); then subclasses: an
    /// `OrderedDict`, a `str` enum, an `IntEnum` (`bool` has none).
    fn of(object: &'a Bound<'py, PyAny>) -> Option<Self> {
        let ty = object.get_type_ptr();
        // One read of the type, then pointer compares, most frequent first.
        if ty == &raw mut ffi::PyUnicode_Type {
            return object.cast_exact::<PyString>().ok().map(Json::Str);
        }
        if ty == &raw mut ffi::PyLong_Type {
            return Some(Json::Int);
        }
        if ty == &raw mut ffi::PyDict_Type {
            return object.cast_exact::<PyDict>().ok().map(Json::Dict);
        }
        if ty == &raw mut ffi::PyFloat_Type {
            return Some(Json::Float);
        }
        if ty == &raw mut ffi::PyBool_Type {
            return Some(Json::Bool);
        }
        if ty == &raw mut ffi::PyList_Type {
            return object.cast_exact::<PyList>().ok().map(Json::List);
        }
        if object.is_none() {
            return Some(Json::Null);
        }
        if ty == &raw mut ffi::PyTuple_Type {
            return object.cast_exact::<PyTuple>().ok().map(Json::Tuple);
        }
        if let Ok(text) = object.cast::<PyString>() {
            return Some(Json::Str(text));
        }
        if let Ok(dict) = object.cast::<PyDict>() {
            return Some(Json::Dict(dict));
        }
        if object.is_instance_of::<PyInt>() {
            return Some(Json::Int);
        }
        if object.is_instance_of::<PyFloat>() {
            return Some(Json::Float);
        }
        if let Ok(list) = object.cast::<PyList>() {
            return Some(Json::List(list));
        }
        object.cast::<PyTuple>().ok().map(Json::Tuple)
    }
}

/// The members of a dict.
struct Dict<'a, 'b, 'py> {
    parent: &'a PyDe<'b, 'py>,
    items: DictItems<'py>,
    /// Members not read yet (the size hint).
    left: usize,
}

impl<'de> MapAccess<'de> for Dict<'_, '_, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some(key) = self.items.next_name() else {
            return Ok(None);
        };
        self.left = self.left.saturating_sub(1);
        let Ok(name) = key.cast::<PyString>() else {
            return Err(DeError::python(input_error(format!(
                "a dict key must be a str, found a {}",
                type_name(&key)
            ))));
        };
        seed.deserialize(self.parent.name(&name)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        match self.items.value() {
            Some(value) => seed.deserialize(self.parent.child(&value)),
            None => Err(de::Error::custom("a dict value was read before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The items of a list or tuple.
struct Items<'a, 'b, 'py> {
    parent: &'a PyDe<'b, 'py>,
    items: SeqItems<'py>,
}

impl<'de> SeqAccess<'de> for Items<'_, '_, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.items.next_item() {
            Some(item) => seed.deserialize(self.parent.child(&item)).map(Some),
            None => Ok(None),
        }
    }
}

/// The empty list standing for a container cut at the depth bound.
struct Empty;

impl<'de> SeqAccess<'de> for Empty {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        _: T,
    ) -> Result<Option<T::Value>, DeError> {
        Ok(None)
    }
}
