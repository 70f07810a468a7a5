//! Structured data for agent-to-agent messages: schema templates, structured
//! payloads and their validation, per draft-zhou-structured-data-schema-interaction-00.
//!
//! ```
//! use sdsi::{CompiledSchema, SchemaTemplate};
//! use serde_json::json;
//!
//! let template = SchemaTemplate::from_value(&json!({
//!     "schema_id": "flight_booking_v1", "scenario": "flight_booking",
//!     "keys": [
//!         {"key_name": "origin", "key_type": "string", "required": true,
//!          "semantic_description": "Departure IATA code. Example: 'from Beijing' -> 'PEK'."},
//!         {"key_name": "passenger_count", "key_type": "integer", "required": false,
//!          "default_value": 1, "semantic_description": "Number of passengers, 1-9."}
//!     ]
//! }))?;
//! let schema = CompiledSchema::new(&template)?; // compile once, validate many
//!
//! let message = json!({"schema_id": "flight_booking_v1", "payload": {"origin": "PEK"}});
//! let report = schema.validate(&message);
//! assert_eq!(report.normalized().ok_or("invalid")?["passenger_count"], 1);
//!
//! let bad = br#"{"schema_id": "flight_booking_v1", "payload": {"passenger_count": "two"}}"#;
//! let codes: Vec<_> = schema.validate_slice(bad).errors().iter()
//!     .map(|e| (e.code().as_str(), e.path().to_owned())).collect();
//! assert_eq!(codes, [("missing_required_key", "/payload/origin".to_owned()),
//!                    ("type_mismatch", "/payload/passenger_count".to_owned())]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A server agent publishes a [`SchemaTemplate`]: typed, snake_case keys, each
//! with a semantic description a client's LLM maps user intent against. The
//! client sends a [`StructuredPayload`]; the server compiles the template once
//! into a [`CompiledSchema`] and validates every message it receives, getting
//! a [`Report`] with every problem ([`Issue`]: a stable [`IssueCode`], a JSON
//! Pointer, a message) and the payload normalized with defaults, read through
//! to the message rather than copied; or it reads a valid message straight
//! into its own type with [`CompiledSchema::deserialize_slice`].
//!
//! # Modules
//!
//! | module | what it holds | feature |
//! |---|---|---|
//! | [`key`], [`template`] | key names and types, key definitions, templates and their checks | — |
//! | [`derive`](mod@derive) | [`Template`] (a type that is a template) and its derive, `TemplateField` (a field's key type), `Other` (the `other` field) | the derive: `derive` |
//! | [`payload`], [`negotiate`] | the structured payload and its builder; negotiation and result messages | — |
//! | [`validate`] | [`CompiledSchema`], options and limits, [`Report`] and its [`Normalized`] payload, typed reads (`deserialize_slice`) | — |
//! | [`issue`] | [`Issue`], [`IssueCode`], the problem list behind every report | — |
//! | [`compat`] | compatibility between template versions (backward, forward, full, transitive) | — |
//! | [`export`] | JSON Schema, MCP, strict constrained-decoding and prompt exports | `export` |
//! | [`import`] | templates from JSON Schema and MCP tools, with what they cannot express | `export` |
//! | [`envelope`] | the Universal Schema envelope and its checks | `envelope` |
//! | [`a2a`] | A2A structured fields, agent-card extension, message parts | `a2a` |
//! | [`patch`] | schema patches, per-client schemas, the key lifecycle, [`SchemaStore`] | `patch` |
//! | [`evolution`] | the Differential Semantic Pool and the self-evolution pipeline | `evolution` |
//! | [`_documentation`] | the guides: protocol, interop, patches, evolution, error codes | — |
//!
//! ## Where each item lives
//!
//! Every file of `src/`, what it holds, and the public items it defines
//! (methods as `Type::{…}`; `CompiledSchema`'s methods sit with the reader
//! they serve). `scripts/module-map.py` writes these rows from the sources
//! and CI fails when they are out of date.
//!
//! <!-- file-map:start -->
//! | file | what it holds | public items |
//! |---|---|---|
//! | `src/_documentation.rs` | The guides of `docs/`, rendered here so that they travel with the API reference (the `jiff` crate's pattern). | — |
//! | `src/a2a/card.rs` | The AgentCard side: skills with #813 input and output fields, and the extension entry that carries an … | `SDSI_A2A_EXTENSION_URI`, `AgentSkill`, `AgentExtension`, `AgentSkill::{new, with_input_template}`, `AgentExtension::{for_templates, find, templates}` |
//! | `src/a2a/contract/error.rs` | Why a Schema Contract value could not be read or written: every problem found, each an `Issue` with a JSON … | `ContractError`, `ContractError::{errors, into_errors}` |
//! | `src/a2a/contract/extension.rs` | The Schema Contract extension as an AgentCard entry: built from typed contracts, checked before it is … | `SchemaContractExtension`, `SchemaContractExtension::{new, external, with_required, with_description, contracts, contract, to_agent_extension, from_agent_extension, find}` |
//! | `src/a2a/contract/failure.rs` | Reporting a contract's validation failure: sdsi's issue list in the draft's error-detail shape, one … | `ContractErrorCode`, `ContractErrorDetail`, `ContractFailure`, `ContractErrorCode::{ALL, as_str, parse}`, `ContractErrorDetail::{new, issue, from_value}`, `ContractFailure::{new, details, summary, metadata, to_data_part, details_of_part}` |
//! | `src/a2a/contract/mod.rs` | The A2A Schema Contract extension, in the shape A2A issue #2180 proposes (community draft 0.1, … | — |
//! | `src/a2a/contract/model.rs` | The Schema Contract catalog as typed values: contracts, their input and output directions, the … | `SCHEMA_CONTRACT_URI`, `SCHEMA_MEDIA_TYPE`, `Direction`, `Presence`, `DirectionContract`, `Representation`, `SchemaDescriptor`, `SchemaSource`, `Bundle`, `Integrity`, `DigestAlgorithm`, `SchemaContract`, `Catalog`, `Direction::as_str`, `Presence::as_str`, `DirectionContract::{none, required, optional, representation}`, `Representation::{new, for_schema, with_description}`, `SchemaDescriptor::{inline_json_schema, inline}`, `Integrity::new`, `SchemaContract::{new, for_schemas, with_skill, with_description, direction}` |
//! | `src/a2a/contract/primary.rs` | The primary part of a contracted exchange: the data part whose `metadata[SCHEMA_CONTRACT_URI]` names the … | `PrimaryPart`, `PrimaryPart::{new, to_value, of_part}`, `CompiledSchema::{a2a_contract_part, validate_a2a_contract_part}` |
//! | `src/a2a/contract/read.rs` | Reading a Schema Contract extension's `params` into a typed `Catalog`, with the structural rules of the … | — |
//! | `src/a2a/contract/syntax.rs` | The lexical rules of the Schema Contract draft's identifiers: absolute URIs, representation ids, media … | — |
//! | `src/a2a/fields.rs` | A2A issue #813's field definitions and their mapping to and from schema templates. | `JSON_MEDIA_TYPE`, `FieldKind`, `FieldDefinition`, `fields_from_template`, `FieldsConversion`, `template_from_fields`, `FieldDefinition::{is_optional, from_key}` |
//! | `src/a2a/mod.rs` | A2A bridges: the structured field definitions proposed in A2A issue #813 (`FieldDefinition`, skill-level … | — |
//! | `src/a2a/part.rs` | Data parts: a structured payload in an A2A v1.0 message part, and input fields compiled to validate a … | `FIELDS_SCHEMA_ID`, `CompiledFields`, `CompiledFields::{new, schema, warnings, validate_data}`, `CompiledSchema::{a2a_data_part, validate_a2a_data_part}` |
//! | `src/a2a/part_metadata.rs` | A part's `metadata.mediaType` and `metadata.schema` (A2A v1.0 §6.8): written on the data parts this crate … | — |
//! | `src/compat.rs` | Compatibility between versions of a schema template, with the semantics of Confluent Schema Registry's … | `Mode`, `UnknownMode`, `ChangeCode`, `Direction`, `Change`, `CompatReport`, `check`, `Mode::{ALL, as_str}`, `ChangeCode::{as_str, is_breaking}`, `CompatReport::{is_compatible, breaking}` |
//! | `src/derive/__private.rs` | What the output of `#[derive(Template)]` calls. | `key`, `other_key`, `default_value`, `members`, `values`, `OtherField`, `OptionalOther`, `assert_other`, `assert_optional_other` |
//! | `src/derive/mod.rs` | Templates from Rust types: the `Template` trait that `#[derive(Template)]` implements (feature `derive`), … | — |
//! | `src/derive/other.rs` | `Other`: what a payload's reserved `other` key holds, as a struct field. | `Other`, `Other::{fragments, into_fragments, is_empty}` |
//! | `src/derive/std_types.rs` | The key types of the standard types a field can have, as serde_json writes them: numbers, strings, … | — |
//! | `src/derive/traits.rs` | The traits a derived type implements: `Template` (the type is a whole template) and `TemplateField` (the … | `Template`, `TemplateField` |
//! | `src/digest.rs` | Content digests: SHA-256 over RFC 8785 canonical JSON. | `DigestError`, `DigestError::to_issue` |
//! | `src/envelope/id.rs` | The envelope's `id`: a version 4 UUID. | `MessageId`, `InvalidMessageId`, `MessageId::{new, from_random_bytes, as_uuid}` |
//! | `src/envelope/limits.rs` | Bounds on what reading an envelope may cost, like the payload's `Limits`: a hostile envelope is refused … | `EnvelopeLimits`, `EnvelopeLimits::{with_max_bytes, with_max_capabilities, with_max_string_bytes, with_max_depth}` |
//! | `src/envelope/message.rs` | `Envelope`: the eight fields, building one and replying to one. | `BROADCAST`, `MAX_PAYLOAD_OBJECT_NESTING`, `Envelope`, `ReplyToBroadcast`, `Envelope::{new, structured, with_capabilities, reply, reply_as, is_broadcast, protocol_message, to_value}` |
//! | `src/envelope/message_type.rs` | The `message_type` names of the protocol's own messages. | `ProtocolMessage`, `ProtocolMessage::{ALL, as_str, from_message_type}` |
//! | `src/envelope/mod.rs` | The Universal Schema envelope (v0.1): the eight mandatory fields every agent message carries around its … | — |
//! | `src/envelope/parse.rs` | Reading an envelope from JSON: every problem at once with JSON Pointers, the `EnvelopeReport`, and … | `EnvelopeError`, `EnvelopeReport`, `Envelope::{warnings, parse, parse_with, parse_slice, parse_slice_with, parse_str, from_value, from_slice}`, `EnvelopeError::errors`, `EnvelopeReport::{is_valid, errors, warnings, problems, envelope, into_envelope, normalized}`, `CompiledSchema::{validate_envelope, validate_envelope_slice}` |
//! | `src/envelope/timestamp.rs` | The envelope's `timestamp`: an RFC 3339 date-time. | `Timestamp`, `InvalidTimestamp`, `Timestamp::{new, utc, parse, is_utc, to_utc, as_offset_date_time}` |
//! | `src/envelope/version.rs` | The envelope's `protocol_version`, and which versions this crate speaks. | `ProtocolVersion`, `VersionError`, `ProtocolVersion::{CURRENT, SUPPORTED_MAJORS, new, major, minor, patch}` |
//! | `src/evolution/embed/embedder.rs` | The embedder a pool's vectors come from (`Embedder`), and the pool settings it recommends: the similarity … | `Embedder`, `PoolConfig::with_embedder_needs` |
//! | `src/evolution/embed/hashing.rs` | The default embedder: signed feature hashing of normalised words and of their character n-grams. | `HashingEmbedder`, `HashingEmbedder::{with_dimension, with_threshold, with_need_threshold, with_need_contrast}` |
//! | `src/evolution/embed/mod.rs` | Text to vectors: the `Embedder` trait a pool's vectors come from, the dependency-free default … | — |
//! | `src/evolution/embed/vectors.rs` | The vector math of the pool: dot products, unit vectors, and the mean similarity of groups of unit vectors … | — |
//! | `src/evolution/engine/config.rs` | The evolution engine's settings (`EvolutionConfig`): the pools' settings and the embedder overrides, which … | `Branching`, `Induction`, `EvolutionConfig`, `EvolutionConfig::{branching, threshold, need_threshold, need_contrast, lending, max_fragments_per_message, pool, max_client_pools, induction, patch_lifetime}` |
//! | `src/evolution/engine/event.rs` | What the engine reports for each message it observes. | `EvolutionEvent` |
//! | `src/evolution/engine/induction.rs` | Induction off the message path (`Induction::OffPath`): a need whose gate opened waits; the server takes it … | `INDUCTION_WAIT`, `PendingInduction`, `InducedKey`, `PendingInduction::{pool_key, need, run}`, `InducedKey::{pool_key, need, key}`, `Evolution::{inductions, complete, induce_waiting}` |
//! | `src/evolution/engine/interface.rs` | The whole evolution pipeline as one trait (`EvolutionEngine`), so a server can swap the engine. | `EvolutionEngine` |
//! | `src/evolution/engine/mod.rs` | The loop that runs per message: the `EvolutionEngine` trait and its default (`Evolution`), which takes a … | — |
//! | `src/evolution/engine/observation.rs` | What one received message gives the evolution loop, taken apart from the engine that folds it in: replicas … | `Observation`, `ObservedFragment`, `Evolution::{observation, fold}` |
//! | `src/evolution/engine/observe.rs` | Feeding one message to the engine: `EvolutionEngine::observe` records the lifecycle's metrics and observes … | — |
//! | `src/evolution/engine/pipeline.rs` | The default evolution engine (`Evolution`): `other` fragments → pool → trigger → inducer → conflict … | `Evolution`, `Evolution::{new, inducer, pools, pool, insert_pool, state, restore, pool_config}` |
//! | `src/evolution/engine/pool_key.rs` | Which pool a fragment feeds (`PoolKey`): a scenario, and a client for a personal pool. | `PoolKey` |
//! | `src/evolution/engine/proposal.rs` | From a triggered need to a decision (§6.2.2): withhold it, induce a key, check it against the schema the … | — |
//! | `src/evolution/induce/attribute.rs` | The attribute a need fills, seen across its sibling needs: requests that name one noun with different … | — |
//! | `src/evolution/induce/description.rs` | A key's description for a client's model: what the key means and how to fill it, its values, and examples … | — |
//! | `src/evolution/induce/inducer.rs` | The model that turns a mature need into a candidate key (`IntentInducer`). | `IntentInducer` |
//! | `src/evolution/induce/mod.rs` | From a mature need to a candidate key: the `IntentInducer` trait and the default, model-free `RuleInducer`. | — |
//! | `src/evolution/induce/naming.rs` | A key's name from a need's naming words: snake_case ASCII, a count's unit in the plural, an attribute's … | — |
//! | `src/evolution/induce/numbers.rs` | Numbers in a request's words: digits or number words, and a run of them read as one whole number ("twenty … | — |
//! | `src/evolution/induce/rules.rs` | The default intent inducer: rules, no model. | `RuleInducer` |
//! | `src/evolution/induce/shape.rs` | What a need's fragments carry, and so the key's type: a number, a count with its unit, one of a few … | — |
//! | `src/evolution/induce/terms.rs` | The words of a need: stemmed so inflections meet (bag/bags, travel/travelling), kept only when several … | `Stems::{new, stem, content, fragment}`, `Background::new`, `KeyWords::{of, contains, attribute}` |
//! | `src/evolution/induce/words.rs` | Which words may name a key or fill a slot: not framing, not a function word or an inflection of one, not a … | — |
//! | `src/evolution/intake/address.rs` | Which parts of a fragment speak to the system instead of describing a need, so that they are dropped … | — |
//! | `src/evolution/intake/injection.rs` | Recognising text written to steer a model rather than describe a need (prompt injection), in any width, … | — |
//! | `src/evolution/intake/mapped.rs` | What a message's keys already carry is not part of its `other` need. | — |
//! | `src/evolution/intake/mod.rs` | The first stage of the loop: a client's `other` text made fit to keep. | — |
//! | `src/evolution/intake/pieces.rs` | Cutting a fragment into pieces, the units the address filter keeps or drops: at sentence and clause marks (`. | — |
//! | `src/evolution/intake/redact.rs` | Redaction of personal data and secrets in `other` fragments (§7), before anything is embedded, clustered, … | `Redaction`, `Redacted`, `redact`, `Redaction::{placeholder, sensitivity, ALL, strip, embedded, found_in}` |
//! | `src/evolution/intake/sanitize.rs` | Cleaning `other` fragments before they enter the pool (§7): `other` is free text from a client's LLM and … | `MAX_FRAGMENT_CHARS`, `Sanitized`, `sanitize_fragment`, `sanitize_description` |
//! | `src/evolution/intake/vocabulary.rs` | The address filter's words: the target's vocabulary (addressees, schema words, naming verbs, a schema's … | — |
//! | `src/evolution/mod.rs` | Schema self-evolution (§6.2): the Differential Semantic Pool and the pipeline that turns recurring `other` … | — |
//! | `src/evolution/persist/mod.rs` | Keeping the engine between runs: its versioned saved state (`EvolutionState`), the same state as rows a … | — |
//! | `src/evolution/persist/rows.rs` | The engine's pools as rows: each fine cluster and each need of each pool one row (its JSON, running sum … | `EngineRows`, `PoolRow`, `RowDigests`, `RowWrites`, `PoolRow::from_columns`, `EngineRows::{writes, digests}` |
//! | `src/evolution/persist/state.rs` | The evolution engine's saved state: its pools and when each personal pool was last active, in a versioned … | `EVOLUTION_FORMAT_VERSION`, `EvolutionState`, `EvolutionStateError`, `EvolutionState::pools` |
//! | `src/evolution/persist/storage.rs` | Keeping a server's state between runs: what is saved (`SavedServer`) and the trait a storage back-end … | `SavedServer`, `SplitState`, `Versioned`, `StateStorage`, `SavedServer::{new, to_bytes, encode, encode_split, from_split, from_split_sealed, from_bytes, from_bytes_sealed}`, `Versioned::new` |
//! | `src/evolution/pool/config.rs` | A pool's settings (`PoolConfig`: thresholds, heat, gate, caps, with the defaults and the checks on them). | `MIN_HALF_LIFE_SECS`, `PoolConfig`, `Lending`, `MIN_QUOTE_CLIENTS`, `NEED_RATIO`, `SUPPORT_RATIO`, `CLAIM_RATIO`, `PoolConfig::{new, with_need_threshold, with_need_contrast, with_lending, learned_difference}` |
//! | `src/evolution/pool/data.rs` | The Differential Semantic Pool (§6.2.1) as data: the fine clusters' running sums and scoring vectors in … | `Pool`, `Pool::{new, config, len, is_empty, need_threshold, background}` |
//! | `src/evolution/pool/error.rs` | Why a pool refuses an input (`PoolError`): a bad configuration, a vector it cannot use, a merge or retune … | `PoolError` |
//! | `src/evolution/pool/fine/cluster.rs` | One fine cluster's bookkeeping (its centroid lives in the pool's contiguous storage): heat, the dual … | — |
//! | `src/evolution/pool/fine/eviction.rs` | Making room in a full pool: the coldest cluster of the coldest need goes first, on ingest, after a replica … | — |
//! | `src/evolution/pool/fine/exemplar.rs` | Exemplars: the fragments a cluster keeps as examples of what it means, with the clients that sent each, … | `Exemplar`, `EXEMPLAR_CLIENTS`, `client_tag`, `Exemplar::{distinct_clients, client_tags}` |
//! | `src/evolution/pool/fine/ingest.rs` | Taking in one fragment (`Pool::ingest`): the scan for the nearest cluster, joining it or founding one … | `Ingested`, `Pool::ingest` |
//! | `src/evolution/pool/fine/linkage.rs` | How a pool scores a fragment against a fine cluster: by its mean cosine similarity to the cluster's … | — |
//! | `src/evolution/pool/fine/merge.rs` | Merging two fine clusters of one pool: a neighbour that drifted within the threshold of the cluster a … | — |
//! | `src/evolution/pool/fine/mod.rs` | The fine level of the pool: clusters of fragments that say nearly the same thing. | — |
//! | `src/evolution/pool/fine/quota.rs` | How many clusters each client founded in its current window: a client that sends thousands of distinct … | — |
//! | `src/evolution/pool/fine/view.rs` | A read-only view of one fine cluster (`ClusterView`): what a caller, a need view or a report reads of it, … | `ClusterView`, `ClusterView::{id, need, members, occurrences, heat, heat_is_finite, heat_latest, recent_clients, clients, exemplars, centroid, proposed}`, `Pool::{cluster, clusters}` |
//! | `src/evolution/pool/gate/cap.rs` | The per-client heat cap: what one client added to one cluster, grant by grant, within a sliding window; … | — |
//! | `src/evolution/pool/gate/dual.rs` | The dual gate (§6.2.1), on needs: heat at or above the threshold and, within the window, enough distinct … | — |
//! | `src/evolution/pool/gate/marking.rs` | What the pipeline tells a pool about a need whose gate opened: put off after a failure (with a backoff), … | `Pool::{defer, wait, mark_proposed, reopen}` |
//! | `src/evolution/pool/gate/mod.rs` | The trigger (§6.2.1): the dual gate on a need (heat, and distinct clients or requests in a window), the … | — |
//! | `src/evolution/pool/heat.rs` | Heat with exponential decay, kept as forward decay in the log domain. | `Heat` |
//! | `src/evolution/pool/ids.rs` | Ids of clusters and needs: a cluster's id comes from the text and the instant that founded it, so replicas … | — |
//! | `src/evolution/pool/limits.rs` | The pool's settings as a cluster reads them (`ClusterLimits`): a plain copy of the numbers, so a cluster … | — |
//! | `src/evolution/pool/mark.rs` | The proposal mark a cluster and a need carry once a key was proposed from their need (a key name; … | — |
//! | `src/evolution/pool/mod.rs` | The Differential Semantic Pool (§6.2.1): fragment vectors clustered into fine clusters (`fine/`), fine … | — |
//! | `src/evolution/pool/needs/background.rs` | The pool's background similarity, and the need threshold that adapts to it (`PoolConfig::need_contrast`). | `MIN_BACKGROUND_FRAGMENTS`, `NEED_FLOOR_RATIO` |
//! | `src/evolution/pool/needs/centre.rs` | The pool's centre: the mean of all its fragments' unit vectors, which the need level measures similarity from. | — |
//! | `src/evolution/pool/needs/grouping.rs` | Keeping the need level current as fine clusters are founded, grow, merge, drift and go (see `needs.rs` for … | — |
//! | `src/evolution/pool/needs/level.rs` | The need level of the pool: fine clusters grouped into needs. | — |
//! | `src/evolution/pool/needs/mod.rs` | The need level of the pool: fine clusters grouped into needs, as one need is phrased many ways. | — |
//! | `src/evolution/pool/needs/view.rs` | A read-only view of one need: what an inducer, an event or a report reads, summed over the need's clusters. | `NeedView`, `NeedView::{id, clusters, vectors, occurrences, heat, recent_clients, recent_requests, clients, exemplars, min_quote_clients, quotable, pool, centroid, retry_at, proposed}`, `Pool::{need, needs, need_count}` |
//! | `src/evolution/pool/replica.rs` | Replicas: combining another replica's pool into this one (commutative, up to storage order), and comparing … | `Pool::{merge, same_clusters, canonical}` |
//! | `src/evolution/pool/retune.rs` | Retuning a pool: the same learned clusters and needs under other gate, heat, window, cap and size … | `Pool::retune` |
//! | `src/evolution/pool/snapshot.rs` | A pool's serialized form (`PoolSnapshot`) and restoring a pool from it: the running sums move from the … | — |
//! | `src/export/ordered.rs` | `OrderedJson`: an exported document that keeps its members in the order the export wrote them, whatever … | `OrderedJson`, `OrderedJson::{as_value, into_value}` |
//! | `src/export.rs` | Exports of a compiled schema for the tools agents already use: JSON Schema 2020-12, MCP (a tool's … | `JSON_SCHEMA_DIALECT`, `Export`, `CompiledSchema::{json_schema, mcp_input_schema, mcp_input_schema_for, mcp_output_schema, mcp_output_schema_for, mcp_elicitation_schema, strict_schema, prompt}` |
//! | `src/extra_members.rs` | Members a typed value does not know (a template's or a key's `extra`), kept so that a round trip loses … | — |
//! | `src/import/importer.rs` | The import's running state: the keys made so far and every difference reported, plus the vocabulary the … | — |
//! | `src/import/mod.rs` | Templates from the schemas agents already publish: a JSON Schema object (draft 2020-12 or 07) or an MCP … | `Imported`, `from_json_schema`, `from_mcp_tool` |
//! | `src/import/object.rs` | The payload object's schema: its properties become keys; what it says about members beyond them (open or … | — |
//! | `src/import/property.rs` | One property → one key: its name made snake_case, its type read where it is written (see `shape`), its … | — |
//! | `src/import/shape.rs` | Where a property's type is written: in the property itself, in the schema a local `$ref` names … | — |
//! | `src/issue/path.rs` | Where an issue points, held without an allocation whenever it can be. | — |
//! | `src/issue/quote.rs` | Text from the other side (a remote card or part, a tool result, an imported schema, a client's payload) … | — |
//! | `src/issue.rs` | Problems found in templates and payloads: a stable code, a JSON Pointer and a message. | `IssueCode`, `UnknownIssueCode`, `Issue`, `Problems`, `IssueCode::{ALL, as_str}`, `Issue::{new, prefixed, code, path, message, limit_value, expected, found}`, `Problems::{is_valid, errors, warnings, into_parts}` |
//! | `src/key/definition.rs` | `KeyDefinition`: one key of a template, with its wire flags. | `EXPERIMENTAL_MEMBER`, `DEPRECATED_MEMBER`, `KeyDefinition`, `KeyDefinition::{new, with_default, is_experimental, is_deprecated, effective_default}` |
//! | `src/key/key_type.rs` | `KeyType`, a key's value type, and `JsonKind`, the JSON type of a value, with the JSON Schema 2020-12 … | `KeyType`, `UnknownKeyType`, `JsonKind`, `KeyType::{ALL, as_str, matches, accepts}`, `JsonKind::{of, as_str}` |
//! | `src/key/mod.rs` | Key names, key types and key definitions: the building blocks of a template. | — |
//! | `src/key/name.rs` | `KeyName`: a snake_case key name, and the name the draft reserves. | `OTHER_KEY`, `KeyName`, `InvalidKeyName`, `KeyName::{new, as_str, is_other}` |
//! | `src/key/sensitivity.rs` | Security-relevant keys (§7): the `sensitive` marker a key carries, and the server-side classification of … | `SENSITIVE_MEMBER`, `Sensitivity`, `Sensitivity::{classify, as_str}`, `KeyDefinition::{sensitivity, with_sensitivity}` |
//! | `src/lib.rs` | Structured data for agent-to-agent messages: schema templates, structured payloads and their validation, … | — |
//! | `src/mcp/elicitation.rs` | Asking a user for a payload through an MCP client: the form-mode `elicitation/create` request, sent as its … | `CompiledSchema::mcp_elicitation_request` |
//! | `src/mcp/mod.rs` | MCP, by protocol revision: which revision the bridges speak (`McpVersion`, the newest by default) and, … | — |
//! | `src/mcp/version.rs` | The protocol revision: the newest by default, 2025-11-25 on request. | `McpVersion`, `UnknownMcpVersion`, `McpVersion::{ALL, LATEST, as_str, elicits_in_result}` |
//! | `src/negotiate.rs` | Negotiation and result messages: the schema request (§3.2 step 3, Appendix A.1), the execution result and … | `GET_SCHEMA_TEMPLATE`, `SchemaRequest`, `SchemaRequestParams`, `ExecutionResult`, `RejectedSuggestion`, `SchemaUpdateSuggestion`, `PatchReference`, `SchemaRequest::{new, is_get_schema_template}`, `SchemaUpdateSuggestion::{new_keys, modified_keys, removed_keys}`, `PatchReference::new` |
//! | `src/patch/compile_error.rs` | Why an effective schema could not be built: the base template broke a template rule, or a patch was refused. | `CompileError`, `CompileError::errors` |
//! | `src/patch/effective.rs` | The effective schema: a base template plus the patches that apply to one client at `now`, merged by the … | `EffectiveSchema`, `SchemaTemplate::digest`, `EffectiveSchema::{new, patches, client, states, authorizer, options, lenient, template, compile, digest, warnings}` |
//! | `src/patch/integrity.rs` | Integrity (§7): HMAC-SHA-256 signatures over the canonical form of patches, templates and suggestions, … | `SIGNATURE_MEMBER`, `MIN_KEY_BYTES`, `IntegrityError`, `Signer`, `Signer::{new, sign, verify, seal, check}` |
//! | `src/patch/key_states.rs` | Where a merge learns which patch keys exist and in what state: the `KeyStates` trait and its two sources, … | `KeyStates`, `AllExperimental` |
//! | `src/patch/lifecycle/clock.rs` | The bound on how far `now` may jump past the last evaluation. | `ClockJump`, `Lifecycle::clock_jump` |
//! | `src/patch/lifecycle/count_rows.rs` | The lifecycle's counters as the store's table rows: every metric count of every key and the message … | `Metric`, `CountRow`, `AdoptionRow`, `CountName`, `Metric::{as_str, parse}`, `CountRow::from_columns`, `AdoptionRow::from_columns` |
//! | `src/patch/lifecycle/counted.rs` | The lifecycle's counters out as rows (`crate::patch::CountRow`, `crate::patch::AdoptionRow`) and back in: … | — |
//! | `src/patch/lifecycle/day_window.rs` | Windowed counters: per-day buckets in a ring, so a 30-day window costs 30 counters whatever the traffic, … | — |
//! | `src/patch/lifecycle/evaluation.rs` | The evaluation machine: the forward-only moves `now` allows a key's state, applied (`Lifecycle::evaluate`) … | `Transition`, `Lifecycle::evaluate` |
//! | `src/patch/lifecycle/key_metrics.rs` | A key's metrics over the observation window (§6.2.3: usage frequency, semantic alignment accuracy, value … | `KeyMetrics`, `Lifecycle::metrics` |
//! | `src/patch/lifecycle/lifecycle_header.rs` | The lifecycle as a split header writes it (a store kept as rows): every member but the records' counts and … | — |
//! | `src/patch/lifecycle/policy.rs` | The lifecycle's policy (§6.2.3): the trial, the promotion and deprecation thresholds, the grace and … | `Thresholds`, `LifecyclePolicy`, `GuardScope` |
//! | `src/patch/lifecycle/recording.rs` | What feeds a key's counts: the payloads clients send, the judgments of whether a value matched the user's … | `Lifecycle::{record_payload, record_alignment, record_delivery}` |
//! | `src/patch/lifecycle/records.rs` | The lifecycle's records and the indexes kept over them: one record per (scope, key name) with its raw … | `KeyRecord`, `Lifecycle`, `Lifecycle::{is_consistent, new, policy, evaluated_at, records, track, record}` |
//! | `src/patch/lifecycle/serialized.rs` | How the lifecycle's maps are written: in a fixed order, so one state always gives the same bytes. | — |
//! | `src/patch/lifecycle/split_header.rs` | A key record as a store kept as rows writes it: a key row's body, without the counts and clients the count … | — |
//! | `src/patch/lifecycle/state.rs` | Where a patch key is in its life, and the names its states go by in a table column. | `KeyState`, `KeyState::{as_str, parse}` |
//! | `src/patch/lifecycle/views.rs` | What the lifecycle answers at `now` without changing anything: a key's state, the keys a client sees, the … | `Lifecycle::{state_at, keys_at, reservation, reserved_type, experimental_count}` |
//! | `src/patch/lifecycle.rs` | The key lifecycle (§6.2.3): every patch key's record and its metrics over the observation window, and the … | — |
//! | `src/patch/merge_rules.rs` | The rules of §6.2.2 every patch keeps: its own (its parent, its base's digest, the reserved key `other`, … | — |
//! | `src/patch/mod.rs` | Schema updates (§6.2.2, §6.2.3, §7): patches, the per-client effective schema they make, the key … | — |
//! | `src/patch/review.rs` | Proposals held for an operator (§7: updates that touch security-relevant keys MUST be authorized): what … | `MAX_PENDING`, `MAX_DENIALS`, `MATERIAL_CHANGE`, `HoldReason`, `Evidence`, `PendingProposal`, `Denial`, `ReviewError`, `Evidence::{from_texts, is_empty, shared_with, changed_since}`, `Denial::covers` |
//! | `src/patch/schema_patch.rs` | The schema patch itself (§6.2.2 Patch Packaging): who it applies to, what it adds and refines, when it … | `PatchScope`, `SchemaPatch`, `PatchError`, `PatchScope::{is_global, applies_to}`, `SchemaPatch::{new, from_slice, is_active_at}`, `PatchError::{patch_id, errors}` |
//! | `src/patch/security.rs` | Patch authorization (§7): schema updates that touch security-relevant keys must be authorized. | `PatchAuthorizer`, `DenySensitive` |
//! | `src/patch/store/cache.rs` | The compiled schema of each client, kept while what its merge reads is unchanged, so that a server may ask … | — |
//! | `src/patch/store/client_views.rs` | What the store shows each client at `now`: the schema it sees, compiled (and cached), its template with … | `SchemaStore::{compile_for, template_for, digest_for}` |
//! | `src/patch/store/evaluation.rs` | The store's evaluation at `now`: the lifecycle's moves, expired patches leaving the merge, what clients … | `Evaluation`, `SchemaStore::{evaluate, evaluate_after_pause}` |
//! | `src/patch/store/mod.rs` | The schema store: a server's evolving schema for one scenario (accepted patches, the convergence guard's … | — |
//! | `src/patch/store/recording.rs` | What feeds the store's lifecycle metrics from clients: the messages they send and the judgments of their … | `SchemaStore::{record, record_payload, record_alignment}` |
//! | `src/patch/store/retention.rs` | What the store keeps per client, and when it goes: the clients personal patches and keys name, and what … | — |
//! | `src/patch/store/review.rs` | The store's side of the operator loop: holding a proposal, listing what waits, approving (the operator's … | `APPROVED_BY_MEMBER`, `PendingProposal::{new, with_submitter, with_evidence}`, `SchemaStore::{hold, pending, denials, denial_covering, approve, deny}` |
//! | `src/patch/store/row_writes.rs` | Planning a save of the store's rows that change with every message — counters, adoptions, delivered keys — … | `AdoptionName`, `DeliveredName`, `KnownRows`, `StoreWrites`, `StoreRows::{writes, known}` |
//! | `src/patch/store/rows.rs` | The store as rows: its patches, key records, pending proposals and delivered keys one by one, each with … | `StoreRows`, `PatchStatus`, `PatchRow`, `KeyRow`, `PendingRow`, `DeliveredRow`, `RowError`, `StoreRows::{sort, records}`, `PatchStatus::{as_str, parse}`, `DeliveredRow::from_columns`, `PatchRow::{from_columns, patch}`, `KeyRow::from_columns`, `PendingRow::{from_columns, proposal}`, `SchemaStore::rows` |
//! | `src/patch/store/schema_store.rs` | The `SchemaStore` value: what it holds for one scenario, how one is made, and what it lets a caller read … | `SchemaStore`, `SchemaStore::{new, require_signatures, requires_signatures, sealed_save, with_options, base, patches, queued, lifecycle}` |
//! | `src/patch/store/seal.rs` | The seal of a store that requires signatures: the key's MAC over its snapshot, the number of the save that … | `SealPin`, `SealError`, `SealPin::{NONE, at_least, minimum}` |
//! | `src/patch/store/snapshot.rs` | The store's serialized form: everything a server needs to carry on after a restart (base, accepted and … | `STORE_FORMAT_VERSION`, `SavedAs`, `SchemaStore::{saved_as, from_sealed_slice, from_sealed_value}` |
//! | `src/patch/store/submission.rs` | Taking a patch: its window, its id (a replay answers as the first time, a reused id is refused), its own … | `Submission`, `SchemaStore::{submit, submit_by}` |
//! | `src/patch/store/suggestion.rs` | The `schema_update_suggestion` for a client's next execution result: what it has not been told, what … | `SchemaStore::suggestion_for` |
//! | `src/payload/builder.rs` | `PayloadBuilder`: the client side of draft §6.1's confidence thresholding, building structured payloads … | `DEFAULT_CONFIDENCE_THRESHOLD`, `PayloadBuilder`, `Placement`, `BuildError`, `PayloadBuilder::{new, with_threshold, threshold, set, set_from, push_other, unset, build}` |
//! | `src/payload/message.rs` | `StructuredPayload`: `{"schema_id", "payload"}`, the typed message. | `StructuredPayload`, `StructuredPayload::{new, with, to_value}` |
//! | `src/payload/mod.rs` | The structured payload message a client agent sends (§5, Appendix A.2), and `PayloadBuilder`, which builds … | — |
//! | `src/template.rs` | Schema templates (§4.1) and the checks that make one usable. | `SchemaTemplate`, `TemplateError`, `TemplateError::{errors, warnings, problems, into_problems}`, `SchemaTemplate::{new, from_json, from_slice, from_value, check, key}` |
//! | `src/validate/core/build_facts.rs` | What the serde_json built into this program does, asked at run time: any crate in the dependency tree can … | — |
//! | `src/validate/core/check.rs` | `Check`: how a key's value is checked, the one fact every reader and the scalar tables decide on. | — |
//! | `src/validate/core/compiled_key.rs` | `CompiledKey`: one key as validation reads it (its check, whether it is required, where its default lives, … | — |
//! | `src/validate/core/edits.rs` | `Edits`: what normalizing a valid payload changes. | `Checked`, `Edits`, `Edits::{keeps_members, removed, to_integer, integer, defaults}` |
//! | `src/validate/core/key_index.rs` | `KeyIndex`: finds a payload member's key by name. | — |
//! | `src/validate/core/key_set.rs` | `KeySet`: a set of a compiled schema's key indices, inline (no allocation) for schemas of up to 128 keys. | — |
//! | `src/validate/core/mod.rs` | The layer every reader builds on: the compiled schema and the validation pass. | — |
//! | `src/validate/core/options.rs` | Options fixed when a schema is compiled: the unknown-key policy and resource limits. | `UnknownKeys`, `Limits`, `BigIntegers`, `ValidateOptions`, `Limits::{with_max_depth, with_max_keys, with_max_bytes}`, `ValidateOptions::{unknown_keys, limits, big_integers}` |
//! | `src/validate/core/outcome.rs` | `Outcome`: where a validation pass sends what it finds — every issue collected (`Collect`, for a report) … | — |
//! | `src/validate/core/pass.rs` | The decisions of one validation pass over a payload's members, which every reader (`read/`) drives member … | — |
//! | `src/validate/core/scalars.rs` | `Scalars`: the scalar values a key takes as they are, read from a value's tag alone. | — |
//! | `src/validate/core/schema.rs` | `CompiledSchema`: a template turned into an immutable, shareable validator, and `SchemaCore`, the compiled … | `CompiledSchema`, `CompiledSchema::{new, with_options, from_template, from_template_with_options, digest, schema_id, template, options}` |
//! | `src/validate/core/shape.rs` | `Shape`: the few facts about a value that validation decides on. | — |
//! | `src/validate/mod.rs` | Compiled schemas and payload validation: compile a template once, then validate many messages, from a … | — |
//! | `src/validate/normalized.rs` | `Normalized`: the payload a valid message stands for, with defaults applied, `null` optional members left … | `Normalized`, `Members`, `Normalized::{get, contains_key, len, is_empty, iter, to_map, into_map, into_owned, deserialize}` |
//! | `src/validate/read/bytes.rs` | Validation straight from JSON text (`validate_slice`, `is_valid_slice` and their `str` forms), in one pass … | `CompiledSchema::{validate_slice, validate_str, is_valid_slice, is_valid_str}` |
//! | `src/validate/read/keyed.rs` | Validation of a payload held in another language's objects (a Python dict, a JavaScript object), member by … | `KeyedVerdict`, `KeyedProblems`, `CompiledSchema::{key_names, keyed_verdict, keyed_problems}`, `KeyedVerdict::{key, member, absent, finish}`, `KeyedProblems::{key, member, finish}` |
//! | `src/validate/read/mod.rs` | The readers: one per kind of input, each reducing members to what the core's pass decides on. | — |
//! | `src/validate/read/probe.rs` | Serde readers of single values that every serde-driven path shares: `Probe` reduces a value to its `Shape` … | — |
//! | `src/validate/read/response.rs` | What comes back: an execution result (draft §3.2 step 5: "the result itself SHOULD be structured according … | `SUGGESTION_MEMBER`, `SchemaTemplate::check_as_response`, `CompiledSchema::{validate_execution_result, validate_structured_content, validate_mcp_tool_result, validate_mcp_tool_result_for, validate_mcp_elicit_result}` |
//! | `src/validate/read/scan.rs` | A JSON scanner for the bytes path's usual message: it reads the text once, byte by byte, and hands each … | — |
//! | `src/validate/read/serde_source.rs` | Validation from any serde source (`is_valid_from`, `problems_from`): the message read member by member … | `CompiledSchema::{is_valid_from, is_valid_from_unique, problems_from}` |
//! | `src/validate/read/skip.rs` | Reading a JSON value without keeping it: what the bytes path does with the members it does not look into, … | — |
//! | `src/validate/read/stream.rs` | `Stream`: the state of one validation read in a single pass, fed by the bytes scanner (`scan.rs`) and by … | — |
//! | `src/validate/read/typed.rs` | Validation straight into the caller's own type: JSON text is validated in one pass, then its payload is … | `Accepted`, `Refusal`, `CompiledSchema::deserialize_slice` |
//! | `src/validate/read/value.rs` | The `Value` path: validation of a parsed message. | `CompiledSchema::{validate, validate_owned, is_valid, validate_payload, validate_payload_owned, is_valid_payload}` |
//! | `src/validate/report.rs` | The `Report` of a validation, and where issues go while one runs. | `Report`, `Report::{is_valid, errors, warnings, problems, normalized, into_normalized, into_parts, into_owned}` |
//! <!-- file-map:end -->
//!
//! Every feature is on by default; `default-features = false` leaves the
//! model and the validator (no `uuid`, no `time`).
//!
//! # What it does not do
//!
//! No I/O, no transport, no clock and no model (the optional
//! sentence-transformer is the workspace crate `sdsi-model`). It never calls an LLM; the
//! client's mapping of intent to keys is the caller's. Everything that
//! depends on time takes `now` as an argument.

#![cfg_attr(docsrs, feature(doc_cfg))]
// Links to the modules of features left out cannot resolve.
#![cfg_attr(
    not(all(
        feature = "export",
        feature = "envelope",
        feature = "a2a",
        feature = "patch",
        feature = "evolution"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]

pub mod _documentation;
#[cfg(feature = "a2a")]
pub mod a2a;
pub mod compat;
pub mod derive;
mod digest;
#[cfg(feature = "envelope")]
pub mod envelope;
#[cfg(feature = "evolution")]
pub mod evolution;
#[cfg(feature = "export")]
pub mod export;
mod extra_members;
#[cfg(feature = "export")]
pub mod import;
pub mod issue;
pub mod key;
pub mod mcp;
pub mod negotiate;
#[cfg(feature = "patch")]
pub mod patch;
pub mod payload;
pub mod template;
pub mod validate;

#[cfg(feature = "envelope")]
pub use envelope::Envelope;
// The trait and, with the feature, the derive of the same name (as serde
// pairs `Serialize` with its derive): `use sdsi::Template` brings both.
pub use derive::Template;
pub use issue::{Issue, IssueCode};
pub use key::{KeyDefinition, KeyName, KeyType};
#[cfg(feature = "patch")]
pub use patch::SchemaStore;
pub use payload::StructuredPayload;
#[cfg(feature = "derive")]
pub use sdsi_derive::Template;
pub use template::{SchemaTemplate, TemplateError};
pub use validate::{CompiledSchema, Normalized, Report};
