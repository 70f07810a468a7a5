//! Integrity (§7): HMAC-SHA-256 signatures over the canonical form of
//! patches, templates and suggestions, with a key only the server side holds.
//!
//! A content digest (`SchemaTemplate::digest`) tells versions apart but
//! proves nothing: anyone who alters a patch in transit can recompute it. A
//! signature needs the key. It covers the value's canonical bytes (RFC 8785
//! JSON, with integers beyond ±2^53 kept exact) without its top-level
//! `signature` member, so it can travel inside the value it signs.

use hmac::{Hmac, KeyInit, Mac};
use serde::Serialize;
use serde_json::Value;
use sha2::Sha256;

use crate::digest::{canonical_bytes, push_hex};

/// The member a sealed value carries its signature in.
pub const SIGNATURE_MEMBER: &str = "signature";

/// The prefix of every signature this crate writes.
const SCHEME: &str = "hmac-sha256:";

/// Shortest key accepted, in bytes (the hash's output size, as RFC 2104 advises).
pub const MIN_KEY_BYTES: usize = 32;

/// Why a signature does not verify, or a key is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntegrityError {
    /// The key is shorter than [`MIN_KEY_BYTES`].
    #[error("a signing key needs at least {MIN_KEY_BYTES} bytes")]
    WeakKey,
    /// The value carries no `signature` member (or is not an object).
    #[error("the value carries no signature")]
    Missing,
    /// The signature is not `hmac-sha256:` followed by 64 hex digits.
    #[error("the signature is not hmac-sha256: followed by 64 hex digits")]
    Malformed,
    /// The signature does not match the content: altered, or another key.
    #[error("the signature does not match the content")]
    Mismatch,
}

/// Signs and verifies with one secret key.
///
/// ```
/// use sdsi::patch::{SchemaPatch, Signer};
/// use time::macros::datetime;
///
/// let signer = Signer::new(*b"a 32-byte secret the server keeps")?;
/// let patch = SchemaPatch::new("p1", "flight_booking_v1",
///     datetime!(2026-05-01 0:00 UTC), datetime!(2026-06-01 0:00 UTC));
/// let sealed = signer.seal(&patch);              // the patch's JSON plus "signature"
/// assert!(signer.check(&sealed).is_ok());
///
/// let mut altered = sealed.clone();
/// altered["parent_schema_id"] = "another_schema".into();
/// assert!(signer.check(&altered).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Signer {
    key: Vec<u8>,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer { key: <redacted> }")
    }
}

impl Signer {
    /// A signer with `key`, which must hold at least [`MIN_KEY_BYTES`] bytes.
    pub fn new(key: impl Into<Vec<u8>>) -> Result<Self, IntegrityError> {
        let key = key.into();
        if key.len() < MIN_KEY_BYTES {
            return Err(IntegrityError::WeakKey);
        }
        Ok(Self { key })
    }

    fn mac(&self, value: &Value) -> Hmac<Sha256> {
        let mut unsigned = value.clone();
        if let Some(object) = unsigned.as_object_mut() {
            object.remove(SIGNATURE_MEMBER);
        }
        // HMAC takes keys of any length, so this cannot fail; an empty key
        // would still give a keyed (if weak) MAC, never a panic.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&Default::default()));
        // A value without a canonical form (see `DigestError`) is signed as
        // serde_json writes it: still bound to its content, the same bytes
        // for the signer and the verifier.
        match canonical_bytes(&unsigned) {
            Ok(bytes) => mac.update(&bytes),
            Err(_) => mac.update(unsigned.to_string().as_bytes()),
        }
        mac
    }

    /// The signature of `value` (without its own `signature` member):
    /// `hmac-sha256:` followed by 64 hex digits.
    pub fn sign<T: Serialize>(&self, value: &T) -> String {
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        let tag = self.mac(&value).finalize().into_bytes();
        let mut out = String::with_capacity(SCHEME.len() + 64);
        out.push_str(SCHEME);
        push_hex(&mut out, &tag);
        out
    }

    /// Checks `signature` against `value`, in constant time.
    pub fn verify<T: Serialize>(&self, value: &T, signature: &str) -> Result<(), IntegrityError> {
        let tag = signature
            .strip_prefix(SCHEME)
            .and_then(decode_hex)
            .ok_or(IntegrityError::Malformed)?;
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        self.mac(&value)
            .verify_slice(&tag)
            .map_err(|_| IntegrityError::Mismatch)
    }

    /// `value` as JSON with its signature in a `signature` member (a value
    /// that is not an object is returned unsigned).
    pub fn seal<T: Serialize>(&self, value: &T) -> Value {
        let mut json = serde_json::to_value(value).unwrap_or(Value::Null);
        let signature = self.sign(&json);
        if let Some(object) = json.as_object_mut() {
            object.insert(SIGNATURE_MEMBER.to_owned(), Value::String(signature));
        }
        json
    }

    /// Checks the signature `value` carries in its `signature` member.
    /// Works on a typed value too (a patch keeps unknown members, so its
    /// `signature` survives deserialization): pass `&patch`.
    pub fn check<T: Serialize>(&self, value: &T) -> Result<(), IntegrityError> {
        let json = serde_json::to_value(value).unwrap_or(Value::Null);
        let signature = json
            .get(SIGNATURE_MEMBER)
            .ok_or(IntegrityError::Missing)?
            .as_str()
            .ok_or(IntegrityError::Malformed)?;
        self.verify(&json, signature)
    }
}

/// 64 hex digits → 32 bytes.
fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    text.as_bytes()
        .chunks_exact(2)
        .map(|pair| {
            let digits = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(digits, 16).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn signer() -> Signer {
        Signer::new([7u8; 32]).unwrap()
    }

    #[test]
    fn short_keys_are_refused() {
        assert_eq!(Signer::new([1u8; 31]).unwrap_err(), IntegrityError::WeakKey);
    }

    #[test]
    fn any_change_breaks_the_signature() {
        let s = signer();
        let sealed = s.seal(&json!({"a": 1, "b": [9_007_199_254_740_993_u64]}));
        assert_eq!(s.check(&sealed), Ok(()));
        let mut big = sealed.clone();
        big["b"][0] = json!(9_007_199_254_740_992_u64);
        assert_eq!(s.check(&big), Err(IntegrityError::Mismatch));
        let mut other_key = sealed.clone();
        other_key["signature"] = json!(Signer::new([8u8; 32]).unwrap().sign(&sealed));
        assert_eq!(s.check(&other_key), Err(IntegrityError::Mismatch));
        let mut truncated = sealed.clone();
        truncated["signature"] = json!("hmac-sha256:00");
        assert_eq!(s.check(&truncated), Err(IntegrityError::Malformed));
        assert_eq!(s.check(&json!({"a": 1})), Err(IntegrityError::Missing));
        // Member order and number spelling are not content.
        let reordered: Value =
            serde_json::from_str(&sealed.to_string().replace("\"a\":1", "\"a\":1.0")).unwrap();
        assert_eq!(s.check(&reordered), Ok(()));
    }

    #[test]
    fn the_key_never_prints() {
        assert!(!format!("{:?}", signer()).contains('7'));
    }
}
