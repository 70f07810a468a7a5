//! `PayloadBuilder`: the client side of draft §6.1's confidence
//! thresholding, building structured payloads that always validate.

use std::fmt;

use serde_json::{Map, Value};

use super::message::StructuredPayload;
use crate::issue::{Issue, pointer};
use crate::key::{KeyType, OTHER_KEY};
use crate::validate::core::check::Check;
use crate::validate::core::compiled_key::KeyStatus;
use crate::validate::core::schema::CompiledSchema;

/// The confidence a mapping needs, by default, to go to its key rather than
/// to `other`.
pub const DEFAULT_CONFIDENCE_THRESHOLD: f64 = 0.5;

/// Builds a structured payload from a model's key mappings, each with a
/// confidence (draft §6.1): a mapping at or above the threshold sets its key;
/// one below it sends its fragment to `other` instead, so that a doubtful
/// mapping never becomes a hallucinated key value.
///
/// A mapping the schema would reject (an unknown key, a value of the wrong
/// type) is refused when it is confident and routed to `other` when it is
/// not; [`PayloadBuilder::build`] validates the result, so the builder only
/// ever produces payloads that validate.
///
/// ```
/// use sdsi::{CompiledSchema, SchemaTemplate};
/// use sdsi::payload::{PayloadBuilder, Placement};
/// use serde_json::json;
///
/// let template = SchemaTemplate::from_value(&json!({
///     "schema_id": "flight_booking_v1", "scenario": "flight_booking",
///     "keys": [
///         {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "IATA code."},
///         {"key_name": "cabin_class", "key_type": "string", "required": false, "semantic_description": "economy, business or first."}
///     ]
/// }))?;
/// let schema = CompiledSchema::new(&template)?;
///
/// let mut builder = PayloadBuilder::new(&schema).with_threshold(0.7);
/// assert_eq!(builder.set("origin", "PEK", 0.96)?, Placement::Key);
/// // "somewhere comfy" -> business? Not sure enough: the user's words go to `other`.
/// assert_eq!(builder.set_from("somewhere comfy", "cabin_class", "business", 0.4)?, Placement::Other);
/// let message = builder.build()?;
/// assert_eq!(message.payload["other"], "somewhere comfy");
/// assert!(schema.validate(&message.to_value()).is_valid());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct PayloadBuilder {
    schema: CompiledSchema,
    threshold: f64,
    payload: Map<String, Value>,
    other: Vec<String>,
}

/// Where a mapping went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Placement {
    /// The value was set on its key.
    Key,
    /// The fragment was sent to `other`.
    Other,
}

/// Why the builder refused a mapping, or could not build a valid payload.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A confident mapping names a key the schema does not have (or has
    /// withdrawn: still accepted from old clients, never produced).
    #[error("key {key:?} is not defined by the schema")]
    UnknownKey {
        /// The key named.
        key: String,
    },
    /// A confident mapping's value is not accepted for its key (wrong type,
    /// `null` on a required key, nested deeper than the limit).
    #[error("value for key {key:?} is not accepted: {reason}")]
    InvalidValue {
        /// The key named.
        key: String,
        /// Why the validator refused it.
        reason: String,
    },
    /// A value for `other` is not a string or an array of strings.
    #[error("a value for \"other\" must be a string or an array of strings")]
    InvalidOther,
    /// The payload built so far does not validate (e.g. a required key is
    /// still missing): every problem, as the validator reports it.
    #[error("the payload does not validate: {}", DisplayIssues(.0))]
    Invalid(Vec<Issue>),
}

struct DisplayIssues<'a>(&'a [Issue]);

impl fmt::Display for DisplayIssues<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{issue}")?;
        }
        Ok(())
    }
}

impl PayloadBuilder {
    /// A builder for `schema` with [`DEFAULT_CONFIDENCE_THRESHOLD`].
    pub fn new(schema: &CompiledSchema) -> Self {
        Self {
            schema: schema.clone(),
            threshold: DEFAULT_CONFIDENCE_THRESHOLD,
            payload: Map::new(),
            other: Vec::new(),
        }
    }

    /// Sets the confidence threshold: a mapping goes to its key when its
    /// confidence is at least `threshold` (a `NaN` confidence never is).
    pub fn with_threshold(mut self, threshold: f64) -> Self {
        self.threshold = threshold;
        self
    }

    /// The confidence threshold.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Maps `value` onto `key` with `confidence`. Below the threshold, the
    /// value goes to `other` as text (a string as is, anything else as
    /// compact JSON); use [`PayloadBuilder::set_from`] to send the user's own
    /// words instead. A value for `other` itself is appended to it, whatever
    /// the confidence.
    pub fn set(
        &mut self,
        key: &str,
        value: impl Into<Value>,
        confidence: f64,
    ) -> Result<Placement, BuildError> {
        let value = value.into();
        let fragment = match &value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        self.place(&fragment, key, value, confidence)
    }

    /// Maps `value`, read from the user's words `fragment`, onto `key` with
    /// `confidence`; below the threshold, `fragment` goes to `other`.
    pub fn set_from(
        &mut self,
        fragment: &str,
        key: &str,
        value: impl Into<Value>,
        confidence: f64,
    ) -> Result<Placement, BuildError> {
        self.place(fragment, key, value.into(), confidence)
    }

    /// Sends a fragment no key covers to `other`.
    pub fn push_other(&mut self, fragment: impl Into<String>) -> &mut Self {
        self.other.push(fragment.into());
        self
    }

    /// Removes `key`'s value, if set; returns whether it was.
    pub fn unset(&mut self, key: &str) -> bool {
        self.payload.remove(key).is_some()
    }

    fn place(
        &mut self,
        fragment: &str,
        key: &str,
        value: Value,
        confidence: f64,
    ) -> Result<Placement, BuildError> {
        if key == OTHER_KEY {
            return match value {
                Value::String(text) => {
                    self.other.push(text);
                    Ok(Placement::Other)
                }
                Value::Array(items) if items.iter().all(Value::is_string) => {
                    self.other.extend(items.into_iter().filter_map(|v| match v {
                        Value::String(s) => Some(s),
                        _ => None,
                    }));
                    Ok(Placement::Other)
                }
                _ => Err(BuildError::InvalidOther),
            };
        }
        // A NaN confidence compares false: below any threshold.
        let confident = confidence >= self.threshold;
        let accepted = self.check(key, &value);
        match (confident, accepted) {
            (true, Ok(())) => {
                self.payload.insert(key.to_owned(), value);
                Ok(Placement::Key)
            }
            (true, Err(error)) => Err(error),
            (false, _) => {
                self.other.push(fragment.to_owned());
                Ok(Placement::Other)
            }
        }
    }

    /// Whether the validator accepts `value` for `key`, asked of the
    /// validator itself with a one-key payload.
    fn check(&self, key: &str, value: &Value) -> Result<(), BuildError> {
        let known = self
            .schema
            .core
            .lookup(key)
            .and_then(|i| self.schema.core.keys.get(i))
            .is_some_and(|k| k.check != Check::Other && k.status != KeyStatus::Withdrawn);
        if !known {
            return Err(BuildError::UnknownKey {
                key: key.to_owned(),
            });
        }
        let mut payload = Map::new();
        payload.insert(key.to_owned(), value.clone());
        let probe = serde_json::json!({"schema_id": self.schema.schema_id(), "payload": payload});
        let path = pointer("/payload", key);
        let report = self.schema.validate(&probe);
        let refusal = report
            .errors()
            .iter()
            .find(|issue| issue.path() == path || issue.path().starts_with(&format!("{path}/")));
        match refusal {
            Some(issue) => Err(BuildError::InvalidValue {
                key: key.to_owned(),
                reason: issue.message().into_owned(),
            }),
            None => Ok(()),
        }
    }

    /// The message built so far, if it validates: `other` is a string when it
    /// holds one fragment and the template does not declare it as an array,
    /// an array of strings otherwise. Fails with every problem the validator
    /// finds (typically a required key still missing).
    pub fn build(&self) -> Result<StructuredPayload, BuildError> {
        let mut message = StructuredPayload::new(self.schema.schema_id());
        message.payload = self.payload.clone();
        let declared_array = self
            .schema
            .template()
            .key(OTHER_KEY)
            .is_some_and(|k| k.key_type == KeyType::Array);
        match self.other.as_slice() {
            [] => {}
            [single] if !declared_array => {
                message
                    .payload
                    .insert(OTHER_KEY.to_owned(), Value::from(single.as_str()));
            }
            many => {
                message.payload.insert(
                    OTHER_KEY.to_owned(),
                    Value::Array(many.iter().map(|s| Value::from(s.as_str())).collect()),
                );
            }
        }
        let value = message.to_value();
        let report = self.schema.validate(&value);
        if report.is_valid() {
            Ok(message)
        } else {
            Err(BuildError::Invalid(report.errors().to_vec()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SchemaTemplate;
    use serde_json::json;

    fn schema() -> CompiledSchema {
        let template = SchemaTemplate::from_value(&json!({
            "schema_id": "s", "scenario": "t",
            "keys": [
                {"key_name": "origin", "key_type": "string", "required": true, "semantic_description": "from"},
                {"key_name": "count", "key_type": "integer", "required": false, "semantic_description": "n"},
                {"key_name": "other", "key_type": "array", "required": false, "semantic_description": "rest"}
            ]
        }))
        .unwrap();
        CompiledSchema::new(&template).unwrap()
    }

    #[test]
    fn confident_mappings_set_keys_and_doubtful_ones_go_to_other() {
        let mut b = PayloadBuilder::new(&schema());
        assert_eq!(b.set("origin", "PEK", 0.9), Ok(Placement::Key));
        assert_eq!(b.set("count", 2, 0.2), Ok(Placement::Other));
        assert_eq!(b.set("count", 3, f64::NAN), Ok(Placement::Other));
        let message = b.build().unwrap();
        assert_eq!(
            message.to_value(),
            json!({"schema_id": "s", "payload": {"origin": "PEK", "other": ["2", "3"]}})
        );
    }

    #[test]
    fn confident_but_wrong_mappings_are_refused() {
        let mut b = PayloadBuilder::new(&schema());
        assert_eq!(
            b.set("count", "two", 0.9),
            Err(BuildError::InvalidValue {
                key: "count".into(),
                reason: "expected integer, found string".into()
            })
        );
        assert_eq!(
            b.set("seat", "12A", 0.9),
            Err(BuildError::UnknownKey { key: "seat".into() })
        );
        assert_eq!(b.set("seat", "12A", 0.1), Ok(Placement::Other));
        assert_eq!(b.set("other", 3, 1.0), Err(BuildError::InvalidOther));
        assert_eq!(b.set("other", json!(["a", "b"]), 0.0), Ok(Placement::Other));
        let err = b.build().unwrap_err();
        assert_eq!(
            err.to_string(),
            "the payload does not validate: missing_required_key at /payload/origin: required key is missing"
        );
        assert_eq!(b.set("count", Value::Null, 0.9), Ok(Placement::Key));
        assert!(b.unset("count"));
        assert!(!b.unset("count"));
    }
}
