//! Content digests: SHA-256 over RFC 8785 canonical JSON.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::issue::{Issue, IssueCode};

/// Why a content digest could not be computed: the value has no RFC 8785
/// canonical form. A template that passed its check has one unless a number
/// in it is beyond what a double holds (`1e400`, readable only with
/// serde_json's `arbitrary_precision`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no canonical JSON form, so no digest: {reason}")]
pub struct DigestError {
    reason: String,
}

impl DigestError {
    /// The issue that reports it (`not_canonical`), at `path`.
    pub fn to_issue(&self, path: &str) -> Issue {
        Issue::owned(IssueCode::NotCanonical, path, self.to_string())
    }
}

/// `sha256:<hex>` of `value`'s canonical bytes ([`canonical_bytes`]): equal
/// for any two values that are equal as JSON, whatever their member order or
/// number spelling.
pub(crate) fn canonical_digest<T: Serialize>(value: &T) -> Result<String, DigestError> {
    let hash = Sha256::digest(canonical_bytes(value)?);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    push_hex(&mut out, &hash);
    Ok(out)
}

/// The first 8 bytes of `bytes`' SHA-256, little-endian: a tag that is the
/// same on every platform and release, for counting or comparing texts and
/// ids without keeping them.
#[cfg(feature = "patch")]
pub(crate) fn short_tag(bytes: &[u8]) -> u64 {
    let digest = Sha256::digest(bytes);
    let mut tag = [0u8; 8];
    for (b, d) in tag.iter_mut().zip(digest.iter()) {
        *b = *d;
    }
    u64::from_le_bytes(tag)
}

/// Lowercase hex of `bytes`, appended to `out`.
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    for byte in bytes {
        out.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(byte & 15), 16).unwrap_or('0'));
    }
}

/// The bytes digests and signatures are computed over: RFC 8785 (JCS)
/// canonical JSON, which compares numbers as IEEE-754 doubles, followed, only
/// when the value holds integers beyond ±2^53 (which a double cannot tell
/// apart), by a NUL byte and those integers written exactly, comma-separated,
/// in the canonical order. So `9007199254740993` and `9007199254740992`
/// differ, while every value without such integers keeps its plain RFC 8785
/// digest.
pub(crate) fn canonical_bytes<T: Serialize>(value: &T) -> Result<Vec<u8>, DigestError> {
    let value = serde_json::to_value(value).map_err(|e| DigestError {
        reason: e.to_string(),
    })?;
    let mut bytes = serde_json_canonicalizer::to_vec(&value).map_err(|e| DigestError {
        reason: e.to_string(),
    })?;
    let mut exact = Vec::new();
    collect_big_integers(&value, &mut exact);
    if !exact.is_empty() {
        bytes.push(0);
        bytes.extend_from_slice(exact.join(",").as_bytes());
    }
    Ok(bytes)
}

/// Integers a double cannot hold exactly, in a fixed order (members sorted).
fn collect_big_integers(value: &Value, out: &mut Vec<String>) {
    const EXACT: u64 = 1 << 53;
    match value {
        Value::Number(n) => {
            let big = n.as_u64().is_some_and(|u| u > EXACT)
                || n.as_i64().is_some_and(|i| i.unsigned_abs() > EXACT);
            if big {
                out.push(n.to_string());
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_big_integers(v, out)),
        Value::Object(members) => {
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            for (_, v) in sorted {
                collect_big_integers(v, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn member_order_and_number_spelling_do_not_matter() {
        let a = canonical_digest(&json!({"b": 1, "a": [1.0, "x"]})).unwrap();
        let b: serde_json::Value = serde_json::from_str(r#"{"a":[1,"x"],"b":1.0}"#).unwrap();
        assert_eq!(a, canonical_digest(&b).unwrap());
        assert_ne!(
            a,
            canonical_digest(&json!({"b": 2, "a": [1, "x"]})).unwrap()
        );
        assert!(a.starts_with("sha256:") && a.len() == 71);
    }

    #[test]
    fn integers_beyond_double_precision_stay_apart() {
        let a = canonical_digest(&json!({"d": 9_007_199_254_740_993_u64}));
        let b = canonical_digest(&json!({"d": 9_007_199_254_740_992_u64}));
        assert_ne!(a, b);
        assert_ne!(
            canonical_digest(&json!([-9_007_199_254_740_995_i64])),
            canonical_digest(&json!([-9_007_199_254_740_996_i64]))
        );
        // Small integers keep the plain RFC 8785 digest.
        assert_eq!(
            canonical_digest(&json!({"d": 3})),
            canonical_digest(&json!({"d": 3.0}))
        );
    }

    #[test]
    fn known_vector() {
        // sha256 of the empty JSON object `{}`.
        assert_eq!(
            canonical_digest(&json!({})).unwrap(),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn a_number_no_double_holds_has_no_digest() {
        // Only serde_json's `arbitrary_precision` reads `1e400` (scripts/test.sh
        // runs this test with it); without it the text does not parse.
        if let Ok(value) = serde_json::from_str::<Value>(r#"{"default_value": 1e400}"#) {
            let error = canonical_digest(&value).unwrap_err();
            assert_eq!(error.to_issue("/keys/0").code(), IssueCode::NotCanonical);
        }
    }
}
