//! Fragments per second through all-MiniLM-L6-v2, one at a time and batched.
//!
//! ```text
//! SDSI_MODEL_DIR="$(scripts/fetch-model.sh)" cargo bench -p sdsi-model --bench embed
//! ```
//!
//! Without `SDSI_MODEL_DIR` it says so and measures nothing.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sdsi::evolution::Embedder;
use sdsi_model::SentenceModel;

/// Short requests of the kind a client puts in `other` (written for this
/// bench), cycled to 64 fragments.
const FRAGMENTS: [&str; 16] = [
    "window seat please",
    "need an extra checked bag",
    "wheelchair assistance at the gate",
    "vegetarian meal if possible",
    "can I bring my dog in the cabin",
    "I will carry an extra suitcase",
    "aisle seat near the front",
    "travelling with an infant, need a bassinet",
    "my card payment was declined twice today",
    "how long does a transfer to another bank take",
    "please send the invoice to my work address",
    "is there a discount for students",
    "quiet room away from the elevator",
    "late check-out around two in the afternoon",
    "allergic to peanuts, please note it",
    "need a receipt with the company's tax number",
];

fn embed(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("SDSI_MODEL_DIR") else {
        eprintln!("SDSI_MODEL_DIR is not set: run scripts/fetch-model.sh; nothing measured");
        return;
    };
    let model = match SentenceModel::load(&dir) {
        Ok(model) => model,
        Err(error) => {
            eprintln!("{error}");
            return;
        }
    };
    let texts: Vec<&str> = FRAGMENTS.iter().cycle().take(64).copied().collect();
    let mut group = c.benchmark_group("embed");
    group.sample_size(10);
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function("single/64", |b| {
        b.iter(|| texts.iter().map(|t| model.embed(t)).collect::<Vec<_>>())
    });
    group.bench_function("batched/64", |b| b.iter(|| model.embed_batch(&texts)));
    group.finish();
}

criterion_group!(benches, embed);
criterion_main!(benches);
