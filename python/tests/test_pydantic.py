"""Templates from pydantic models (``SchemaTemplate.from_pydantic``) and the
objects read as the JSON they stand for: a pydantic model such as an MCP
SDK ``Tool``, a ``Mapping``, a ``Decimal``, NumPy values."""

from __future__ import annotations

import enum
import json
import warnings
from collections import ChainMap
from decimal import Decimal
from types import MappingProxyType
from typing import Dict, List, Literal, Optional

import pytest

import sdsi

pydantic = pytest.importorskip("pydantic")
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402


class Cabin(str, enum.Enum):
    economy = "economy"
    business = "business"


class Seat(BaseModel):
    """A seat on the aircraft."""

    row: int = Field(description="Row number.")
    letter: str


class Booking(BaseModel):
    """Books one flight."""

    origin: str = Field(description="IATA code of the departure airport.")
    passengers: int = Field(1, description="How many travel.")
    cabin: Cabin = Field(Cabin.economy, description="Cabin class.")
    meal: Literal["veg", "meat"] = Field(description="Meal choice.")
    seat: Optional[Seat] = None
    tags: List[str] = Field(default_factory=list, description="Free labels.")
    extras: Dict[str, int] = Field(default_factory=dict, description="Paid extras and their counts.")
    note: Optional[str] = Field(None, description="A note for the crew.")
    returnDate: Optional[str] = Field(None, description="Date of the return flight.")


def template_and_warnings(model, **ids):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        template = sdsi.SchemaTemplate.from_pydantic(model, schema_id="booking_v1", scenario="flight_booking", **ids)
    return template, [w.message for w in caught if issubclass(w.category, sdsi.ConversionWarning)]


def test_from_pydantic_keys():
    template, _ = template_and_warnings(Booking)
    keys = {k["key_name"]: k for k in template.keys}
    assert [k["key_name"] for k in template.keys] == [
        "origin", "passengers", "cabin", "meal", "seat", "tags", "extras", "note", "return_date", "other",
    ]
    assert template.schema_id == "booking_v1" and template.scenario == "flight_booking"
    assert keys["origin"] == {"key_name": "origin", "key_type": "string", "required": True,
                              "semantic_description": "IATA code of the departure airport."}
    assert keys["passengers"]["default_value"] == 1 and not keys["passengers"]["required"]
    # Optional[T] is an optional T key; a nested model an object key that
    # names its members; an enum and a Literal string keys listing values.
    assert keys["note"]["key_type"] == "string" and not keys["note"]["required"]
    assert keys["seat"]["key_type"] == "object" and not keys["seat"]["required"]
    assert keys["seat"]["semantic_description"] == (
        "A seat on the aircraft. An object with members: row (integer), letter (string)."
    )
    assert keys["cabin"]["semantic_description"] == 'Cabin class. One of: "economy", "business".'
    assert keys["cabin"]["default_value"] == "economy"
    assert keys["meal"]["semantic_description"] == 'Meal choice. One of: "veg", "meat".' and keys["meal"]["required"]
    # default_factory=list / dict: the same value every time, so a default.
    assert keys["tags"] == {"key_name": "tags", "key_type": "array", "required": False, "default_value": [],
                            "semantic_description": "Free labels."}
    assert keys["extras"]["default_value"] == {} and keys["extras"]["key_type"] == "object"
    assert keys["other"]["key_type"] == "string" and not keys["other"]["required"]
    assert template.check() == []


def test_what_a_template_cannot_express_is_a_warning():
    _, caught = template_and_warnings(Booking)
    paths = {w.issue.path for w in caught}
    assert {"/properties/meal/enum", "/$defs/Cabin/enum", "/properties/tags/items"} <= paths
    # A name that is not snake_case is renamed, and said so: the model's
    # JSON then needs the key's name (pydantic's `validate_by_name`).
    assert "/properties/returnDate" in paths
    assert all(w.issue.code == "not_expressible" for w in caught)
    # pydantic's default `extra="ignore"` drops unknown members; that is no loss.
    assert "/additionalProperties" not in paths


def test_an_open_or_closed_model_says_so():
    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        size: str = Field(description="Cup size.")

    class Closed(BaseModel):
        model_config = ConfigDict(extra="forbid")
        size: str = Field(description="Cup size.")

    _, caught = template_and_warnings(Open)
    assert [w.issue.path for w in caught] == ["/additionalProperties"]
    _, caught = template_and_warnings(Closed)
    [note] = caught
    assert note.issue is None and "forbids extra members" in str(note)


def test_a_model_with_its_own_other_field_keeps_it():
    class WithOther(BaseModel):
        size: str = Field(description="Cup size.")
        other: Optional[List[str]] = Field(None, description="What the keys do not cover.")

    template, _ = template_and_warnings(WithOther)
    assert [k["key_name"] for k in template.keys] == ["size", "other"]
    assert template.key("other")["semantic_description"] == "What the keys do not cover."


def test_the_template_and_the_model_agree_on_a_valid_payload():
    template, _ = template_and_warnings(Booking)
    schema = sdsi.CompiledSchema(template)
    booking = Booking(origin="PEK", meal="veg", seat=Seat(row=12, letter="A"), extras={"bag": 1})
    report = schema.validate({"schema_id": "booking_v1", "payload": json.loads(booking.model_dump_json(exclude_none=True))})
    assert report.valid, report.errors
    assert Booking.model_validate(report.normalized) == booking


def test_from_pydantic_refuses_what_is_not_a_model_class():
    with pytest.raises(sdsi.InputError, match="pydantic 2 model class"):
        sdsi.SchemaTemplate.from_pydantic(Booking(origin="PEK", meal="veg"), schema_id="b_v1", scenario="b")


# --- Objects that stand for JSON ------------------------------------------

NUMBERS = {
    "schema_id": "numbers_v1",
    "scenario": "numbers",
    "keys": [
        {"key_name": "n", "key_type": "number", "required": True, "semantic_description": "A number."},
        {"key_name": "i", "key_type": "integer", "required": False, "semantic_description": "An integer."},
        {"key_name": "meta", "key_type": "object", "required": False, "semantic_description": "More."},
    ],
}


def both_ways(schema, payload, json_payload):
    """The report on `payload` equals the report on its JSON text."""
    m = {"schema_id": "numbers_v1", "payload": payload}
    text = json.dumps({"schema_id": "numbers_v1", "payload": json_payload})
    got, want = schema.validate(m), schema.validate(text)
    assert (got.valid, got.errors, got.normalized) == (want.valid, want.errors, want.normalized)
    assert schema.is_valid(m) == want.valid
    return got


def test_decimals_are_numbers():
    schema = sdsi.CompiledSchema(NUMBERS)
    assert both_ways(schema, {"n": Decimal("2.50"), "i": Decimal("7")}, {"n": 2.5, "i": 7}).normalized == {"n": 2.5, "i": 7}
    assert not both_ways(schema, {"n": 1, "i": Decimal("7.5")}, {"n": 1, "i": 7.5}).valid
    with pytest.raises(sdsi.InputError, match="not a JSON number"):
        schema.validate({"schema_id": "numbers_v1", "payload": {"n": Decimal("NaN")}})


def test_mappings_are_objects():
    schema = sdsi.CompiledSchema(NUMBERS)
    payload = MappingProxyType({"n": 1.5, "meta": ChainMap({"a": 1}, {"b": [2]})})
    assert both_ways(schema, payload, {"n": 1.5, "meta": {"a": 1, "b": [2]}}).normalized == {
        "n": 1.5, "meta": {"a": 1, "b": [2]}}
    assert sdsi.CompiledSchema(MappingProxyType(NUMBERS)).schema_id == "numbers_v1"
    assert sdsi.SchemaTemplate.from_dict(MappingProxyType(NUMBERS)).schema_id == "numbers_v1"


def test_pydantic_models_are_their_json():
    class Meta(BaseModel):
        source: str
        hint: Optional[str] = None

    schema = sdsi.CompiledSchema(NUMBERS)
    report = both_ways(schema, {"n": 1, "meta": Meta(source="app")}, {"n": 1, "meta": {"source": "app"}})
    assert report.normalized == {"n": 1, "meta": {"source": "app"}}


def test_numpy_values_are_numbers_and_arrays():
    np = pytest.importorskip("numpy")
    schema = sdsi.CompiledSchema(NUMBERS)
    payload = {"n": np.float32(0.5), "i": np.int64(3), "meta": {"v": np.arange(3), "ok": np.bool_(True)}}
    report = both_ways(schema, payload, {"n": 0.5, "i": 3, "meta": {"v": [0, 1, 2], "ok": True}})
    assert report.normalized == {"n": 0.5, "i": 3, "meta": {"v": [0, 1, 2], "ok": True}}
    assert type(report.normalized["i"]) is int


def test_an_mcp_sdk_tool_imports_as_is():
    types = pytest.importorskip("mcp.types")
    tool = types.Tool(
        name="book_flight",
        description="Books a flight.",
        inputSchema={"type": "object", "properties": {"origin": {"type": "string", "description": "From."}},
                     "required": ["origin"], "additionalProperties": False},
    )
    template, unsupported = sdsi.import_mcp_tool(tool)
    assert template.schema_id == "book_flight" and unsupported == []
    assert template.key("origin")["required"]
    assert sdsi.import_mcp_tool(tool.model_dump(by_alias=True, exclude_none=True))[0] == template


def test_what_stands_for_nothing_is_still_refused():
    schema = sdsi.CompiledSchema(NUMBERS)
    for bad in ({1, 2}, object(), Decimal("Infinity")):
        with pytest.raises(sdsi.InputError):
            schema.validate({"schema_id": "numbers_v1", "payload": {"n": 1, "meta": {"x": bad}}})
