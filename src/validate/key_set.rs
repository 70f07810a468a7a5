//! `KeySet`: a set of a compiled schema's key indices, inline (no
//! allocation) for schemas of up to 128 keys.

/// A set of key indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeySet {
    Inline(u128),
    Heap(Vec<u64>),
}

impl KeySet {
    /// An empty set for a schema of `len` keys.
    pub(crate) fn new(len: usize) -> Self {
        if len <= 128 {
            KeySet::Inline(0)
        } else {
            KeySet::Heap(vec![0; len.div_ceil(64)])
        }
    }

    /// Inserts `index`; returns whether it was already there. An index
    /// beyond the size the set was made for is ignored.
    pub(crate) fn insert(&mut self, index: usize) -> bool {
        match self {
            KeySet::Inline(bits) => {
                let Some(bit) = 1u128.checked_shl(index as u32).filter(|_| index < 128) else {
                    return false;
                };
                let seen = *bits & bit != 0;
                *bits |= bit;
                seen
            }
            KeySet::Heap(words) => match words.get_mut(index / 64) {
                Some(w) => {
                    let bit = 1u64 << (index % 64);
                    let seen = *w & bit != 0;
                    *w |= bit;
                    seen
                }
                None => false,
            },
        }
    }

    pub(crate) fn contains(&self, index: usize) -> bool {
        match self {
            KeySet::Inline(bits) => index < 128 && bits & (1u128 << index) != 0,
            KeySet::Heap(words) => words
                .get(index / 64)
                .is_some_and(|w| w & (1u64 << (index % 64)) != 0),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        match self {
            KeySet::Inline(bits) => *bits == 0,
            KeySet::Heap(words) => words.iter().all(|w| *w == 0),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            KeySet::Inline(bits) => bits.count_ones() as usize,
            KeySet::Heap(words) => words.iter().map(|w| w.count_ones() as usize).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn inline_and_heap_sets_agree() {
        for len in [5, 128, 129, 300] {
            let mut set = KeySet::new(len);
            assert!(set.is_empty());
            for i in (0..len).step_by(7) {
                assert!(!set.insert(i));
                assert!(set.insert(i), "second insert of {i} reports it was there");
            }
            assert_eq!(set.len(), len.div_ceil(7));
            assert!((0..len).all(|i| set.contains(i) == (i % 7 == 0)));
            assert!(!set.insert(len + 200), "out of range is ignored");
            assert!(!set.contains(len + 200));
        }
    }
}
