//! Text to vectors: the [`Embedder`](crate::evolution::Embedder) trait a pool's vectors come from, the
//! dependency-free default ([`HashingEmbedder`](crate::evolution::HashingEmbedder)), and the vector math every
//! score of the pool is built on (dot products, unit vectors, the mean link
//! of two groups kept as running sums).
//!
//! May use: `pool::config` (the settings an embedder recommends) and
//! `pool::error`. Knows nothing of clusters, needs or the engine.

pub(in crate::evolution) mod embedder;
pub(in crate::evolution) mod hashing;
pub(in crate::evolution) mod vectors;
