//! The default intent inducer: rules, no model.

use serde_json::Value;

use super::IntentInducer;
use super::embed::{is_stopword, words};
use super::pool::ClusterView;
use crate::key::{KeyDefinition, KeyName, KeyType};
use crate::template::SchemaTemplate;

/// Induces a key from a cluster's fragments by rules:
/// - the name joins the cluster's two most salient words (most frequent
///   across fragments, weighted by count, stopwords left out), in the order
///   they appear in the most common fragment;
/// - the type is `integer`, `number` or `boolean` when every fragment reads as
///   one, else `string`;
/// - the description says what the fragments ask for and quotes at least two
///   real, unflagged fragments as mapping examples.
///
/// Always optional, with no default: patches may only add optional keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleInducer;

impl IntentInducer for RuleInducer {
    fn induce(&self, cluster: &ClusterView<'_>, _schema: &SchemaTemplate) -> Option<KeyDefinition> {
        let mut clean: Vec<_> = cluster.exemplars().iter().filter(|e| !e.flagged).collect();
        clean.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
        let top = clean.first()?;
        let mut weights: Vec<(String, u64)> = Vec::new();
        for e in &clean {
            let mut seen = Vec::new();
            for w in words(&e.text) {
                if is_stopword(&w) || w.chars().all(|c| c.is_ascii_digit()) || seen.contains(&w) {
                    continue;
                }
                seen.push(w.clone());
                match weights.iter_mut().find(|(x, _)| *x == w) {
                    Some(entry) => entry.1 += e.count,
                    None => weights.push((w, e.count)),
                }
            }
        }
        weights.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut salient: Vec<String> = weights.into_iter().take(2).map(|(w, _)| w).collect();
        let order = words(&top.text);
        salient.sort_by_key(|w| order.iter().position(|o| o == w).unwrap_or(usize::MAX));
        let ascii: Vec<String> = salient
            .iter()
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_ascii_alphanumeric())
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        let base = if ascii.is_empty() {
            "requested_option".to_owned()
        } else {
            ascii.join("_")
        };
        let name = if base.starts_with(|c: char| c.is_ascii_digit()) {
            format!("k_{base}")
        } else {
            base
        };
        let key_name = KeyName::new(&name).ok()?;
        let key_type = guess_type(clean.iter().map(|e| e.text.as_str()));
        let examples: Vec<String> = clean
            .iter()
            .take(3)
            .map(|e| {
                format!(
                    "'{}' -> {}",
                    e.text.replace('\'', "’"),
                    example_value(&e.text, key_type)
                )
            })
            .collect();
        if examples.len() < 2 && clean.len() >= 2 {
            return None;
        }
        let description = format!(
            "Requests about {} that clients sent in \"other\" ({} times). Example mappings: {}.",
            salient.join(" "),
            cluster.occurrences(),
            examples.join("; ")
        );
        Some(KeyDefinition::new(key_name, key_type, false, description))
    }
}

fn guess_type<'a>(texts: impl Iterator<Item = &'a str>) -> KeyType {
    let mut all_int = true;
    let mut all_num = true;
    let mut all_bool = true;
    for t in texts {
        let t = t.trim().to_lowercase();
        all_int &= t.parse::<i64>().is_ok();
        all_num &= t.parse::<f64>().is_ok_and(f64::is_finite);
        all_bool &= matches!(t.as_str(), "yes" | "no" | "true" | "false");
    }
    if all_int {
        KeyType::Integer
    } else if all_num {
        KeyType::Number
    } else if all_bool {
        KeyType::Boolean
    } else {
        KeyType::String
    }
}

/// The value a fragment maps to, rendered as JSON.
fn example_value(text: &str, key_type: KeyType) -> String {
    let t = text.trim().to_lowercase();
    let value = match key_type {
        KeyType::Integer | KeyType::Number => {
            t.parse::<f64>().map(Value::from).unwrap_or(Value::Null)
        }
        KeyType::Boolean => Value::Bool(matches!(t.as_str(), "yes" | "true")),
        _ => {
            let kept: Vec<String> = words(text)
                .into_iter()
                .filter(|w| !is_stopword(w))
                .collect();
            Value::from(if kept.is_empty() { t } else { kept.join(" ") })
        }
    };
    value.to_string().replace('"', "'")
}
