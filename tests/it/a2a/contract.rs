//! The Schema Contract extension (A2A issue #2180, community draft 0.1):
//! the card entry built from compiled schemas and read back (also through
//! the `a2a-lf` crate's `AgentCard`), the reader's rules, primary parts and
//! the failure report (through `a2a-lf`'s `Part`).

use crate::common::{Extras, flight_template, pairs, template};
use proptest::prelude::*;
use sdsi::a2a::{
    Catalog, ContractErrorCode, ContractErrorDetail, ContractFailure, DigestAlgorithm, Direction,
    DirectionContract, Integrity, Presence, PrimaryPart, Representation, SCHEMA_CONTRACT_URI,
    SCHEMA_MEDIA_TYPE, SchemaContract, SchemaContractExtension,
};
use sdsi::export::JSON_SCHEMA_DIALECT;
use sdsi::{CompiledSchema, SchemaTemplate, StructuredPayload};
use serde_json::{Value, json};

const FLIGHT_CONTRACT: &str = "https://airline.example/contracts/flight-booking/1";

/// The escaped pointer of the extension's entry in a part's metadata.
const IDENTITY: &str = "/metadata/https:~1~1w3id.org~1a2a-schema-contract~1draft~10.1";

fn confirmation_template() -> SchemaTemplate {
    SchemaTemplate::from_value(&json!({
        "schema_id": "booking_confirmation_v1", "scenario": "flight_booking",
        "keys": [
            {"key_name": "booking_reference", "key_type": "string", "required": true,
             "semantic_description": "The airline's six-character booking reference."},
            {"key_name": "price_cny", "key_type": "number", "required": false,
             "semantic_description": "Total price in yuan."}
        ]
    }))
    .unwrap()
}

fn flight_schemas() -> (CompiledSchema, CompiledSchema) {
    (
        CompiledSchema::new(&flight_template()).unwrap(),
        CompiledSchema::new(&confirmation_template()).unwrap(),
    )
}

fn flight_message() -> StructuredPayload {
    StructuredPayload::new("flight_booking_v1")
        .with("origin", "PEK")
        .with("destination", "SHA")
        .with("departure_date", "2026-05-04")
}

/// A whole A2A v1.0 AgentCard declaring `entry`.
fn agent_card(entry: &sdsi::a2a::AgentExtension) -> Value {
    json!({
        "name": "airline", "description": "Books flights", "version": "1.0.0",
        "supportedInterfaces": [{
            "url": "http://127.0.0.1:9/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"
        }],
        "capabilities": {"extensions": [{"uri": "https://example.org/other/v1"}, entry]},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [{"id": "book_flight", "name": "Book a flight", "description": "Books one",
                    "tags": ["travel"]}],
    })
}

#[test]
fn the_card_entry_has_the_drafts_shape_and_survives_a2a_lf() {
    let (input, output) = flight_schemas();
    let contract = SchemaContract::for_schemas(FLIGHT_CONTRACT, Some(&input), Some(&output))
        .with_skill("book_flight")
        .with_description("Book one flight");
    let extension = SchemaContractExtension::new(vec![contract.clone()]).with_required(true);
    let entry = extension.to_agent_extension().unwrap();
    let value = serde_json::to_value(&entry).unwrap();
    assert_eq!(value["uri"], SCHEMA_CONTRACT_URI);
    assert_eq!(value["required"], true);
    let written = &value["params"]["catalog"]["inline"]["contracts"][0];
    assert_eq!(written["id"], FLIGHT_CONTRACT);
    assert_eq!(written["skillIds"], json!(["book_flight"]));
    assert_eq!(written["input"]["presence"], "required");
    let representation = &written["input"]["representations"][0];
    assert_eq!(representation["id"], "flight_booking_v1");
    assert_eq!(representation["mediaType"], "application/json");
    assert_eq!(representation["schema"]["mediaType"], SCHEMA_MEDIA_TYPE);
    assert_eq!(representation["schema"]["dialect"], JSON_SCHEMA_DIALECT);
    assert_eq!(representation["schema"]["inline"], input.json_schema());
    assert_eq!(
        written["output"]["representations"][0]["schema"]["inline"],
        output.json_schema()
    );

    // Through a2a-lf's AgentCard and back: the same extension comes out.
    let card = agent_card(&entry);
    let typed: a2a::AgentCard = serde_json::from_value(card).unwrap();
    let again = serde_json::to_value(&typed).unwrap();
    let found = SchemaContractExtension::find(&again).unwrap().unwrap();
    assert_eq!(found, extension);
    assert_eq!(found.contract(FLIGHT_CONTRACT), Some(&contract));
    let typed_entry: a2a::AgentExtension = serde_json::from_value(value).unwrap();
    let back: sdsi::a2a::AgentExtension =
        serde_json::from_value(serde_json::to_value(typed_entry).unwrap()).unwrap();
    assert_eq!(
        SchemaContractExtension::from_agent_extension(&back).unwrap(),
        extension
    );
    assert_eq!(
        SchemaContractExtension::find(&json!({"name": "x"})).unwrap(),
        None
    );
}

#[test]
fn the_typed_api_writes_the_drafts_own_forms() {
    // A text-to-text contract, no schema (the draft's smallest catalog form).
    let text = || Representation::new("text", "text/plain");
    let greeting = SchemaContract::new(
        "https://contracts.example.org/greeting/1.0",
        DirectionContract::required(vec![text()]),
        DirectionContract::required(vec![text()]),
    );
    let entry = SchemaContractExtension::new(vec![greeting])
        .to_agent_extension()
        .unwrap();
    assert_eq!(
        Value::Object(entry.params.unwrap()),
        json!({"catalog": {"inline": {"contracts": [{
            "id": "https://contracts.example.org/greeting/1.0",
            "input": {"presence": "required", "representations": [{"id": "text", "mediaType": "text/plain"}]},
            "output": {"presence": "required", "representations": [{"id": "text", "mediaType": "text/plain"}]}
        }]}}})
    );
    // An external catalog, pinned by its digest.
    let digest = format!("{}=", "A".repeat(43));
    let external = SchemaContractExtension::external(
        "https://agent.example.org/.well-known/a2a-schema-contracts.json",
        Some(Integrity::new(DigestAlgorithm::Sha256, digest.clone())),
    );
    let entry = external.to_agent_extension().unwrap();
    assert_eq!(
        Value::Object(entry.params.clone().unwrap()),
        json!({"catalog": {
            "uri": "https://agent.example.org/.well-known/a2a-schema-contracts.json",
            "mediaType": "application/json",
            "integrity": {"algorithm": "sha-256", "value": digest}
        }})
    );
    let read = SchemaContractExtension::from_agent_extension(&entry).unwrap();
    assert!(matches!(read.catalog, Catalog::External { .. }));
    assert!(read.contracts().is_empty());
}

/// One contract of my own writing for each rule of the draft's catalog
/// schema, as `(contract, expected errors under the contract's pointer)`.
fn broken_contracts() -> Vec<(Value, Vec<(&'static str, &'static str)>)> {
    let none = json!({"presence": "none"});
    let json_rep = json!({"id": "json", "mediaType": "application/json"});
    vec![
        // A relative id.
        (
            json!({"id": "invoice/1", "input": none, "output": none}),
            vec![("invalid_member", "/id")],
        ),
        // Presence none with representations; required without any.
        (
            json!({"id": "urn:x:1", "input": {"presence": "none", "representations": [json_rep]},
                   "output": {"presence": "required"}}),
            vec![
                ("invalid_member", "/input/representations"),
                ("missing_member", "/output/representations"),
            ],
        ),
        // A bundle entry point that climbs out of the bundle.
        (
            json!({"id": "urn:x:2", "input": none, "output": {"presence": "required", "representations": [
                {"id": "xml", "mediaType": "application/xml", "schema": {
                    "bundle": {"uri": "https://schemas.example.org/a.zip", "mediaType": "application/zip"},
                    "entrypoint": "../outside.xsd", "mediaType": "application/xml"}}]}}),
            vec![(
                "invalid_member",
                "/output/representations/0/schema/entrypoint",
            )],
        ),
        // An inline schema that is no JSON Schema (neither an object nor a boolean).
        (
            json!({"id": "urn:x:4", "input": none, "output": {"presence": "required", "representations": [
                {"id": "json", "mediaType": "application/json", "schema": {
                    "inline": "a schema", "mediaType": "application/schema+json"}}]}}),
            vec![("invalid_member", "/output/representations/0/schema/inline")],
        ),
        // Bad ids and media types, two sources, a short digest, a member the draft lacks.
        (
            json!({"id": "urn:x:3", "owner": "me", "input": {"presence": "optional", "representations": [
                {"id": "_json", "mediaType": "json"},
                {"id": "a", "mediaType": "application/json", "schema": {
                    "inline": true, "uri": "https://s.example/x", "mediaType": "application/schema+json"}},
                {"id": "a", "mediaType": "application/json", "schema": {
                    "uri": "https://s.example/x", "mediaType": "application/schema+json",
                    "integrity": {"algorithm": "sha-256", "value": "AAAA"}}}
            ]}, "output": {"presence": "sometimes"}}),
            vec![
                ("invalid_member", "/owner"),
                ("invalid_member", "/input/representations/0/id"),
                ("invalid_member", "/input/representations/0/mediaType"),
                ("invalid_member", "/input/representations/1/schema"),
                ("invalid_member", "/input/representations/2/id"),
                (
                    "invalid_member",
                    "/input/representations/2/schema/integrity/value",
                ),
                ("invalid_member", "/output/presence"),
            ],
        ),
    ]
}

#[test]
fn the_reader_reports_every_broken_rule_with_its_path() {
    for (contract, expected) in broken_contracts() {
        let card = json!({"capabilities": {"extensions": [{"uri": SCHEMA_CONTRACT_URI,
            "params": {"catalog": {"inline": {"contracts": [contract]}}}}]}});
        let error = SchemaContractExtension::find(&card).unwrap_err();
        let prefix = "/capabilities/extensions/0/params/catalog/inline/contracts/0";
        let mut got = pairs(error.errors());
        got.sort_by(|a, b| a.1.cmp(&b.1));
        let mut expected: Vec<_> = expected
            .into_iter()
            .map(|(code, path)| (code, format!("{prefix}{path}")))
            .collect();
        expected.sort_by(|a, b| a.1.cmp(&b.1));
        assert_eq!(got, expected, "{card}");
    }
    // The catalog itself: empty, twice the same id, both inline and
    // external, an external one of another media type; no catalog; no params.
    let one =
        json!({"id": "urn:x:1", "input": {"presence": "none"}, "output": {"presence": "none"}});
    let cases = [
        (
            json!({"catalog": {"inline": {"contracts": []}}}),
            "/params/catalog/inline/contracts",
        ),
        (
            json!({"catalog": {"inline": {"contracts": [one, one]}}}),
            "/params/catalog/inline/contracts/1/id",
        ),
        (
            json!({"catalog": {"inline": {"contracts": [one]}, "uri": "https://x.example/c"}}),
            "/params/catalog/uri",
        ),
        (
            json!({"catalog": {"uri": "https://x.example/c", "mediaType": "text/html"}}),
            "/params/catalog/mediaType",
        ),
        (json!({}), "/params/catalog"),
        (json!([]), "/params"),
    ];
    for (params, path) in cases {
        let card = json!({"capabilities": {"extensions": [{"uri": SCHEMA_CONTRACT_URI, "params": params}]}});
        let error = SchemaContractExtension::find(&card).unwrap_err();
        assert_eq!(
            error.errors()[0].path(),
            format!("/capabilities/extensions/0{path}"),
            "{params}"
        );
    }
    let no_params = json!({"capabilities": {"extensions": [{"uri": SCHEMA_CONTRACT_URI}]}});
    assert_eq!(
        pairs(
            SchemaContractExtension::find(&no_params)
                .unwrap_err()
                .errors()
        ),
        [(
            "missing_member",
            "/capabilities/extensions/0/params".to_owned()
        )]
    );
    // Declared twice, or under another URI.
    let entry = json!({"uri": SCHEMA_CONTRACT_URI, "params": {"catalog": {"inline": {"contracts": [one]}}}});
    let twice = json!({"capabilities": {"extensions": [entry, entry]}});
    assert_eq!(
        pairs(SchemaContractExtension::find(&twice).unwrap_err().errors()),
        [("invalid_member", "/capabilities/extensions/1".to_owned())]
    );
    let mut other: sdsi::a2a::AgentExtension = serde_json::from_value(entry).unwrap();
    other.uri = "https://w3id.org/a2a-schema-contract/draft/0.2".into();
    assert!(SchemaContractExtension::from_agent_extension(&other).is_err());
}

#[test]
fn the_builder_refuses_what_the_reader_refuses() {
    let (input, _) = flight_schemas();
    let relative = SchemaContract::for_schemas("flight-booking/1", Some(&input), None);
    let error = SchemaContractExtension::new(vec![relative])
        .to_agent_extension()
        .unwrap_err();
    assert_eq!(
        pairs(error.errors()),
        [(
            "invalid_member",
            "/params/catalog/inline/contracts/0/id".to_owned()
        )]
    );
    assert!(
        SchemaContractExtension::new(Vec::new())
            .to_agent_extension()
            .is_err()
    );
    let mut contract = SchemaContract::for_schemas(FLIGHT_CONTRACT, Some(&input), None);
    contract
        .input
        .representations
        .push(Representation::for_schema(&input));
    assert!(
        SchemaContractExtension::new(vec![contract])
            .to_agent_extension()
            .is_err()
    );
    assert_eq!(
        SchemaContract::for_schemas(FLIGHT_CONTRACT, None, None)
            .output
            .presence,
        Presence::None
    );
}

#[test]
fn a_primary_part_names_its_contract_and_survives_a2a_lf() {
    let (input, _) = flight_schemas();
    let part = input.a2a_contract_part(&flight_message(), FLIGHT_CONTRACT, Direction::Input);
    assert_eq!(
        part["metadata"][SCHEMA_CONTRACT_URI],
        json!({"contractId": FLIGHT_CONTRACT, "direction": "input",
               "representationId": "flight_booking_v1", "role": "primary"})
    );
    assert_eq!(part["metadata"]["mediaType"], "application/json");
    let typed: a2a::Part = serde_json::from_value(part.clone()).unwrap();
    let written = serde_json::to_value(&typed).unwrap();
    assert_eq!(written, part);
    let report = input.validate_a2a_contract_part(&written, FLIGHT_CONTRACT, Direction::Input);
    assert!(report.is_valid(), "{:?}", report.errors());
    assert_eq!(report.normalized().unwrap()["cabin_class"], "economy");
    assert_eq!(
        PrimaryPart::of_part(&written).unwrap(),
        Some(PrimaryPart::new(
            FLIGHT_CONTRACT,
            Direction::Input,
            "flight_booking_v1"
        ))
    );

    // The wrong contract, direction and schema; no identity; a malformed one.
    let report = input.validate_a2a_contract_part(&part, "urn:other:1", Direction::Output);
    assert_eq!(
        pairs(report.errors()),
        [
            ("invalid_member", format!("{IDENTITY}/contractId")),
            ("invalid_member", format!("{IDENTITY}/direction")),
        ]
    );
    let (_, output) = flight_schemas();
    let report = output.validate_a2a_contract_part(&part, FLIGHT_CONTRACT, Direction::Input);
    let mut mismatches = pairs(report.errors());
    mismatches.retain(|(code, _)| *code == "schema_id_mismatch");
    assert_eq!(
        mismatches,
        [
            ("schema_id_mismatch", "/data/schema_id".to_owned()),
            ("schema_id_mismatch", format!("{IDENTITY}/representationId")),
            (
                "schema_id_mismatch",
                "/metadata/schema/properties/schema_id/const".to_owned()
            ),
        ]
    );
    let bare = input.a2a_data_part(&flight_message());
    assert_eq!(
        pairs(
            input
                .validate_a2a_contract_part(&bare, FLIGHT_CONTRACT, Direction::Input)
                .errors()
        ),
        [("missing_member", IDENTITY.to_owned())]
    );
    let mut odd = part.clone();
    odd["metadata"][SCHEMA_CONTRACT_URI] =
        json!({"contractId": 1, "direction": "sideways", "role": "extra"});
    assert_eq!(
        pairs(PrimaryPart::of_part(&odd).unwrap_err().errors()),
        [
            ("invalid_member", format!("{IDENTITY}/contractId")),
            ("invalid_member", format!("{IDENTITY}/direction")),
            ("missing_member", format!("{IDENTITY}/representationId")),
            ("invalid_member", format!("{IDENTITY}/role")),
        ]
    );
}

#[test]
fn failures_are_reported_in_the_drafts_error_shape() {
    let (input, output) = flight_schemas();
    let identity = PrimaryPart::new(FLIGHT_CONTRACT, Direction::Input, "flight_booking_v1");
    let mut part = input.a2a_contract_part(&flight_message(), FLIGHT_CONTRACT, Direction::Input);
    part["data"]["payload"]["origin"] = json!(7);
    part["mediaType"] = json!("text/plain");
    let report = input.validate_a2a_contract_part(&part, FLIGHT_CONTRACT, Direction::Input);
    let failure = ContractFailure::new(&identity, report.errors());
    let details = failure.details();
    assert_eq!(details.len(), 2);
    assert_eq!(details[0].code, ContractErrorCode::InstanceInvalid);
    assert_eq!(details[0].instance_path.as_deref(), Some("/payload/origin"));
    assert_eq!(details[0].keyword.as_deref(), Some("type_mismatch"));
    assert_eq!(
        details[1].code,
        ContractErrorCode::RepresentationNotSupported
    );
    assert_eq!(details[1].instance_path, None);

    // The summary: the most basic code, no path, under the extension's URI.
    let metadata = Value::Object(failure.metadata());
    assert_eq!(
        metadata[SCHEMA_CONTRACT_URI],
        json!({"code": "REPRESENTATION_NOT_SUPPORTED", "contractId": FLIGHT_CONTRACT,
               "direction": "input", "representationId": "flight_booking_v1",
               "message": "the input breaks its contract (2 problems)"})
    );
    // The whole list as a data part, through a2a-lf and back to sdsi's issues.
    let data_part = failure.to_data_part();
    assert_eq!(data_part["metadata"]["mediaType"], "application/json");
    let typed: a2a::Part = serde_json::from_value(data_part.clone()).unwrap();
    let written = serde_json::to_value(&typed).unwrap();
    let read = ContractFailure::details_of_part(&written).unwrap();
    assert_eq!(read, details);
    let issue = read[0].issue().unwrap();
    assert_eq!(
        (issue.code().as_str(), issue.path()),
        ("type_mismatch", "/payload/origin")
    );
    for detail in details {
        let value = serde_json::to_value(detail).unwrap();
        assert_eq!(&ContractErrorDetail::from_value(&value).unwrap(), detail);
    }

    // An output's failures are all OUTPUT_CONTRACT_VIOLATION; a missing
    // input payload is a presence violation.
    let out_identity = PrimaryPart::new(
        FLIGHT_CONTRACT,
        Direction::Output,
        "booking_confirmation_v1",
    );
    let reply = StructuredPayload::new("booking_confirmation_v1").with("price_cny", "cheap");
    let reply_part = output.a2a_contract_part(&reply, FLIGHT_CONTRACT, Direction::Output);
    let report = output.validate_a2a_contract_part(&reply_part, FLIGHT_CONTRACT, Direction::Output);
    let failure = ContractFailure::new(&out_identity, report.errors());
    assert!(
        failure
            .details()
            .iter()
            .all(|d| d.code == ContractErrorCode::OutputContractViolation)
    );
    assert_eq!(
        failure.summary().code,
        ContractErrorCode::OutputContractViolation
    );
    let mut empty = part.clone();
    empty.as_object_mut().unwrap().remove("data");
    let report = input.validate_a2a_contract_part(&empty, FLIGHT_CONTRACT, Direction::Input);
    let failure = ContractFailure::new(&identity, report.errors());
    assert_eq!(
        failure.summary().code,
        ContractErrorCode::PayloadPresenceViolation
    );

    // The reader refuses details outside the draft's shape.
    let error = ContractErrorDetail::from_value(&json!({"code": "OOPS", "contractId": "x",
        "direction": "input", "extra": 1}))
    .unwrap_err();
    assert_eq!(
        pairs(error.errors()),
        [
            ("invalid_member", "/extra".to_owned()),
            ("invalid_member", "/code".to_owned()),
            ("invalid_member", "/contractId".to_owned()),
        ]
    );
    assert!(ContractFailure::details_of_part(&json!({"text": "no"})).is_err());
}

/// A part that names another contract, or none, is CONTRACT_NOT_FOUND (the
/// draft's code for a request naming no contract the agent offers), and
/// that code comes first in the summary; the rest of a wrong identity is
/// REPRESENTATION_NOT_SUPPORTED. An output's failures stay
/// OUTPUT_CONTRACT_VIOLATION.
#[test]
fn a_part_of_another_contract_is_contract_not_found() {
    let (input, _) = flight_schemas();
    let identity = PrimaryPart::new(FLIGHT_CONTRACT, Direction::Input, "flight_booking_v1");
    let mut part = input.a2a_contract_part(&flight_message(), "urn:other:1", Direction::Output);
    part["data"]["payload"]["origin"] = json!(7);
    let report = input.validate_a2a_contract_part(&part, FLIGHT_CONTRACT, Direction::Input);
    let failure = ContractFailure::new(&identity, report.errors());
    let codes: Vec<(ContractErrorCode, &str)> = failure
        .details()
        .iter()
        .map(|d| (d.code, d.keyword.as_deref().unwrap_or_default()))
        .collect();
    assert_eq!(
        codes,
        [
            (ContractErrorCode::InstanceInvalid, "type_mismatch"),
            (ContractErrorCode::ContractNotFound, "invalid_member"),
            (
                ContractErrorCode::RepresentationNotSupported,
                "invalid_member"
            ),
        ]
    );
    assert_eq!(
        failure.details()[1].message.as_deref(),
        Some(format!("the part is of contract \"urn:other:1\", not \"{FLIGHT_CONTRACT}\" (at {IDENTITY}/contractId of the part)").as_str())
    );
    assert_eq!(failure.summary().code, ContractErrorCode::ContractNotFound);

    let bare = input.a2a_data_part(&flight_message());
    let report = input.validate_a2a_contract_part(&bare, FLIGHT_CONTRACT, Direction::Input);
    let failure = ContractFailure::new(&identity, report.errors());
    assert_eq!(failure.summary().code, ContractErrorCode::ContractNotFound);

    let out = PrimaryPart::new(FLIGHT_CONTRACT, Direction::Output, "flight_booking_v1");
    let report = input.validate_a2a_contract_part(&bare, FLIGHT_CONTRACT, Direction::Output);
    let failure = ContractFailure::new(&out, report.errors());
    assert_eq!(
        failure.summary().code,
        ContractErrorCode::OutputContractViolation
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any template's contract goes into a card, through a2a-lf's
    /// AgentCard, and comes back equal; its primary part validates after
    /// a2a-lf's Part.
    #[test]
    fn generated_contracts_round_trip(template in template(Extras::None), required in any::<bool>()) {
        let schema = CompiledSchema::new(&template).unwrap();
        let contract = SchemaContract::for_schemas(FLIGHT_CONTRACT, Some(&schema), Some(&schema));
        let extension = SchemaContractExtension::new(vec![contract]).with_required(required);
        let entry = extension.to_agent_extension().unwrap();
        let typed: a2a::AgentCard = serde_json::from_value(agent_card(&entry)).unwrap();
        let again = serde_json::to_value(&typed).unwrap();
        prop_assert_eq!(SchemaContractExtension::find(&again).unwrap(), Some(extension));
    }
}
