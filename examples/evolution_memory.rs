//! Memory of the evolution engine under many clients: feeds `N` distinct
//! fragments from `C` clients (personal pools on) and prints the process's
//! resident memory (Linux `/proc/self/status`) and the pools kept.
//!
//! ```text
//! cargo run --release --example evolution_memory -- [CLIENTS] [FRAGMENTS]
//! ```
//!
//! Defaults: 100,000 clients, 1,000,000 fragments; each fragment is unique
//! (a counter in the text), so every pool sees only new text.

use std::process::ExitCode;
use std::time::Instant;

use sdsi::evolution::{
    Branching, Evolution, EvolutionConfig, EvolutionEngine, HashingEmbedder, RuleInducer,
};
use sdsi::patch::LifecyclePolicy;
use sdsi::{KeyDefinition, KeyName, KeyType, SchemaStore, SchemaTemplate};
use serde_json::json;
use time::Duration;
use time::macros::datetime;

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let clients = match args.next().transpose() {
        Ok(c) => c.unwrap_or(100_000).max(1),
        Err(e) => {
            eprintln!("CLIENTS: {e}");
            return ExitCode::from(2);
        }
    };
    let fragments = match args.next().transpose() {
        Ok(f) => f.unwrap_or(1_000_000),
        Err(e) => {
            eprintln!("FRAGMENTS: {e}");
            return ExitCode::from(2);
        }
    };
    let Ok(name) = KeyName::new("origin") else {
        return ExitCode::from(2);
    };
    let template = SchemaTemplate::new(
        "s_v1",
        "s",
        vec![KeyDefinition::new(name, KeyType::String, true, "from")],
    );
    let Ok(mut store) = SchemaStore::new(template, LifecyclePolicy::default()) else {
        return ExitCode::from(2);
    };
    let config = EvolutionConfig::default().branching(Branching::GlobalAndPerClient);
    let mut engine = Evolution::new(HashingEmbedder::default(), RuleInducer, config);
    let words = [
        "window",
        "aisle",
        "meal",
        "bag",
        "wheelchair",
        "pet",
        "lounge",
        "upgrade",
        "wifi",
        "blanket",
    ];
    let before = resident_kib();
    let started = Instant::now();
    let t0 = datetime!(2026-05-01 0:00 UTC);
    for i in 0..fragments {
        let client = format!("client-{}", i % clients);
        let text = format!(
            "{} request number {i} for {}",
            words.get((i % 10) as usize).unwrap_or(&"seat"),
            words.get(((i / 10) % 10) as usize).unwrap_or(&"seat")
        );
        let message = json!({"schema_id": "s_v1", "payload": {"origin": "PEK", "other": text}});
        let now = t0 + Duration::seconds(i as i64);
        let _ = engine.observe(&mut store, &message, &client, now);
    }
    let after = resident_kib();
    let personal = engine.pools().filter(|(k, _)| k.client.is_some()).count();
    let clusters: usize = engine.pools().map(|(_, p)| p.len()).sum();
    println!(
        "{fragments} fragments from {clients} clients in {:.1} s: {personal} personal pools kept (cap {}), {clusters} clusters in all",
        started.elapsed().as_secs_f64(),
        EvolutionConfig::default().max_client_pools
    );
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "resident memory: {b} KiB before, {a} KiB after ({} KiB grown)",
            a.saturating_sub(b)
        ),
        _ => println!("resident memory: not available on this system"),
    }
    ExitCode::SUCCESS
}
