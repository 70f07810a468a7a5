//! serde's `rename_all` rules, as serde_derive applies them to field and
//! variant names, so a key is named exactly as serde reads it.

/// One of serde's `rename_all` rules; `None` when there is no rule.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RenameRule {
    None,
    LowerCase,
    UpperCase,
    PascalCase,
    CamelCase,
    SnakeCase,
    ScreamingSnakeCase,
    KebabCase,
    ScreamingKebabCase,
}

/// The names serde accepts, in its own order (its error message lists them so).
pub(crate) const RULES: [(&str, RenameRule); 8] = [
    ("lowercase", RenameRule::LowerCase),
    ("UPPERCASE", RenameRule::UpperCase),
    ("PascalCase", RenameRule::PascalCase),
    ("camelCase", RenameRule::CamelCase),
    ("snake_case", RenameRule::SnakeCase),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnakeCase),
    ("kebab-case", RenameRule::KebabCase),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebabCase),
];

impl RenameRule {
    /// The rule called `name`, if serde knows it.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        RULES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, rule)| *rule)
    }

    /// A variant name (`PremiumEconomy`) under this rule.
    pub(crate) fn variant(self, variant: &str) -> String {
        match self {
            Self::None | Self::PascalCase => variant.to_owned(),
            Self::LowerCase => variant.to_ascii_lowercase(),
            Self::UpperCase => variant.to_ascii_uppercase(),
            Self::CamelCase => lower_first(variant),
            Self::SnakeCase => {
                let mut snake = String::with_capacity(variant.len() + 4);
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnakeCase => Self::SnakeCase.variant(variant).to_ascii_uppercase(),
            Self::KebabCase => Self::SnakeCase.variant(variant).replace('_', "-"),
            Self::ScreamingKebabCase => Self::ScreamingSnakeCase.variant(variant).replace('_', "-"),
        }
    }

    /// A field name (`cabin_class`) under this rule.
    pub(crate) fn field(self, field: &str) -> String {
        match self {
            Self::None | Self::LowerCase | Self::SnakeCase => field.to_owned(),
            Self::UpperCase | Self::ScreamingSnakeCase => field.to_ascii_uppercase(),
            Self::PascalCase => {
                let mut pascal = String::with_capacity(field.len());
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::CamelCase => lower_first(&Self::PascalCase.field(field)),
            Self::KebabCase => field.replace('_', "-"),
            Self::ScreamingKebabCase => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// `name` with its first character in ASCII lowercase.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Whether `name` is a key name: `^[a-z][a-z0-9]*(_[a-z0-9]+)*$` (the rule
/// of `sdsi::KeyName`, which this crate cannot call: sdsi depends on it).
pub(crate) fn is_snake_case(name: &str) -> bool {
    let bytes = name.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    let mut previous_underscore = false;
    for &b in bytes {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => previous_underscore = false,
            b'_' if !previous_underscore => previous_underscore = true,
            _ => return false,
        }
    }
    !previous_underscore
}

/// A type name as a default scenario: `FlightBooking` → `flight_booking`,
/// `HTTPRequest` → `http_request` (a run of capitals is one word).
pub(crate) fn type_to_snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
            let next = chars.get(i + 1).copied();
            let boundary = match previous {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(char::is_lowercase),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
