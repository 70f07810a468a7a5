//! Ids of clusters and needs: a cluster's id comes from the text and the
//! instant that founded it, so replicas that see the same fragment name the
//! cluster alike; a clash moves the id along a fixed step, so every replica
//! resolves it the same way.

use sha2::{Digest, Sha256};

/// What an id moves by when another cluster or need has it: the 64-bit
/// golden ratio, odd, so stepping visits every id before repeating one.
pub(in crate::evolution) const ID_STEP: u64 = 0x9e37_79b9_7f4a_7c15;

/// A stable id for a cluster founded by `text` at `at`.
pub(in crate::evolution) fn cluster_id(text: &str, at: f64) -> u64 {
    let digest = Sha256::new()
        .chain_update(text.as_bytes())
        .chain_update(at.to_le_bytes())
        .finalize();
    let mut bytes = [0u8; 8];
    for (b, d) in bytes.iter_mut().zip(digest.iter()) {
        *b = *d;
    }
    u64::from_le_bytes(bytes)
}

/// `id`, or the next id after it (by [`ID_STEP`]) that `taken` says is free:
/// two clusters founded by the same text at the same instant stay apart.
pub(in crate::evolution) fn unused_id(mut id: u64, taken: impl Fn(u64) -> bool) -> u64 {
    while taken(id) {
        id = id.wrapping_add(ID_STEP);
    }
    id
}
