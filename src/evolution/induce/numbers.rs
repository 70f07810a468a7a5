//! Numbers in a request's words: digits or number words, and a run of
//! them read as one whole number ("twenty five", "3 thousand").

/// Number words: read as (parts of) counts, and never a name (a value, not
/// a need). "zero" is not one: "zero fees" asks for no fee, not a count.
const NUMBER_WORDS: [(&str, i64); 31] = [
    ("billion", 1000000000),
    ("eight", 8),
    ("eighteen", 18),
    ("eighty", 80),
    ("eleven", 11),
    ("fifteen", 15),
    ("fifty", 50),
    ("five", 5),
    ("forty", 40),
    ("four", 4),
    ("fourteen", 14),
    ("hundred", 100),
    ("million", 1000000),
    ("nine", 9),
    ("nineteen", 19),
    ("ninety", 90),
    ("one", 1),
    ("seven", 7),
    ("seventeen", 17),
    ("seventy", 70),
    ("six", 6),
    ("sixteen", 16),
    ("sixty", 60),
    ("ten", 10),
    ("thirteen", 13),
    ("thirty", 30),
    ("thousand", 1000),
    ("three", 3),
    ("twelve", 12),
    ("twenty", 20),
    ("two", 2),
];

/// Words after which a lone "one" is a pronoun, not a count: "any one",
/// "this one", "which one", "the other one". Sorted.
const DETERMINERS: [&str; 16] = [
    "another",
    "any",
    "each",
    "either",
    "every",
    "neither",
    "no",
    "other",
    "some",
    "that",
    "the",
    "this",
    "what",
    "whatever",
    "which",
    "whichever",
];

/// Whether `words[i]` is a number here: a number word or digits, except a
/// lone "one" used as a pronoun (after a determiner, or before "of": "any
/// one will do", "one of them"), which counts nothing.
fn number_at(words: &[String], i: usize) -> bool {
    let Some(word) = words.get(i) else {
        return false;
    };
    if number(word).is_none() {
        return false;
    }
    if word != "one" {
        return true;
    }
    let before = i.checked_sub(1).and_then(|j| words.get(j));
    let after = words.get(i.saturating_add(1));
    let beside_a_number = [before, after]
        .into_iter()
        .flatten()
        .any(|w| number(w).is_some());
    let pronoun = before.is_some_and(|w| DETERMINERS.binary_search(&w.as_str()).is_ok())
        || after.is_some_and(|w| w == "of");
    beside_a_number || !pronoun
}

/// The whole number a word stands for (digits or a number word).
pub(super) fn number(word: &str) -> Option<i64> {
    if word.chars().all(|c| c.is_ascii_digit()) {
        return word.parse().ok();
    }
    NUMBER_WORDS
        .binary_search_by(|(w, _)| w.cmp(&word))
        .ok()
        .and_then(|i| NUMBER_WORDS.get(i))
        .map(|(_, n)| *n)
}

/// The one run of adjacent numbers in `words` ("25", "twenty five", "two
/// hundred"): where it starts, where it ends (exclusive), and the whole
/// number it reads as. `None` when `words` hold no number, two runs, or a
/// value past `i64`. A pronoun "one" is no number ([`number_at`]).
pub(super) fn number_run(words: &[String]) -> Option<(usize, usize, i64)> {
    let mut run: Option<(usize, usize)> = None;
    for i in 0..words.len() {
        if !number_at(words, i) {
            continue;
        }
        run = match run {
            None => Some((i, i + 1)),
            Some((start, end)) if end == i => Some((start, i + 1)),
            Some(_) => return None,
        };
    }
    let (start, end) = run?;
    // "two hundred and five" is two runs; "twenty five", "3 thousand" one.
    let (mut total, mut current) = (0i64, 0i64);
    for word in words.get(start..end)? {
        let n = number(word)?;
        match word.as_str() {
            "hundred" => current = current.max(1).checked_mul(n)?,
            "thousand" | "million" | "billion" => {
                total = total.checked_add(current.max(1).checked_mul(n)?)?;
                current = 0;
            }
            _ => current = current.checked_add(n)?,
        }
    }
    Some((start, end, total.checked_add(current)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_words_are_sorted_and_runs_read_as_one_number() {
        let mut sorted = NUMBER_WORDS;
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        assert_eq!(sorted, NUMBER_WORDS);
        let run = |text: &str| {
            let words: Vec<String> = text.split(' ').map(str::to_owned).collect();
            number_run(&words)
        };
        assert_eq!(run("twenty five extra bags"), Some((0, 2, 25)));
        assert_eq!(run("i need 3 bags"), Some((2, 3, 3)));
        assert_eq!(run("two hundred bags"), Some((0, 2, 200)));
        assert_eq!(run("3 thousand two hundred"), Some((0, 4, 3200)));
        assert_eq!(run("2 bags and 3 boxes"), None);
        assert_eq!(run("no number"), None);
        assert_eq!(run("9223372036854775807 thousand"), None);
        assert_eq!(number("three"), Some(3));
        assert_eq!(number("42"), Some(42));
        assert_eq!(number("bags"), None);
    }

    #[test]
    fn a_pronoun_one_counts_nothing() {
        let run = |text: &str| {
            let words: Vec<String> = text.split(' ').map(str::to_owned).collect();
            number_run(&words)
        };
        let mut sorted = DETERMINERS;
        sorted.sort_unstable();
        assert_eq!(sorted, DETERMINERS);
        assert_eq!(run("any one will do"), None);
        assert_eq!(run("i want this one"), None);
        assert_eq!(run("one of them is broken"), None);
        assert_eq!(run("which one has the 2 bags"), Some((4, 5, 2)));
        assert_eq!(run("one extra bag"), Some((0, 1, 1)));
        assert_eq!(run("just one bag please"), Some((1, 2, 1)));
        assert_eq!(run("the twenty one bags"), Some((1, 3, 21)));
        assert_eq!(run("one"), Some((0, 1, 1)));
    }
}
