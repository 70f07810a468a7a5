//! Where an issue points, held without an allocation whenever it can be.

use std::fmt;
use std::sync::Arc;

use arrayvec::ArrayString;

/// The longest path held inline: `/payload/` and a 23-byte name.
const INLINE: usize = 32;

/// An issue's JSON Pointer (RFC 6901).
///
/// A path of up to 32 bytes sits inline in the issue: building one (an
/// unknown key's, an array element's) or copying one (a key's, kept by the
/// compiled schema) allocates nothing and counts no reference, so an invalid
/// report allocates its issue list only. A longer path is shared.
#[derive(Clone)]
pub(crate) enum IssuePath {
    Shared(Arc<str>),
    Inline(ArrayString<INLINE>),
}

impl IssuePath {
    /// The pointer as text.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Shared(path) => path,
            Self::Inline(path) => path.as_str(),
        }
    }

    /// `prefix` followed by `/segment`, with `~` and `/` in the segment escaped.
    pub(crate) fn member(prefix: &str, segment: &str) -> Self {
        if segment.bytes().any(|b| b == b'~' || b == b'/') {
            return pointer(prefix, segment).into();
        }
        Self::joined(prefix, segment)
    }

    /// `prefix` followed by `/index` (an array element).
    pub(crate) fn element(prefix: &str, index: usize) -> Self {
        Self::joined(prefix, itoa::Buffer::new().format(index))
    }

    /// `prefix/segment`: inline when it fits, shared otherwise.
    fn joined(prefix: &str, segment: &str) -> Self {
        let mut path = ArrayString::new();
        let fits = path.try_push_str(prefix).is_ok()
            && path.try_push_str("/").is_ok()
            && path.try_push_str(segment).is_ok();
        if fits {
            return Self::Inline(path);
        }
        let mut path = String::with_capacity(prefix.len() + 1 + segment.len());
        path.push_str(prefix);
        path.push('/');
        path.push_str(segment);
        Self::Shared(path.into())
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
        ArrayString::from(path).map_or_else(|_| Self::Shared(path.into()), Self::Inline)
    }
}

impl From<String> for IssuePath {
    fn from(path: String) -> Self {
        match ArrayString::from(&path) {
            Ok(inline) => Self::Inline(inline),
            Err(_) => Self::Shared(path.into()),
        }
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

/// Appends `/segment` to `pointer`, escaping `~` and `/` as RFC 6901 requires.
pub(crate) fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    // Most names need no escape: copy them whole.
    if !segment.bytes().any(|b| b == b'~' || b == b'/') {
        pointer.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// `prefix` followed by the escaped `segment`.
pub(crate) fn pointer(prefix: &str, segment: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + segment.len() + 1);
    out.push_str(prefix);
    push_segment(&mut out, segment);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_escaped_and_short_ones_stay_inline() {
        let plain = IssuePath::member("/payload", "seat");
        assert_eq!(plain.as_str(), "/payload/seat");
        assert!(matches!(plain, IssuePath::Inline(_)));
        assert_eq!(
            IssuePath::member("/payload", "a/b~c").as_str(),
            "/payload/a~1b~0c"
        );
        let long = "k".repeat(100);
        let path = IssuePath::member("/payload", &long);
        assert!(matches!(path, IssuePath::Shared(_)));
        assert_eq!(path.as_str(), format!("/payload/{long}"));
    }

    #[test]
    fn the_inline_limit_is_exact() {
        let at_limit = "k".repeat(INLINE - "/p/".len());
        assert!(matches!(
            IssuePath::member("/p", &at_limit),
            IssuePath::Inline(_)
        ));
        let over = format!("{at_limit}k");
        let path = IssuePath::member("/p", &over);
        assert!(matches!(path, IssuePath::Shared(_)));
        assert_eq!(path.as_str(), format!("/p/{over}"));
        let text = "x".repeat(INLINE + 1);
        assert_eq!(IssuePath::from(text.as_str()).as_str(), text);
        assert_eq!(IssuePath::from(text.clone()).as_str(), text);
    }

    #[test]
    fn an_issue_path_is_no_larger_than_five_words() {
        assert!(std::mem::size_of::<IssuePath>() <= 40);
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
