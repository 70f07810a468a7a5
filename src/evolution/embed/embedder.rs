//! The embedder a pool's vectors come from ([`Embedder`]), and the pool
//! settings it recommends: the similarity thresholds suit one embedder and
//! not another, so the embedder says them.

use crate::evolution::pool::config::{Lending, NEED_RATIO, PoolConfig};

/// Text → a unit vector of a fixed dimension.
///
/// The similarity threshold that suits an embedder is the embedder's to say:
/// the draft's 0.85 is tuned for sentence-transformer models, and a hashing
/// embedder needs a lower one. A pool takes it from
/// [`Embedder::recommended_threshold`] unless told otherwise.
///
/// ```
/// use sdsi::evolution::Embedder;
/// /// A toy embedder: is the text about seats or not?
/// struct Seats;
/// impl Embedder for Seats {
///     fn dimension(&self) -> usize { 2 }
///     fn recommended_threshold(&self) -> f32 { 0.9 }
///     fn embed_into(&self, text: &str, out: &mut [f32]) {
///         let seat = text.contains("seat");
///         out.copy_from_slice(if seat { &[1.0, 0.0] } else { &[0.0, 1.0] });
///     }
/// }
/// assert_eq!(Seats.embed("window seat"), vec![1.0, 0.0]);
/// ```
pub trait Embedder: Send + Sync {
    /// The vectors' dimension.
    fn dimension(&self) -> usize;
    /// The similarity at or above which a text joins a fine cluster (its
    /// mean cosine to the cluster's members).
    fn recommended_threshold(&self) -> f32;
    /// The looser similarity at or above which groups of fine clusters are
    /// one need (the mean cosine between their members): one need is phrased
    /// many ways. Default: [`NEED_RATIO`] × the fine threshold.
    fn recommended_need_threshold(&self) -> f32 {
        NEED_RATIO * self.recommended_threshold()
    }
    /// How many times the pool's background similarity the need threshold
    /// is, when it adapts to the pool's domain
    /// ([`PoolConfig::need_contrast`]); `None` (the default) keeps
    /// [`Embedder::recommended_need_threshold`] fixed. Calibrate it as that
    /// threshold is: on labelled requests of more than one domain.
    fn recommended_need_contrast(&self) -> Option<f32> {
        None
    }
    /// What becomes of the heat a need lent to a neighbour proposed with its
    /// help ([`PoolConfig::lending`]). Default [`Lending::Silence`]; choose
    /// it on the calibration intents, as the need contrast is.
    fn recommended_lending(&self) -> Lending {
        Lending::Silence
    }
    /// Writes the unit vector of `text` into `out` (of length `dimension()`);
    /// all zeros when the text has nothing to embed.
    fn embed_into(&self, text: &str, out: &mut [f32]);
    /// The unit vector of `text`.
    fn embed(&self, text: &str) -> Vec<f32> {
        let mut out = vec![0.0; self.dimension()];
        self.embed_into(text, &mut out);
        out
    }
    /// The unit vectors of `texts`, in order. The default embeds one text at
    /// a time; a model that runs faster on a batch (one forward pass for
    /// many texts) overrides it. Every vector equals what [`Embedder::embed`]
    /// gives for the same text, up to the model's floating-point rounding.
    fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        texts.iter().map(|text| self.embed(text)).collect()
    }
}

/// A boxed embedder is an embedder, so the model can be chosen at run time
/// (`Evolution<Box<dyn Embedder>>`).
impl<E: Embedder + ?Sized> Embedder for Box<E> {
    fn dimension(&self) -> usize {
        (**self).dimension()
    }
    fn recommended_threshold(&self) -> f32 {
        (**self).recommended_threshold()
    }
    fn recommended_need_threshold(&self) -> f32 {
        (**self).recommended_need_threshold()
    }
    fn recommended_need_contrast(&self) -> Option<f32> {
        (**self).recommended_need_contrast()
    }
    fn recommended_lending(&self) -> Lending {
        (**self).recommended_lending()
    }
    fn embed_into(&self, text: &str, out: &mut [f32]) {
        (**self).embed_into(text, out);
    }
    fn embed(&self, text: &str) -> Vec<f32> {
        (**self).embed(text)
    }
    fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        (**self).embed_batch(texts)
    }
}

impl PoolConfig {
    /// The same settings with `embedder`'s need threshold, contrast and
    /// lending, or the overrides given: a need threshold given alone is
    /// fixed (no contrast), as `--need-threshold` is.
    pub fn with_embedder_needs(
        self,
        embedder: &(impl Embedder + ?Sized),
        need_threshold: Option<f32>,
        need_contrast: Option<f32>,
        lending: Option<Lending>,
    ) -> Self {
        let contrast = match (need_contrast, need_threshold) {
            (Some(contrast), _) => Some(contrast),
            (None, Some(_)) => None,
            (None, None) => embedder.recommended_need_contrast(),
        };
        self.with_need_threshold(
            need_threshold.unwrap_or_else(|| embedder.recommended_need_threshold()),
        )
        .with_need_contrast(contrast)
        .with_lending(lending.unwrap_or_else(|| embedder.recommended_lending()))
    }
}
