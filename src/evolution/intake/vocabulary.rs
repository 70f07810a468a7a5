//! The address filter's words: the target's vocabulary (addressees,
//! schema words, naming verbs, a schema's parts, requirements), normalised
//! like the text, a piece's words read once for every rule, and the
//! English inflections a verb may stand in.

use super::injection::{normal_words, normalise};

/// A piece's words, normalised once for every rule.
pub(super) struct Words {
    /// How many words it has as written.
    pub(super) written: usize,
    /// The normalised words, then the Latin runs inside words of other
    /// scripts ("読むaiへ" gives "ai") and, for scripts written without
    /// spaces, the vocabulary's terms found inside them.
    pub(super) all: Vec<String>,
}

impl Words {
    pub(super) fn of(piece: &str, v: &Vocabulary) -> Self {
        let words = normal_words(piece);
        let written = words.len();
        Words {
            written,
            all: with_inner_terms(words, v),
        }
    }
}

/// `words` followed by the terms found inside them (see [`Words::all`]).
fn with_inner_terms(mut words: Vec<String>, v: &Vocabulary) -> Vec<String> {
    let mut extra = Vec::new();
    for word in words.iter().filter(|w| !w.is_ascii()) {
        extra.extend(
            word.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|run| run.len() >= 2)
                .map(str::to_owned),
        );
        // In the order they are written, so a verb still precedes its object.
        let mut found: Vec<(usize, &String)> = v
            .unspaced
            .iter()
            .flat_map(|(term, meaning)| {
                word.match_indices(term.as_str())
                    .map(move |(at, _)| (at, meaning))
            })
            .collect();
        found.sort();
        extra.extend(found.into_iter().map(|(_, meaning)| meaning.clone()));
    }
    words.extend(extra);
    words
}

/// The word and its stem without a plain `-s` or `-ing` ("adds", "adding").
pub(super) fn base_forms(word: &str) -> impl Iterator<Item = String> + '_ {
    let strip = |suffix: &str| word.strip_suffix(suffix).filter(|s| s.len() >= 2);
    let ing = strip("ing");
    [
        Some(word.to_owned()),
        strip("s").map(str::to_owned),
        ing.map(str::to_owned),
        ing.map(|s| format!("{s}e")),
    ]
    .into_iter()
    .flatten()
}

/// The forms a verb may stand in: itself and, for English inflections, its
/// stem ("treated", "labelled", "titled", "renaming" read as "treat",
/// "label", "title", "rename").
pub(super) fn verb_forms(word: &str) -> impl Iterator<Item = String> + '_ {
    let strip = |suffix: &str| word.strip_suffix(suffix).filter(|s| s.len() >= 2);
    let ed = strip("ed");
    let undoubled = ed.and_then(|s| {
        let mut chars = s.chars().rev();
        (chars.next() == chars.next()).then(|| s.get(..s.len().saturating_sub(1)))?
    });
    let ing = strip("ing");
    [
        Some(word.to_owned()),
        strip("s").map(str::to_owned),
        strip("d").map(str::to_owned),
        ed.map(str::to_owned),
        undoubled.map(str::to_owned),
        ing.map(str::to_owned),
        ing.map(|s| format!("{s}e")),
    ]
    .into_iter()
    .flatten()
}

/// The target's vocabulary, normalised like the text. English, with the
/// few words for a schema's parts, a model and renaming in the languages
/// the injection detector reads.
pub(super) struct Vocabulary {
    /// Whom a label or a vocative addresses.
    pub(super) addressees: Vec<String>,
    /// Words only a schema's description uses.
    pub(super) schema_words: Vec<String>,
    /// Words for a model.
    pub(super) model_words: Vec<String>,
    pub(super) model_pairs: Vec<Vec<String>>,
    /// Verbs that name, make, mark or remove something.
    pub(super) verbs: Vec<String>,
    pub(super) naming_verbs: Vec<String>,
    pub(super) pronouns: Vec<String>,
    /// Words that may stand beside an addressee in a vocative ("hey
    /// model,", "note for the assistant,").
    pub(super) greetings: Vec<String>,
    /// Before a noun: "a name that..." is no order to name.
    pub(super) determiners: Vec<String>,
    /// A schema's parts: harmless alone ("a spare key", "field seats"),
    /// telling with a verb or a requirement.
    pub(super) parts: Vec<String>,
    pub(super) requirements: Vec<String>,
    /// What gives a part its name or value ("called", "default").
    pub(super) namings: Vec<String>,
    /// Terms of scripts written without spaces, found inside words, with
    /// the English word each stands for.
    pub(super) unspaced: Vec<(String, String)>,
}

impl Vocabulary {
    /// The table, normalised once: an immutable constant, built on first use.
    pub(super) fn get() -> &'static Vocabulary {
        static VOCABULARY: std::sync::OnceLock<Vocabulary> = std::sync::OnceLock::new();
        VOCABULARY.get_or_init(|| {
            let words = |list: &[&str]| list.iter().map(|w| normalise(w)).collect::<Vec<_>>();
            Vocabulary {
                addressees: words(&[
                    "agent",
                    "agente",
                    "assistent",
                    "asystent",
                    "asystenta",
                    "tool",
                    "processor",
                    "parser",
                    "summariser",
                    "summarizer",
                    "reader",
                    "crawler",
                    "system",
                    "assistant",
                    "ai",
                    "llm",
                    "gpt",
                    "chatgpt",
                    "bot",
                    "chatbot",
                    "model",
                    "developer",
                    "admin",
                    "administrator",
                    "root",
                    "sudo",
                    "operator",
                    "instruction",
                    "instructions",
                    "prompt",
                    "inst",
                    "sys",
                    "override",
                    "modelo",
                    "modèle",
                    "modell",
                    "model",
                    "ia",
                    "ki",
                    "asistente",
                    "assistente",
                    "assistant",
                    "système",
                    "sistema",
                    "systeme",
                ]),
                schema_words: words(&[
                    "schema", "schemas", "json", "boolean", "bool", "enum", "datatype", "regex",
                    "esquema", "schéma", "booléen", "booleano", "boolesch", "boolean",
                ]),
                // "AI" alone is also a name; as an addressee it is a label.
                model_words: words(&["llm", "llms", "gpt", "chatgpt", "chatbot", "openai"]),
                model_pairs: [
                    ["language", "model"],
                    ["system", "prompt"],
                    ["system", "message"],
                    ["the", "ai"],
                    ["an", "ai"],
                ]
                .iter()
                .map(|p| p.iter().map(|w| normalise(w)).collect())
                .collect(),
                verbs: words(&[
                    "hide",
                    "disable",
                    "enable",
                    "attach",
                    "relax",
                    "expose",
                    "name",
                    "call",
                    "rename",
                    "label",
                    "title",
                    "make",
                    "mark",
                    "set",
                    "add",
                    "create",
                    "define",
                    "declare",
                    "flag",
                    "tag",
                    "treat",
                    "change",
                    "update",
                    "delete",
                    "remove",
                    "drop",
                    "insert",
                    "register",
                    "store",
                    // The same in the detector's other languages.
                    "renombra",
                    "cambia",
                    "elimina",
                    "borra",
                    "añade",
                    "agrega",
                    "renomme",
                    "renommez",
                    "supprime",
                    "supprimez",
                    "ajoute",
                    "ajoutez",
                    "change",
                    "changez",
                    "benenne",
                    "nenne",
                    "lösche",
                    "füge",
                    "ändere",
                    "rinomina",
                    "aggiungi",
                    "renomeie",
                    "remova",
                    "adicione",
                    "altere",
                    "hernoem",
                    "verwijder",
                ]),
                naming_verbs: words(&["name", "call", "rename", "label", "title", "tag"]),
                pronouns: words(&["it", "this", "that", "them"]),
                greetings: words(&[
                    "liebe",
                    "lieber",
                    "liebes",
                    "querido",
                    "querida",
                    "cher",
                    "chère",
                    "caro",
                    "cara",
                    "beste",
                    "please",
                    "bitte",
                    "por",
                    "favor",
                    "hey",
                    "hi",
                    "hello",
                    "dear",
                    "note",
                    "attention",
                    "to",
                    "for",
                    "the",
                    "a",
                    "an",
                    "all",
                    "any",
                    "you",
                    "whoever",
                    "reading",
                ]),
                determiners: words(&[
                    "a", "an", "the", "my", "your", "our", "their", "its", "his", "her",
                ]),
                parts: words(&[
                    "validation",
                    "field",
                    "fields",
                    "key",
                    "keys",
                    "attribute",
                    "attributes",
                    "column",
                    "columns",
                    "parameter",
                    "parameters",
                    "param",
                    "variable",
                    "flag",
                    "champ",
                    "champs",
                    "campo",
                    "campos",
                    "feld",
                    "felder",
                    "veld",
                    "attributo",
                    "atributo",
                ]),
                requirements: words(&[
                    "required",
                    "mandatory",
                    "optional",
                    "true",
                    "false",
                    "integer",
                    "obligatorio",
                    "obligatoire",
                    "pflichtfeld",
                    "obbligatorio",
                ]),
                namings: words(&["named", "called", "default", "labelled", "labeled"]),
                unspaced: [
                    ("字段", "field"),
                    ("模型", "model"),
                    ("系统", "system"),
                    ("系統", "system"),
                    ("提示词", "prompt"),
                    ("布尔", "boolean"),
                    ("フィールド", "field"),
                    ("モデル", "model"),
                    ("システム", "system"),
                    ("スキーマ", "schema"),
                    ("プロンプト", "prompt"),
                    ("删除", "delete"),
                    ("添加", "add"),
                    ("改名", "rename"),
                    ("重命名", "rename"),
                    ("设置", "set"),
                    ("必填", "required"),
                    ("削除", "delete"),
                    ("追加", "add"),
                    ("필드", "field"),
                    ("모델", "model"),
                    ("프롬프트", "prompt"),
                    ("시스템", "system"),
                    ("스키마", "schema"),
                ]
                .iter()
                .map(|(term, meaning)| (normalise(term), normalise(meaning)))
                .collect(),
            }
        })
    }
}
