//! Security-relevant keys (§7): the `sensitive` marker a key carries, and
//! the server-side classification of what a key's name and description mean.

use serde_json::Value;

use super::definition::KeyDefinition;

/// The wire member that marks a key as security-relevant.
pub const SENSITIVE_MEMBER: &str = "sensitive";

/// Why a key is security-relevant (§7 names payment, identity and access control).
///
/// On the wire a key carries `"sensitive": "payment" | "identity" |
/// "access_control"`, or `"sensitive": true` for another reason. Any other
/// non-false value also counts as sensitive: an unknown marker errs on the safe side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Sensitivity {
    /// Payment data or actions.
    Payment,
    /// Identity data.
    Identity,
    /// Access control.
    AccessControl,
    /// Health data (§7 leaves the list open; health is a special category
    /// of personal data in most privacy law).
    Health,
    /// Precise location.
    Location,
    /// Marked sensitive for another reason.
    Other,
}

impl Sensitivity {
    /// What a key's name and description say it holds, whatever its
    /// `sensitive` member claims: the server-side policy of §7, so that an
    /// unmarked `passport_number` or a key described as "card number and
    /// CVV" still needs authorization. It errs on the safe side: a word such
    /// as "payment" in a description is enough.
    ///
    /// ```
    /// use sdsi::{KeyDefinition, KeyName, KeyType};
    /// use sdsi::key::Sensitivity;
    /// let key = |name: &str, description: &str| {
    ///     KeyDefinition::new(KeyName::new(name).unwrap(), KeyType::String, false, description)
    /// };
    /// assert_eq!(Sensitivity::classify(&key("passport_number", "as printed")), Some(Sensitivity::Identity));
    /// assert_eq!(Sensitivity::classify(&key("extra", "Card number and CVV")), Some(Sensitivity::Payment));
    /// assert_eq!(Sensitivity::classify(&key("seat_preference", "window or aisle")), None);
    /// ```
    pub fn classify(key: &KeyDefinition) -> Option<Sensitivity> {
        let words: Vec<String> = key
            .key_name
            .as_str()
            .split('_')
            .map(str::to_owned)
            .chain(
                key.semantic_description
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_lowercase),
            )
            .collect();
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        let pair = |list: &[(&str, &str)]| {
            words
                .windows(2)
                .any(|w| matches!(w, [a, b] if list.contains(&(a.as_str(), b.as_str()))))
        };
        if has(PAYMENT) || pair(PAYMENT_PAIRS) {
            Some(Sensitivity::Payment)
        } else if has(CREDENTIAL) || pair(CREDENTIAL_PAIRS) {
            Some(Sensitivity::AccessControl)
        } else if has(IDENTITY) || pair(IDENTITY_PAIRS) {
            Some(Sensitivity::Identity)
        } else if has(HEALTH) || pair(HEALTH_PAIRS) {
            Some(Sensitivity::Health)
        } else if has(LOCATION) || pair(LOCATION_PAIRS) {
            Some(Sensitivity::Location)
        } else {
            None
        }
    }

    /// The wire name (`true` stands for [`Sensitivity::Other`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Sensitivity::Payment => "payment",
            Sensitivity::Identity => "identity",
            Sensitivity::AccessControl => "access_control",
            Sensitivity::Health => "health",
            Sensitivity::Location => "location",
            Sensitivity::Other => "other",
        }
    }
}

impl KeyDefinition {
    /// The key's sensitivity, read from its `sensitive` member.
    pub fn sensitivity(&self) -> Option<Sensitivity> {
        match self.extra.get(SENSITIVE_MEMBER)? {
            Value::Bool(false) | Value::Null => None,
            Value::String(s) if s == "payment" => Some(Sensitivity::Payment),
            Value::String(s) if s == "identity" => Some(Sensitivity::Identity),
            Value::String(s) if s == "access_control" => Some(Sensitivity::AccessControl),
            Value::String(s) if s == "health" => Some(Sensitivity::Health),
            Value::String(s) if s == "location" => Some(Sensitivity::Location),
            _ => Some(Sensitivity::Other),
        }
    }

    /// Marks the key sensitive.
    pub fn with_sensitivity(mut self, sensitivity: Sensitivity) -> Self {
        let value = match sensitivity {
            Sensitivity::Other => Value::Bool(true),
            s => Value::from(s.as_str()),
        };
        self.extra.insert(SENSITIVE_MEMBER.to_owned(), value);
        self
    }
}

// Words (lowercase, whole words of the key name or description) and word
// pairs that make a key sensitive. Kept short and specific: each entry is a
// word that names the data itself, not a topic near it.
const PAYMENT: &[&str] = &[
    "card",
    "cvv",
    "cvc",
    "cvv2",
    "iban",
    "bic",
    "swift",
    "payment",
    "payments",
    "billing",
    "pan",
    "creditcard",
    "debit",
    "credit",
];
const PAYMENT_PAIRS: &[(&str, &str)] = &[
    ("account", "number"),
    ("bank", "account"),
    ("routing", "number"),
    ("sort", "code"),
    ("security", "code"),
    ("expiry", "date"),
];
const CREDENTIAL: &[&str] = &[
    "password",
    "passwords",
    "passcode",
    "passphrase",
    "pin",
    "otp",
    "token",
    "tokens",
    "secret",
    "secrets",
    "credential",
    "credentials",
    "apikey",
    "login",
    "2fa",
    "mfa",
];
const CREDENTIAL_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("access", "code"),
    ("verification", "code"),
    ("one", "time"),
];
const IDENTITY: &[&str] = &[
    "passport",
    "ssn",
    "nationality",
    "identity",
    "dob",
    "birthdate",
    "birthday",
    "licence",
    "license",
    "tin",
    "nin",
    "ethnicity",
    "religion",
];
const IDENTITY_PAIRS: &[(&str, &str)] = &[
    ("social", "security"),
    ("national", "id"),
    ("id", "number"),
    ("id", "card"),
    ("identity", "number"),
    ("tax", "id"),
    ("date", "of"),
    ("of", "birth"),
    ("email", "address"),
    ("phone", "number"),
    ("full", "name"),
    ("ip", "address"),
];
const HEALTH: &[&str] = &[
    "medical",
    "diagnosis",
    "medication",
    "medications",
    "prescription",
    "health",
    "illness",
    "disease",
    "pregnancy",
    "hiv",
];
const HEALTH_PAIRS: &[(&str, &str)] = &[("blood", "type"), ("health", "condition")];
const LOCATION: &[&str] = &["gps", "latitude", "longitude", "geolocation", "coordinates"];
const LOCATION_PAIRS: &[(&str, &str)] = &[
    ("home", "address"),
    ("street", "address"),
    ("current", "location"),
    ("live", "location"),
    ("exact", "location"),
];
