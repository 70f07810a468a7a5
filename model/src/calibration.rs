//! The settings a model's vectors need ([`Calibration`]): its clustering
//! threshold, need threshold or contrast, and lending. They belong to the
//! weights, so only all-MiniLM-L6-v2's are built in, recognised by the
//! SHA-256 of its `model.safetensors`; any other model takes the caller's.

use sdsi::evolution::Lending;
use sha2::{Digest, Sha256};

/// SHA-256 (hex) of all-MiniLM-L6-v2's `model.safetensors`, the weights the
/// built-in calibration was measured with (`scripts/fetch-model.sh`
/// fetches them).
pub const ALL_MINILM_L6_V2_SHA256: &str =
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

/// What the evolution pools need to know about a model's vectors (see
/// `sdsi::evolution::Embedder`'s `recommended_*` methods): calibrate them
/// for a model as docs/evolution.md ("Models") says.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Calibration {
    /// Cosine similarity at which two fragments share a fine cluster.
    pub threshold: f32,
    /// Mean cosine at which fine clusters are one need (until the pool's
    /// background is measured, when `need_contrast` is set).
    pub need_threshold: f32,
    /// The need threshold as a multiple of the pool's background
    /// similarity; `None` keeps `need_threshold` fixed.
    pub need_contrast: Option<f32>,
    /// What becomes of the heat a need lent to a proposed neighbour.
    pub lending: Lending,
}

impl Calibration {
    /// all-MiniLM-L6-v2's, chosen on the calibration split of Banking77
    /// and HWU64 (docs/measurements/evolution.md): it clusters at 0.56,
    /// joins needs at 0.46 until the background is measured and then at
    /// 3.25 times it, and books lent heat (it cuts a need into few pieces,
    /// and silencing a piece that lent while small lost needs).
    pub const ALL_MINILM_L6_V2: Calibration = Calibration {
        threshold: 0.56,
        need_threshold: 0.46,
        need_contrast: Some(3.25),
        lending: Lending::Book,
    };

    /// A calibration with `threshold` and a fixed `need_threshold`, lending
    /// as the trait's default (silence); set the other fields to adapt.
    pub fn new(threshold: f32, need_threshold: f32) -> Self {
        Self {
            threshold,
            need_threshold,
            need_contrast: None,
            lending: Lending::Silence,
        }
    }

    /// The same, with the need threshold adapting at `contrast` times the
    /// pool's background similarity.
    #[must_use]
    pub fn with_need_contrast(mut self, contrast: f32) -> Self {
        self.need_contrast = Some(contrast);
        self
    }

    /// The same, with another [`Lending`].
    #[must_use]
    pub fn with_lending(mut self, lending: Lending) -> Self {
        self.lending = lending;
        self
    }

    /// The built-in calibration of the weights whose SHA-256 is `digest`
    /// (hex), if any.
    pub fn built_in(digest: &str) -> Option<Calibration> {
        (digest == ALL_MINILM_L6_V2_SHA256).then_some(Calibration::ALL_MINILM_L6_V2)
    }
}

/// The SHA-256 of `bytes`, as lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
