//! The model against vectors computed by an independent implementation
//! (model/reference/make_reference.py: the forward pass in NumPy, float64,
//! token ids from the `tokenizers` Python package).

use crate::common;
use sdsi::evolution::Embedder;
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn reference() -> Reference {
    let text = include_str!("../fixtures/reference_vectors.json");
    serde_json::from_str(text).expect("fixture parses")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn assert_close(text: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{text}: dimension");
    let worst = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 2e-4, "{text}: largest component difference {worst}");
    assert!(
        cosine(got, want) > 0.9999,
        "{text}: cosine {}",
        cosine(got, want)
    );
}

#[test]
fn token_ids_match_the_reference_tokenizer() {
    let Some(model) = common::model() else { return };
    for case in reference().cases {
        assert_eq!(
            model.token_ids(&case.text).unwrap(),
            case.ids,
            "{}",
            case.text
        );
    }
}

#[test]
fn vectors_match_the_reference_one_at_a_time() {
    let Some(model) = common::model() else { return };
    for case in reference().cases {
        assert_close(&case.text, &model.embed(&case.text), &case.vector);
    }
}

#[test]
fn a_batch_of_mixed_lengths_gives_the_same_vectors() {
    let Some(model) = common::model() else { return };
    let cases = reference().cases;
    // Every case twice, longest first, so each batch is padded.
    let texts: Vec<&str> = cases
        .iter()
        .rev()
        .chain(cases.iter())
        .map(|c| c.text.as_str())
        .collect();
    let vectors = model.embed_batch(&texts);
    assert_eq!(vectors.len(), texts.len());
    for (text, vector) in texts.iter().zip(&vectors) {
        let case = cases.iter().find(|c| c.text == *text).unwrap();
        assert_close(text, vector, &case.vector);
    }
}

#[test]
fn long_inputs_are_truncated_to_the_models_limit() {
    let Some(model) = common::model() else { return };
    let long = "word ".repeat(5_000);
    assert_eq!(model.token_ids(&long).unwrap().len(), model.max_tokens());
    let vector = model.embed(&long);
    let norm: f32 = cosine(&vector, &vector);
    assert!((norm - 1.0).abs() < 1e-4);
}

#[test]
fn texts_with_nothing_to_embed_give_zeros() {
    let Some(model) = common::model() else { return };
    for text in ["", "   ", "\u{200b}\u{feff}"] {
        let vector = model.embed(text);
        assert_eq!(vector.len(), model.dimension());
        assert!(vector.iter().all(|&x| x == 0.0), "{text:?}");
    }
}

#[test]
fn paraphrases_are_closer_than_different_needs() {
    let Some(model) = common::model() else { return };
    let [bag, luggage, wheelchair] = [
        "need an extra checked bag",
        "additional luggage allowance please",
        "wheelchair assistance at the gate",
    ]
    .map(|t| model.embed(t));
    assert!(cosine(&bag, &luggage) > cosine(&bag, &wheelchair) + 0.2);
}
