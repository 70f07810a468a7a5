"""``SchemaTemplate.from_pydantic``: a template from a pydantic 2 model.

The model's own JSON Schema (``model_json_schema()``) is imported by the
crate (``import_json_schema``: ``$ref``s, ``Optional[T]``, defaults and
descriptions, every narrowing reported). Before that, the schema is told
what only the model knows or a template can only say in words: a
``default_factory`` of ``list`` / ``dict`` becomes a ``[]`` / ``{}``
default, and the allowed values of an enum or ``Literal`` and the members
of a nested model are added to the key's description, so a client's model
reads them. After it, an ``other`` key is added when the model has none.
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any, Dict, List, Optional

from ._errors import ConversionWarning, InputError
from ._sdsi import SchemaTemplate, import_json_schema

# The words of the draft's Figure 2, as the Rust derive writes them.
OTHER_DESCRIPTION = (
    "Escape valve for unstructured semantic fragments that cannot be mapped to existing keys: "
    "a string, or an array of strings for several."
)

# Factories whose value is the same every time, so it can be a template's default.
_CONSTANT_FACTORIES = {list: [], tuple: [], set: [], frozenset: [], dict: {}}


def from_pydantic(model: Any, schema_id: str, scenario: str) -> SchemaTemplate:
    if not (isinstance(model, type) and hasattr(model, "model_json_schema") and hasattr(model, "model_fields")):
        raise InputError(f"from_pydantic takes a pydantic 2 model class, not {model!r}")
    schema = model.model_json_schema(mode="validation")
    properties = schema.get("properties")
    if isinstance(properties, dict):
        defs = schema.get("$defs", {})
        for name, prop in list(properties.items()):
            if isinstance(prop, dict):
                properties[name] = _described(prop, defs)
        _factory_defaults(model, properties)
    template, unsupported = import_json_schema(schema, schema_id, scenario)
    extra = model.model_config.get("extra")
    for issue in unsupported:
        # pydantic's default, `extra="ignore"`, drops unknown members
        # rather than allowing them: a template that refuses them says the
        # same to a client (docs/python.md).
        if issue.path == "/additionalProperties" and extra in (None, "ignore"):
            continue
        warnings.warn(ConversionWarning(issue), stacklevel=2)
    written = template.to_dict()
    written["keys"] = _in_field_order(written["keys"], list(properties) if isinstance(properties, dict) else [])
    if not any(key["key_name"] == "other" for key in written["keys"]):
        written["keys"].append(
            {"key_name": "other", "key_type": "string", "required": False, "semantic_description": OTHER_DESCRIPTION}
        )
        if extra == "forbid":
            warnings.warn(
                ConversionWarning(
                    None,
                    f"{model.__name__} forbids extra members, so a payload's `other` fails its "
                    "validation: declare an `other` field, or drop it from the normalized payload first",
                ),
                stacklevel=2,
            )
    return SchemaTemplate.from_dict(written)


def _squashed(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def _in_field_order(keys: List[Dict[str, Any]], names: List[str]) -> List[Dict[str, Any]]:
    """The keys in the model's field order (the import may list them in
    another). A key named otherwise than its property (``bookTitle`` is
    ``book_title``) is matched with its letters and digits alone."""
    exact = {name: at for at, name in enumerate(names)}
    loose = {_squashed(name): at for at, name in enumerate(names)}

    def place(key: Dict[str, Any]) -> int:
        name = key["key_name"]
        return exact.get(name, loose.get(_squashed(name), len(names)))

    return sorted(keys, key=place)


def _resolved(prop: Dict[str, Any], defs: Dict[str, Any]) -> Dict[str, Any]:
    """The schema a property stands for: through a local ``$ref`` and the
    non-null branch of ``Optional[T]``."""
    seen = 0
    while seen < 16:
        seen += 1
        branches = prop.get("anyOf") or prop.get("oneOf")
        if isinstance(branches, list):
            real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            if len(real) == 1 and isinstance(real[0], dict):
                prop = real[0]
                continue
        ref = prop.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and isinstance(defs.get(ref[8:]), dict):
            prop = defs[ref[8:]]
            continue
        break
    return prop


def _type_name(prop: Dict[str, Any], defs: Dict[str, Any]) -> str:
    kind = _resolved(prop, defs).get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind if isinstance(kind, str) else "any value"


def _values(target: Dict[str, Any]) -> Optional[List[Any]]:
    if isinstance(target.get("enum"), list):
        return target["enum"]
    if "const" in target:
        return [target["const"]]
    return None


def _words(target: Dict[str, Any], defs: Dict[str, Any]) -> Optional[str]:
    """What a template key cannot say but a description can: the allowed
    values, or a nested object's members (as the Rust derive writes them)."""
    values = _values(target)
    if values is not None:
        return "One of: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "."
    members = target.get("properties")
    if isinstance(members, dict) and members:
        required = set(target.get("required") or ())
        parts = []
        for name, member in members.items():
            kind = _type_name(member, defs) if isinstance(member, dict) else "any value"
            parts.append(f"{name} ({kind})" if name in required else f"{name} ({kind}, optional)")
        return "An object with members: " + ", ".join(parts) + "."
    items = target.get("items")
    if target.get("type") == "array" and isinstance(items, dict):
        inner = _words(_resolved(items, defs), defs)
        if inner is not None:
            return "Each item: " + inner[0].lower() + inner[1:]
    return None


def _described(prop: Dict[str, Any], defs: Dict[str, Any]) -> Dict[str, Any]:
    """``prop`` with a description that says what its type cannot."""
    target = _resolved(prop, defs)
    description = prop.get("description") or target.get("description") or prop.get("title") or target.get("title")
    words = _words(target, defs)
    if words is None and description == prop.get("description"):
        return prop
    prop = copy.copy(prop)
    text = (description or "").strip()
    if words is not None:
        text = f"{text} {words}".strip() if text else words
    prop["description"] = text
    return prop


def _factory_defaults(model: Any, properties: Dict[str, Any]) -> None:
    for name, field in model.model_fields.items():
        factory = getattr(field, "default_factory", None)
        if factory not in _CONSTANT_FACTORIES:
            continue
        alias = field.validation_alias if isinstance(field.validation_alias, str) else field.alias
        prop = properties.get(alias or name)
        if isinstance(prop, dict) and "default" not in prop:
            prop["default"] = copy.copy(_CONSTANT_FACTORIES[factory])

