//! The payload object's schema: its properties become keys; what it says
//! about members beyond them (open or closed) and its `required` list are
//! checked against what a template can say.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::importer::{Importer, is_annotation, refuse};
use super::shape::{Document, Shapes};
use crate::issue::{IssueCode, describe_short, pointer, quote_short};
use crate::template::TemplateError;

impl Importer {
    /// Reads the payload object's schema at `at`.
    pub(super) fn object<'a>(
        &mut self,
        document: Document<'a>,
        schema: &'a Value,
        at: &str,
    ) -> Result<(), TemplateError> {
        let Some(object) = schema.as_object() else {
            return Err(refuse(
                IssueCode::NotAnObject,
                at,
                "a schema must be a JSON object",
            ));
        };
        if let Some(kind) = object.get("type") {
            if kind != "object" {
                return Err(refuse(
                    IssueCode::InvalidMember,
                    &format!("{at}/type"),
                    "the payload's schema must be of type object",
                ));
            }
        }
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => Some(properties),
            Some(_) => {
                self.report(
                    pointer(at, "properties"),
                    "\"properties\" is not an object: no key is made from it".to_owned(),
                );
                None
            }
            None => None,
        };
        let required = self.required(object, properties, at);
        self.openness(object, at);
        for (keyword, value) in object {
            let known = matches!(
                keyword.as_str(),
                "type"
                    | "properties"
                    | "required"
                    // Read by `openness`.
                    | "additionalProperties"
                    // Containers for `$ref`s, which are followed.
                    | "$defs"
                    | "definitions"
            ) || is_annotation(keyword)
                || (keyword == "unevaluatedProperties" && value == &Value::Bool(false));
            if !known {
                self.report(
                    pointer(at, keyword),
                    format!("{} on the payload object has no template equivalent (keys are closed, unbounded in number)", quote_short(keyword)),
                );
            }
        }
        let properties_at = pointer(at, "properties");
        let mut shapes = Shapes::new(document);
        for (name, property) in properties.into_iter().flatten() {
            let entry = required.get(name.as_str()).map(String::as_str);
            self.property(
                &mut shapes,
                name,
                property,
                entry,
                &pointer(&properties_at, name),
            );
        }
        Ok(())
    }

    /// A template's keys are closed: an object that takes other members is
    /// narrowed, reported where `"additionalProperties": false` would close
    /// it (whether the keyword is there or not).
    fn openness(&mut self, object: &Map<String, Value>, at: &str) {
        let closes = |keyword: &str| object.get(keyword) == Some(&Value::Bool(false));
        let additional = object.get("additionalProperties");
        if closes("additionalProperties")
            || (additional.is_none() && closes("unevaluatedProperties"))
        {
            return;
        }
        let takes = match additional {
            Some(Value::Object(_)) => "other members that match its additionalProperties schema",
            _ => "any other member",
        };
        self.report(
            pointer(at, "additionalProperties"),
            format!(
                "the object is open (it takes {takes}) and the template is closed: members besides the properties are unknown keys (UnknownKeys::Warn accepts them with a warning)"
            ),
        );
    }

    /// The names `required` lists that have a property, each with the
    /// pointer of its (first) entry; every other entry is reported.
    fn required<'a>(
        &mut self,
        object: &'a Map<String, Value>,
        properties: Option<&Map<String, Value>>,
        at: &str,
    ) -> HashMap<&'a str, String> {
        let mut names = HashMap::new();
        let Some(list) = object.get("required") else {
            return names;
        };
        let list_at = pointer(at, "required");
        let Some(list) = list.as_array() else {
            self.report(
                list_at,
                "\"required\" is not an array: no key is made required".to_owned(),
            );
            return names;
        };
        for (index, entry) in list.iter().enumerate() {
            let entry_at = pointer(&list_at, &index.to_string());
            match entry.as_str() {
                Some(name) if properties.is_some_and(|p| p.contains_key(name)) => {
                    names.entry(name).or_insert(entry_at);
                }
                Some(name) => self.report(
                    entry_at,
                    format!("required {} names no property, so no key is made for it: the template takes payloads without that member, and refuses it as an unknown key", quote_short(name)),
                ),
                None => self.report(
                    entry_at,
                    format!("required entry {} is not a name: ignored", describe_short(entry)),
                ),
            }
        }
        names
    }
}
