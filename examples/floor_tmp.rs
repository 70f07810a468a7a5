//! tmp
use std::hint::black_box;
use std::time::Instant;
use serde_json::{json, Value};
fn main() {
    let v = json!({"schema_id": "photo_retouch_v2", "payload": {"skin_smoothing": 7, "teeth_whitening": true, "background_blur": true, "filter_style": "vintage", "eye_enlargement": false, "other": "increase eye size proportionally"}});
    let t = sdsi::SchemaTemplate::from_slice(include_bytes!("../benches/fixtures/photo_retouch_v2.template.json")).unwrap();
    let s = sdsi::CompiledSchema::new(&t).unwrap();
    for _ in 0..3 {
        let n = 20_000_000u32;
        let start = Instant::now();
        for _ in 0..n {
            let v = black_box(&v);
            let o = v.as_object().unwrap();
            let mut acc = 0usize;
            if let Some(Value::String(id)) = o.get("schema_id") { acc += id.len(); }
            if let Some(Value::Object(p)) = o.get("payload") {
                for (k, val) in p { acc += k.len() + match val { Value::String(_) => 1, Value::Bool(_) => 2, Value::Number(_) => 3, _ => 4 }; }
            }
            black_box(acc);
        }
        let floor = start.elapsed().as_nanos() as f64 / n as f64;
        let start = Instant::now();
        for _ in 0..n { black_box(s.is_valid(black_box(&v))); }
        let ours = start.elapsed().as_nanos() as f64 / n as f64;
        println!("floor {floor:.1} ns, is_valid {ours:.1} ns");
    }
}
