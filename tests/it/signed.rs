//! A store that requires signed patches takes the evolution engine's own:
//! the engine signs with the store's key, so its needs are proposed
//! instead of deferred for ever as `invalid_signature`.

use crate::common::{MORNING as T0, flight_store, flight_with_other};
use sdsi::evolution::{Evolution, EvolutionEngine, EvolutionEvent};
use sdsi::issue::IssueCode;
use sdsi::patch::{DenySensitive, Signer, Submission};
use time::Duration;

#[test]
fn a_store_requiring_signatures_takes_the_engines_patches() {
    let signer = Signer::new(*b"0123456789abcdef0123456789abcdef").unwrap();
    let mut store = flight_store().require_signatures(signer.clone());
    let mut engine = Evolution::default();
    let mut applied = Vec::new();
    for i in 0..96 {
        let at = T0 + Duration::minutes(20 * i);
        let client = format!("agent-{}", i % 8);
        let message = flight_with_other("window seat please");
        for event in engine.observe(&mut store, &message, &client, at) {
            assert!(
                !matches!(event, EvolutionEvent::Deferred { .. }),
                "{event:#?}"
            );
            if let EvolutionEvent::Proposed {
                patch,
                submission: Submission::Applied,
                ..
            } = event
            {
                applied.push(*patch);
            }
        }
    }
    assert_eq!(applied.len(), 1);
    assert_eq!(store.patches().count(), 1);
    signer.check(&applied[0]).unwrap();
    // Signed for what it says: a copy altered on the way is refused.
    let mut altered = applied[0].clone();
    altered.patch_id.push_str("-altered");
    let refused = store
        .submit(altered, T0 + Duration::days(1), &DenySensitive)
        .unwrap_err();
    assert_eq!(refused.errors()[0].code(), IssueCode::InvalidSignature);
}
