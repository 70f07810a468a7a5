//! The envelope's `protocol_version`, and which versions this crate speaks.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An envelope's `protocol_version`: `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`
/// (decimal numbers without leading zeros), of a major version this crate
/// speaks.
///
/// The crate speaks major version 0 (the document is v0.1). Following the
/// envelope's versioning rules (breaking changes bump the major, additions
/// the minor), any minor of a known major is accepted: `0.2` is, `1.0` is not.
///
/// ```
/// use sdsi::envelope::ProtocolVersion;
/// let v: ProtocolVersion = "0.3".parse()?;
/// assert_eq!((v.major(), v.minor()), (0, 3));
/// assert_eq!(ProtocolVersion::CURRENT.to_string(), "0.1");
/// assert!("1.0".parse::<ProtocolVersion>().is_err());
/// # Ok::<(), sdsi::envelope::VersionError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProtocolVersion {
    major: u64,
    minor: u64,
    patch: Option<u64>,
}

/// Why a `protocol_version` is not one this crate speaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VersionError {
    /// The text is not `MAJOR.MINOR` or `MAJOR.MINOR.PATCH`.
    #[error("protocol version {text:?} is not of the form MAJOR.MINOR")]
    Malformed {
        /// The rejected text.
        text: String,
    },
    /// The major version is not one this crate speaks.
    #[error(
        "protocol version {text:?} has major version {major}; this crate speaks major version 0"
    )]
    UnsupportedMajor {
        /// The rejected text.
        text: String,
        /// Its major version.
        major: u64,
    },
}

impl ProtocolVersion {
    /// The version this crate writes: `0.1`.
    pub const CURRENT: ProtocolVersion = ProtocolVersion {
        major: 0,
        minor: 1,
        patch: None,
    };

    /// The major versions this crate speaks.
    pub const SUPPORTED_MAJORS: [u64; 1] = [0];

    /// `MAJOR.MINOR`, if the major version is supported.
    pub fn new(major: u64, minor: u64) -> Result<Self, VersionError> {
        let version = Self {
            major,
            minor,
            patch: None,
        };
        version.check(|| version.to_string())
    }

    fn check(self, text: impl FnOnce() -> String) -> Result<Self, VersionError> {
        if Self::SUPPORTED_MAJORS.contains(&self.major) {
            Ok(self)
        } else {
            Err(VersionError::UnsupportedMajor {
                text: text(),
                major: self.major,
            })
        }
    }

    /// The major version.
    pub fn major(&self) -> u64 {
        self.major
    }

    /// The minor version.
    pub fn minor(&self) -> u64 {
        self.minor
    }

    /// The patch version, when the text had one.
    pub fn patch(&self) -> Option<u64> {
        self.patch
    }
}

/// A decimal number without leading zeros.
fn version_number(text: &str) -> Option<u64> {
    let well_formed = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if well_formed { text.parse().ok() } else { None }
}

impl FromStr for ProtocolVersion {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || VersionError::Malformed {
            text: text.to_owned(),
        };
        let mut parts = text.split('.');
        let major = parts
            .next()
            .and_then(version_number)
            .ok_or_else(malformed)?;
        let minor = parts
            .next()
            .and_then(version_number)
            .ok_or_else(malformed)?;
        let patch = match parts.next() {
            None => None,
            Some(p) => Some(version_number(p).ok_or_else(malformed)?),
        };
        if parts.next().is_some() {
            return Err(malformed());
        }
        Self {
            major,
            minor,
            patch,
        }
        .check(|| text.to_owned())
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        if let Some(patch) = self.patch {
            write!(f, ".{patch}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProtocolVersion({self})")
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
