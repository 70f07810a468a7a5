//! A2A bridges: #813 field definitions (serde round trips, template ↔ fields,
//! data part validation through the core validator), the AgentCard
//! extension entry and the v1.0 data part with `metadata.mediaType` and
//! `metadata.schema` (§6.8); the Schema Contract extension in `contract`.

mod contract;

use crate::common::{
    Extras, assert_send_sync, flight_template, json_value, pairs, template, value_of,
};
use proptest::prelude::*;
use sdsi::a2a::{
    AgentExtension, AgentSkill, CompiledFields, FieldDefinition, FieldKind, SDSI_A2A_EXTENSION_URI,
    fields_from_template, template_from_fields,
};
use sdsi::{CompiledSchema, KeyType, StructuredPayload};
use serde_json::{Value, json};

/// The book review agent of #813, with the trailing commas of the issue's
/// text removed so that it is JSON.
fn book_review_skill() -> Value {
    json!({
        "id": "book_review",
        "name": "Book review",
        "description": "Reviews a book",
        "tags": ["books"],
        "inputModes": ["text/plain"],
        "outputModes": ["text/plain", "text/html"],
        "inputFields": [
            { "name": "bookTitle", "kind": "text", "description": "The title of the book" },
            { "name": "authorName", "kind": "text", "description": "The author's full name" }
        ],
        "outputFields": [
            { "name": "review-chunk", "kind": "text", "mimeTypes": ["text/plain"],
              "description": "A chunk of the book's review. Sent when streaming", "optional": true },
            { "name": "review-html", "kind": "text", "mimeTypes": ["text/html"],
              "description": "HTML with the whole book's review. Sent when not streaming.", "optional": true },
            { "name": "publicationDate", "kind": "text", "description": "Publication date"}
        ]
    })
}

#[test]
fn the_issue_813_skill_round_trips() {
    let value = book_review_skill();
    let skill: AgentSkill = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(skill.input_fields.as_ref().unwrap().len(), 2);
    assert_eq!(
        skill.output_fields.as_ref().unwrap()[0].mime_types,
        Some(vec!["text/plain".to_owned()])
    );
    assert_eq!(serde_json::to_value(&skill).unwrap(), value);
}

#[test]
fn the_issue_813_message_validates() {
    let skill: AgentSkill = serde_json::from_value(book_review_skill()).unwrap();
    let fields = CompiledFields::new(skill.input_fields.as_ref().unwrap()).unwrap();
    assert_eq!(
        pairs(fields.warnings()),
        [
            ("field_renamed", "/0/name".to_owned()),
            ("field_renamed", "/1/name".to_owned())
        ]
    );
    // The issue's client message: a data part whose members are text parts.
    let data = json!({
        "bookTitle": {"kind": "text", "text": "Charlotte's Web"},
        "authorName": {"kind": "text", "text": "E. B. White"}
    });
    let report = fields.validate_data(&data);
    assert!(report.is_valid(), "{:?}", report.errors());
    assert_eq!(
        Value::Object(report.normalized().unwrap().to_map()),
        json!({"bookTitle": "Charlotte's Web", "authorName": "E. B. White"})
    );
    // Plain values work too; problems are reported under the field names.
    let report =
        fields.validate_data(&json!({"bookTitle": ["x"], "isbn": "0-06-440055-7", "other": 1}));
    assert_eq!(
        pairs(report.errors()),
        [
            ("missing_required_key", "/authorName".to_owned()),
            ("type_mismatch", "/bookTitle".to_owned()),
            ("unknown_key", "/isbn".to_owned()),
            ("invalid_other", "/other".to_owned()),
        ]
    );
    assert!(report.normalized().is_none());
    let report = fields.validate_data(&json!([1]));
    assert_eq!(pairs(report.errors()), [("not_an_object", String::new())]);
}

#[test]
fn output_fields_convert_with_their_losses_reported() {
    let skill: AgentSkill = serde_json::from_value(book_review_skill()).unwrap();
    let conversion = template_from_fields(
        "book_review_out_v1",
        "book_review",
        skill.output_fields.as_ref().unwrap(),
    );
    let names: Vec<_> = conversion
        .template
        .keys
        .iter()
        .map(|k| (k.key_name.as_str(), k.key_type, k.required))
        .collect();
    assert_eq!(
        names,
        [
            ("review_chunk", KeyType::String, false),
            ("review_html", KeyType::String, false),
            ("publication_date", KeyType::String, true)
        ]
    );
    assert_eq!(
        pairs(&conversion.warnings),
        [
            ("field_renamed", "/0/name".to_owned()),
            ("field_renamed", "/1/name".to_owned()),
            ("lossy_mapping", "/1/mimeTypes".to_owned()),
            ("field_renamed", "/2/name".to_owned()),
        ]
    );
    assert!(conversion.template.check().is_valid());
}

#[test]
fn every_kind_of_loss_is_reported() {
    let fields: Vec<FieldDefinition> = serde_json::from_value(json!([
        {"kind": "text"},
        {"name": "é"},
        {"name": "cover", "kind": "file", "mimeTypes": ["image/png"]},
        {"name": "size", "kind": "data", "schema": {"type": "string", "enum": ["S", "M"], "default": 3}},
        {"name": "blob", "kind": "data"},
        {"name": "note", "schema": {"type": ["string", "null"]}, "x-ui": "textarea"},
        {"name": "Size", "kind": "text"},
        {"name": "other", "kind": "data"},
        {"name": "mixed", "schema": {"type": ["string", "integer"]}, "optional": true}
    ]))
    .unwrap();
    let conversion = template_from_fields("x_v1", "x", &fields);
    assert_eq!(
        pairs(&conversion.warnings),
        [
            ("not_expressible", "/0".to_owned()),
            ("not_expressible", "/1/name".to_owned()),
            ("lossy_mapping", "/2/kind".to_owned()),
            ("lossy_mapping", "/2/mimeTypes".to_owned()),
            ("lossy_mapping", "/3/schema/default".to_owned()),
            ("lossy_mapping", "/3/schema".to_owned()),
            ("lossy_mapping", "/4".to_owned()),
            ("lossy_mapping", "/5/schema/type".to_owned()),
            ("lossy_mapping", "/5".to_owned()),
            ("not_expressible", "/6/name".to_owned()),
            ("lossy_mapping", "/7/optional".to_owned()),
            ("lossy_mapping", "/8/schema/type".to_owned()),
        ]
    );
    let types: Vec<_> = conversion
        .template
        .keys
        .iter()
        .map(|k| (k.key_name.as_str(), k.key_type))
        .collect();
    assert_eq!(
        types,
        [
            ("cover", KeyType::Object),
            ("size", KeyType::String),
            ("blob", KeyType::Object),
            ("note", KeyType::String),
            ("other", KeyType::Array),
            ("mixed", KeyType::String)
        ]
    );
    assert!(conversion.template.check().is_valid());
    assert!(CompiledSchema::new(&conversion.template).is_ok());
}

#[test]
fn agent_card_extension_bridge() {
    let template = flight_template();
    let entry = AgentExtension::for_templates(std::slice::from_ref(&template), true);
    let value = serde_json::to_value(&entry).unwrap();
    assert_eq!(value["uri"], SDSI_A2A_EXTENSION_URI);
    assert_eq!(value["required"], true);
    let card = json!({"name": "airline", "capabilities": {"streaming": false, "extensions": [
        {"uri": "https://example.org/other-extension"}, value]}});
    let found = AgentExtension::find(&card).unwrap();
    assert_eq!(found, entry);
    assert_eq!(found.templates().unwrap(), vec![template]);
    assert!(AgentExtension::find(&json!({"capabilities": {}})).is_none());

    let mut broken = entry.clone();
    broken.params = Some(
        json!({"templates": [{"schema_id": "s", "scenario": "t", "keys": [{"key_name": "Bad"}]}]})
            .as_object()
            .unwrap()
            .clone(),
    );
    let error = broken.templates().unwrap_err();
    assert_eq!(
        pairs(error.errors())[0],
        (
            "invalid_key_name",
            "/params/templates/0/keys/0/key_name".to_owned()
        )
    );
    broken.params = None;
    assert_eq!(
        pairs(broken.templates().unwrap_err().errors()),
        [("missing_member", "/params/templates".to_owned())]
    );
}

#[test]
fn data_part_bridge() {
    let template = flight_template();
    let schema = CompiledSchema::new(&template).unwrap();
    let message = StructuredPayload::new("flight_booking_v1")
        .with("origin", "PEK")
        .with("destination", "SHA")
        .with("departure_date", "2026-05-04");
    let part = schema.a2a_data_part(&message);
    assert_eq!(part["mediaType"], "application/json");
    // A2A v1.0 §6.8: the media type and the schema in the part's metadata.
    assert_eq!(part["metadata"]["mediaType"], "application/json");
    assert_eq!(part["metadata"]["schema"], schema.json_schema());
    assert_eq!(part["data"], message.to_value());
    let report = schema.validate_a2a_data_part(&part);
    assert!(report.is_valid());
    assert_eq!(report.normalized().unwrap()["cabin_class"], "economy");

    // What the part says about itself must agree with the schema.
    let other =
        CompiledSchema::new(&template_from_fields("other_v1", "other", &[]).template).unwrap();
    let said = |edit: fn(&mut Value, &CompiledSchema), other: &CompiledSchema| {
        let mut part = part.clone();
        edit(&mut part, other);
        pairs(schema.validate_a2a_data_part(&part).errors())
    };
    assert_eq!(
        said(
            |p, o| p["metadata"]["schema"] = o.json_schema().into_value(),
            &other
        ),
        [(
            "schema_id_mismatch",
            "/metadata/schema/properties/schema_id/const".to_owned()
        )]
    );
    assert_eq!(
        said(
            |p, _| p["metadata"]["mediaType"] = json!("text/plain"),
            &other
        ),
        [("invalid_member", "/metadata/mediaType".to_owned())]
    );
    assert_eq!(
        said(
            |p, _| p["metadata"]["mediaType"] = json!("application/vnd.x+json"),
            &other
        ),
        [("invalid_member", "/metadata/mediaType".to_owned())]
    );
    assert_eq!(
        said(|p, _| p["mediaType"] = json!("text/csv"), &other),
        [("invalid_member", "/mediaType".to_owned())]
    );
    assert_eq!(
        said(|p, _| p["metadata"]["schema"] = json!("a schema"), &other),
        [("invalid_member", "/metadata/schema".to_owned())]
    );
    assert_eq!(
        said(|p, _| p["metadata"] = json!([]), &other),
        [("invalid_member", "/metadata".to_owned())]
    );
    // §6.8's own example schema names no schema id: it is not compared.
    let tickets = json!({"type": "array", "items": {"type": "object",
        "properties": {"ticketNumber": {"type": "string"}, "description": {"type": "string"}}}});
    let mut foreign = part.clone();
    foreign["metadata"]["schema"] = tickets;
    assert!(schema.validate_a2a_data_part(&foreign).is_valid());

    let bad = json!({"kind": "data", "data": {"schema_id": "flight_booking_v1", "payload": {"origin": 1}}});
    assert_eq!(
        pairs(schema.validate_a2a_data_part(&bad).errors()),
        [
            (
                "missing_required_key",
                "/data/payload/departure_date".to_owned()
            ),
            (
                "missing_required_key",
                "/data/payload/destination".to_owned()
            ),
            ("type_mismatch", "/data/payload/origin".to_owned()),
        ]
    );
    // A2A v1.0 also carries JSON as a text part with a JSON media type.
    let text = serde_json::to_string(&message.to_value()).unwrap();
    let text_part = json!({"text": text, "mediaType": "application/json"});
    let report = schema.validate_a2a_data_part(&text_part);
    assert!(report.is_valid(), "{:?}", report.errors());
    assert_eq!(report.normalized().unwrap()["cabin_class"], "economy");
    let bad_text =
        json!({"text": bad["data"].to_string(), "mediaType": "application/vnd.example+json"});
    assert_eq!(
        pairs(schema.validate_a2a_data_part(&bad_text).errors()),
        [
            (
                "missing_required_key",
                "/text/payload/departure_date".to_owned()
            ),
            (
                "missing_required_key",
                "/text/payload/destination".to_owned()
            ),
            ("type_mismatch", "/text/payload/origin".to_owned()),
        ]
    );
    let broken = json!({"text": "{\"schema_id\": ", "mediaType": "application/json"});
    assert_eq!(
        schema.validate_a2a_data_part(&broken).errors()[0]
            .code()
            .as_str(),
        "invalid_json"
    );
    // Plain text is not a payload.
    assert_eq!(
        pairs(
            schema
                .validate_a2a_data_part(&json!({"text": "hi"}))
                .errors()
        ),
        [("missing_payload", "/mediaType".to_owned())]
    );
    assert_eq!(
        pairs(
            schema
                .validate_a2a_data_part(&json!({"metadata": {}}))
                .errors()
        ),
        [("missing_payload", "/data".to_owned())]
    );
    assert_eq!(
        pairs(schema.validate_a2a_data_part(&json!("hi")).errors()),
        [("not_an_object", String::new())]
    );
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

fn field_definition() -> impl Strategy<Value = FieldDefinition> {
    (
        proptest::option::of("[a-zA-Z-]{1,8}"),
        proptest::option::of(proptest::sample::select(vec![
            FieldKind::Text,
            FieldKind::File,
            FieldKind::Data,
        ])),
        proptest::option::of(prop::collection::vec("[a-z]{1,5}/[a-z]{1,5}", 0..2)),
        proptest::option::of(prop::collection::vec(("[a-z]{1,5}", json_value()), 0..3)),
        proptest::option::of("[ -~]{0,12}"),
        proptest::option::of(any::<bool>()),
        prop::collection::vec(("x-[a-z]{1,4}", json_value()), 0..2),
    )
        .prop_map(
            |(name, kind, mime_types, schema, description, optional, extra)| {
                let mut field = FieldDefinition::default();
                field.name = name;
                field.kind = kind;
                field.mime_types = mime_types;
                field.schema = schema.map(|s| s.into_iter().collect());
                field.description = description;
                field.optional = optional;
                field.extra = extra.into_iter().collect();
                field
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Template → fields → template loses nothing where the models overlap:
    /// the keys come back equal but for their extra members and an explicit
    /// null default, and the conversion reports no loss.
    #[test]
    fn template_to_fields_and_back_is_lossless(template in template(Extras::Keys)) {
        let fields = fields_from_template(&template);
        let json = serde_json::to_value(&fields).unwrap();
        let fields: Vec<FieldDefinition> = serde_json::from_value(json).unwrap();
        let conversion = template_from_fields(&template.schema_id, &template.scenario, &fields);
        prop_assert!(conversion.warnings.is_empty(), "{:?}", conversion.warnings);
        let mut expected = template.clone();
        for key in &mut expected.keys {
            key.extra.clear();
            if key.default_value == Some(Value::Null) {
                key.default_value = None;
            }
        }
        prop_assert_eq!(conversion.template, expected);
    }

    /// Validating a data part against a template's fields is validating the
    /// payload against the template: same verdict, same issues re-rooted.
    #[test]
    fn data_validation_is_the_core_validator(
        (template, data) in template(Extras::Keys).prop_flat_map(|t| {
            let names: Vec<(String, KeyType)> = t.keys.iter().map(|k| (k.key_name.to_string(), k.key_type)).collect();
            let members: Vec<BoxedStrategy<Option<(String, Value)>>> = names.into_iter().map(|(name, ty)| {
                prop_oneof![1 => Just(None), 3 => value_of(ty).prop_map(Some), 1 => json_value().prop_map(Some)]
                    .prop_map(move |v| v.map(|v| (name.clone(), v))).boxed()
            }).collect();
            let extra = proptest::option::of(("[a-z]{1,3}", json_value()));
            (Just(t), (members, extra).prop_map(|(m, e)| {
                Value::Object(m.into_iter().flatten().chain(e).collect())
            }))
        }),
    ) {
        let fields = CompiledFields::new(&fields_from_template(&template)).unwrap();
        prop_assert!(fields.warnings().is_empty());
        let schema = CompiledSchema::new(&template).unwrap();
        let report = fields.validate_data(&data);
        let message = json!({"schema_id": template.schema_id, "payload": data});
        let core = schema.validate(&message);
        prop_assert_eq!(report.is_valid(), core.is_valid());
        // Messages may differ (an unknown member "is not one of the input fields").
        let expected: Vec<_> = core.errors().iter().map(|i| (i.code(), i.path().trim_start_matches("/payload").to_owned())).collect();
        let actual: Vec<_> = report.errors().iter().map(|i| (i.code(), i.path().to_owned())).collect();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort_by(|a, b| a.1.cmp(&b.1));
        prop_assert_eq!(actual, expected_sorted);
        prop_assert_eq!(report.normalized(), core.normalized());
    }

    #[test]
    fn a2a_types_round_trip(fields in prop::collection::vec(field_definition(), 0..4), required in any::<bool>()) {
        let json = serde_json::to_value(&fields).unwrap();
        let back: Vec<FieldDefinition> = serde_json::from_value(json.clone()).unwrap();
        prop_assert_eq!(&back, &fields);
        prop_assert_eq!(serde_json::to_value(&back).unwrap(), json);

        let mut skill = AgentSkill::new("s", "S", "does s");
        skill.input_fields = Some(fields.clone());
        skill.output_fields = (!fields.is_empty()).then(|| fields.clone());
        skill.tags = vec!["t".into()];
        let json = serde_json::to_value(&skill).unwrap();
        prop_assert_eq!(serde_json::from_value::<AgentSkill>(json).unwrap(), skill);

        // Any fields convert to a valid template that compiles, without panics.
        let conversion = template_from_fields("x_v1", "x", &fields);
        prop_assert!(conversion.template.check().is_valid(), "{:?}", conversion.template);
        prop_assert!(CompiledFields::new(&fields).is_ok());

        let templates = vec![conversion.template];
        let entry = AgentExtension::for_templates(&templates, required);
        let json = serde_json::to_value(&entry).unwrap();
        let back: AgentExtension = serde_json::from_value(json).unwrap();
        prop_assert_eq!(back.templates().unwrap(), templates);
        prop_assert_eq!(back, entry);
    }
}

#[test]
fn public_types_are_send_and_sync() {
    assert_send_sync::<FieldDefinition>();
    assert_send_sync::<AgentSkill>();
    assert_send_sync::<AgentExtension>();
    assert_send_sync::<CompiledFields>();
    assert_send_sync::<sdsi::a2a::FieldsConversion>();
    assert_send_sync::<sdsi::export::Export>();
    assert_send_sync::<sdsi::payload::PayloadBuilder>();
    assert_send_sync::<sdsi::payload::BuildError>();
}
