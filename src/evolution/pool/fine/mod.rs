//! The fine level of the pool: clusters of fragments that say nearly the
//! same thing. How a fragment is scored against a cluster (`linkage.rs`),
//! a cluster's bookkeeping and [`Exemplar`](crate::evolution::Exemplar)s, the per-client creation
//! quota, and the pool operations that change clusters: taking a fragment
//! in ([`Pool::ingest`](crate::evolution::Pool::ingest)), merging clusters that drifted together, and
//! evicting the coldest when full. [`ClusterView`](crate::evolution::ClusterView) is what others read.

pub(in crate::evolution) mod cluster;
pub(in crate::evolution) mod eviction;
pub(in crate::evolution) mod exemplar;
pub(in crate::evolution) mod ingest;
pub(in crate::evolution) mod linkage;
mod merge;
pub(in crate::evolution) mod quota;
pub(in crate::evolution) mod view;
