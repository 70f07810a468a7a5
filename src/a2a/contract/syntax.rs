//! The lexical rules of the Schema Contract draft's identifiers: absolute
//! URIs, representation ids, media types, digests and bundle paths.

use sha2::{Digest, Sha256};

/// An absolute URI as the draft's `absoluteUri` has it: a scheme
/// (`[A-Za-z][A-Za-z0-9+.-]*`), a colon and something after it, with no
/// whitespace or control characters anywhere (a URI never holds them).
pub(crate) fn is_absolute_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut scheme_chars = scheme.chars();
    scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !rest.is_empty()
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`.
pub(crate) fn is_representation_id(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && text.len() <= 128
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// An RFC 9110 token character.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+.^_`|~-".contains(c)
}

fn is_token(text: &str) -> bool {
    !text.is_empty() && text.chars().all(is_tchar)
}

/// `type/subtype` followed by `; name=value` parameters (a value a token or
/// a quoted string without quotes, backslashes or line breaks inside), as
/// the draft's media type pattern has it.
pub(crate) fn is_media_type(text: &str) -> bool {
    let mut pieces = text.split(';');
    let essence = pieces.next().unwrap_or_default();
    let essence_ok = essence
        .split_once('/')
        .is_some_and(|(kind, subtype)| is_token(kind) && is_token(subtype));
    essence_ok
        && pieces.all(|parameter| {
            parameter
                .trim()
                .split_once('=')
                .is_some_and(|(name, value)| {
                    let quoted = value
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .is_some_and(|inner| !inner.contains(['"', '\\', '\r', '\n']));
                    is_token(name) && (is_token(value) || quoted)
                })
        })
}

/// A base64 digest of `body` characters followed by `padding` (43 and `=`
/// for SHA-256, 86 and `==` for SHA-512).
pub(crate) fn is_digest(value: &str, body: usize, padding: &str) -> bool {
    value.len() == body + padding.len()
        && value.ends_with(padding)
        && value
            .bytes()
            .take(body)
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// The representation id of a schema's messages: the schema id itself
/// when it is a valid representation id (every snake_case id is), else
/// `schema-` and the first 32 hex digits of the schema id's SHA-256, so that
/// any schema id gets a valid, stable id.
pub(crate) fn representation_id_of(schema_id: &str) -> String {
    if is_representation_id(schema_id) {
        return schema_id.to_owned();
    }
    let digest = Sha256::digest(schema_id.as_bytes());
    let mut id = String::from("schema-");
    for byte in digest.iter().take(16) {
        id.push_str(&format!("{byte:02x}"));
    }
    id
}

/// A bundle entry point: a non-empty relative path that never climbs out
/// of the bundle (no leading `/`, no `..` segment).
pub(crate) fn is_entrypoint(text: &str) -> bool {
    !text.is_empty() && !text.starts_with('/') && !text.split('/').any(|segment| segment == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_uris() {
        for yes in [
            "https://w3id.org/a2a-schema-contract/draft/0.1",
            "urn:reference:invoice:1",
            "a+b.c-d:x",
        ] {
            assert!(is_absolute_uri(yes), "{yes}");
        }
        for no in [
            "",
            "invoice/1",
            ":x",
            "1a:x",
            "urn:",
            "https://a b",
            "ur_n:x",
        ] {
            assert!(!is_absolute_uri(no), "{no}");
        }
    }

    #[test]
    fn representation_ids() {
        assert!(is_representation_id("flight_booking_v1"));
        assert!(is_representation_id("json.v-2"));
        assert!(is_representation_id(&"a".repeat(128)));
        for no in ["", "_json", "a b", "é", &"a".repeat(129)] {
            assert!(!is_representation_id(no), "{no}");
        }
    }

    #[test]
    fn media_types() {
        for yes in [
            "application/json",
            "text/plain; charset=utf-8",
            "text/plain;charset=\"utf-8\"",
            "application/vnd.example.contact+json",
        ] {
            assert!(is_media_type(yes), "{yes}");
        }
        for no in [
            "",
            "json",
            "application/",
            "/json",
            "text/plain; charset",
            "a b/c",
        ] {
            assert!(!is_media_type(no), "{no}");
        }
    }

    #[test]
    fn digests() {
        let sha256 = format!("{}=", "A".repeat(43));
        assert!(is_digest(&sha256, 43, "="));
        assert!(!is_digest(&sha256, 86, "=="));
        assert!(is_digest(
            &format!("{}==", "a/+9".repeat(21) + "ab"),
            86,
            "=="
        ));
        assert!(!is_digest(&format!("{}=", "-".repeat(43)), 43, "="));
        assert!(!is_digest("é", 43, "="));
    }

    #[test]
    fn every_schema_id_gets_a_representation_id() {
        assert_eq!(
            representation_id_of("flight_booking_v1"),
            "flight_booking_v1"
        );
        for odd in ["_", "", "vol de Pékin", &"a".repeat(200)] {
            let id = representation_id_of(odd);
            assert!(is_representation_id(&id), "{odd:?} -> {id}");
            assert_eq!(id.len(), "schema-".len() + 32);
            assert_eq!(id, representation_id_of(odd));
        }
        assert_ne!(representation_id_of("_"), representation_id_of("-"));
    }

    #[test]
    fn entrypoints() {
        assert!(is_entrypoint("schemas/root.json"));
        for no in ["", "/root.json", "../x.json", "a/../../x", "a/.."] {
            assert!(!is_entrypoint(no), "{no}");
        }
    }
}
