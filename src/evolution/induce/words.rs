//! Which words may name a key or fill a slot: not framing, not a function
//! word or an inflection of one, not a single letter, not a number.

use super::numbers::number;

/// The word after an attribute's noun in the name of the key this inducer
/// gives it (`seat_preference`).
pub(super) const ATTRIBUTE_SUFFIX: &str = "preference";

/// Words that frame a request rather than say what it is about: negations,
/// verbs of asking, giving, requiring, saying, seeing, thinking and
/// seeking ("I think", "can I see", "looking for", "find me"), answers,
/// thanks and praise in a dialogue ("yes", "thanks", "great", "perfect",
/// "sounds good"), politeness and hedges ("possible", "sure", "really"),
/// indefinite pronouns ("nothing", "anywhere"), and "another" and "else",
/// determiners NLTK's list lacks. Matched as
/// written, each form listed ("got", "said": Snowball does not bring them
/// back to "get", "say"; and matching by stem would also drop
/// "preference" with "prefer"). They never name a key.
const FRAME: [&str; 84] = [
    "able",
    "alright",
    "another",
    "anybody",
    "anyone",
    "anything",
    "anywhere",
    "ask",
    "asked",
    "asking",
    "asks",
    "awesome",
    "cant",
    "didnt",
    "doesnt",
    "dont",
    "else",
    "everybody",
    "everyone",
    "everything",
    "everywhere",
    "excellent",
    "fantastic",
    "find",
    "finding",
    "found",
    "give",
    "given",
    "gives",
    "got",
    "gotten",
    "great",
    "isnt",
    "look",
    "looking",
    "looks",
    "nice",
    "no",
    "nobody",
    "not",
    "nothing",
    "nowhere",
    "perfect",
    "possible",
    "prefer",
    "preferably",
    "really",
    "request",
    "requested",
    "requesting",
    "require",
    "required",
    "said",
    "saw",
    "say",
    "saying",
    "says",
    "search",
    "searching",
    "see",
    "seeing",
    "seek",
    "seeking",
    "seen",
    "sees",
    "somebody",
    "someone",
    "something",
    "somewhere",
    "sounds",
    "sure",
    "t",
    "thank",
    "thanks",
    "think",
    "thinking",
    "thinks",
    "thought",
    "wasnt",
    "wonderful",
    "wont",
    "yeah",
    "yep",
    "yes",
];

/// Whether `form` (lowercase) is an English function word in NLTK's list
/// (conjunctions, prepositions, pronouns, auxiliaries, negations: "but",
/// "after", "not"), a broader list than the embedder's stopwords, which
/// were chosen for matching rather than naming. Such a word never names a
/// key nor fills a slot.
fn is_function_word(form: &str) -> bool {
    !PARTICLES.contains(&form) && stop_words::get(stop_words::LANGUAGE::English).contains(&form)
}

/// Function words in NLTK's list that still say what is asked when they
/// complete a verb: "lights off", "volume down" (and their opposites,
/// though the embedder's stopwords already drop "on", "up" and "out").
pub(super) const PARTICLES: [&str; 5] = ["down", "off", "on", "out", "up"];

/// Whether a word, as written, can name a key: not framing, not a
/// function word, not a single Latin letter, not a number word ("two",
/// "fifty": a value, never what a need is about). [`nameable`] adds
/// the stem's check.
fn can_name(form: &str) -> bool {
    let letter = form.len() == 1 && form.is_ascii();
    !letter
        && FRAME.binary_search(&form).is_err()
        && !is_function_word(form)
        && number(form).is_none()
}

/// Whether a word (its written `form` and its Snowball `stem`) may name a
/// key or fill a slot: [`can_name`], and not an inflection of a stopword or
/// function word ("getting", "wants": [`CLOSED_STEMS`]).
pub(super) fn nameable(form: &str, stem: &str) -> bool {
    can_name(form) && CLOSED_STEMS.binary_search(&stem).is_err()
}

/// The Snowball stems of the embedder's stopwords and NLTK's function words
/// (the particles aside), sorted: a word with one of them is an inflection
/// of a closed-class word ("getting", "wants", "needed", but also "likely",
/// "owned", "helpful") and names nothing. A table, so no induction stems
/// the lists again; `terms::tests::the_closed_stems_are_the_lists_stemmed` rebuilds it
/// with the stemmer the inducer uses.
pub(super) const CLOSED_STEMS: [&str; 199] = [
    "a",
    "about",
    "abov",
    "after",
    "again",
    "against",
    "ain",
    "all",
    "also",
    "am",
    "an",
    "and",
    "ani",
    "anyth",
    "are",
    "aren",
    "aren't",
    "as",
    "at",
    "be",
    "becaus",
    "been",
    "befor",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "couldn",
    "couldn't",
    "d",
    "did",
    "didn",
    "didn't",
    "do",
    "doe",
    "doesn",
    "doesn't",
    "don",
    "don't",
    "dure",
    "each",
    "few",
    "for",
    "from",
    "further",
    "get",
    "go",
    "had",
    "hadn",
    "hadn't",
    "has",
    "hasn",
    "hasn't",
    "have",
    "haven",
    "haven't",
    "he",
    "hello",
    "help",
    "her",
    "here",
    "herself",
    "hey",
    "hi",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "im",
    "in",
    "into",
    "is",
    "isn",
    "isn't",
    "it",
    "it's",
    "itself",
    "just",
    "know",
    "let",
    "like",
    "ll",
    "m",
    "ma",
    "make",
    "mani",
    "may",
    "me",
    "might",
    "mightn",
    "mightn't",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "mustn",
    "mustn't",
    "my",
    "myself",
    "need",
    "needn",
    "needn't",
    "no",
    "nor",
    "not",
    "now",
    "o",
    "of",
    "ok",
    "okay",
    "onc",
    "one",
    "onli",
    "or",
    "other",
    "our",
    "ourselv",
    "over",
    "own",
    "pleas",
    "re",
    "s",
    "same",
    "shan",
    "shan't",
    "she",
    "she's",
    "should",
    "should've",
    "shouldn",
    "shouldn't",
    "so",
    "some",
    "still",
    "such",
    "t",
    "tell",
    "than",
    "thank",
    "that",
    "that'll",
    "the",
    "their",
    "them",
    "themselv",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "us",
    "ve",
    "veri",
    "want",
    "was",
    "wasn",
    "wasn't",
    "way",
    "we",
    "were",
    "weren",
    "weren't",
    "what",
    "when",
    "where",
    "whi",
    "which",
    "while",
    "who",
    "whom",
    "will",
    "with",
    "won",
    "won't",
    "would",
    "wouldn",
    "wouldn't",
    "y",
    "yet",
    "you",
    "you'd",
    "you'll",
    "you're",
    "you've",
    "your",
    "yourself",
    "yourselv",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_words_are_sorted_for_binary_search() {
        let mut sorted = FRAME;
        sorted.sort_unstable();
        assert_eq!(sorted, FRAME);
    }

    #[test]
    fn function_words_never_name_nor_fill_a_slot() {
        for word in ["but", "after", "not", "because", "until", "t"] {
            assert!(!can_name(word), "{word}");
        }
        assert!(is_function_word("but") && !is_function_word("seat"));
        for word in ["seat", "window", "aisle", "transfer", "card", "off"] {
            assert!(can_name(word), "{word}");
        }
    }

    #[test]
    fn numbers_and_inflected_stopwords_never_name() {
        assert!(!can_name("fifty") && !can_name("hundred") && can_name("zero"));
        assert!(!nameable("getting", "get") && nameable("seats", "seat"));
    }
}
