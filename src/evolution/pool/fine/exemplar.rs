//! Exemplars: the fragments a cluster keeps as examples of what it means,
//! with the clients that sent each, and how the exemplars of several
//! clusters read as one need's list.

use serde::{Deserialize, Serialize};

/// A fragment kept as an example of what a cluster means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Exemplar {
    /// The sanitized fragment.
    pub text: String,
    /// How often it was seen (an upper bound once the exemplar list was full).
    pub count: u64,
    /// Whether the fragment spoke to the system, a model or the schema: that
    /// part was dropped at intake, and a need most of whose clients sent such
    /// text is held for an operator.
    pub flagged: bool,
    /// The client that first sent it: one client may hold at most a quarter
    /// of a cluster's exemplar slots, so it cannot write the description alone.
    pub client: String,
    /// The distinct clients seen sending this text, as stable hashes of
    /// their ids ([`client_tag`]), the smallest [`EXEMPLAR_CLIENTS`] kept:
    /// a text is quoted, and its words name a key, only when enough clients
    /// sent it ([`MIN_QUOTE_CLIENTS`](crate::evolution::MIN_QUOTE_CLIENTS)), so one client's words (a
    /// name, an address) never reach a proposal.
    pub clients: Vec<u64>,
}

/// Most distinct clients an exemplar keeps track of.
pub const EXEMPLAR_CLIENTS: usize = 4;

/// A client id's stable tag: the first 8 bytes of its SHA-256, so exemplars
/// count clients the same way on every platform and release.
pub fn client_tag(client: &str) -> u64 {
    crate::digest::short_tag(client.as_bytes())
}

impl Exemplar {
    /// How many distinct clients sent this text (counted up to
    /// [`EXEMPLAR_CLIENTS`]; a snapshot written before the count existed
    /// counts its first client).
    pub fn distinct_clients(&self) -> usize {
        self.client_tags().len()
    }

    /// The tags of the clients that sent it (the first client's alone in a
    /// snapshot written before they were kept).
    pub fn client_tags(&self) -> Vec<u64> {
        match (self.clients.is_empty(), self.client.is_empty()) {
            (false, _) => self.clients.clone(),
            (true, false) => vec![client_tag(&self.client)],
            (true, true) => Vec::new(),
        }
    }

    /// Adds the clients of `other` (the same text): the smallest tags are
    /// kept, so merging in any order keeps the same ones.
    pub(crate) fn join_clients(&mut self, other: &[u64]) {
        self.clients.extend_from_slice(other);
        self.clients.sort_unstable();
        self.clients.dedup();
        self.clients.truncate(EXEMPLAR_CLIENTS);
    }
}

/// The exemplars of several clusters as one list: equal texts add their
/// counts, one client holds at most a quarter of the `max` slots (as in a
/// cluster), most frequent first, ties by text.
pub(crate) fn combined_exemplars<'a>(
    lists: impl Iterator<Item = &'a [Exemplar]>,
    max: usize,
) -> Vec<Exemplar> {
    let mut all: Vec<Exemplar> = Vec::new();
    for list in lists {
        for e in list {
            match all.iter_mut().find(|mine| mine.text == e.text) {
                Some(mine) => {
                    mine.count = mine.count.saturating_add(e.count);
                    mine.flagged |= e.flagged;
                    mine.join_clients(&e.clients);
                    if e.client < mine.client {
                        mine.client.clone_from(&e.client);
                    }
                }
                None => all.push(e.clone()),
            }
        }
    }
    all.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
    let per_client = max.div_ceil(4).max(1);
    let mut taken: Vec<(&str, usize)> = Vec::new();
    let mut kept = Vec::new();
    for e in &all {
        if kept.len() >= max {
            break;
        }
        let slot = match taken.iter_mut().find(|(c, _)| *c == e.client) {
            Some(slot) => slot,
            None => {
                taken.push((e.client.as_str(), 0));
                match taken.last_mut() {
                    Some(slot) => slot,
                    None => continue,
                }
            }
        };
        if slot.1 < per_client {
            slot.1 += 1;
            kept.push(e.clone());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exemplar(text: &str, count: u64, client: &str) -> Exemplar {
        Exemplar {
            text: text.to_owned(),
            count,
            flagged: false,
            client: client.to_owned(),
            clients: vec![client_tag(client)],
        }
    }

    #[test]
    fn combined_exemplars_add_counts_and_hold_each_client_to_a_quarter() {
        let a = [exemplar("window seat", 3, "a"), exemplar("aisle", 1, "a")];
        let b = [
            exemplar("window seat", 2, "b"),
            exemplar("seat by the window", 4, "a"),
            exemplar("a window please", 1, "c"),
        ];
        let all = combined_exemplars([&a[..], &b[..]].into_iter(), 8);
        // "window seat" 5 (first sent by "a"), then "seat by the window" 4 (also
        // "a", the quarter of 8 slots is 2), "aisle" is a's third: dropped.
        let texts: Vec<&str> = all.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(
            texts,
            ["window seat", "seat by the window", "a window please"]
        );
        assert_eq!(all.first().map(|e| e.count), Some(5));
    }
}
