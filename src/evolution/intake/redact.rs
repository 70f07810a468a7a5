//! Redaction of personal data and secrets in `other` fragments (§7), before
//! anything is embedded, clustered, stored, quoted or logged.
//!
//! Each value found becomes a typed placeholder, so that `pay with my card
//! 4111 1111 1111 1111` from many clients, each with their own number, is the
//! one need `pay with my card <card>`, and no raw value survives anywhere.
//!
//! | placeholder | what | how it is recognised | category |
//! |---|---|---|---|
//! | `<card>` | payment card number | 13-19 digits, grouped by single spaces or dashes, passing the Luhn check | payment |
//! | `<iban>` | bank account (IBAN) | two letters, two check digits, 11-30 letters and digits (spaces allowed between groups of 4), valid under ISO 13616 mod-97 | payment |
//! | `<email>` | e-mail address | `local@domain.tld` | identity |
//! | `<phone>` | phone number | `+` and 7-15 digits; or 10-11 digits grouped like a phone number (`(555) 123-4567`, `555-123-4567`) | identity |
//! | `<id_number>` | national id, account or other long number | the US SSN shape `ddd-dd-dddd`; any other run of 9 or more digits | identity |
//! | `<secret>` | password, PIN, token, API key | the word after `password`, `passcode`, `pin`, `pwd`, `token`, `secret`, `otp` (and `=`/`:` forms); known key prefixes (`sk-`, `ghp_`, `AKIA`, `AIza`, `xoxb-`, JWTs); long mixed letter-digit tokens | credentials |
//!
//! Digits are read in any script the crate knows (ASCII, fullwidth,
//! Arabic-Indic, Devanagari), so "４１１１ １１１１ …" is a card too. Numbers a
//! request legitimately holds stay: amounts, quantities, dates, times, flight
//! numbers and short codes have fewer than 9 digits or the wrong shape.
//! `examples/redaction_rate.rs` measures what changes on a data set.

use crate::key::Sensitivity;

/// What a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Redaction {
    /// A payment card number.
    Card,
    /// An IBAN.
    Iban,
    /// An e-mail address.
    Email,
    /// A phone number.
    Phone,
    /// A national id or another long number.
    IdNumber,
    /// A password, PIN, token or API key.
    Secret,
}

impl Redaction {
    /// The placeholder written in its place: `<card>`, `<iban>`...
    pub fn placeholder(self) -> &'static str {
        match self {
            Redaction::Card => "<card>",
            Redaction::Iban => "<iban>",
            Redaction::Email => "<email>",
            Redaction::Phone => "<phone>",
            Redaction::IdNumber => "<id_number>",
            Redaction::Secret => "<secret>",
        }
    }

    /// The §7 category a key proposed from such fragments falls in.
    pub fn sensitivity(self) -> Sensitivity {
        match self {
            Redaction::Card | Redaction::Iban => Sensitivity::Payment,
            Redaction::Email | Redaction::Phone | Redaction::IdNumber => Sensitivity::Identity,
            Redaction::Secret => Sensitivity::AccessControl,
        }
    }

    /// Every kind, in a fixed order.
    pub const ALL: &'static [Redaction] = &[
        Redaction::Card,
        Redaction::Iban,
        Redaction::Email,
        Redaction::Phone,
        Redaction::IdNumber,
        Redaction::Secret,
    ];

    /// `text` (redacted) without its placeholders, spaces around them
    /// folded: what is left of a request once the values it carried are
    /// gone. A placeholder says a value was there, not what was asked, so
    /// it is neither embedded nor used to name a key: `refund to <card>`
    /// and `send the receipt to <email>` do not meet on the placeholders.
    ///
    /// ```
    /// use sdsi::evolution::Redaction;
    /// assert_eq!(Redaction::strip("refund to <card> please"), "refund to please");
    /// assert_eq!(Redaction::strip("<email>"), "");
    /// ```
    pub fn strip(text: &str) -> std::borrow::Cow<'_, str> {
        if !text.contains('<') || Redaction::found_in(text).is_empty() {
            return std::borrow::Cow::Borrowed(text);
        }
        let mut out = text.to_owned();
        for kind in Redaction::ALL.iter().copied() {
            out = out.replace(kind.placeholder(), " ");
        }
        std::borrow::Cow::Owned(out.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// What is embedded of a redacted fragment: [`Redaction::strip`]'s
    /// words, or the placeholders themselves when nothing else is left, so
    /// that bare card numbers still meet each other.
    ///
    /// ```
    /// use sdsi::evolution::Redaction;
    /// assert_eq!(Redaction::embedded("pay with <card>"), "pay with");
    /// assert_eq!(Redaction::embedded("<card>"), "<card>");
    /// ```
    pub fn embedded(text: &str) -> std::borrow::Cow<'_, str> {
        let stripped = Redaction::strip(text);
        if stripped.chars().any(char::is_alphanumeric) {
            stripped
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    }

    /// The kinds whose placeholders `text` holds (e.g. an exemplar).
    pub fn found_in(text: &str) -> Vec<Redaction> {
        Redaction::ALL
            .iter()
            .copied()
            .filter(|k| text.contains(k.placeholder()))
            .collect()
    }
}

/// A fragment with its sensitive values replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Redacted {
    /// The text with placeholders.
    pub text: String,
    /// What was replaced, each kind once, in [`Redaction::ALL`] order.
    pub found: Vec<Redaction>,
}

/// Replaces cards, IBANs, e-mail addresses, phone numbers, long numbers and
/// secrets in `text` with placeholders. Idempotent; text without such values
/// comes back unchanged.
///
/// ```
/// use sdsi::evolution::{Redaction, redact};
/// let a = redact("pay with my card 4111 1111 1111 1111 please");
/// let b = redact("pay with my card 5500-0000-0000-0004 please");
/// assert_eq!(a.text, "pay with my card <card> please");
/// assert_eq!(a.text, b.text);
/// assert_eq!(a.found, [Redaction::Card]);
/// assert_eq!(redact("mail me at jo.doe+x@example.co.uk").text, "mail me at <email>");
/// assert_eq!(redact("2 bags on flight BA 117, 2026-05-04 10:30").found, []);
/// ```
pub fn redact(text: &str) -> Redacted {
    let mut found = Vec::new();
    let words = split_words(text);
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    let mut secret_next = false;
    while let Some(word) = words.get(index) {
        if word.is_space {
            out.push_str(word.text);
            index += 1;
            continue;
        }
        if secret_next {
            let (_, body, trail) = trim_punctuation(word.text);
            if body.eq_ignore_ascii_case("is") && trail.is_empty() {
                out.push_str(word.text); // "my pin is 4821": the value comes next
                index += 1;
                continue;
            }
        }
        // A number may span several words: "4111 1111 1111 1111".
        let number = number_at(&words, index).or_else(|| iban_at(&words, index));
        // After "cvc" / "pin" a value is a secret, unless it is a whole card
        // number or IBAN: the longer, more specific match wins.
        let card_or_iban = number
            .as_ref()
            .is_some_and(|n| matches!(n.kind, Redaction::Card | Redaction::Iban));
        if secret_next && !card_or_iban {
            let (lead, body, trail) = trim_punctuation(word.text);
            if looks_like_value(body) && !is_placeholder(body) {
                secret_next = false;
                out.push_str(lead);
                out.push_str(Redaction::Secret.placeholder());
                out.push_str(trail);
                found.push(Redaction::Secret);
                index += 1;
                continue;
            }
        }
        secret_next = false;
        if let Some(number) = number {
            out.push_str(number.lead);
            out.push_str(number.kind.placeholder());
            out.push_str(number.trail);
            found.push(number.kind);
            index += number.taken;
            continue;
        }
        let (replaced, kind) = redact_word(word.text);
        if let Some(kind) = kind {
            found.push(kind);
        }
        out.push_str(&replaced);
        secret_next = announces_secret(word.text);
        index += 1;
    }
    // Whatever the word rules missed (odd punctuation, separators in odd
    // places), no run of 9 or more digits survives.
    let out = sweep_digit_runs(&out, &mut found);
    found.sort();
    found.dedup();
    Redacted { text: out, found }
}

/// Replaces every run of 9 or more digits (single spaces or dashes
/// between digits allowed) with `<card>` when it is 13-19 digits passing
/// Luhn, else `<id_number>`.
fn sweep_digit_runs(text: &str, found: &mut Vec<Redaction>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if digit(c).is_none() {
            out.push(c);
            i += 1;
            continue;
        }
        // A run mixing spaces and dashes that hides a card number anywhere
        // in it is a card, whatever the grouping.
        let (mixed, mixed_end) = digit_run(&chars, i, true);
        if mixed.len() >= 13
            && (13..=19.min(mixed.len())).any(|len| {
                (0..=mixed.len() - len).any(|start| mixed.get(start..start + len).is_some_and(luhn))
            })
        {
            out.push_str(Redaction::Card.placeholder());
            found.push(Redaction::Card);
            i = mixed_end.max(i + 1);
            continue;
        }
        // Otherwise one kind of separator per run: "2026-05-04 10:30" is a
        // date and a time, not a ten-digit number.
        let (digits, end) = digit_run(&chars, i, false);
        if digits.len() >= 9 {
            let kind = if (13..=19).contains(&digits.len()) && luhn(&digits) {
                Redaction::Card
            } else {
                Redaction::IdNumber
            };
            out.push_str(kind.placeholder());
            found.push(kind);
        } else {
            out.extend(chars.get(i..end).into_iter().flatten());
        }
        i = end.max(i + 1);
    }
    out
}

/// A run of non-space characters, or of spaces.
struct Word<'t> {
    text: &'t str,
    is_space: bool,
}

fn split_words(text: &str) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let is_space = c.is_whitespace();
        if space.is_some_and(|s| s != is_space) {
            if let Some(piece) = text.get(start..i) {
                words.push(Word {
                    text: piece,
                    is_space: space.unwrap_or(false),
                });
            }
            start = i;
        }
        space = Some(is_space);
    }
    if let Some(piece) = text.get(start..).filter(|p| !p.is_empty()) {
        words.push(Word {
            text: piece,
            is_space: space.unwrap_or(false),
        });
    }
    words
}

fn is_placeholder(word: &str) -> bool {
    Redaction::ALL
        .iter()
        .any(|k| word.contains(k.placeholder()))
}

/// The decimal value of a digit in the scripts the crate reads.
fn digit(c: char) -> Option<u8> {
    let base = match c {
        '0'..='9' => '0',
        '\u{FF10}'..='\u{FF19}' => '\u{FF10}',
        '\u{0660}'..='\u{0669}' => '\u{0660}',
        '\u{06F0}'..='\u{06F9}' => '\u{06F0}',
        '\u{0966}'..='\u{096F}' => '\u{0966}',
        _ => return None,
    };
    u8::try_from(u32::from(c).checked_sub(u32::from(base))?).ok()
}

/// A value found over one or more words, and the punctuation around it.
struct Found<'t> {
    kind: Redaction,
    taken: usize,
    lead: &'t str,
    trail: &'t str,
}

/// A number starting at `words[index]`: the digit groups of one word (joined
/// by one kind of separator, `-`, `.` or `/`), continued over single spaces by
/// further all-digit words.
fn number_at<'t>(words: &[Word<'t>], index: usize) -> Option<Found<'t>> {
    let first = words.get(index)?.text;
    let (lead, body, mut trail) = trim_punctuation(first);
    let plus = body.starts_with('+') || body.starts_with('＋');
    let body = body.trim_start_matches(['+', '＋']);
    let mut groups = digit_groups(body)?;
    let mut taken = 1;
    let mut spaced = false;
    // Continue over single spaces with words made only of digit groups.
    if trail.is_empty() || trail == ")" {
        while let (Some(space), Some(next)) =
            (words.get(index + taken), words.get(index + taken + 1))
        {
            if !space.is_space || space.text.chars().count() != 1 {
                break;
            }
            let (l, b, t) = trim_punctuation(next.text);
            let Some(more) = (l.is_empty()).then(|| digit_groups(b)).flatten() else {
                break;
            };
            groups.extend(more);
            taken += 2;
            spaced = true;
            trail = t;
            if !t.is_empty() && t != ")" {
                break;
            }
        }
    }
    let digits: Vec<u8> = groups.iter().flatten().copied().collect();
    let count = digits.len();
    let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
    let kind = if plus && (7..=15).contains(&count) {
        Redaction::Phone
    } else if (13..=19).contains(&count)
        && luhn(&digits)
        && sizes
            .iter()
            .all(|&n| (1..=6).contains(&n) || groups.len() == 1)
    {
        Redaction::Card
    } else if sizes == [3, 2, 4] && !spaced {
        Redaction::IdNumber
    } else if (10..=11).contains(&count) && phone_shaped(&sizes, lead == "(") {
        Redaction::Phone
    } else if count >= 9 {
        Redaction::IdNumber
    } else {
        return None;
    };
    // An area code's parenthesis belongs to the number; other punctuation stays.
    let lead = if kind == Redaction::Phone {
        lead.trim_end_matches('(')
    } else {
        lead
    };
    let trail = if trail.starts_with(')') {
        trail.get(1..).unwrap_or("")
    } else {
        trail
    };
    Some(Found {
        kind,
        taken,
        lead,
        trail,
    })
}

/// Splits `word` into leading punctuation, body and trailing punctuation.
fn trim_punctuation(word: &str) -> (&str, &str, &str) {
    let is_edge = |c: char| {
        matches!(
            c,
            '(' | ')' | ',' | ';' | ':' | '!' | '?' | '"' | '\'' | '.'
        )
    };
    let body_start = word.find(|c: char| !is_edge(c)).unwrap_or(word.len());
    let body_end = word.rfind(|c: char| !is_edge(c)).map_or(body_start, |i| {
        i + word
            .get(i..)
            .and_then(|r| r.chars().next())
            .map_or(1, char::len_utf8)
    });
    let body_end = body_end.max(body_start);
    (
        word.get(..body_start).unwrap_or(""),
        word.get(body_start..body_end).unwrap_or(""),
        word.get(body_end..).unwrap_or(""),
    )
}

/// The digit groups of a word made only of digits and one kind of
/// separator (`-`, `.`, `/`, or `)` after an area code), or `None`.
fn digit_groups(word: &str) -> Option<Vec<Vec<u8>>> {
    let mut groups = vec![Vec::new()];
    let mut separator = None;
    for c in word.chars() {
        if let Some(d) = digit(c) {
            groups.last_mut()?.push(d);
        } else if matches!(c, '-' | '.' | '/' | ')') && groups.last().is_some_and(|g| !g.is_empty())
        {
            let kind = if c == ')' { '-' } else { c };
            if separator.is_some_and(|s| s != kind) {
                return None;
            }
            separator = Some(kind);
            groups.push(Vec::new());
        } else {
            return None;
        }
    }
    if groups.iter().any(Vec::is_empty) {
        return None;
    }
    Some(groups)
}

/// The digits of the run starting at `start` (single spaces or dashes between
/// digits, mixed when `mixed`), and where it ends.
fn digit_run(chars: &[char], start: usize, mixed: bool) -> (Vec<u8>, usize) {
    let mut digits = Vec::new();
    let (mut end, mut j) = (start, start);
    let mut separator = None;
    while let Some(&c) = chars.get(j) {
        if let Some(d) = digit(c) {
            digits.push(d);
            j += 1;
            end = j;
        } else if matches!(c, ' ' | '-')
            && (mixed || separator.is_none_or(|s| s == c))
            && chars.get(j + 1).is_some_and(|n| digit(*n).is_some())
        {
            separator = Some(c);
            j += 1;
        } else {
            break;
        }
    }
    (digits, end)
}

/// Group sizes a phone number is written in.
fn phone_shaped(sizes: &[usize], parenthesised: bool) -> bool {
    parenthesised
        || matches!(
            sizes,
            [3, 3, 4]
                | [3, 4, 4]
                | [4, 3, 4]
                | [2, 4, 4]
                | [4, 3, 3]
                | [3, 3, 3, 2]
                | [3, 2, 2, 2]
                | [2, 2, 2, 2, 2]
                | [4, 6]
                | [5, 6]
                | [3, 7]
                | [3, 8]
        )
}

/// The Luhn checksum of a card number.
fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum % 10 == 0
}

/// An IBAN starting at `words[index]`, possibly written in groups of four.
fn iban_at<'t>(words: &[Word<'t>], index: usize) -> Option<Found<'t>> {
    let (lead, first, mut trail) = trim_punctuation(words.get(index)?.text);
    let mut chars: Vec<char> = first.chars().collect();
    if chars.len() < 4 || !chars.iter().all(char::is_ascii_alphanumeric) {
        return None;
    }
    let head: Vec<char> = chars.iter().take(4).copied().collect();
    if !matches!(head.as_slice(), [a, b, c, d] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() && c.is_ascii_digit() && d.is_ascii_digit())
    {
        return None;
    }
    let mut taken = 1;
    if chars.len() == 4 {
        // Grouped: "DE89 3704 0044 0532 0130 00".
        while let (Some(space), Some(next)) =
            (words.get(index + taken), words.get(index + taken + 1))
        {
            let (_, body, t) = trim_punctuation(next.text);
            if !space.is_space
                || body.len() > 4
                || body.is_empty()
                || !body.chars().all(|c| c.is_ascii_alphanumeric())
            {
                break;
            }
            chars.extend(body.chars());
            taken += 2;
            trail = t;
            if body.len() < 4 {
                break;
            }
        }
    }
    if !(15..=34).contains(&chars.len()) || !iban_checksum(&chars) {
        return None;
    }
    Some(Found {
        kind: Redaction::Iban,
        taken,
        lead,
        trail,
    })
}

/// ISO 13616: move the first four characters to the end, letters as 10-35,
/// and the number mod 97 must be 1.
fn iban_checksum(chars: &[char]) -> bool {
    let mut remainder = 0u32;
    for c in chars.iter().skip(4).chain(chars.iter().take(4)) {
        let value = match c.to_ascii_uppercase() {
            d @ '0'..='9' => u32::from(d) - u32::from('0'),
            l @ 'A'..='Z' => u32::from(l) - u32::from('A') + 10,
            _ => return false,
        };
        remainder = if value >= 10 {
            (remainder * 100 + value) % 97
        } else {
            (remainder * 10 + value) % 97
        };
    }
    remainder == 1
}

/// One word: an e-mail address, a secret, or a `key=value` secret, replaced.
fn redact_word(word: &str) -> (String, Option<Redaction>) {
    let (lead, body, trail) = trim_punctuation(word);
    if is_email(body) {
        return (
            format!("{lead}{}{trail}", Redaction::Email.placeholder()),
            Some(Redaction::Email),
        );
    }
    if let Some((name, value)) = body.split_once(['=', ':']) {
        if is_secret_word(name) && !value.is_empty() {
            let separator = body.get(name.len()..=name.len()).unwrap_or("=");
            return (
                format!(
                    "{lead}{name}{separator}{}{trail}",
                    Redaction::Secret.placeholder()
                ),
                Some(Redaction::Secret),
            );
        }
    }
    if looks_like_secret(body) {
        return (
            format!("{lead}{}{trail}", Redaction::Secret.placeholder()),
            Some(Redaction::Secret),
        );
    }
    (word.to_owned(), None)
}

fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '%' | '+' | '-'));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|tld| tld.chars().count() >= 2 && tld.chars().all(char::is_alphabetic));
    local_ok && domain_ok
}

/// What a secret's value looks like after "pin", "password"...: a word with
/// a digit or a symbol among its letters. ("my PIN is blocked" keeps
/// "blocked"; an all-letter password after "password" is missed, the price
/// of not redacting every word that follows.)
fn looks_like_value(word: &str) -> bool {
    !word.is_empty()
        && word.chars().any(|c| {
            c.is_ascii_digit() || digit(c).is_some() || (c.is_ascii_punctuation() && c != '\'')
        })
        && word.chars().any(|c| c.is_alphanumeric())
}

/// Words after which the next word is a secret ("my pin 4821").
fn announces_secret(word: &str) -> bool {
    let (_, body, trail) = trim_punctuation(word);
    is_secret_word(body) && (trail.is_empty() || trail == ":")
}

fn is_secret_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    matches!(
        lower.as_str(),
        "password"
            | "passwd"
            | "pwd"
            | "passcode"
            | "passphrase"
            | "pin"
            | "token"
            | "secret"
            | "otp"
            | "apikey"
            | "api_key"
            | "cvv"
            | "cvc"
    )
}

/// Known key shapes, JWTs, and long tokens that mix letters and digits.
fn looks_like_secret(word: &str) -> bool {
    const PREFIXES: [&str; 13] = [
        "sk-",
        "sk_live_",
        "sk_test_",
        "pk_live_",
        "rk_live_",
        "ghp_",
        "gho_",
        "ghs_",
        "github_pat_",
        "xoxb-",
        "xoxp-",
        "glpat-",
        "AIza",
    ];
    let token_chars = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | '='))
    };
    if word.len() >= 16 && token_chars(word) && PREFIXES.iter().any(|p| word.starts_with(p)) {
        return true;
    }
    if word.len() == 20
        && (word.starts_with("AKIA") || word.starts_with("ASIA"))
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    {
        return true;
    }
    let parts: Vec<&str> = word.split('.').collect();
    if parts.len() == 3
        && word.starts_with("eyJ")
        && parts.iter().all(|p| p.len() >= 4 && token_chars(p))
    {
        return true;
    }
    if word.len() < 20 || !token_chars(word) {
        return false;
    }
    let letters = word.chars().filter(char::is_ascii_alphabetic).count();
    let digits = word.chars().filter(char::is_ascii_digit).count();
    let mut distinct: Vec<char> = word.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    letters >= 4 && digits >= 4 && distinct.len() >= 12
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        redact(s).text
    }

    #[test]
    fn cards_in_any_grouping_and_script() {
        for card in [
            "4111111111111111",
            "4111 1111 1111 1111",
            "4111-1111-1111-1111",
            "3782 822463 10005",
            "４１１１ １１１１ １１１１ １１１１",
        ] {
            assert_eq!(
                text(&format!("card {card}, thanks")),
                "card <card>, thanks",
                "{card}"
            );
        }
        // Fails Luhn: a long number, not a card.
        assert_eq!(text("ref 4111 1111 1111 1112"), "ref <id_number>");
    }

    #[test]
    fn ibans_phones_ids_secrets() {
        assert_eq!(
            text("IBAN DE89 3704 0044 0532 0130 00 please"),
            "IBAN <iban> please"
        );
        assert_eq!(text("to GB82WEST12345698765432."), "to <iban>.");
        assert_eq!(text("call +44 20 7946 0958"), "call <phone>");
        assert_eq!(text("call (555) 123-4567 now"), "call <phone> now");
        assert_eq!(text("ssn 078-05-1120"), "ssn <id_number>");
        assert_eq!(text("my pin 4821"), "my pin <secret>");
        assert_eq!(text("my pin is 4821."), "my pin is <secret>.");
        assert_eq!(text("My PIN is blocked, help"), "My PIN is blocked, help");
        assert_eq!(
            text("I forgot my password and need a reset"),
            "I forgot my password and need a reset"
        );
        assert_eq!(text("password: hunter2"), "password: <secret>");
        assert_eq!(text("pwd=hunter2"), "pwd=<secret>");
        assert_eq!(text("key sk-live0123456789abcdefXYZ"), "key <secret>");
        assert_eq!(text("AKIAIOSFODNN7EXAMPLE"), "<secret>");
        assert_eq!(
            text("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdEFGH"),
            "<secret>"
        );
    }

    #[test]
    fn ordinary_requests_stay() {
        for s in [
            "2 bags on flight BA 117",
            "departing 2026-05-04 at 10:30",
            "I was charged £1,000.00 twice",
            "order 12345678 arrived broken",
            "top up 250 euros",
            "postcode SW1A 1AA",
            "card ending 4242",
            "window seat, row 12",
        ] {
            assert_eq!(text(s), s);
            assert!(redact(s).found.is_empty());
        }
    }

    #[test]
    fn idempotent_and_placeholders_stay() {
        for s in [
            "card <card> and mail <email>",
            "pin <secret>",
            "pay with 4111 1111 1111 1111",
        ] {
            let once = text(s);
            assert_eq!(text(&once), once);
        }
    }
}
