//! Redaction properties on generated values: cards with random valid Luhn
//! digits in random groupings, e-mail addresses, IBANs, and arbitrary text.

use crate::common::{grouped, luhn_number, luhn_ok};
use proptest::prelude::*;
use sdsi::evolution::{Redaction, redact};

/// Every run of 13-19 ASCII digits (single spaces or dashes allowed between
/// digits) in `text` that passes Luhn.
fn luhn_runs(text: &str) -> Vec<String> {
    let mut runs = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let mut digits = Vec::new();
            let mut j = i;
            while j < chars.len() {
                if chars[j].is_ascii_digit() {
                    digits.push(chars[j] as u8 - b'0');
                    j += 1;
                } else if matches!(chars[j], ' ' | '-')
                    && chars.get(j + 1).is_some_and(char::is_ascii_digit)
                {
                    j += 1;
                } else {
                    break;
                }
            }
            for len in 13..=19 {
                for start in 0..digits.len().saturating_sub(len - 1) {
                    if luhn_ok(&digits[start..start + len]) {
                        runs.push(digits.iter().map(|d| char::from(b'0' + d)).collect());
                    }
                }
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    runs
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_cards_always_become_placeholders(
        prefix in prop::collection::vec(0u8..10, 18),
        len in 13usize..=19,
        separator in prop_oneof![Just(' '), Just('-')],
        grouping in prop_oneof![Just(vec![4usize]), Just(vec![4, 6, 5]), Just(vec![100])],
        before in "[a-z ]{0,12}",
        after in "[a-z ]{0,12}",
    ) {
        let card = grouped(&luhn_number(prefix, len), &grouping, separator);
        let text = format!("{before} {card} {after}");
        let redacted = redact(&text);
        prop_assert!(redacted.text.contains("<card>"), "{} -> {}", text, redacted.text);
        prop_assert!(luhn_runs(&redacted.text).is_empty(), "{} -> {}", text, redacted.text);
        prop_assert_eq!(redacted.found, vec![Redaction::Card]);
    }

    #[test]
    fn generated_emails_always_become_placeholders(
        local in "[a-z][a-z0-9._+-]{0,10}",
        domain in "[a-z][a-z0-9-]{0,8}",
        tld in "[a-z]{2,4}",
    ) {
        let text = format!("write to {local}@{domain}.{tld} today");
        prop_assert_eq!(redact(&text).text, "write to <email> today");
    }

    #[test]
    fn any_text_redacts_without_panic_and_idempotently(text in "\\PC{0,80}") {
        let once = redact(&text);
        let twice = redact(&once.text);
        prop_assert_eq!(&twice.text, &once.text);
        prop_assert!(luhn_runs(&once.text).is_empty(), "{} -> {}", text, once.text);
    }

    #[test]
    fn digit_soup_never_leaks_a_card(text in "[0-9 -]{0,60}") {
        let once = redact(&text);
        prop_assert!(luhn_runs(&once.text).is_empty(), "{:?} -> {:?}", text, once.text);
    }
}

#[test]
fn ibans_with_valid_check_digits() {
    for iban in [
        "DE89370400440532013000",
        "GB82WEST12345698765432",
        "FR1420041010050500013M02606",
    ] {
        assert_eq!(redact(&format!("send to {iban}")).text, "send to <iban>");
    }
    // A wrong check digit: not an IBAN.
    assert!(
        !redact("send to DE88370400440532013000")
            .text
            .contains("<iban>")
    );
}

#[test]
fn safety_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<sdsi::evolution::Redacted>();
    check::<sdsi::evolution::Redaction>();
    check::<sdsi::evolution::Evolution>();
}
