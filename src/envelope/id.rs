//! The envelope's `id`: a version 4 UUID.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

/// An envelope's `id`: a UUID of version 4 and of the RFC 4122 (RFC 9562)
/// variant, written in the hyphenated form `8-4-4-4-12` (either case).
///
/// The crate generates no randomness: take the id from your own generator,
/// either as 16 random bytes ([`MessageId::from_random_bytes`] sets the
/// version and variant bits) or as a [`Uuid`] (e.g. `Uuid::new_v4()` with
/// uuid's `v4` feature).
///
/// ```
/// use sdsi::envelope::MessageId;
/// let id: MessageId = "550e8400-e29b-41d4-a716-446655440000".parse()?;
/// assert_eq!(id.to_string(), "550e8400-e29b-41d4-a716-446655440000");
/// assert!("550e8400-e29b-11d4-a716-446655440000".parse::<MessageId>().is_err()); // version 1
/// let fresh = MessageId::from_random_bytes([7; 16]);
/// assert_eq!(fresh.as_uuid().get_version_num(), 4);
/// # Ok::<(), sdsi::envelope::InvalidMessageId>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MessageId(Uuid);

/// Why a string or a [`Uuid`] is not a valid envelope `id`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidMessageId {
    /// The text is not a hyphenated UUID.
    #[error("{text:?} is not a uuid in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")]
    NotAUuid {
        /// The rejected text.
        text: String,
    },
    /// The UUID is not of version 4.
    #[error("uuid {uuid} is of version {version}, not version 4")]
    NotVersion4 {
        /// The UUID.
        uuid: Uuid,
        /// Its version number.
        version: usize,
    },
    /// The UUID's variant is not the RFC 4122 one.
    #[error("uuid {uuid} is not of the rfc 4122 variant")]
    NotRfc4122Variant {
        /// The UUID.
        uuid: Uuid,
    },
}

impl MessageId {
    /// Checks that `uuid` is of version 4 and the RFC 4122 variant.
    pub fn new(uuid: Uuid) -> Result<Self, InvalidMessageId> {
        if uuid.get_version_num() != 4 {
            return Err(InvalidMessageId::NotVersion4 {
                uuid,
                version: uuid.get_version_num(),
            });
        }
        if uuid.get_variant() != uuid::Variant::RFC4122 {
            return Err(InvalidMessageId::NotRfc4122Variant { uuid });
        }
        Ok(Self(uuid))
    }

    /// A version 4 id from 16 random bytes of the caller's; the version and
    /// variant bits are set, so any bytes give a valid id.
    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        Self(uuid::Builder::from_random_bytes(bytes).into_uuid())
    }

    /// The id as a [`Uuid`].
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl FromStr for MessageId {
    type Err = InvalidMessageId;

    /// Accepts only the hyphenated form (36 characters), in either case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let not_a_uuid = || InvalidMessageId::NotAUuid {
            text: text.to_owned(),
        };
        // Only the hyphenated form is 36 characters long; uuid also parses
        // the simple, braced and urn forms, which the envelope does not allow.
        if text.len() != 36 {
            return Err(not_a_uuid());
        }
        let uuid = Uuid::try_parse(text).map_err(|_| not_a_uuid())?;
        Self::new(uuid)
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl fmt::Debug for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MessageId({self})")
    }
}

impl Serialize for MessageId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MessageId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
