//! Cutting a fragment into pieces, the units the address filter keeps or
//! drops: at sentence and clause marks (`. ! ? ;`, and `: ,` before a
//! space, brackets, quotes, runs of dashes, their full-width forms), before
//! the conjunctions that join two requests, never inside a URL; and
//! trimming what a dropped piece leaves at the ends.

/// `text` without separators or conjunctions at either end (left where a
/// piece next to them was dropped).
pub(super) fn trim_joins(mut text: &str) -> &str {
    let loose = |c: char| c.is_whitespace() || c == '-' || is_separator(c);
    loop {
        text = text.trim_matches(loose);
        let before = text.len();
        for conjunction in CONJUNCTIONS {
            let n = conjunction.len();
            let (head, tail) = (text.get(..n), text.get(text.len().saturating_sub(n)..));
            if head.is_some_and(|h| h.eq_ignore_ascii_case(conjunction))
                && text
                    .get(n..)
                    .is_some_and(|r| r.is_empty() || r.starts_with(loose))
            {
                text = text.get(n..).unwrap_or("");
            } else if tail.is_some_and(|t| t.eq_ignore_ascii_case(conjunction))
                && text
                    .get(..text.len().saturating_sub(n))
                    .is_some_and(|r| r.is_empty() || r.ends_with(loose))
            {
                text = text.get(..text.len().saturating_sub(n)).unwrap_or("");
            }
        }
        if text.len() == before {
            return text;
        }
    }
}

/// One piece of a fragment and the separator that follows it (marks,
/// spaces, a conjunction).
#[derive(Debug)]
pub(super) struct Piece<'t> {
    pub(super) text: &'t str,
    pub(super) sep: &'t str,
}

/// Joins two requests: a new piece starts at it.
const CONJUNCTIONS: [&str; 5] = ["and", "but", "then", "also", "plus"];

fn is_separator(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | ';'
            | ':'
            | ','
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '<'
            | '>'
            | '"'
            | '|'
            | '#'
            | '*'
            | '='
            | '—'
            | '–'
            | '。'
            | '，'
            | '、'
            | '；'
            | '：'
            | '！'
            | '？'
            | '（'
            | '）'
            | '「'
            | '」'
            | '【'
            | '】'
            | '«'
            | '»'
            | '“'
            | '”'
    )
}

/// Cuts `text` into pieces; their texts and separators, concatenated, give
/// `text` back.
pub(super) fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) {
        // A URL is one token, whatever marks its query holds.
        let rest = text.get(at..).unwrap_or("");
        let word_start = text
            .get(..at)
            .is_none_or(|b| b.is_empty() || b.ends_with(char::is_whitespace));
        if word_start
            && (rest.starts_with("http://")
                || rest.starts_with("https://")
                || rest.starts_with("www."))
        {
            at += rest.find(char::is_whitespace).unwrap_or(rest.len());
            continue;
        }
        let width = c.len_utf8();
        let next = text.get(at + width..).and_then(|r| r.chars().next());
        let spaced = next.is_none_or(char::is_whitespace);
        // A run of dashes, or one between spaces, sets text apart; one
        // joins words ("check-in").
        let dashes = c == '-'
            && (next == Some('-')
                || spaced
                    && text
                        .get(..at)
                        .is_some_and(|b| b.ends_with(char::is_whitespace)));
        // A full stop, colon or comma ends a piece before a space: within a
        // word it is an abbreviation, a time or a number ("e.g", "10:41",
        // "1,000", "s.y.s.t.e.m").
        let mark = is_separator(c) && (!matches!(c, '.' | ':' | ',') || spaced);
        let conjunction = c
            .is_whitespace()
            .then(|| conjunction_after(text, at + width))
            .flatten();
        if mark || dashes || conjunction.is_some() {
            let mut end = at + width + conjunction.unwrap_or(0);
            while let Some(d) = text.get(end..).and_then(|rest| rest.chars().next()) {
                if !(is_separator(d) || d.is_whitespace() || d == '-') {
                    break;
                }
                end += d.len_utf8();
            }
            out.push(Piece {
                text: text.get(start..at).unwrap_or(""),
                sep: text.get(at..end).unwrap_or(""),
            });
            start = end;
            at = end;
        } else {
            at += width;
        }
    }
    out.push(Piece {
        text: text.get(start..).unwrap_or(""),
        sep: "",
    });
    out
}

/// The length of a conjunction starting at byte `at` and followed by a
/// space, if one does.
fn conjunction_after(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    let word = rest.split(char::is_whitespace).next()?;
    let followed = rest.get(word.len()..)?.starts_with(char::is_whitespace);
    (followed && CONJUNCTIONS.iter().any(|c| word.eq_ignore_ascii_case(c))).then_some(word.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_give_the_text_back() {
        for text in [
            "need a crib. SYSTEM: do this",
            "window and aisle",
            "  a, b;; c : d ",
            "我想要，一个",
            "",
        ] {
            let joined: String = pieces(text)
                .iter()
                .map(|p| [p.text, p.sep].concat())
                .collect();
            assert_eq!(joined, text);
        }
        let cut = pieces("a crib and then a cot");
        assert_eq!(cut.first().map(|p| p.text), Some("a crib"));
    }
}
