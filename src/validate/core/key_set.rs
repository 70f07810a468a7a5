//! `KeySet`: a set of a compiled schema's key indices, inline (no
//! allocation) for schemas of up to 128 keys.

/// A set of key indices. Two words inline (8-byte aligned, so a `Edits`
/// stays small enough to move in registers), a boxed slice beyond.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeySet {
    Inline([u64; 2]),
    Heap(Box<[u64]>),
}

impl KeySet {
    /// An empty set for a schema of `len` keys.
    pub(crate) fn new(len: usize) -> Self {
        if len <= 128 {
            KeySet::Inline([0; 2])
        } else {
            KeySet::Heap(vec![0; len.div_ceil(64)].into_boxed_slice())
        }
    }

    /// Inserts `index`; returns whether it was already there. An index
    /// beyond the size the set was made for is ignored.
    pub(crate) fn insert(&mut self, index: usize) -> bool {
        let Some(word) = self.words_mut().get_mut(index / 64) else {
            return false;
        };
        let bit = 1u64 << (index % 64);
        let seen = *word & bit != 0;
        *word |= bit;
        seen
    }

    pub(crate) fn contains(&self, index: usize) -> bool {
        self.words()
            .get(index / 64)
            .is_some_and(|w| w & (1u64 << (index % 64)) != 0)
    }

    /// How many indices the set can hold (a multiple of 64).
    pub(crate) fn capacity(&self) -> usize {
        self.words().len().saturating_mul(64)
    }

    pub(crate) fn len(&self) -> usize {
        self.words().iter().map(|w| w.count_ones() as usize).sum()
    }

    fn words(&self) -> &[u64] {
        match self {
            KeySet::Inline(words) => words,
            KeySet::Heap(words) => words,
        }
    }

    fn words_mut(&mut self) -> &mut [u64] {
        match self {
            KeySet::Inline(words) => words,
            KeySet::Heap(words) => words,
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
            assert_eq!(set.len(), 0);
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
