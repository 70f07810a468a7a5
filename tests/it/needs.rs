//! The need level of the pool: fine clusters grouped into needs, and the
//! dual gate on needs (with the support of neighbouring needs), tested with
//! hand-made vectors whose similarities are known.

use crate::common::{MORNING as T0, weighted};
use sdsi::evolution::{
    Evolution, EvolutionConfig, EvolutionEngine, EvolutionEvent, Ingested, Lending, Pool,
    PoolConfig, PoolError, RuleInducer,
};
use sdsi::patch::LifecyclePolicy;
use sdsi::{SchemaStore, SchemaTemplate};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

/// A unit vector in the plane of axes `a` and `b` at angle `degrees` from
/// `a`, in 8 dimensions: two such vectors have cosine `cos(Δ angle)`.
fn at(degrees: f64, a: usize, b: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; 8];
    let r = degrees.to_radians();
    v[a] = r.cos() as f32;
    v[b] = r.sin() as f32;
    v
}

/// Fine threshold 0.95 (about 18°), needs at 0.7 (about 45°), support at
/// 0.4, claim at 0.55; a small gate so tests stay short: heat 10, 3
/// clients, heat cap 4 per client.
fn config() -> PoolConfig {
    let mut config = PoolConfig::new(8, 0.95).with_need_threshold(0.7);
    config.support_threshold = 0.4;
    config.claim_threshold = 0.55;
    config.heat_threshold = 10.0;
    config.min_clients = 3;
    config.min_occurrences = 1_000;
    config.client_heat_cap = 4.0;
    config
}

/// `n` requests of vector `v`, each from the next of `clients` clients,
/// a minute apart from `start`; returns the last outcome.
fn send(
    pool: &mut Pool,
    v: &[f32],
    n: usize,
    clients: usize,
    start: OffsetDateTime,
    tag: &str,
) -> Ingested {
    let mut last = None;
    for i in 0..n {
        let now = start + Duration::minutes(i as i64);
        let text = format!("{tag} {i}");
        let client = format!("agent-{}", i % clients);
        last = Some(pool.ingest(v, &text, false, &client, now).unwrap());
    }
    last.unwrap()
}

#[test]
fn clusters_within_the_need_threshold_are_one_need() {
    let mut pool = Pool::new(config()).unwrap();
    // 0° and 30°: cosine 0.87, one need but two clusters (below 0.95).
    let a = send(&mut pool, &at(0.0, 0, 1), 3, 3, T0, "a");
    let b = send(
        &mut pool,
        &at(30.0, 0, 1),
        3,
        3,
        T0 + Duration::hours(1),
        "b",
    );
    assert_ne!(a.cluster, b.cluster);
    assert_eq!(a.need, b.need);
    // 90° away: another need.
    let c = send(
        &mut pool,
        &at(90.0, 0, 1),
        1,
        1,
        T0 + Duration::hours(2),
        "c",
    );
    assert_ne!(c.need, a.need);
    let need = pool.need(a.need).unwrap();
    assert_eq!(need.clusters().count(), 2);
    assert_eq!(need.vectors(), 6);
    assert_eq!(need.occurrences(), 6);
    assert_eq!(pool.need_count(), 2);
}

#[test]
fn the_gate_counts_the_whole_need() {
    let mut pool = Pool::new(config()).unwrap();
    // Two phrasings of one need, six requests each from three clients: no
    // cluster reaches heat 10 alone, the need does (12, minus a little decay).
    let first = send(&mut pool, &at(0.0, 0, 1), 6, 3, T0, "a");
    assert!(!first.triggered);
    let second = send(
        &mut pool,
        &at(30.0, 0, 1),
        6,
        3,
        T0 + Duration::minutes(10),
        "b",
    );
    assert_eq!(first.need, second.need);
    assert!(second.triggered, "{second:?}");
    for c in pool.need(second.need).unwrap().clusters() {
        assert!(c.heat(T0 + Duration::minutes(20)) < 10.0);
    }
}

#[test]
fn the_per_client_cap_holds_across_a_need() {
    let mut pool = Pool::new(config()).unwrap();
    // One client, two phrasings of one need: at most 4 heat in all.
    send(&mut pool, &at(0.0, 0, 1), 5, 1, T0, "a");
    let out = send(
        &mut pool,
        &at(30.0, 0, 1),
        5,
        1,
        T0 + Duration::minutes(10),
        "b",
    );
    let heat = pool
        .need(out.need)
        .unwrap()
        .heat(T0 + Duration::minutes(20));
    assert!(heat <= 4.0 + 1e-9, "{heat}");
}

/// Two needs 60° apart (cosine 0.5: below the need threshold, above the
/// support threshold), seven requests each from three clients: neither
/// reaches the gate alone, the hotter one does with its neighbour's heat,
/// and once it is proposed the neighbour lent its heat and does not propose
/// the same need again on support. On its own heat it still may.
#[test]
fn a_need_split_in_two_is_proposed_once() {
    let mut pool = Pool::new(config()).unwrap();
    let a = send(&mut pool, &at(0.0, 0, 1), 7, 3, T0, "a");
    let b = send(
        &mut pool,
        &at(60.0, 0, 1),
        6,
        3,
        T0 + Duration::minutes(10),
        "b",
    );
    assert_ne!(a.need, b.need);
    assert!(!b.triggered, "the cooler need does not lead: {b:?}");
    let a = send(
        &mut pool,
        &at(0.0, 0, 1),
        1,
        1,
        T0 + Duration::minutes(20),
        "a+",
    );
    assert!(
        a.triggered,
        "the hotter need leads its neighbourhood: {a:?}"
    );
    assert!(pool.mark_proposed(a.need, "seat_preference"));
    let b = send(
        &mut pool,
        &at(60.0, 0, 1),
        3,
        3,
        T0 + Duration::minutes(30),
        "b+",
    );
    assert!(
        !b.triggered,
        "lent: no support any more, 9 heat alone: {b:?}"
    );
    let b = send(
        &mut pool,
        &at(60.0, 0, 1),
        2,
        3,
        T0 + Duration::minutes(40),
        "b++",
    );
    assert!(b.triggered, "its own heat reaches the gate: {b:?}");
}

/// `n` requests of vector `v` a minute apart from `start`, from the
/// clients `who-0` … `who-{clients - 1}` in turn.
fn send_as(
    pool: &mut Pool,
    v: &[f32],
    n: usize,
    (who, clients): (&str, usize),
    start: OffsetDateTime,
) -> Ingested {
    let mut last = None;
    for i in 0..n {
        let now = start + Duration::minutes(i as i64);
        let client = format!("{who}-{}", i % clients);
        let text = format!("{who} {start} {i}");
        last = Some(pool.ingest(v, &text, false, &client, now).unwrap());
    }
    last.unwrap()
}

/// A proposed at 0° with the support of B (50°, within the claim threshold
/// of A), while D (-55°, within the claim threshold of A but farther than
/// B, so A's region does not take it) held 3 too; then C (100°, within
/// support of B only) holds 5, and B gains 3 and 3 more. Returns B's last
/// two outcomes. Each need has clients of its own.
fn a_proposed_then_b_grows(pool: &mut Pool) -> (Ingested, Ingested) {
    send_as(pool, &at(0.0, 0, 1), 7, ("a", 3), T0);
    let b = send_as(
        pool,
        &at(50.0, 0, 1),
        3,
        ("b", 3),
        T0 + Duration::minutes(10),
    );
    let d = send_as(
        pool,
        &at(-55.0, 0, 1),
        3,
        ("d", 3),
        T0 + Duration::minutes(14),
    );
    assert!(!d.triggered, "{d:?}");
    let a = send_as(
        pool,
        &at(0.0, 0, 1),
        1,
        ("a", 3),
        T0 + Duration::minutes(20),
    );
    assert_ne!(a.need, b.need);
    assert!(a.triggered && a.supported, "A opens with B's 3: {a:?}");
    assert!(pool.mark_proposed(a.need, "seat_preference"));
    // What the charge left (silenced needs, booked heat) survives a
    // snapshot.
    *pool = serde_json::from_value(serde_json::to_value(&*pool).unwrap()).unwrap();

    let c = send_as(
        pool,
        &at(100.0, 0, 1),
        5,
        ("c", 3),
        T0 + Duration::minutes(30),
    );
    assert!(!c.triggered, "C alone, and B has nothing to lend: {c:?}");
    let first = send_as(
        pool,
        &at(50.0, 0, 1),
        3,
        ("b", 3),
        T0 + Duration::minutes(40),
    );
    let second = send_as(
        pool,
        &at(50.0, 0, 1),
        3,
        ("b", 3),
        T0 + Duration::minutes(50),
    );
    (first, second)
}

/// Under `Lending::Book` a need that lent its heat while small books what
/// it held, not itself: that heat never supports another proposal, but
/// what it gains later does. D, in the claim threshold of A but not in its
/// region, booked its heat too: E (-105°, within support of D only) cannot
/// lend to what D held then.
#[test]
fn a_need_that_lent_while_small_still_counts_what_it_gains() {
    let mut pool = Pool::new(config().with_lending(Lending::Book)).unwrap();
    let (b, b_more) = a_proposed_then_b_grows(&mut pool);
    assert!(
        !b.triggered,
        "B holds 6 but lent 3: 3 unlent with C's 5 stay under 10: {b:?}"
    );
    assert!(
        b_more.triggered && b_more.supported,
        "6 unlent with C's 5 reach the gate: {b_more:?}"
    );

    let e = send_as(
        &mut pool,
        &at(-105.0, 0, 1),
        5,
        ("e", 3),
        T0 + Duration::minutes(60),
    );
    assert!(!e.triggered, "{e:?}");
    let d = send_as(
        &mut pool,
        &at(-55.0, 0, 1),
        3,
        ("d", 3),
        T0 + Duration::minutes(70),
    );
    assert!(!d.triggered, "D's 3 held at A's proposal are booked: {d:?}");
    let d = send_as(
        &mut pool,
        &at(-55.0, 0, 1),
        3,
        ("d", 3),
        T0 + Duration::minutes(80),
    );
    assert!(d.triggered && d.supported, "6 unlent with E's 5: {d:?}");
}

/// Under `Lending::Silence` (the default) the same lenders are silenced:
/// however much B and D gain, no neighbour supports them again, and they
/// lend to none.
#[test]
fn a_silenced_lender_is_never_supported_again() {
    let mut pool = Pool::new(config()).unwrap();
    assert_eq!(pool.config().lending, Lending::Silence);
    let (b, b_more) = a_proposed_then_b_grows(&mut pool);
    assert!(!b.triggered && !b_more.triggered, "{b:?} {b_more:?}");
    let e = send_as(
        &mut pool,
        &at(-105.0, 0, 1),
        8,
        ("e", 3),
        T0 + Duration::minutes(60),
    );
    assert!(
        !e.triggered,
        "E's 8 and D's 3 would reach 10, but D lends no more: {e:?}"
    );
}

/// A need below the support share (30 % of the gate) never leads, however
/// hot its neighbourhood.
#[test]
fn a_need_must_hold_a_share_of_the_gate_itself() {
    let mut pool = Pool::new(config()).unwrap();
    send(&mut pool, &at(0.0, 0, 1), 8, 4, T0, "a");
    let b = send(
        &mut pool,
        &at(60.0, 0, 1),
        2,
        2,
        T0 + Duration::minutes(10),
        "b",
    );
    assert!(!b.triggered, "{b:?}");
}

/// One client spreading its requests over three neighbouring needs, each
/// under its cap: the neighbourhood's heat counts the client's cap once.
#[test]
fn one_client_cannot_open_a_neighbourhood() {
    let mut pool = Pool::new(config()).unwrap();
    let mut outs = Vec::new();
    for (k, angle) in [0.0, 60.0, 120.0].into_iter().enumerate() {
        // Needs at 0°, 60° and 120° in the plane of axes 0 and 1; 0° and
        // 120° are -0.5 apart, so 60° lies within support of both.
        outs.push(send(
            &mut pool,
            &at(angle, 0, 1),
            4,
            1,
            T0 + Duration::minutes(10 * k as i64),
            &format!("n{k}"),
        ));
    }
    // Two more clients add a little so the need holds enough clients.
    let last = send(
        &mut pool,
        &at(60.0, 0, 1),
        2,
        2,
        T0 + Duration::minutes(40),
        "others",
    );
    assert!(!last.triggered, "{outs:?} {last:?}");
}

#[test]
fn a_client_founds_no_more_clusters_than_its_quota() {
    let mut config = config();
    config.max_new_clusters_per_client = 3;
    let mut pool = Pool::new(config).unwrap();
    for k in 0..3 {
        pool.ingest(
            &at(20.0 * k as f64, 2, 3),
            &format!("x{k}"),
            false,
            "flood",
            T0,
        )
        .unwrap();
    }
    let refused = pool.ingest(&at(80.0, 2, 3), "x3", false, "flood", T0);
    assert_eq!(refused, Err(PoolError::ClientQuota { limit: 3 }));
    // Joining an existing cluster is not founding one; another client may found.
    pool.ingest(&at(0.0, 2, 3), "x0 again", false, "flood", T0)
        .unwrap();
    pool.ingest(&at(80.0, 2, 3), "x3", false, "other", T0)
        .unwrap();
    // A window later the client may found again.
    pool.ingest(
        &at(85.0, 2, 3),
        "x4",
        false,
        "flood",
        T0 + Duration::days(8),
    )
    .unwrap();
}

/// The pool is full; many one-off fragments arrive. The coldest cluster of
/// the coldest need goes first, so a need built slowly by several clients
/// over several phrasings stays though each of its clusters is as cold as
/// a one-off.
#[test]
fn one_offs_do_not_evict_a_need_that_builds_slowly() {
    const DIM: usize = 256;
    let mut config = config();
    config.dimension = DIM;
    config.max_clusters = 12;
    config.max_new_clusters_per_client = usize::MAX;
    let mut pool = Pool::new(config).unwrap();
    let widen = |v: Vec<f32>| {
        let mut w = vec![0.0f32; DIM];
        w[..v.len()].copy_from_slice(&v);
        w
    };
    // Four phrasings 20° apart: four clusters (below 0.95), one need.
    for k in 0..4 {
        let v = widen(at(20.0 * k as f64, 0, 1));
        send(
            &mut pool,
            &v,
            1,
            1,
            T0 + Duration::hours(k),
            &format!("slow {k}"),
        );
    }
    let slow = |pool: &Pool| {
        pool.needs()
            .find(|n| n.exemplars().iter().any(|e| e.text.starts_with("slow")))
            .map(|n| n.clusters().count())
    };
    assert_eq!(slow(&pool), Some(4));
    // Each one-off along an axis of its own: a cluster and a need each.
    for k in 8..DIM {
        let mut v = vec![0.0f32; DIM];
        v[k] = 1.0;
        let now = T0 + Duration::hours(5);
        pool.ingest(&v, &format!("one-off {k}"), false, &format!("c{k}"), now)
            .unwrap();
    }
    assert_eq!(pool.len(), 12);
    assert_eq!(slow(&pool), Some(4));
}

/// Snapshots carry the need level; a snapshot whose clusters and needs do
/// not fit together (no needs, or a cluster without its need) is refused.
#[test]
fn needs_survive_a_snapshot_and_a_broken_one_is_refused() {
    let mut pool = Pool::new(config()).unwrap();
    let a = send(&mut pool, &at(0.0, 0, 1), 3, 3, T0, "a");
    send(&mut pool, &at(30.0, 0, 1), 3, 3, T0, "b");
    send(&mut pool, &at(90.0, 0, 1), 2, 2, T0, "c");
    assert!(pool.mark_proposed(a.need, "seat_preference"));
    let restored: Pool = serde_json::from_slice(&serde_json::to_vec(&pool).unwrap()).unwrap();
    assert!(restored == pool);
    let mut no_needs: Value = serde_json::to_value(&pool).unwrap();
    no_needs["needs"] = Value::Array(Vec::new());
    let e = serde_json::from_value::<Pool>(no_needs).unwrap_err();
    assert!(
        e.to_string()
            .contains("names a need the snapshot does not hold"),
        "{e}"
    );
    let mut no_need_member: Value = serde_json::to_value(&pool).unwrap();
    no_need_member["clusters"][0]
        .as_object_mut()
        .unwrap()
        .remove("need");
    assert!(serde_json::from_value::<Pool>(no_need_member).is_err());
}

/// A need that merges with a proposed need is proposed; the key is not
/// proposed again for it.
#[test]
fn a_merge_keeps_the_proposal_history() {
    let mut config = config();
    config.heat_threshold = 1.0;
    config.min_clients = 1;
    let mut pool = Pool::new(config).unwrap();
    let a = send(&mut pool, &at(0.0, 0, 1), 1, 1, T0, "a");
    assert!(a.triggered);
    assert!(pool.mark_proposed(a.need, "seat_preference"));
    // A phrasing 50° away founds its own need (cosine 0.64 < 0.7)...
    let b = send(
        &mut pool,
        &at(50.0, 0, 1),
        1,
        1,
        T0 + Duration::minutes(1),
        "b",
    );
    assert_ne!(b.need, a.need);
    assert!(b.triggered, "a need of its own: {b:?}");
    // ... then one in between (nearer the first) joins the first need and
    // pulls the second into it.
    let c = send(
        &mut pool,
        &at(20.0, 0, 1),
        3,
        3,
        T0 + Duration::minutes(2),
        "c",
    );
    assert!(!c.triggered, "{c:?}");
    assert_eq!(c.need, a.need);
    let merged = pool.need(c.need).unwrap();
    assert_eq!(merged.proposed(), Some("seat_preference"));
    // Every cluster carries the merged need's mark, the absorbed need's too.
    assert_eq!(merged.clusters().count(), 3);
    for cluster in merged.clusters() {
        assert_eq!(
            cluster.proposed(),
            Some("seat_preference"),
            "{}",
            cluster.id()
        );
    }
}

fn engine_store() -> SchemaStore {
    let template: SchemaTemplate = serde_json::from_value(json!({
        "schema_id": "flight_v1",
        "scenario": "flight",
        "keys": [
            {"key_name": "other", "key_type": "string", "required": false,
             "semantic_description": "Anything else"}
        ]
    }))
    .unwrap();
    SchemaStore::new(template, LifecyclePolicy::default()).unwrap()
}

/// A message whose `other` holds a 4 MiB array: the engine takes the first
/// sixteen fragments, says how many it skipped, and the need others are
/// building keeps its clusters.
#[test]
fn a_huge_other_array_is_cut_and_counted() {
    let mut store = engine_store();
    let mut engine = Evolution::new(
        sdsi::evolution::HashingEmbedder::default(),
        RuleInducer,
        EvolutionConfig::default(),
    );
    for k in 0..4 {
        let message =
            json!({"schema_id": "flight_v1", "payload": {"other": "a window seat please"}});
        engine.observe(
            &mut store,
            &message,
            &format!("agent-{k}"),
            T0 + Duration::hours(k),
        );
    }
    let flood: Vec<String> = (0..120_000).map(|k| format!("item {k} zq{k}x")).collect();
    let message = json!({"schema_id": "flight_v1", "payload": {"other": flood}});
    let bytes = serde_json::to_vec(&message).unwrap().len();
    assert!(bytes > 2 << 20, "{bytes}");
    let events = engine.observe(&mut store, &message, "flooder", T0 + Duration::hours(5));
    let skipped: usize = events
        .iter()
        .map(|e| match e {
            EvolutionEvent::Skipped { fragments, .. } => *fragments,
            _ => 0,
        })
        .sum();
    assert_eq!(skipped, 120_000 - 16, "{events:?}");
    let (_, pool) = engine.pools().next().unwrap();
    assert!(pool.len() <= 1 + 16);
    assert!(pool.clusters().any(|c| {
        c.exemplars()
            .iter()
            .any(|e| e.text == "a window seat please")
    }));
}

/// A replica's cluster near a proposed one stays in a need of its own after
/// the merge; when later requests pull the two clusters together, the need
/// that goes with the absorbed cluster passes its proposal on, and every
/// cluster carries the surviving need's mark.
#[test]
fn a_cluster_merged_from_a_proposed_need_passes_the_proposal_on() {
    let mut config = config();
    config.heat_threshold = 1.0;
    config.min_clients = 1;
    let mut pool = Pool::new(config).unwrap();
    let a = send(&mut pool, &at(0.0, 0, 1), 1, 1, T0, "a");
    assert!(pool.mark_proposed(a.need, "seat_preference"));
    let mut replica = Pool::new(config).unwrap();
    // 19° from the first: below the fine threshold (cosine 0.946), so the
    // clusters do not pair in the merge.
    let b = send(
        &mut replica,
        &at(19.0, 0, 1),
        1,
        1,
        T0 + Duration::minutes(1),
        "b",
    );
    pool.merge(&replica).unwrap();
    assert_ne!(pool.cluster(b.cluster).unwrap().need(), a.need);
    // A request at 10° joins the replica's cluster (9° away, the proposed
    // one is 10°) and drags its centroid to 14.5°, within the fine threshold
    // of the proposed cluster: the two become one, under the replica's id.
    let merged = send(
        &mut pool,
        &at(10.0, 0, 1),
        1,
        1,
        T0 + Duration::minutes(2),
        "c",
    );
    assert_eq!(merged.cluster, b.cluster);
    assert_eq!(merged.merged, Some(a.cluster));
    let need = pool.need(merged.need).unwrap();
    assert_eq!(need.proposed(), Some("seat_preference"));
    for cluster in pool.clusters() {
        let need = pool.need(cluster.need()).unwrap();
        assert_eq!(cluster.proposed(), need.proposed(), "{}", cluster.id());
    }
    assert!(!merged.triggered, "already proposed: {merged:?}");
}

/// A request of intent `intent` (0..4) worded as paraphrase `wording`
/// (0..4), in a domain whose requests all share a component of squared
/// weight `shared`: two intents then have cosine `shared`, two wordings of
/// one intent `shared + 0.6 × (1 − shared)`, and one wording is one vector. Dimension 24: axis 0 is the domain, 1..=4 the intents,
/// 5.. one axis per (intent, wording).
fn domain_request(shared: f32, intent: usize, wording: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; 24];
    let rest = 1.0 - shared;
    v[0] = shared.sqrt();
    v[1 + intent] = (0.6 * rest).sqrt();
    v[5 + intent * 4 + wording] = (0.4 * rest).sqrt();
    v
}

/// Sends `rounds` rounds of every wording of every intent of a domain;
/// returns the need of each (intent, wording) at the end.
fn send_domain(pool: &mut Pool, shared: f32, rounds: usize) -> Vec<Vec<u64>> {
    let mut step = 0;
    for _ in 0..rounds {
        for intent in 0..4 {
            for wording in 0..4 {
                let v = domain_request(shared, intent, wording);
                let now = T0 + Duration::minutes(step);
                let client = format!("agent-{}", step % 7);
                pool.ingest(&v, &format!("{intent}/{wording}"), false, &client, now)
                    .unwrap();
                step += 1;
            }
        }
    }
    (0..4)
        .map(|intent| {
            (0..4)
                .map(|wording| {
                    let v = domain_request(shared, intent, wording);
                    let dot = |c: &[f32]| c.iter().zip(&v).map(|(x, y)| x * y).sum::<f32>();
                    let c = pool.clusters().find(|c| dot(c.centroid()) > 0.99);
                    c.map(|c| c.need()).unwrap()
                })
                .collect()
        })
        .collect()
}

/// Whether every intent is one need and no two intents share one.
fn one_need_per_intent(needs: &[Vec<u64>]) -> bool {
    let whole = needs.iter().all(|w| w.iter().all(|n| *n == w[0]));
    let apart = (0..needs.len()).all(|a| (a + 1..needs.len()).all(|b| needs[a][0] != needs[b][0]));
    whole && apart
}

/// Fine threshold 0.9 (a wording is its own cluster); need threshold 0.7
/// until the background is measured.
fn domain_config(contrast: Option<f32>) -> PoolConfig {
    PoolConfig::new(24, 0.9)
        .with_need_threshold(0.7)
        .with_need_contrast(contrast)
}

/// The point of the adaptive need threshold. In a narrow domain (requests
/// share a lot: intents at cosine 0.5, wordings of one intent 0.8) and a
/// broad one (intents at 0, wordings of one intent 0.6), no fixed need
/// threshold finds the intents of both; one set at a multiple of each
/// pool's background does.
#[test]
fn the_need_threshold_adapts_to_the_domain() {
    let (narrow, broad) = (0.5, 0.0);
    // Fixed at 0.7: the narrow domain's intents are found, the broad one's
    // wordings stay apart; fixed at 0.35: the broad domain's are found, the
    // narrow one's intents fuse.
    for (fixed, finds_narrow) in [(0.7, true), (0.35, false)] {
        let config = PoolConfig::new(24, 0.9).with_need_threshold(fixed);
        let mut a = Pool::new(config).unwrap();
        let mut b = Pool::new(config).unwrap();
        assert_eq!(
            one_need_per_intent(&send_domain(&mut a, narrow, 6)),
            finds_narrow
        );
        assert_eq!(
            one_need_per_intent(&send_domain(&mut b, broad, 6)),
            !finds_narrow
        );
        assert_eq!(a.background(), None, "a fixed pool measures nothing");
    }
    let mut a = Pool::new(domain_config(Some(1.2))).unwrap();
    let mut b = Pool::new(domain_config(Some(1.2))).unwrap();
    let narrow_needs = send_domain(&mut a, narrow, 6);
    let broad_needs = send_domain(&mut b, broad, 6);
    assert!(one_need_per_intent(&narrow_needs), "{narrow_needs:?}");
    assert!(one_need_per_intent(&broad_needs), "{broad_needs:?}");
    // The background is the mean cosine between requests of different
    // needs: narrow, 0.5 (the intents), and the threshold 1.2 times it;
    // broad, 0, and the threshold the floor, 0.4 × the fine threshold.
    let (bg_a, bg_b) = (a.background().unwrap(), b.background().unwrap());
    assert!((bg_a - 0.5).abs() < 0.01, "{bg_a}");
    assert!((a.need_threshold() - 1.2 * bg_a).abs() < 1e-6);
    assert!(bg_b.abs() < 0.01, "{bg_b}");
    assert!((b.need_threshold() - sdsi::evolution::NEED_FLOOR_RATIO * 0.9).abs() < 1e-6);
}

/// Two wordings of one need that share a distinctive word, and six needs
/// that share only the domain's common words, at the same cosine (0.6):
/// axis 0 is the domain, axis 1 the need's distinctive word.
fn distinctive_and_common() -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let wordings = vec![
        weighted(&[(0, 0.1), (1, 0.5), (2, 0.4)]),
        weighted(&[(0, 0.1), (1, 0.5), (3, 0.4)]),
    ];
    let common = (0..6)
        .map(|k| weighted(&[(0, 0.6), (4 + k, 0.4)]))
        .collect();
    (wordings, common)
}

/// The point of the centred need linkage: similarity that comes from what
/// every request of the domain says is not evidence of one need. The
/// distinctive pair and the common pairs are equally similar, so no need
/// threshold on the plain mean similarity tells them apart; measured from
/// the pool's centre, the wordings are one need and the common requests
/// stay six.
#[test]
fn the_need_level_links_what_sets_requests_apart_not_what_they_share() {
    let (wordings, common) = distinctive_and_common();
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!((cosine(&wordings[0], &wordings[1]) - cosine(&common[0], &common[1])).abs() < 1e-6);
    let feed = |config: PoolConfig| {
        let mut pool = Pool::new(config).unwrap();
        for round in 0..8i64 {
            for (k, v) in wordings.iter().chain(&common).enumerate() {
                let now = T0 + Duration::minutes(round * 8 + k as i64);
                let client = format!("agent-{}", k % 3);
                pool.ingest(v, &format!("{k}"), false, &client, now)
                    .unwrap();
            }
        }
        // Each request's need once the stream is in.
        let needs: Vec<u64> = wordings
            .iter()
            .chain(&common)
            .map(|v| {
                let c = pool
                    .clusters()
                    .find(|c| cosine(c.centroid(), v) > 0.99)
                    .unwrap();
                c.need()
            })
            .collect();
        let distinct = |ids: &[u64]| {
            let mut ids = ids.to_vec();
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        };
        (needs[0] == needs[1], distinct(&needs[2..]))
    };
    // Plain: just below 0.6 the common requests fuse too; just above, the
    // wordings stay apart.
    let fixed = |t: f32| PoolConfig::new(24, 0.9).with_need_threshold(t);
    assert_eq!(feed(fixed(0.59)), (true, 1));
    assert_eq!(feed(fixed(0.61)), (false, 6));
    // Centred (any adaptive pool): both right.
    let adaptive = PoolConfig::new(24, 0.9)
        .with_need_threshold(0.7)
        .with_need_contrast(Some(1.5));
    assert_eq!(feed(adaptive), (true, 6));
}

/// A pool where one need dominates has its mean close to that need, so
/// every other need looks distinctive from it; the centre is only what the
/// needs have in common (the background), so two unrelated needs that
/// arrive after a long burst stay apart, as they do from the burst.
#[test]
fn a_dominant_need_does_not_pull_the_others_together() {
    // Three needs sharing a little (cosine 0.05): one sent 150 times, then
    // two others, alternating.
    let dominant = weighted(&[(0, 0.05), (1, 0.95)]);
    let a = weighted(&[(0, 0.05), (2, 0.95)]);
    let b = weighted(&[(0, 0.05), (3, 0.95)]);
    let config = PoolConfig::new(24, 0.9)
        .with_need_threshold(0.7)
        .with_need_contrast(Some(1.5));
    let mut pool = Pool::new(config).unwrap();
    let mut needs = Vec::new();
    for i in 0..190i64 {
        let v = match i {
            0..150 => &dominant,
            _ if i % 2 == 0 => &a,
            _ => &b,
        };
        let client = format!("agent-{}", i % 5);
        let now = T0 + Duration::minutes(i);
        needs.push(pool.ingest(v, "x", false, &client, now).unwrap().need);
    }
    let (d, na, nb) = (needs[149], needs[188], needs[189]);
    assert!(d != na && d != nb && na != nb, "{d} {na} {nb}");
    assert_eq!(pool.needs().count(), 3);
}

/// Until the pool holds enough fragments to say what its domain is like,
/// the configured need threshold applies.
#[test]
fn a_young_pool_uses_the_configured_need_threshold() {
    let mut pool = Pool::new(domain_config(Some(1.2))).unwrap();
    for step in 0..sdsi::evolution::MIN_BACKGROUND_FRAGMENTS - 1 {
        let v = domain_request(0.5, (step % 4) as usize, (step / 4 % 4) as usize);
        pool.ingest(&v, "x", false, "agent-1", T0).unwrap();
        assert_eq!(pool.background(), None);
        assert_eq!(pool.need_threshold(), 0.7);
    }
}

/// The background is part of the state: a restored pool links needs as the
/// saved one would have, and two replicas merge the same both ways.
#[test]
fn the_background_survives_snapshots_and_merges() {
    let mut a = Pool::new(domain_config(Some(1.2))).unwrap();
    send_domain(&mut a, 0.5, 3);
    let mut restored: Pool = serde_json::from_slice(&serde_json::to_vec(&a).unwrap()).unwrap();
    assert!(restored == a);
    let mut b = Pool::new(domain_config(Some(1.2))).unwrap();
    send_domain(&mut b, 0.0, 3);
    send_domain(&mut a, 0.5, 2);
    send_domain(&mut restored, 0.5, 2);
    assert!(restored == a, "a restored pool went its own way");
    let (mut ab, mut ba) = (a.clone(), b.clone());
    ab.merge(&b).unwrap();
    ba.merge(&a).unwrap();
    assert!(ab.same_clusters(&ba));
    assert_eq!(ab.background(), ba.background());
    assert!(ab.background().is_some());
    // A snapshot without its background is refused, not re-measured.
    let mut old: Value = serde_json::to_value(&a).unwrap();
    assert!(old.as_object_mut().unwrap().remove("background").is_some());
    assert!(serde_json::from_value::<Pool>(old).is_err());
}

/// A snapshot is untrusted input: a centre that could not have been
/// measured (wrong length, not finite, longer than the background allows)
/// is dropped on restore, so it cannot fuse needs; an honest one is kept.
#[test]
fn a_snapshot_s_centre_is_checked_on_restore() {
    let mut a = Pool::new(domain_config(Some(1.2))).unwrap();
    send_domain(&mut a, 0.5, 3);
    let honest: Value = serde_json::to_value(&a).unwrap();
    assert!(honest["background"]["centre"]["mean"].is_array());
    let restored: Pool = serde_json::from_value(honest.clone()).unwrap();
    assert!(restored == a, "an honest centre survives");
    let mut none = honest.clone();
    none["background"]["centre"] = json!({});
    let without: Pool = serde_json::from_value(none).unwrap();
    let crafted = [
        json!([0.0]),
        json!(vec![0.9f32; 24]),
        json!(vec![1e39f64; 24]),
    ];
    for mean in crafted {
        let mut bad = honest.clone();
        bad["background"]["centre"]["mean"] = mean.clone();
        let pool: Pool = serde_json::from_value(bad).unwrap();
        assert!(pool == without, "{mean}: kept");
    }
}

#[test]
fn a_need_contrast_must_be_positive_and_finite() {
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let error = Pool::new(domain_config(Some(bad))).unwrap_err();
        assert!(
            matches!(error, PoolError::Config(m) if m.contains("contrast")),
            "{bad}: {error}"
        );
    }
}

/// A pool retuned to a smaller size and fewer examples keeps its warmest
/// clusters and most frequent examples; a retune that would change how it
/// groups is refused and changes nothing.
#[test]
fn a_pool_retunes_its_gate_and_sizes_but_not_its_grouping() {
    let mut pool = Pool::new(config()).unwrap();
    // Three needs far apart; the one at 0° hottest, the one at 90° coldest.
    send(&mut pool, &at(0.0, 0, 1), 6, 3, T0, "warm");
    send(&mut pool, &at(0.0, 2, 3), 4, 3, T0, "mild");
    send(&mut pool, &at(0.0, 4, 5), 1, 1, T0, "cold");
    for i in 0..3 {
        pool.ingest(
            &at(0.0, 0, 1),
            "the same words",
            false,
            &format!("c{i}"),
            T0,
        )
        .unwrap();
    }
    assert_eq!(pool.len(), 3);
    let before = pool.clone();

    let mut grouping = config();
    grouping.threshold = 0.9;
    assert!(matches!(
        pool.retune(grouping),
        Err(PoolError::Learned {
            setting: "threshold"
        })
    ));
    let mut heat = config();
    heat.half_life_secs = 60.0;
    assert!(matches!(
        pool.retune(heat),
        Err(PoolError::Learned {
            setting: "half_life_secs"
        })
    ));
    assert!(pool == before, "a refused retune changes nothing");

    let mut smaller = config();
    smaller.heat_threshold = 3.0;
    smaller.max_clusters = 2;
    smaller.max_exemplars = 1;
    pool.retune(smaller).unwrap();
    assert_eq!(pool.config().heat_threshold, 3.0);
    assert_eq!(pool.len(), 2, "the coldest cluster went");
    let warm = pool
        .clusters()
        .find(|c| c.exemplars().iter().any(|e| e.text == "the same words"))
        .unwrap();
    assert_eq!(warm.exemplars().len(), 1);
    assert_eq!(
        warm.exemplars()[0].count,
        3,
        "the most frequent example stays"
    );
    assert!(
        pool.clusters()
            .all(|c| !c.exemplars().iter().any(|e| e.text.starts_with("cold")))
    );
}

/// How many clients a quote needs is a pool setting, 1 to 4.
#[test]
fn the_clients_a_quote_needs_are_checked() {
    for (min, ok) in [(0, false), (1, true), (4, true), (5, false)] {
        let mut config = config();
        config.min_quote_clients = min;
        assert_eq!(Pool::new(config).is_ok(), ok, "{min}");
    }
}

/// An exemplar counts the distinct clients that sent its text, merged the
/// same way in any order (replicas, drift merges, need views).
#[test]
fn exemplars_count_their_clients_in_any_merge_order() {
    let mut a = Pool::new(config()).unwrap();
    let mut b = Pool::new(config()).unwrap();
    for (i, client) in ["c1", "c2", "c3"].iter().enumerate() {
        let now = T0 + Duration::minutes(i as i64);
        a.ingest(&at(0.0, 0, 1), "window seat", false, client, now)
            .unwrap();
    }
    for (i, client) in ["c3", "c4", "c5", "c6"].iter().enumerate() {
        let now = T0 + Duration::minutes(10 + i as i64);
        b.ingest(&at(0.0, 0, 1), "window seat", false, client, now)
            .unwrap();
    }
    let count = |p: &Pool| {
        let c = p.clusters().next().unwrap();
        let e = c
            .exemplars()
            .iter()
            .find(|e| e.text == "window seat")
            .unwrap();
        (e.distinct_clients(), e.clients.clone())
    };
    assert_eq!(count(&a).0, 3);
    let (mut ab, mut ba) = (a.clone(), b.clone());
    ab.merge(&b).unwrap();
    ba.merge(&a).unwrap();
    assert_eq!(count(&ab), count(&ba));
    assert_eq!(
        count(&ab).0,
        sdsi::evolution::EXEMPLAR_CLIENTS,
        "six clients, four kept"
    );
    let need = ab.needs().next().unwrap();
    assert_eq!(need.quotable().count(), 1);
}

/// A withheld mark never wins a merge: a need withheld for its flagged
/// fragments that merges with a proposed need leaves it proposed, so the
/// block does not spread.
#[test]
fn a_withheld_mark_never_wins_a_merge() {
    let mut config = config();
    config.heat_threshold = 1.0;
    config.min_clients = 1;
    let mut pool = Pool::new(config).unwrap();
    let a = send(&mut pool, &at(0.0, 0, 1), 1, 1, T0, "a");
    // `other` is the withheld mark; it sorts before many key names.
    assert!(pool.mark_proposed(a.need, "other"), "withheld");
    let b = send(
        &mut pool,
        &at(50.0, 0, 1),
        1,
        1,
        T0 + Duration::minutes(1),
        "b",
    );
    assert_ne!(b.need, a.need);
    assert!(pool.mark_proposed(b.need, "seat_preference"));
    // A phrasing in between joins the first need and pulls the second in.
    let c = send(
        &mut pool,
        &at(20.0, 0, 1),
        3,
        3,
        T0 + Duration::minutes(2),
        "c",
    );
    let merged = pool.need(c.need).unwrap();
    assert_eq!(merged.clusters().count(), 3);
    assert_eq!(merged.proposed(), Some("seat_preference"));
    for cluster in merged.clusters() {
        assert_eq!(
            cluster.proposed(),
            Some("seat_preference"),
            "{}",
            cluster.id()
        );
    }
}
