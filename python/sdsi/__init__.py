"""Structured data for agent-to-agent messages.

Schema templates (typed keys with semantic descriptions), structured
payloads and their validation, schema exports, the message envelope, A2A
fields, schema patches with per-client schemas and the key lifecycle, and
the self-evolution engine, as specified by
draft-zhou-structured-data-schema-interaction-00. A binding of the Rust
crate ``sdsi``; see docs/python.md.

>>> import sdsi
>>> template = sdsi.SchemaTemplate.from_dict({
...     "schema_id": "coffee_v1", "scenario": "coffee",
...     "keys": [{"key_name": "size", "key_type": "string", "required": True,
...               "semantic_description": "Cup size: small, medium or large."}]})
>>> schema = sdsi.CompiledSchema(template)
>>> schema.validate({"schema_id": "coffee_v1", "payload": {"size": "large"}}).valid
True
"""

from ._errors import (
    ConversionWarning,
    EnvelopeError,
    InputError,
    IssueList,
    PatchError,
    SdsiError,
    StateError,
    TemplateError,
    ValidationError,
)
from ._sdsi import (
    CompiledFields,
    CompiledSchema,
    EnvelopeReport,
    Evolution,
    Issue,
    Report,
    SchemaStore,
    SchemaTemplate,
    __version__,
    a2a_data_part,
    agent_extension,
    compat_check,
    effective_template,
    fields_from_template,
    import_json_schema,
    import_mcp_tool,
    make_envelope,
    parse_envelope,
    template_from_fields,
    templates_from_agent_card,
    validate_a2a_data_part,
)

__all__ = [
    "CompiledFields",
    "CompiledSchema",
    "ConversionWarning",
    "EnvelopeError",
    "EnvelopeReport",
    "Evolution",
    "InputError",
    "Issue",
    "IssueList",
    "PatchError",
    "Report",
    "SchemaStore",
    "SchemaTemplate",
    "SdsiError",
    "StateError",
    "TemplateError",
    "ValidationError",
    "__version__",
    "a2a_data_part",
    "agent_extension",
    "compat_check",
    "effective_template",
    "fields_from_template",
    "import_json_schema",
    "import_mcp_tool",
    "make_envelope",
    "parse_envelope",
    "template_from_fields",
    "templates_from_agent_card",
    "validate_a2a_data_part",
]
