//! Reading Python containers where they lie: an item is looked at through
//! the container's own reference instead of a new one per item, which
//! under the stable ABI costs two calls into libpython (and PyO3's
//! iterators add a size check per step). The bindings' only `unsafe`
//! besides what PyO3's macros expand to.
//!
//! Why a borrowed item stays valid for as long as it is used: each
//! container read is held by a reference of its own for the whole read;
//! an item borrows the reader, so it cannot outlive its step; and no other
//! thread runs Python code meanwhile, which the GIL guarantees (the module
//! says `gil_used = true`, so a free-threaded CPython turns the GIL back on
//! when it imports it). Python code this thread runs is kept away by hand,
//! not by the compiler: the reader calls no method and allocates no Python
//! object, with these exceptions, each of which first takes a reference of
//! its own to what it still needs (an allocation can run the garbage
//! collector and with it any finalizer, and a method can change any
//! container): an int past 64 bits (`depythonize.rs`); an object that only
//! stands for JSON, converted by a method of its own (`coerce.rs`); a
//! member name handed to the crate's `KeyedVerdict::member`, held across
//! the call (`keyed.rs`); and [`utf8`], which holds its `str`.

use std::os::raw::c_int;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::{Borrowed, ffi};

/// The members of a dict, read in storage order.
pub struct DictItems<'py> {
    dict: Bound<'py, PyDict>,
    position: ffi::Py_ssize_t,
    /// The value of the member whose name was read last.
    value: *mut ffi::PyObject,
}

impl<'py> DictItems<'py> {
    pub fn new(dict: &Bound<'py, PyDict>) -> Self {
        DictItems {
            dict: dict.clone(),
            position: 0,
            value: std::ptr::null_mut(),
        }
    }

    /// The next member's name; its value waits for [`DictItems::value`].
    pub fn next_name(&mut self) -> Option<Borrowed<'_, 'py, PyAny>> {
        let mut name = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // SAFETY: `self.dict` is a live dict held by our own reference and
        // the GIL is held ('py). `PyDict_Next` checks `position` against
        // the dict's current storage, so it stays in bounds even if the
        // dict were changed, and hands out references the dict owns.
        let more = unsafe {
            ffi::PyDict_Next(
                self.dict.as_ptr(),
                &mut self.position,
                &mut name,
                &mut value,
            )
        };
        if more == 0 {
            self.value = std::ptr::null_mut();
            return None;
        }
        self.value = value;
        // SAFETY: non-null on success; owned by the dict, used only while
        // `self` is borrowed (module doc).
        unsafe { Borrowed::from_ptr_or_opt(self.dict.py(), name) }
    }

    /// The next member: its name and its value.
    pub fn next_member(&mut self) -> Option<(Borrowed<'_, 'py, PyAny>, Borrowed<'_, 'py, PyAny>)> {
        let name = self.next_name()?.as_ptr();
        let value = std::mem::replace(&mut self.value, std::ptr::null_mut());
        let py = self.dict.py();
        // SAFETY: both handed out by the `PyDict_Next` call just made, owned
        // by the dict, used only while `self` is borrowed (module doc).
        unsafe {
            Some((
                Borrowed::from_ptr_or_opt(py, name)?,
                Borrowed::from_ptr_or_opt(py, value)?,
            ))
        }
    }

    /// The value of the member named last; `None` before the first name or
    /// after the last.
    pub fn value(&mut self) -> Option<Borrowed<'_, 'py, PyAny>> {
        let value = std::mem::replace(&mut self.value, std::ptr::null_mut());
        // SAFETY: null, or the value `PyDict_Next` handed out with the last
        // name; no Python code has run since (module doc).
        unsafe { Borrowed::from_ptr_or_opt(self.dict.py(), value) }
    }
}

/// The items of a list or tuple, in order.
pub struct SeqItems<'py> {
    seq: Bound<'py, PyAny>,
    index: ffi::Py_ssize_t,
    tuple: bool,
}

impl<'py> SeqItems<'py> {
    pub fn list(list: &Bound<'py, PyList>) -> Self {
        SeqItems {
            seq: list.clone().into_any(),
            index: 0,
            tuple: false,
        }
    }

    pub fn tuple(tuple: &Bound<'py, PyTuple>) -> Self {
        SeqItems {
            seq: tuple.clone().into_any(),
            index: 0,
            tuple: true,
        }
    }

    /// The next item.
    pub fn next_item(&mut self) -> Option<Borrowed<'_, 'py, PyAny>> {
        let seq = self.seq.as_ptr();
        // SAFETY: `seq` is a live list or tuple (as `tuple` says) held by
        // our own reference, the GIL is held; the index is checked against
        // the current length first, so the get cannot fail (and raise).
        let item = unsafe {
            if self.tuple {
                if self.index >= ffi::PyTuple_Size(seq) {
                    return None;
                }
                ffi::PyTuple_GetItem(seq, self.index)
            } else {
                if self.index >= ffi::PyList_Size(seq) {
                    return None;
                }
                ffi::PyList_GetItem(seq, self.index)
            }
        };
        self.index += 1;
        // SAFETY: a reference the container owns, used only while `self`
        // is borrowed (module doc); null only on a failed get.
        unsafe { Borrowed::from_ptr_or_opt(self.seq.py(), item) }
    }
}

/// An `int` (or subclass) that fits in an `i64`, read without allocating:
/// `None` when it does not fit.
pub fn small_int(int: &Bound<'_, PyAny>) -> Option<i64> {
    let mut overflow: c_int = 0;
    // SAFETY: a live int object, the GIL held. On an int this call neither
    // runs Python code nor raises: out of range, it sets `overflow`.
    let n = unsafe { ffi::PyLong_AsLongLongAndOverflow(int.as_ptr(), &mut overflow) };
    if overflow != 0 || (n == -1 && PyErr::occurred(int.py())) {
        // Clear anything set, so the slower reader starts clean.
        let _ = PyErr::take(int.py());
        return None;
    }
    Some(n)
}

/// The text of a `str`, borrowed: CPython keeps a UTF-8 copy inside the
/// object (an ASCII string is its own), so nothing is copied. `None` for a
/// `str` that is not Unicode text (a lone surrogate).
pub fn utf8<'a>(text: &'a Bound<'_, PyString>) -> Option<&'a str> {
    // For a lone surrogate CPython makes an exception object inside the
    // call, and that allocation can run a finalizer that drops a borrowed
    // `text` from its dict: hold it for the call. (On success the call
    // makes no Python object, so nothing can free it before we are done.)
    let _held = text.clone();
    // `PyUnicode_AsUTF8AndSize` under the 3.10 stable ABI: the bytes live
    // as long as the object, which `text` borrows for 'a.
    text.to_str().ok()
}
