//! From a mature need to a candidate key: the [`IntentInducer`](crate::evolution::IntentInducer) trait and
//! the default, model-free [`RuleInducer`](crate::evolution::RuleInducer).
//!
//! | concept | file |
//! |---|---|
//! | the trait a model implements | `inducer.rs` |
//! | [`RuleInducer`](crate::evolution::RuleInducer): name, type and description of a need's key | `rules.rs` |
//! | stemmed words, class-based TF-IDF, the naming terms | `terms.rs` |
//! | which words may name a key (framing, function words, numbers) | `words.rs` |
//! | numbers in a request: digits, number words, runs of them | `numbers.rs` |
//! | what the fragments carry: count, slot, wish, text | `shape.rs` |
//! | a key's name: snake_case, plurals, the attribute's noun | `naming.rs` |
//! | a key's description, its examples, refining a key in force | `description.rs` |
//! | the attribute a need fills with its sibling needs (window / aisle seat) | `attribute.rs` |
//! | what the inducer's tests share | `testing.rs` |
//!
//! May use: a need's read-only view (`pool::needs::view`), its exemplars,
//! the embedder's word splitting, and the template. Never the pool's state.

mod attribute;
pub(in crate::evolution) mod description;
pub(in crate::evolution) mod inducer;
mod naming;
mod numbers;
pub(in crate::evolution) mod rules;
mod shape;
mod terms;
#[cfg(test)]
mod testing;
mod words;
