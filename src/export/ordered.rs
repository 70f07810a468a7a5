//! `OrderedJson`: an exported document that keeps its members in the order
//! the export wrote them, whatever serde_json features the build turns on.
//!
//! serde_json's `Map` is sorted by key unless some crate in the build turns
//! on its `preserve_order` feature, so a schema held as a `Value` lists a
//! template's keys alphabetically, and a decoder constrained by it writes
//! `other` before the keys it should have used. The order lives here
//! instead, in maps that keep insertion order; a `Value` is kept beside it
//! for reading.

use std::fmt;
use std::ops::Deref;

use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// A JSON document whose objects keep the order their members were written
/// in: what every export returns ([`CompiledSchema::json_schema`],
/// [`Export::schema`], …), so that `properties` lists a template's keys in
/// the template's order.
///
/// It serializes (through serde, its [`Display`](fmt::Display) and
/// [`serde_json::to_string`] alike) in that order, whether or not
/// serde_json's `preserve_order` feature is on. For reading it dereferences
/// to the [`Value`] it holds (`schema["properties"]["size"]`,
/// `schema.get("required")`, `&schema` where a `&Value` is expected); that
/// `Value`, and [`OrderedJson::into_value`], list members in serde_json's
/// own order (sorted, unless `preserve_order` is on), so write the document
/// itself, not the `Value`, when the order matters. Equality is JSON
/// equality (member order ignored), with a `Value` too.
///
/// Where a schema travels inside another document it is that document's
/// `Value`, in serde_json's order: the A2A bridges embed the message's JSON
/// Schema in a part's `metadata.schema` and in a contract representation's
/// inline schema, and A2A's Rust types (the `a2a-lf` crate) hold metadata
/// as `serde_json::Value` too, so there `properties` is sorted unless
/// `preserve_order` is on. Give a model the export itself.
///
/// [`CompiledSchema::json_schema`]: crate::CompiledSchema::json_schema
/// [`Export::schema`]: crate::export::Export::schema
///
/// ```
/// use sdsi::{CompiledSchema, SchemaTemplate};
/// use serde_json::json;
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "coffee_v1", "scenario": "coffee_order",
///     "keys": [
///         {"key_name": "size", "key_type": "string", "required": true, "semantic_description": "Cup size."},
///         {"key_name": "milk", "key_type": "string", "required": false, "semantic_description": "Milk."}
///     ]
/// }))?;
/// let schema = CompiledSchema::new(&template)?.strict_schema().schema;
/// let text = schema.to_string();
/// // The template's order (size, milk, then other), not the alphabet's.
/// assert!(text.find("\"size\"") < text.find("\"milk\""));
/// assert!(text.find("\"milk\"") < text.find("\"other\""));
/// assert_eq!(schema["required"], json!(["size", "milk", "other"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct OrderedJson {
    /// The document in its written order: what serialization walks.
    ordered: Node,
    /// The same document as a `Value`: what reading and comparing use.
    value: Value,
}

impl OrderedJson {
    /// The document as a [`Value`] (its members in serde_json's order).
    pub fn as_value(&self) -> &Value {
        &self.value
    }

    /// The document as a [`Value`] (its members in serde_json's order).
    pub fn into_value(self) -> Value {
        self.value
    }

    /// The document as a part of a larger one, its order kept (a
    /// `Node::from` would take it as a `Value` and lose the order).
    pub(crate) fn into_node(self) -> Node {
        self.ordered
    }

    /// The document from its written form.
    pub(crate) fn new(ordered: Node) -> Self {
        let value = ordered.to_value();
        Self { ordered, value }
    }
}

impl From<Value> for OrderedJson {
    /// A `Value` as a document: its members in the order the `Value` holds them.
    fn from(value: Value) -> Self {
        Self {
            ordered: Node::Leaf(value.clone()),
            value,
        }
    }
}

impl From<OrderedJson> for Value {
    fn from(document: OrderedJson) -> Self {
        document.value
    }
}

impl Deref for OrderedJson {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.value
    }
}

impl PartialEq for OrderedJson {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl PartialEq<Value> for OrderedJson {
    fn eq(&self, other: &Value) -> bool {
        self.value == *other
    }
}

impl PartialEq<OrderedJson> for Value {
    fn eq(&self, other: &OrderedJson) -> bool {
        *self == other.value
    }
}

impl Serialize for OrderedJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.ordered.serialize(serializer)
    }
}

impl fmt::Display for OrderedJson {
    /// Compact JSON in the written order; `{:#}` indents it, as a
    /// [`Value`]'s `Display` does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() {
            serde_json::to_string_pretty(&self.ordered)
        } else {
            serde_json::to_string(&self.ordered)
        };
        // Writing cannot fail: every key is a string, every number finite.
        f.write_str(&text.map_err(|_| fmt::Error)?)
    }
}

/// A document as an export writes it: objects of more than one member are
/// `Object`s (and arrays holding them `Array`s), so that the text is the
/// same whatever serde_json features are on; anything else (scalars,
/// arrays of scalars, objects of one member) is a `Value` leaf.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Leaf(Value),
    Array(Vec<Node>),
    Object(Object),
}

impl Node {
    fn to_value(&self) -> Value {
        match self {
            Node::Leaf(value) => value.clone(),
            Node::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Object(object) => Value::Object(
                object
                    .0
                    .iter()
                    .map(|(name, node)| (name.clone(), node.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Leaf(value) => value.serialize(serializer),
            Node::Array(items) => items.serialize(serializer),
            Node::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.0.len()))?;
                for (name, node) in &object.0 {
                    map.serialize_entry(name, node)?;
                }
                map.end()
            }
        }
    }
}

// An `OrderedJson` converts too, through its `Value`: use
// `OrderedJson::into_node` to keep its order.
impl<T: Into<Value>> From<T> for Node {
    fn from(value: T) -> Self {
        Node::Leaf(value.into())
    }
}

impl From<Object> for Node {
    fn from(object: Object) -> Self {
        Node::Object(object)
    }
}

/// A JSON object under construction whose members keep their insertion
/// order (inserting a name again replaces its value in place).
#[derive(Debug, Clone, Default)]
pub(crate) struct Object(IndexMap<String, Node>);

impl Object {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds member `name` before every other (or moves it there).
    pub(crate) fn insert_first(&mut self, name: impl Into<String>, value: impl Into<Node>) {
        self.0.shift_insert(0, name.into(), value.into());
    }

    /// Adds (or replaces) member `name`.
    pub(crate) fn insert(&mut self, name: impl Into<String>, value: impl Into<Node>) {
        self.0.insert(name.into(), value.into());
    }

    /// The number of members.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The finished document.
    pub(crate) fn into_document(self) -> OrderedJson {
        OrderedJson::new(Node::Object(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> OrderedJson {
        let mut item = Object::new();
        item.insert("y", 1);
        item.insert("x", 2);
        let mut inner = Object::new();
        inner.insert("zeta", 1);
        inner.insert("alpha", json!([2, {"b": 1}]));
        inner.insert("list", Node::Array(vec![Node::from(3), item.into()]));
        let mut outer = Object::new();
        outer.insert("type", "object");
        outer.insert("properties", inner);
        outer.into_document()
    }

    #[test]
    fn writes_members_in_insertion_order() {
        let document = sample();
        let expected = r#"{"type":"object","properties":{"zeta":1,"alpha":[2,{"b":1}],"list":[3,{"y":1,"x":2}]}}"#;
        assert_eq!(document.to_string(), expected);
        assert_eq!(serde_json::to_string(&document).unwrap(), expected);
        assert!(format!("{document:#}").starts_with("{\n  \"type\": \"object\",\n"));
    }

    #[test]
    fn reads_and_compares_as_its_value() {
        let document = sample();
        let value = json!({"properties": {"alpha": [2, {"b": 1}], "list": [3, {"x": 2, "y": 1}], "zeta": 1},
                           "type": "object"});
        assert_eq!(document, value);
        assert_eq!(value, document);
        assert_eq!(document["properties"]["zeta"], 1);
        assert_eq!(document.clone().into_value(), value);
        assert_eq!(OrderedJson::from(value.clone()), document);
        assert_eq!(
            OrderedJson::from(value.clone()).to_string(),
            value.to_string()
        );
    }

    #[test]
    fn a_first_member_goes_before_the_others_and_a_document_nests_in_order() {
        let mut object = Object::new();
        object.insert("b", 1);
        object.insert_first("a", 2);
        let mut outer = Object::new();
        outer.insert("z", object.into_document().into_node());
        outer.insert("y", 0);
        assert_eq!(
            outer.into_document().to_string(),
            r#"{"z":{"a":2,"b":1},"y":0}"#
        );
    }

    #[test]
    fn inserting_a_name_again_keeps_its_place() {
        let mut object = Object::new();
        object.insert("b", 1);
        object.insert("a", 2);
        object.insert("b", 3);
        assert_eq!(object.len(), 2);
        assert_eq!(object.into_document().to_string(), r#"{"b":3,"a":2}"#);
    }
}
