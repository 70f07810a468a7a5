//! The default embedder: signed feature hashing of words, word pairs and
//! character n-grams. No model, no dependency, deterministic.

use super::Embedder;

/// Words too common to say anything about an intent.
const STOPWORDS: [&str; 48] = [
    "a", "an", "the", "i", "me", "my", "we", "our", "you", "your", "it", "is", "are", "am", "be",
    "to", "of", "in", "on", "for", "with", "and", "or", "at", "by", "from", "this", "that",
    "please", "can", "could", "would", "will", "do", "does", "want", "like", "need", "have", "has",
    "there", "so", "just", "some", "any", "get", "if", "as",
];

/// Hashes words, adjacent word pairs and character n-grams of each word into a
/// fixed-dimension vector with a sign per feature, then L2-normalises it.
///
/// Paraphrases share words and sub-words ("window seat", "a seat by the
/// window", "seats near windows"), so their vectors point the same way; the
/// hashing keeps memory fixed whatever the vocabulary.
///
/// ```
/// use sdsi::{Embedder, HashingEmbedder, dot};
/// let e = HashingEmbedder::default();
/// let a = e.embed("window seat please");
/// let b = e.embed("a seat by the window");
/// let c = e.embed("vegetarian meal");
/// assert!(dot(&a, &b) > dot(&a, &c));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct HashingEmbedder {
    dimension: usize,
    word_weight: f32,
    pair_weight: f32,
    ngram_weight: f32,
    ngrams: std::ops::RangeInclusive<usize>,
    threshold: f32,
    skip_stopwords: bool,
}

impl Default for HashingEmbedder {
    fn default() -> Self {
        Self {
            dimension: 1024,
            word_weight: 1.0,
            pair_weight: 0.5,
            ngram_weight: 0.35,
            ngrams: 3..=5,
            threshold: 0.5,
            skip_stopwords: true,
        }
    }
}

impl HashingEmbedder {
    /// The plain character n-gram baseline: character trigrams of the whole
    /// text, no words, no stopword list.
    pub fn char_ngrams() -> Self {
        Self {
            dimension: 1024,
            word_weight: 0.0,
            pair_weight: 0.0,
            ngram_weight: 1.0,
            ngrams: 3..=3,
            threshold: 0.5,
            skip_stopwords: false,
        }
    }

    /// The same embedder with another dimension (at least 1).
    pub fn with_dimension(mut self, dimension: usize) -> Self {
        self.dimension = dimension.max(1);
        self
    }

    /// The same embedder with another recommended threshold.
    pub fn with_threshold(mut self, threshold: f32) -> Self {
        self.threshold = threshold;
        self
    }

    fn add(&self, out: &mut [f32], feature: &[u8], salt: u64, weight: f32) {
        if weight == 0.0 {
            return;
        }
        let h = mix(fnv1a(feature) ^ salt);
        let index = (h % out.len() as u64) as usize;
        let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
        if let Some(slot) = out.get_mut(index) {
            *slot += sign * weight;
        }
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// splitmix64's finaliser: spreads FNV's low-entropy high bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Lowercase alphanumeric words of `text`.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `word` is a stopword.
pub(crate) fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

impl Embedder for HashingEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn recommended_threshold(&self) -> f32 {
        self.threshold
    }

    fn embed_into(&self, text: &str, out: &mut [f32]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        if out.is_empty() {
            return;
        }
        let all = words(text);
        let kept: Vec<&str> = all
            .iter()
            .map(String::as_str)
            .filter(|w| !(self.skip_stopwords && is_stopword(w)))
            .collect();
        for w in &kept {
            self.add(out, w.as_bytes(), 1, self.word_weight);
        }
        for pair in kept.windows(2) {
            if let [a, b] = pair {
                let joined = format!("{a} {b}");
                self.add(out, joined.as_bytes(), 2, self.pair_weight);
            }
        }
        let ngram_source: Vec<String> = if self.word_weight == 0.0 {
            vec![format!(" {} ", all.join(" "))]
        } else {
            kept.iter().map(|w| format!("<{w}>")).collect()
        };
        for token in &ngram_source {
            let chars: Vec<char> = token.chars().collect();
            for n in self.ngrams.clone() {
                for gram in chars.windows(n) {
                    let s: String = gram.iter().collect();
                    self.add(out, s.as_bytes(), 3 + n as u64, self.ngram_weight);
                }
            }
        }
        let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            out.iter_mut().for_each(|x| *x /= norm);
        }
    }
}
