//! Where an issue points, held without an allocation whenever it can be.

use std::fmt;
use std::sync::Arc;

use compact_str::CompactString;

/// The longest path a `CompactString` holds without allocating.
const INLINE: usize = std::mem::size_of::<String>();

/// An issue's JSON Pointer (RFC 6901).
///
/// A path the compiled schema already holds (`/payload/<key>`) is shared; a
/// fixed one (`/schema_id`) or a short one built while validating (an unknown
/// key's, an array element's) sits inline in the issue. An invalid report
/// then allocates its issue list and nothing per issue (each allocation with
/// its free is ~100 instructions, measured: a tenth of photo's whole report).
#[derive(Clone)]
pub(crate) enum IssuePath {
    Shared(Arc<str>),
    Compact(CompactString),
}

impl IssuePath {
    /// The pointer as text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Shared(path) => path,
            Self::Compact(path) => path.as_str(),
        }
    }

    /// `prefix` followed by `/segment`, with `~` and `/` in the segment escaped.
    pub(crate) fn member(prefix: &str, segment: &str) -> Self {
        if segment.bytes().any(|b| b == b'~' || b == b'/') {
            return super::pointer(prefix, segment).into();
        }
        Self::joined(prefix, segment)
    }

    /// `prefix` followed by `/index` (an array element).
    pub(crate) fn element(prefix: &str, index: usize) -> Self {
        Self::joined(prefix, itoa::Buffer::new().format(index))
    }

    /// `prefix/segment`, copied once into the inline buffer when it fits.
    // Measured: three `CompactString::push_str` calls cost ~3x this copy and check.
    fn joined(prefix: &str, segment: &str) -> Self {
        let len = prefix.len() + 1 + segment.len();
        let mut buffer = [0u8; INLINE];
        if let Some(slot) = buffer.get_mut(..len) {
            if let Some((head, tail)) = slot.split_at_mut_checked(prefix.len()) {
                head.copy_from_slice(prefix.as_bytes());
                if let Some((slash, rest)) = tail.split_first_mut() {
                    *slash = b'/';
                    rest.copy_from_slice(segment.as_bytes());
                }
            }
            if let Ok(text) = std::str::from_utf8(slot) {
                return Self::Compact(CompactString::new(text));
            }
        }
        let mut path = String::with_capacity(len);
        path.push_str(prefix);
        path.push('/');
        path.push_str(segment);
        path.into()
    }
}

impl From<Arc<str>> for IssuePath {
    fn from(path: Arc<str>) -> Self {
        Self::Shared(path)
    }
}

impl From<&str> for IssuePath {
    /// A copy of `path`: inline when short, like every fixed path the crate uses.
    fn from(path: &str) -> Self {
        Self::Compact(CompactString::new(path))
    }
}

impl From<String> for IssuePath {
    fn from(path: String) -> Self {
        Self::Compact(path.into())
    }
}

impl PartialEq for IssuePath {
    /// Equal when the pointers read the same, however each is held.
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Debug for IssuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_escaped_and_short_ones_stay_inline() {
        let plain = IssuePath::member("/payload", "seat");
        assert_eq!(plain.as_str(), "/payload/seat");
        assert!(matches!(&plain, IssuePath::Compact(p) if !p.is_heap_allocated()));
        assert_eq!(
            IssuePath::member("/payload", "a/b~c").as_str(),
            "/payload/a~1b~0c"
        );
        let long = "k".repeat(100);
        assert_eq!(
            IssuePath::member("/payload", &long).as_str(),
            format!("/payload/{long}")
        );
    }

    #[test]
    fn elements_carry_their_index() {
        assert_eq!(
            IssuePath::element("/payload/other", 0).as_str(),
            "/payload/other/0"
        );
        assert_eq!(
            IssuePath::element("/p", usize::MAX).as_str(),
            format!("/p/{}", usize::MAX)
        );
    }

    #[test]
    fn equality_reads_the_text_not_the_storage() {
        let shared = IssuePath::from(Arc::<str>::from("/payload/seat"));
        assert_eq!(shared, IssuePath::member("/payload", "seat"));
        assert_ne!(shared, IssuePath::member("/payload", "seats"));
        assert_eq!(format!("{shared:?}"), "\"/payload/seat\"");
    }
}
