"""Errors that plug into pydantic-shaped code: ``Report.raise_for_errors()``
raises ``sdsi.ValidationError``, whose ``errors()`` is a list of ``{"type",
"loc", "msg", "input"}`` with ``loc`` a tuple from the message root (ints
for array indices), and every ``Issue`` has that ``loc``."""

from __future__ import annotations

import json

import pytest

import sdsi
from conftest import COFFEE


@pytest.fixture
def schema():
    return sdsi.CompiledSchema(COFFEE)


def bad_message():
    # Missing `size`, `shots` a string, an `other` array holding a number,
    # and an unknown member whose name is all digits.
    return {"schema_id": "coffee_v1", "payload": {"shots": "two", "other": ["oat milk", 3], "2024": True}}


def test_a_valid_report_raises_nothing(schema):
    report = schema.validate({"schema_id": "coffee_v1", "payload": {"size": "s"}})
    assert report.raise_for_errors() is None


@pytest.mark.parametrize("as_text", [False, True])
def test_errors_come_in_pydantics_shape(schema, as_text):
    message = bad_message()
    subject = json.dumps(message) if as_text else message
    with pytest.raises(sdsi.ValidationError) as raised:
        schema.validate(subject).raise_for_errors()
    error = raised.value
    assert isinstance(error, sdsi.SdsiError) and isinstance(error, ValueError)
    details = error.errors()
    by_loc = {d["loc"]: d for d in details}
    assert set(by_loc) == {("payload", "2024"), ("payload", "other", 1), ("payload", "shots"), ("payload", "size")}
    for detail in details:
        assert set(detail) >= {"type", "loc", "msg", "input"}
        assert isinstance(detail["loc"], tuple) and isinstance(detail["msg"], str)
    # The value found there; for a missing member, the object that lacks it.
    assert by_loc[("payload", "size")]["type"] == "missing_required_key"
    assert by_loc[("payload", "size")]["input"] == message["payload"]
    assert by_loc[("payload", "shots")]["input"] == "two"
    assert by_loc[("payload", "shots")]["ctx"] == {"expected": "integer", "found": "string"}
    assert by_loc[("payload", "other", 1)]["input"] == 3
    assert by_loc[("payload", "2024")] == {
        "type": "unknown_key", "loc": ("payload", "2024"),
        "msg": by_loc[("payload", "2024")]["msg"], "input": True,
    }
    assert [d["loc"] for d in error.errors(include_input=False, include_context=False)] == [d["loc"] for d in details]
    assert all(set(d) == {"type", "loc", "msg"} for d in error.errors(include_input=False, include_context=False))
    # Uncalled, `errors` is the issues themselves, like every SdsiError's.
    assert [i.loc for i in error.errors] == [d["loc"] for d in details]
    assert "validation failed (4 problems)" in str(error)


def test_not_json_text_has_the_text_as_its_input(schema):
    with pytest.raises(sdsi.ValidationError) as raised:
        schema.validate("{not json").raise_for_errors()
    [detail] = raised.value.errors()
    assert detail["type"] == "invalid_json" and detail["loc"] == () and detail["input"] == "{not json"


def test_a_bare_payload_has_locations_from_its_own_root(schema):
    report = schema.validate_payload({"shots": 1.5, "0": 1})
    assert sorted(i.loc for i in report.errors) == [("0",), ("shots",), ("size",)]
    with pytest.raises(sdsi.ValidationError) as raised:
        report.raise_for_errors()
    assert {d["loc"]: d["input"] for d in raised.value.errors()}[("shots",)] == 1.5


def test_issue_loc_decodes_the_pointer():
    template = dict(COFFEE, keys=COFFEE["keys"] + [{"key_name": "size", "key_type": "string", "required": True,
                                                    "semantic_description": "Again."}])
    with pytest.raises(sdsi.TemplateError) as raised:
        sdsi.CompiledSchema(template)
    # Template errors point into the template: `keys` then an index.
    assert all(i.loc[:1] == ("keys",) and isinstance(i.loc[1], int) for i in raised.value.errors)
    assert raised.value.errors()[0]["loc"] == raised.value.errors[0].loc


def test_a_member_name_with_a_slash_or_tilde_is_one_segment(schema):
    report = schema.validate({"schema_id": "coffee_v1", "payload": {"size": "s", "a/b~c": 1}})
    [issue] = report.errors
    assert issue.path == "/payload/a~1b~0c" and issue.loc == ("payload", "a/b~c")


def test_the_errors_suit_fastapi_and_pydantic(schema):
    pydantic_core = pytest.importorskip("pydantic_core")
    with pytest.raises(sdsi.ValidationError) as raised:
        schema.validate(bad_message()).raise_for_errors()
    # pydantic-core builds its own ValidationError from line errors of this
    # shape (type aside, which must be one of its own): the loc tuples and
    # inputs are what it takes.
    lines = [
        {"type": pydantic_core.PydanticCustomError(d["type"], d["msg"]), "loc": d["loc"], "input": d["input"]}
        for d in raised.value.errors()
    ]
    error = pydantic_core.ValidationError.from_exception_data("Coffee", lines)
    assert [e["loc"] for e in error.errors()] == [d["loc"] for d in raised.value.errors()]
