//! Finding the model for tests: `SDSI_MODEL_DIR` (scripts/test.sh sets it
//! from scripts/fetch-model.sh). Without it a test that needs the model says
//! "skipped" and passes, unless `SDSI_REQUIRE_MODEL` is set, as CI sets it.
//!
//! The planted-burst streams are the library's own
//! (`tests/it/common/planted.rs`), compiled here with the model as embedder.

#[path = "../../../../tests/it/common/planted.rs"]
pub mod planted;

use sdsi_model::SentenceModel;

pub fn model() -> Option<SentenceModel> {
    match std::env::var_os("SDSI_MODEL_DIR") {
        Some(dir) => match SentenceModel::load(&dir) {
            Ok(model) => Some(model),
            Err(error) => panic!("SDSI_MODEL_DIR={}: {error}", dir.to_string_lossy()),
        },
        None if std::env::var_os("SDSI_REQUIRE_MODEL").is_some() => {
            panic!("SDSI_REQUIRE_MODEL is set but SDSI_MODEL_DIR is not")
        }
        None => {
            eprintln!("skipped: SDSI_MODEL_DIR is not set (scripts/fetch-model.sh)");
            None
        }
    }
}
