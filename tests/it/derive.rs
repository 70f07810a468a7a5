//! `#[derive(Template)]`: each Rust and serde construct becomes the key the
//! guide's table says, the template is valid, and a message valid for it
//! reads back into the type with `deserialize_slice`. The compile-fail
//! cases live with the derive crate (`derive/tests/ui`).

mod catch_all;
mod through_macro;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::num::NonZeroU16;
use std::sync::Arc;

use sdsi::derive::{Other, TemplateField};
use sdsi::validate::Refusal;
use sdsi::{CompiledSchema, IssueCode, KeyType, SchemaTemplate, Template};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A cabin, as the client must spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Template)]
#[serde(rename_all = "snake_case")]
enum Cabin {
    /// The cheapest seats
    #[default]
    Economy,
    PremiumEconomy,
    /// Lie-flat seats
    Business,
    #[serde(rename = "first_class")]
    First,
    #[serde(skip)]
    #[allow(dead_code, reason = "a variant serde never reads")]
    Internal,
}

/// Who travels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Template)]
struct Passenger {
    /// Full name as on the passport.
    name: String,
    /// Age in years, when it changes the fare.
    age: Option<u8>,
}

fn three() -> u32 {
    3
}

/// A flight booking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Template)]
#[sdsi(schema_id = "flight_booking_v1", scenario = "flight_booking")]
struct Booking {
    /// Departure airport, an IATA code.
    /// Example: 'from Beijing' -> 'PEK'.
    origin: String,
    /// Arrival airport.
    ///
    /// An IATA code.
    #[serde(rename = "destination")]
    to: String,
    /// Number of passengers.
    #[serde(default)]
    passenger_count: u32,
    /// Checked bags per passenger.
    #[serde(default = "three")]
    bags: u32,
    /// Cabin class.
    #[serde(default)]
    cabin: Cabin,
    /// Seat class on the way back.
    return_cabin: Option<Cabin>,
    /// Largest fare accepted, in euros.
    max_fare: Option<f64>,
    /// Whether a refundable fare is needed.
    refundable: bool,
    /// The travellers.
    passengers: Vec<Passenger>,
    /// The lead passenger.
    lead: Passenger,
    /// Loyalty numbers by airline.
    loyalty: HashMap<String, String>,
    /// Raw type name on purpose.
    r#type: Option<String>,
    /// Not read from messages.
    #[serde(skip)]
    internal_note: String,
    /// Read, never written.
    #[serde(skip_serializing)]
    promo_code: Option<String>,
}

fn booking_message(payload: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"schema_id": "flight_booking_v1", "payload": payload})).unwrap()
}

/// The whole template, as JSON: every mapping of the guide's table at once.
#[test]
fn a_struct_maps_to_the_template_the_guide_describes() {
    let template = Booking::template();
    assert_eq!(
        serde_json::to_value(&template).unwrap(),
        json!({
            "schema_id": "flight_booking_v1",
            "scenario": "flight_booking",
            "keys": [
                {"key_name": "origin", "key_type": "string", "required": true,
                 "semantic_description": "Departure airport, an IATA code. Example: 'from Beijing' -> 'PEK'."},
                {"key_name": "destination", "key_type": "string", "required": true,
                 "semantic_description": "Arrival airport.\n\nAn IATA code."},
                {"key_name": "passenger_count", "key_type": "integer", "required": false,
                 "default_value": 0, "semantic_description": "Number of passengers."},
                {"key_name": "bags", "key_type": "integer", "required": false,
                 "default_value": 3, "semantic_description": "Checked bags per passenger."},
                {"key_name": "cabin", "key_type": "string", "required": false,
                 "default_value": "economy",
                 "semantic_description": "Cabin class. One of: \"economy\" (The cheapest seats), \"premium_economy\", \"business\" (Lie-flat seats), \"first_class\"."},
                {"key_name": "return_cabin", "key_type": "string", "required": false,
                 "semantic_description": "Seat class on the way back. One of: \"economy\" (The cheapest seats), \"premium_economy\", \"business\" (Lie-flat seats), \"first_class\"."},
                {"key_name": "max_fare", "key_type": "number", "required": false,
                 "semantic_description": "Largest fare accepted, in euros."},
                {"key_name": "refundable", "key_type": "boolean", "required": true,
                 "semantic_description": "Whether a refundable fare is needed."},
                {"key_name": "passengers", "key_type": "array", "required": true,
                 "semantic_description": "The travellers."},
                {"key_name": "lead", "key_type": "object", "required": true,
                 "semantic_description": "The lead passenger. An object with members: name (string), age (integer, optional)."},
                {"key_name": "loyalty", "key_type": "object", "required": true,
                 "semantic_description": "Loyalty numbers by airline."},
                {"key_name": "type", "key_type": "string", "required": false,
                 "semantic_description": "Raw type name on purpose."},
                {"key_name": "promo_code", "key_type": "string", "required": false,
                 "semantic_description": "Read, never written."},
                {"key_name": "other", "key_type": "string", "required": false,
                 "semantic_description": "Escape valve for unstructured semantic fragments that cannot be mapped to existing keys: a string, or an array of strings for several."}
            ]
        })
    );
    let check = template.check();
    assert!(
        check.errors().is_empty() && check.warnings().is_empty(),
        "{check:?}"
    );
}

#[test]
fn a_valid_message_reads_back_into_the_struct() {
    let schema = CompiledSchema::new(&Booking::template()).unwrap();
    let bytes = booking_message(json!({
        "origin": "PEK", "destination": "SHA", "refundable": false,
        "cabin": "premium_economy", "return_cabin": null, "max_fare": 420,
        "passengers": [{"name": "Li Wei", "age": 34}, {"name": "Ana"}],
        "lead": {"name": "Li Wei"}, "loyalty": {"CA": "123"}, "type": "round_trip",
        "promo_code": "SPRING", "other": ["window seat", "vegetarian meal"]
    }));
    let booking = schema.deserialize_slice::<Booking>(&bytes).unwrap().payload;
    assert_eq!(
        booking,
        Booking {
            origin: "PEK".into(),
            to: "SHA".into(),
            passenger_count: 0,
            bags: 3,
            cabin: Cabin::PremiumEconomy,
            return_cabin: None,
            max_fare: Some(420.0),
            refundable: false,
            passengers: vec![
                Passenger {
                    name: "Li Wei".into(),
                    age: Some(34)
                },
                Passenger {
                    name: "Ana".into(),
                    age: None
                }
            ],
            lead: Passenger {
                name: "Li Wei".into(),
                age: None
            },
            loyalty: HashMap::from([("CA".into(), "123".into())]),
            r#type: Some("round_trip".into()),
            internal_note: String::new(),
            promo_code: Some("SPRING".into()),
        }
    );
}

/// What the struct writes is a payload the template accepts, and it reads
/// back equal: the template and serde agree on every name and type.
#[test]
fn what_serde_writes_the_template_accepts() {
    let schema = CompiledSchema::new(&Booking::template()).unwrap();
    let booking = Booking {
        origin: "PEK".into(),
        to: "SHA".into(),
        passenger_count: 2,
        bags: 1,
        cabin: Cabin::First,
        return_cabin: Some(Cabin::Business),
        max_fare: Some(99.5),
        refundable: true,
        passengers: vec![Passenger::default()],
        lead: Passenger {
            name: "Ana".into(),
            age: Some(7),
        },
        loyalty: HashMap::new(),
        r#type: None,
        internal_note: String::new(),
        promo_code: None,
    };
    let bytes = booking_message(serde_json::to_value(&booking).unwrap());
    let read = schema.deserialize_slice::<Booking>(&bytes).unwrap();
    assert!(read.warnings.is_empty());
    assert_eq!(read.payload, booking);
}

#[test]
fn a_message_that_breaks_the_template_is_refused_with_the_report() {
    let schema = CompiledSchema::new(&Booking::template()).unwrap();
    let bytes = booking_message(json!({
        "origin": "PEK", "refundable": "yes", "passengers": [], "lead": {"name": "A"},
        "loyalty": {}, "cabin_class": "business"
    }));
    let Err(Refusal::Invalid(report)) = schema.deserialize_slice::<Booking>(&bytes) else {
        panic!("the message is not valid");
    };
    let found: Vec<(IssueCode, &str)> = report
        .errors()
        .iter()
        .map(|e| (e.code(), e.path()))
        .collect();
    assert_eq!(
        found,
        [
            (IssueCode::UnknownKey, "/payload/cabin_class"),
            (IssueCode::MissingRequiredKey, "/payload/destination"),
            (IssueCode::TypeMismatch, "/payload/refundable"),
        ]
    );
}

/// A struct-wide `#[serde(default)]` makes every key optional with the
/// struct's own default; a field's own default wins.
#[derive(Debug, PartialEq, Serialize, Deserialize, Template)]
#[serde(default)]
struct Settings {
    /// Results per page.
    page_size: u16,
    /// Language of the answer.
    #[serde(default = "english")]
    language: String,
    /// Whether to include drafts.
    drafts: bool,
}

fn english() -> String {
    "en".into()
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            page_size: 25,
            language: "fr".into(),
            drafts: true,
        }
    }
}

#[test]
fn a_struct_default_gives_every_key_its_default() {
    let template = Settings::template();
    let defaults: Vec<(&str, bool, Option<&Value>)> = template
        .keys
        .iter()
        .map(|k| (k.key_name.as_str(), k.required, k.default_value.as_ref()))
        .collect();
    assert_eq!(
        defaults,
        [
            ("page_size", false, Some(&json!(25))),
            ("language", false, Some(&json!("en"))),
            ("drafts", false, Some(&json!(true))),
            ("other", false, None),
        ]
    );
    let schema = CompiledSchema::new(&template).unwrap();
    let text = br#"{"schema_id": "settings", "payload": {"drafts": false}}"#;
    assert_eq!(
        schema.deserialize_slice::<Settings>(text).unwrap().payload,
        Settings {
            page_size: 25,
            language: "en".into(),
            drafts: false
        }
    );
}

/// `rename_all` on a struct renames its keys as serde reads them; the
/// default ids are the type's name in snake_case.
#[derive(Debug, PartialEq, Deserialize, Template)]
#[serde(rename_all = "camelCase")]
struct HTTPQuery {
    /// A one-word field keeps its name under camelCase.
    query: String,
    /// Renamed by hand, since camelCase would give `maxResults`.
    #[serde(rename = "max_results")]
    max_results: u8,
}

#[test]
fn struct_rename_all_and_default_ids() {
    let template = HTTPQuery::template();
    assert_eq!(
        (template.schema_id.as_str(), template.scenario.as_str()),
        ("http_query", "http_query")
    );
    let names: Vec<&str> = template.keys.iter().map(|k| k.key_name.as_str()).collect();
    assert_eq!(names, ["query", "max_results", "other"]);
    let schema = CompiledSchema::new(&template).unwrap();
    let text = br#"{"schema_id": "http_query", "payload": {"query": "rust", "max_results": 5}}"#;
    assert_eq!(
        schema.deserialize_slice::<HTTPQuery>(text).unwrap().payload,
        HTTPQuery {
            query: "rust".into(),
            max_results: 5
        }
    );
}

/// The enum's listed values are exactly what serde reads, under each of
/// serde's `rename_all` rules.
macro_rules! rule_enum {
    ($name:ident, $rule:literal) => {
        #[derive(Debug, Serialize, Deserialize, Template)]
        #[serde(rename_all = $rule)]
        #[allow(clippy::enum_variant_names, reason = "the names exercise the rules")]
        enum $name {
            PremiumEconomy,
            Business,
            HTTPOnly,
        }
        impl $name {
            const ALL: [$name; 3] = [$name::PremiumEconomy, $name::Business, $name::HTTPOnly];
        }
    };
}

rule_enum!(Lower, "lowercase");
rule_enum!(Upper, "UPPERCASE");
rule_enum!(Pascal, "PascalCase");
rule_enum!(Camel, "camelCase");
rule_enum!(Snake, "snake_case");
rule_enum!(ScreamingSnake, "SCREAMING_SNAKE_CASE");
rule_enum!(Kebab, "kebab-case");
rule_enum!(ScreamingKebab, "SCREAMING-KEBAB-CASE");

fn listed_as_serde_writes<T: TemplateField + Serialize>(all: &[T]) -> (String, String) {
    let written: Vec<String> = all
        .iter()
        .map(|v| serde_json::to_value(v).unwrap().to_string())
        .collect();
    (
        T::describe().unwrap(),
        format!("One of: {}.", written.join(", ")),
    )
}

#[test]
fn enum_values_follow_every_rename_all_rule() {
    for (listed, written) in [
        listed_as_serde_writes(&Lower::ALL),
        listed_as_serde_writes(&Upper::ALL),
        listed_as_serde_writes(&Pascal::ALL),
        listed_as_serde_writes(&Camel::ALL),
        listed_as_serde_writes(&Snake::ALL),
        listed_as_serde_writes(&ScreamingSnake::ALL),
        listed_as_serde_writes(&Kebab::ALL),
        listed_as_serde_writes(&ScreamingKebab::ALL),
    ] {
        assert_eq!(listed, written);
    }
    assert_eq!(
        Kebab::describe().unwrap(),
        r#"One of: "premium-economy", "business", "h-t-t-p-only"."#
    );
}

/// Field names under each rule serde applies: the key is the name serde
/// reads (single-word fields, so every rule but the upper-case ones gives
/// a snake_case name).
#[derive(Deserialize, Template)]
#[allow(dead_code, reason = "only the template is read")]
#[serde(rename_all = "kebab-case")]
struct KebabFields {
    /// One word.
    city: String,
}

#[derive(Deserialize, Template)]
#[allow(dead_code, reason = "only the template is read")]
#[serde(rename_all = "PascalCase")]
struct PascalFields {
    /// One word, renamed back by hand since PascalCase capitalizes it.
    #[serde(rename = "city")]
    city: String,
    /// Another, with serde's deserialize-side rename.
    #[serde(rename(serialize = "Zip", deserialize = "zip"))]
    zip: String,
}

#[test]
fn field_names_are_the_names_serde_reads() {
    let names = |t: SchemaTemplate| -> Vec<String> {
        t.keys.iter().map(|k| k.key_name.to_string()).collect()
    };
    assert_eq!(names(KebabFields::template()), ["city", "other"]);
    assert_eq!(names(PascalFields::template()), ["city", "zip", "other"]);
}

/// Each standard type's key type.
#[derive(Deserialize, Template)]
#[allow(dead_code, reason = "only the template is read")]
struct Scalars {
    /// i8
    a: i8,
    /// i64
    b: i64,
    /// u128
    c: u128,
    /// usize
    d: usize,
    /// A non-zero integer.
    e: NonZeroU16,
    /// f32
    f: f32,
    /// f64
    g: f64,
    /// bool
    h: bool,
    /// char
    i: char,
    /// Box<str>
    j: Box<str>,
    /// Arc<str>
    k: Arc<str>,
    /// A set.
    l: BTreeSet<String>,
    /// A deque.
    m: VecDeque<Value>,
    /// An array.
    n: [u8; 4],
    /// A map with integer keys (written as member names).
    o: BTreeMap<u32, String>,
    /// A JSON object.
    p: serde_json::Map<String, Value>,
    /// Boxed optional.
    q: Box<Option<u8>>,
    /// A JSON value of any type, named by hand.
    #[sdsi(key_type = "object")]
    r: Value,
    /// An optional tuple, named by hand.
    #[sdsi(key_type = "array")]
    s: Option<(f64, f64)>,
}

#[test]
fn standard_types_map_to_their_key_types() {
    let template = Scalars::template();
    let types: Vec<(&str, KeyType, bool)> = template
        .keys
        .iter()
        .map(|k| (k.key_name.as_str(), k.key_type, k.required))
        .collect();
    use KeyType::*;
    assert_eq!(
        types,
        [
            ("a", Integer, true),
            ("b", Integer, true),
            ("c", Integer, true),
            ("d", Integer, true),
            ("e", Integer, true),
            ("f", Number, true),
            ("g", Number, true),
            ("h", Boolean, true),
            ("i", String, true),
            ("j", String, true),
            ("k", String, true),
            ("l", Array, true),
            ("m", Array, true),
            ("n", Array, true),
            ("o", Object, true),
            ("p", Object, true),
            ("q", Integer, false),
            ("r", Object, true),
            ("s", Array, false),
            ("other", String, false),
        ]
    );
    assert!(CompiledSchema::new(&template).is_ok());
}

mod timestamp {
    use serde::{Deserialize, Deserializer};

    /// Seconds since the epoch, written as a decimal string.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        String::deserialize(deserializer)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// A field read by a function names its wire type; the template carries no
/// default for it (the field's `Serialize` may not write what the function
/// reads), though serde still applies one.
#[derive(Debug, PartialEq, Deserialize, Template)]
struct Stamped {
    /// When, as a decimal string of seconds.
    #[sdsi(key_type = "string")]
    #[serde(deserialize_with = "timestamp::deserialize")]
    at: u64,
    /// Optional, read by a function: serde then needs the member, unless
    /// it has a default.
    #[sdsi(key_type = "string")]
    #[serde(default, deserialize_with = "timestamp::deserialize")]
    until: u64,
}

#[test]
fn a_field_read_by_a_function_takes_the_key_type_it_names() {
    let template = Stamped::template();
    let keys: Vec<(&str, KeyType, bool, bool)> = template
        .keys
        .iter()
        .map(|k| {
            (
                k.key_name.as_str(),
                k.key_type,
                k.required,
                k.default_value.is_some(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("at", KeyType::String, true, false),
            ("until", KeyType::String, false, false),
            ("other", KeyType::String, false, false),
        ]
    );
    let schema = CompiledSchema::new(&template).unwrap();
    let text = br#"{"schema_id": "stamped", "payload": {"at": "1700000000"}}"#;
    assert_eq!(
        schema.deserialize_slice::<Stamped>(text).unwrap().payload,
        Stamped {
            at: 1_700_000_000,
            until: 0
        }
    );
}

/// A struct that declares `other` reads both of its wire forms.
#[derive(Debug, PartialEq, Deserialize, Template)]
#[sdsi(schema_id = "table_v1", scenario = "table_booking")]
struct Table {
    /// Party size.
    party_size: u8,
    /// What the user asked for that no key covers, in their words.
    other: Option<Other>,
}

#[test]
fn a_declared_other_key_reads_one_fragment_or_several() {
    let template = Table::template();
    let other = template.key("other").unwrap();
    assert_eq!(
        (
            other.key_type,
            other.required,
            other.semantic_description.as_str()
        ),
        (
            KeyType::String,
            false,
            "What the user asked for that no key covers, in their words."
        )
    );
    assert_eq!(template.keys.len(), 2);
    let schema = CompiledSchema::new(&template).unwrap();
    let read = |payload: Value| {
        let text =
            serde_json::to_vec(&json!({"schema_id": "table_v1", "payload": payload})).unwrap();
        schema.deserialize_slice::<Table>(&text).unwrap().payload
    };
    assert_eq!(
        read(json!({"party_size": 4, "other": "quiet corner"})).other,
        Some(Other::from("quiet corner"))
    );
    assert_eq!(
        read(json!({"party_size": 4, "other": ["quiet", "near a window"]})).other,
        Some(Other::from(vec![
            "quiet".to_owned(),
            "near a window".to_owned()
        ]))
    );
    assert_eq!(read(json!({"party_size": 4})).other, None);
}

/// `other` with a serde default may be a plain `Other`; the template gives
/// it no default.
#[derive(Debug, Deserialize, Template)]
struct Note {
    /// The text.
    text: String,
    /// Anything else.
    #[serde(default)]
    other: Other,
}

#[test]
fn a_defaulted_other_field_is_optional_without_a_default() {
    let template = Note::template();
    let other = template.key("other").unwrap();
    assert!(!other.required && other.default_value.is_none());
    let schema = CompiledSchema::new(&template).unwrap();
    let text = br#"{"schema_id": "note", "payload": {"text": "hi"}}"#;
    let note = schema.deserialize_slice::<Note>(text).unwrap().payload;
    assert!(note.other.is_empty());
    assert_eq!(note.text, "hi");
}

/// A struct that refuses unknown members declares `other` (the derive
/// insists: every payload may carry it), and reads every valid message.
#[derive(Debug, Deserialize, Template)]
#[serde(deny_unknown_fields)]
struct Strict {
    /// The only key.
    id: u32,
    /// Anything else.
    other: Option<Other>,
}

#[test]
fn deny_unknown_fields_reads_every_valid_message() {
    let template = Strict::template();
    let names: Vec<&str> = template.keys.iter().map(|k| k.key_name.as_str()).collect();
    assert_eq!(names, ["id", "other"]);
    let schema = CompiledSchema::new(&template).unwrap();
    let strict = schema
        .deserialize_slice::<Strict>(
            br#"{"schema_id": "strict", "payload": {"id": 7, "other": "x"}}"#,
        )
        .unwrap()
        .payload;
    assert_eq!((strict.id, strict.other), (7, Some(Other::from("x"))));
    assert!(matches!(
        schema.deserialize_slice::<Strict>(
            br#"{"schema_id": "strict", "payload": {"id": 7, "extra": 1}}"#
        ),
        Err(Refusal::Invalid(_))
    ));
}

/// A nested struct that holds itself: its description lists its own
/// members once, without recursing.
#[derive(Deserialize, Template)]
#[allow(dead_code, reason = "only the template is read")]
struct Folder {
    /// Its name.
    name: String,
    /// The folder it sits in.
    parent: Option<Box<Folder>>,
}

#[test]
fn a_recursive_struct_describes_one_level() {
    let template = Folder::template();
    assert_eq!(
        template.key("parent").unwrap().semantic_description,
        "The folder it sits in. An object with members: name (string), parent (object, optional)."
    );
}

/// A default that serde_json cannot write, or whose JSON does not fit the
/// key type, is left out: the key stays optional and the template valid.
#[derive(Deserialize, Template)]
#[allow(dead_code, reason = "only the template is read")]
struct OddDefaults {
    /// Not a finite number: serde_json writes `null`.
    #[serde(default = "nan")]
    ratio: f64,
    /// A map whose keys are not strings.
    #[serde(default = "pair_keys")]
    pairs: BTreeMap<(u8, u8), u8>,
}

fn nan() -> f64 {
    f64::NAN
}

fn pair_keys() -> BTreeMap<(u8, u8), u8> {
    BTreeMap::from([((1, 2), 3)])
}

#[test]
fn unwritable_defaults_are_left_out() {
    let template = OddDefaults::template();
    for key in template.keys.iter().take(2) {
        assert!(!key.required && key.default_value.is_none(), "{key:?}");
    }
    assert!(template.check().is_valid());
}

/// The README's first example is `examples/derive.rs` (which `cargo test`
/// compiles), up to spacing: so it compiles and its calls exist.
#[test]
fn the_readme_example_is_the_derive_example() {
    let spaced = |text: &str| -> Vec<String> {
        text.lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|line| !line.is_empty())
            .collect()
    };
    let readme = include_str!("../../README.md");
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    let example = include_str!("../../examples/derive.rs");
    let (_, body) = example.split_once("// README: start\n").unwrap();
    let (body, _) = body.split_once("// README: end").unwrap();
    assert_eq!(spaced(block), spaced(body));
}
