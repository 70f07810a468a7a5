//! Why a pool refuses an input ([`PoolError`]): a bad configuration, a
//! vector it cannot use, a merge or retune it cannot make, a client over its
//! quota. Kept apart from the settings so the vector math, which fails on
//! zero and non-finite vectors, sits below them.

/// Why a pool refused an input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    /// The configuration is unusable.
    #[error("invalid pool configuration: {0}")]
    Config(&'static str),
    /// A vector of the wrong length.
    #[error("vector has dimension {found}, the pool expects {expected}")]
    Dimension {
        /// The pool's dimension.
        expected: usize,
        /// The vector's.
        found: usize,
    },
    /// A vector with a NaN or infinite component.
    #[error("vector has a NaN or infinite component")]
    NonFinite,
    /// A vector of length zero cannot point anywhere.
    #[error("vector is zero")]
    ZeroVector,
    /// Two pools with different configurations cannot merge.
    #[error("pools with different configurations cannot merge")]
    ConfigMismatch,
    /// A pool cannot be retuned to settings its learned state depends on
    /// ([`PoolConfig::learned_difference`](crate::evolution::PoolConfig::learned_difference)).
    #[error(
        "the pool was built with another {setting}; it cannot change without rebuilding the pool"
    )]
    Learned {
        /// The setting that differs.
        setting: &'static str,
    },
    /// The client founded as many clusters as it may within the window
    /// ([`PoolConfig::max_new_clusters_per_client`](crate::evolution::PoolConfig::max_new_clusters_per_client)); the fragment was not
    /// taken.
    #[error("this client founded {limit} clusters within the window, the most it may")]
    ClientQuota {
        /// The quota.
        limit: usize,
    },
    /// A snapshot whose clusters and needs do not fit together (a damaged
    /// or hand-edited state): refused rather than repaired.
    #[error("the pool snapshot does not restore: {0}")]
    Snapshot(&'static str),
}
