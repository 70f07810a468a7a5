//! The sentence-transformer itself: tokenize, run BERT, mean-pool, normalise.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;
use sdsi::evolution::{Embedder, Lending};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::calibration::{Calibration, sha256_hex};
use crate::config::{self, ModelConfig};
use crate::error::ModelError;

/// Texts run through the network together. Bounds the attention tensors'
/// memory (batch × heads × tokens², about 100 MB at 256 tokens) while
/// keeping most of the speed of one big pass.
const BATCH: usize = 32;

/// A text is cut at this many bytes (on a character boundary) before it is
/// tokenized: far more than 256 tokens of any real text need, and it keeps a
/// hostile megabyte from costing a megabyte's tokenization.
const MAX_INPUT_BYTES: usize = 16 * 1024;

/// A BERT sentence-transformer (all-MiniLM-L6-v2 or another model with the
/// same layout) as an [`Embedder`]: mean pooling over the tokens, then L2
/// normalisation, as the sentence-transformers library does. Runs on the
/// CPU, offline: it reads only the directory it is given.
pub struct SentenceModel {
    model: BertModel,
    tokenizer: Tokenizer,
    dimension: usize,
    max_tokens: usize,
    calibration: Calibration,
}

impl std::fmt::Debug for SentenceModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceModel")
            .field("dimension", &self.dimension)
            .field("max_tokens", &self.max_tokens)
            .field("calibration", &self.calibration)
            .finish_non_exhaustive()
    }
}

impl SentenceModel {
    /// Loads all-MiniLM-L6-v2 (recognised by its weights' SHA-256,
    /// [`ALL_MINILM_L6_V2_SHA256`](crate::ALL_MINILM_L6_V2_SHA256)) from a
    /// sentence-transformers directory holding `config.json`,
    /// `tokenizer.json` and `model.safetensors` (and, if present,
    /// `1_Pooling/config.json`, which must ask for mean pooling, and
    /// `sentence_bert_config.json`, whose `max_seq_length` caps the input),
    /// with its built-in [`Calibration`]. Another model's vectors need
    /// their own: [`SentenceModel::load_calibrated`].
    ///
    /// # Errors
    /// [`ModelError::Uncalibrated`] for weights other than
    /// all-MiniLM-L6-v2's, and as [`SentenceModel::load_calibrated`].
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, ModelError> {
        Self::open(dir.as_ref(), None)
    }

    /// Loads any BERT sentence-transformer from such a directory, with the
    /// settings its vectors need (`calibration`, measured for it: see
    /// docs/evolution.md, "Models").
    ///
    /// # Errors
    /// [`ModelError::MissingFile`] when a file is missing,
    /// [`ModelError::Config`] for a configuration that is not a BERT
    /// sentence-transformer, [`ModelError::Tokenizer`] and
    /// [`ModelError::Weights`] when those files do not load or do not fit.
    pub fn load_calibrated(
        dir: impl AsRef<Path>,
        calibration: Calibration,
    ) -> Result<Self, ModelError> {
        Self::open(dir.as_ref(), Some(calibration))
    }

    /// The settings this model's vectors are used with.
    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    fn open(dir: &Path, given: Option<Calibration>) -> Result<Self, ModelError> {
        if !dir.is_dir() {
            return Err(ModelError::MissingFile {
                dir: dir.to_path_buf(),
                file: "(the directory itself)",
            });
        }
        let ModelConfig { bert, max_tokens } = config::load(dir)?;
        let tokenizer_path = config::required(dir, "tokenizer.json")?;
        let weights_path = config::required(dir, "model.safetensors")?;

        let tokenizer_error = |reason: String| ModelError::Tokenizer {
            path: tokenizer_path.clone(),
            reason,
        };
        let mut tokenizer = Tokenizer::from_bytes(config::read(&tokenizer_path)?)
            .map_err(|e| tokenizer_error(e.to_string()))?;
        // Each batch is padded here, to its own longest text; the file's
        // fixed padding and its shorter truncation are for other uses.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|e| tokenizer_error(e.to_string()))?;

        let weights_error = |reason: String| ModelError::Weights {
            path: weights_path.clone(),
            reason,
        };
        // Read, not memory-mapped: mapping is `unsafe` in candle (the file
        // could change underneath), and this crate forbids unsafe code.
        let bytes = config::read(&weights_path)?;
        let calibration = match given {
            Some(calibration) => calibration,
            None => {
                let digest = sha256_hex(&bytes);
                Calibration::built_in(&digest).ok_or(ModelError::Uncalibrated {
                    path: weights_path.clone(),
                    digest,
                })?
            }
        };
        let weights = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu)
            .map_err(|e| weights_error(e.to_string()))?;
        let model = BertModel::load(weights, &bert).map_err(|e| weights_error(e.to_string()))?;
        Ok(SentenceModel {
            model,
            tokenizer,
            dimension: bert.hidden_size,
            max_tokens,
            calibration,
        })
    }

    /// The same model with another clustering threshold.
    #[must_use]
    pub fn with_threshold(mut self, threshold: f32) -> Self {
        self.calibration.threshold = threshold;
        self
    }

    /// The same model with another need threshold, fixed (see
    /// [`Embedder::recommended_need_threshold`]; no need contrast).
    #[must_use]
    pub fn with_need_threshold(mut self, threshold: f32) -> Self {
        self.calibration.need_threshold = threshold;
        self.calibration.need_contrast = None;
        self
    }

    /// The same model with another need contrast (`None`: a fixed need
    /// threshold; see [`Embedder::recommended_need_contrast`]).
    #[must_use]
    pub fn with_need_contrast(mut self, contrast: Option<f32>) -> Self {
        self.calibration.need_contrast = contrast;
        self
    }

    /// The same model with another [`Lending`] (see
    /// [`Embedder::recommended_lending`]; all-MiniLM-L6-v2's is
    /// [`Lending::Book`]).
    #[must_use]
    pub fn with_lending(mut self, lending: Lending) -> Self {
        self.calibration.lending = lending;
        self
    }

    /// Inputs longer than this many tokens (`[CLS]` and `[SEP]` included)
    /// are truncated, as sentence-transformers does.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The token ids the model sees for `text`, `[CLS]` and `[SEP]`
    /// included, after truncation.
    ///
    /// # Errors
    /// [`ModelError::Inference`] when the tokenizer fails.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        Ok(self.encode(text)?.get_ids().to_vec())
    }

    /// The unit vectors of `texts`, in order, computed in batches of texts of
    /// similar length. A text with nothing but whitespace or characters the
    /// tokenizer drops gets the zero vector (nothing to embed).
    ///
    /// # Errors
    /// [`ModelError::Inference`] when tokenizing or the forward pass fails.
    pub fn try_embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let encodings = texts
            .iter()
            .map(|text| self.encode(text))
            .collect::<Result<Vec<_>, _>>()?;
        // Similar lengths together: less padding computed and thrown away.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings.get(i).map_or(0, Encoding::len));
        let mut vectors = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&Encoding> = chunk.iter().filter_map(|&i| encodings.get(i)).collect();
            for (&i, vector) in chunk.iter().zip(self.forward(&batch)?) {
                if let Some(slot) = vectors.get_mut(i) {
                    *slot = vector;
                }
            }
        }
        Ok(vectors)
    }

    /// The unit vector of one text; see [`SentenceModel::try_embed_batch`].
    ///
    /// # Errors
    /// [`ModelError::Inference`] when tokenizing or the forward pass fails.
    pub fn try_embed(&self, text: &str) -> Result<Vec<f32>, ModelError> {
        self.try_embed_batch(&[text])?
            .pop()
            .ok_or_else(|| inference("no vector came back"))
    }

    fn encode(&self, text: &str) -> Result<Encoding, ModelError> {
        self.tokenizer
            .encode(cut(text, MAX_INPUT_BYTES), true)
            .map_err(|e| inference(e.to_string()))
    }

    /// One forward pass over a batch, padded to its longest member; returns
    /// the mean of each text's token vectors (padding excluded), normalised.
    fn forward(&self, batch: &[&Encoding]) -> Result<Vec<Vec<f32>>, ModelError> {
        let width = batch.iter().map(|e| e.len()).max().unwrap_or(0);
        if width == 0 {
            return Ok(vec![vec![0.0; self.dimension]; batch.len()]);
        }
        let mut ids = Vec::with_capacity(batch.len() * width);
        let mut mask = Vec::with_capacity(batch.len() * width);
        for encoding in batch {
            let padding = width - encoding.len();
            ids.extend_from_slice(encoding.get_ids());
            ids.extend(std::iter::repeat_n(0u32, padding));
            mask.extend_from_slice(encoding.get_attention_mask());
            mask.extend(std::iter::repeat_n(0u32, padding));
        }
        let shape = (batch.len(), width);
        let tensor = |data: Vec<u32>| {
            Tensor::from_vec(data, shape, &Device::Cpu).map_err(|e| inference(e.to_string()))
        };
        let types = tensor(vec![0; ids.len()])?;
        let ids = tensor(ids)?;
        let attention = tensor(mask)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&attention))
            .and_then(|t| t.to_vec3::<f32>())
            .map_err(|e| inference(e.to_string()))?;
        Ok(batch
            .iter()
            .zip(hidden)
            .map(|(encoding, tokens)| self.pool(encoding, &tokens))
            .collect())
    }

    /// Mean of the token vectors the attention mask keeps, L2-normalised;
    /// zero when the text has no token of its own (only `[CLS]`/`[SEP]`).
    fn pool(&self, encoding: &Encoding, tokens: &[Vec<f32>]) -> Vec<f32> {
        let mut sum = vec![0.0f32; self.dimension];
        let own_tokens = encoding
            .get_special_tokens_mask()
            .iter()
            .filter(|&&special| special == 0)
            .count();
        if own_tokens == 0 {
            return sum;
        }
        let mut kept = 0.0f32;
        for (token, &keep) in tokens.iter().zip(encoding.get_attention_mask()) {
            if keep == 1 {
                sum.iter_mut().zip(token).for_each(|(s, x)| *s += x);
                kept += 1.0;
            }
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt() * kept.recip();
        if norm.is_normal() {
            let scale = (kept * norm).recip();
            sum.iter_mut().for_each(|x| *x *= scale);
        } else {
            sum.iter_mut().for_each(|x| *x = 0.0);
        }
        sum
    }
}

impl Embedder for SentenceModel {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn recommended_threshold(&self) -> f32 {
        self.calibration.threshold
    }

    fn recommended_need_threshold(&self) -> f32 {
        self.calibration.need_threshold
    }

    fn recommended_need_contrast(&self) -> Option<f32> {
        self.calibration.need_contrast
    }

    fn recommended_lending(&self) -> Lending {
        self.calibration.lending
    }

    /// Writes the text's vector, or zeros if the model failed on it (the
    /// pool then skips it as having nothing to embed); call
    /// [`SentenceModel::try_embed`] to see the error instead.
    fn embed_into(&self, text: &str, out: &mut [f32]) {
        let vector = self.try_embed(text).unwrap_or_default();
        out.iter_mut().for_each(|o| *o = 0.0);
        out.iter_mut().zip(vector).for_each(|(o, v)| *o = v);
    }

    /// One forward pass per batch of similar-length texts; a text the model
    /// failed on gets zeros, as in [`Embedder::embed_into`].
    fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        self.try_embed_batch(texts).unwrap_or_else(|_| {
            texts
                .iter()
                .map(|text| {
                    self.try_embed(text)
                        .unwrap_or_else(|_| vec![0.0; self.dimension])
                })
                .collect()
        })
    }
}

fn inference(reason: impl Into<String>) -> ModelError {
    ModelError::Inference {
        reason: reason.into(),
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let end = (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn cut_stops_on_a_character_boundary() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 3), "hé");
        assert_eq!(cut("héllo", 100), "héllo");
        assert_eq!(cut("", 0), "");
    }
}
