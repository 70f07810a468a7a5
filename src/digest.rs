//! Content digests: SHA-256 over RFC 8785 canonical JSON.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// `sha256:<hex>` of `value`'s RFC 8785 (JCS) canonical JSON: equal for any two
/// values that are equal as JSON, whatever their member order or number spelling.
pub(crate) fn canonical_digest<T: Serialize>(value: &T) -> String {
    // Canonicalizing a value that serde_json can represent does not fail;
    // were it to, hashing the empty string keeps the function total.
    let bytes = serde_json_canonicalizer::to_vec(value).unwrap_or_default();
    let hash = Sha256::digest(&bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(byte & 15), 16).unwrap_or('0'));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn member_order_and_number_spelling_do_not_matter() {
        let a = canonical_digest(&json!({"b": 1, "a": [1.0, "x"]}));
        let b: serde_json::Value = serde_json::from_str(r#"{"a":[1,"x"],"b":1.0}"#).unwrap();
        assert_eq!(a, canonical_digest(&b));
        assert_ne!(a, canonical_digest(&json!({"b": 2, "a": [1, "x"]})));
        assert!(a.starts_with("sha256:") && a.len() == 71);
    }

    #[test]
    fn known_vector() {
        // sha256 of the empty JSON object `{}`.
        assert_eq!(
            canonical_digest(&json!({})),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
