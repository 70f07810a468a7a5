//! Which neighbours a supported proposal silences (`Lending::Silence`, the
//! hashing embedder's): those within the claim threshold *from the pool's
//! centre*, as the need level links needs. A need that shares only what
//! every request of the domain says ("my card") with the proposed need is
//! not a piece of it, and keeps its right to be opened by its own pieces
//! later. (Under `Lending::Book` a claimed need only books the heat it
//! held, so the claim stays on the plain scale: docs/evolution.md.)

use crate::common::{MORNING as T0, weighted};
use sdsi::evolution::{Ingested, Pool, PoolConfig};
use time::{Duration, OffsetDateTime};

/// An adaptive pool (so the need level is centred once 32 fragments are
/// in) with a small gate: heat 10, 3 clients, heat cap 4 per client; the
/// hashing embedder's lending (silence).
fn config() -> PoolConfig {
    let mut config = PoolConfig::new(24, 0.9)
        .with_need_threshold(0.7)
        .with_need_contrast(Some(2.0));
    config.heat_threshold = 10.0;
    config.min_clients = 3;
    config.min_occurrences = 1_000;
    config.client_heat_cap = 4.0;
    config
}

/// `n` requests of `v` from `who`'s three clients, a minute apart; the
/// outcome of the first that opened the gate, else of the last.
fn send(pool: &mut Pool, v: &[f32], n: usize, who: &str, start: OffsetDateTime) -> Ingested {
    let mut last = None;
    for i in 0..n {
        let now = start + Duration::minutes(i as i64);
        let client = format!("{who}-{}", i % 3);
        let text = format!("{who} {start} {i}");
        let outcome = pool.ingest(v, &text, false, &client, now).unwrap();
        if outcome.triggered {
            return outcome;
        }
        last = Some(outcome);
    }
    last.unwrap()
}

/// Axis 0 is the domain's common word. A month ago the domain's other
/// requests (each leaning on it a little) set the background and the
/// centre. Today A (axis 1) opens with the support of B, a second wording
/// of it; X, which leans on the domain word as much as A does but shares
/// nothing else with it, held 2 requests then, and so did P, a third
/// wording of A linked to it by what sets A apart. On the plain scale X is
/// within A's claim and would be silenced; from the centre it is not, so
/// when X grows, its own second wording Y opens it. P is a piece of A and
/// is silenced: when it grows, its first need (where its own second wording
/// Q's requests went) lends no more.
#[test]
fn a_need_sharing_only_the_domain_word_is_not_charged() {
    let mut pool = Pool::new(config()).unwrap();
    let month_ago = T0 - Duration::days(30);
    for k in 0..12usize {
        send(
            &mut pool,
            &weighted(&[(0, 0.3), (7 + k, 0.7)]),
            4,
            &format!("c{k}"),
            month_ago,
        );
    }
    assert!(pool.background().is_some());
    let a = weighted(&[(0, 0.45), (1, 0.55)]);
    let b = weighted(&[(0, 0.45), (1, 0.15), (2, 0.4)]);
    let x = weighted(&[(0, 0.45), (5, 0.55)]);
    let y = weighted(&[(0, 0.45), (5, 0.15), (6, 0.4)]);

    // P: a third wording of A's need, linked to it by what sets it apart,
    // yet far enough to stay a need of its own; Q, P's own second wording.
    let p = weighted(&[(0, 0.45), (1, 0.1), (3, 0.45)]);
    let q = weighted(&[(0, 0.45), (1, 0.05), (3, 0.1), (4, 0.4)]);

    let x_early = send(&mut pool, &x, 2, "x", T0);
    let p_early = send(&mut pool, &p, 2, "p", T0 + Duration::minutes(3));
    send(&mut pool, &b, 4, "b", T0 + Duration::minutes(5));
    let opened = send(&mut pool, &a, 6, "a", T0 + Duration::minutes(10));
    assert!(opened.triggered && opened.supported, "{opened:?}");
    assert_ne!(opened.need, x_early.need, "X is a need of its own");
    assert_ne!(opened.need, p_early.need, "P is a need of its own");
    assert!(pool.mark_proposed(opened.need, "a_key"));

    send(&mut pool, &q, 5, "q", T0 + Duration::minutes(15));
    let p_grown = send(&mut pool, &p, 5, "p", T0 + Duration::minutes(25));
    assert!(
        !p_grown.triggered,
        "P's first need, a piece of A, was silenced: Q's heat lends no more: {p_grown:?}"
    );
    send(&mut pool, &y, 5, "y", T0 + Duration::minutes(35));
    let grown = send(&mut pool, &x, 5, "x", T0 + Duration::minutes(45));
    assert_ne!(grown.need, opened.need);
    assert!(
        grown.triggered && grown.supported,
        "X's 7 with Y's 5 reach the gate: X was not charged for A: {grown:?}"
    );
}
