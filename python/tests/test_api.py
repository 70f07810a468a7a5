"""The API's contracts: round trips, exceptions, input forms, exports."""

from __future__ import annotations

import json
import math
import sys
from collections import OrderedDict
from datetime import datetime, timedelta, timezone

import pytest

import sdsi

COFFEE = {
    "schema_id": "coffee_v1",
    "scenario": "coffee_order",
    "keys": [
        {"key_name": "size", "key_type": "string", "required": True,
         "semantic_description": "Cup size: small, medium or large."},
        {"key_name": "shots", "key_type": "integer", "required": False, "default_value": 1,
         "semantic_description": "Espresso shots, 1-4."},
        {"key_name": "extras", "key_type": "array", "required": False,
         "semantic_description": "Toppings, e.g. ['cinnamon']."},
        {"key_name": "other", "key_type": "string", "required": False,
         "semantic_description": "Anything else the customer asked for."},
    ],
}


@pytest.fixture
def schema():
    return sdsi.CompiledSchema(sdsi.SchemaTemplate.from_dict(COFFEE))


def message(**payload):
    return {"schema_id": "coffee_v1", "payload": payload}


def test_template_round_trips_through_dict_and_json(flight_template_text):
    template = sdsi.SchemaTemplate.from_json(flight_template_text)
    assert sdsi.SchemaTemplate.from_dict(template.to_dict()) == template
    assert sdsi.SchemaTemplate.from_json(template.to_json()) == template
    assert sdsi.SchemaTemplate.from_json(flight_template_text.encode()) == template
    assert template.to_dict() == json.loads(template.to_json())
    assert template.schema_id == "flight_booking_v1"
    assert [k["key_name"] for k in template.keys][:2] == ["origin", "destination"]
    assert template.key("origin")["required"] is True and template.key("nope") is None
    assert template.digest().startswith("sha256:") and len(template.digest()) == 71


def test_report_reads_like_the_issue_says(schema):
    report = schema.validate(message(size="large"))
    assert report.valid and report.errors == () and report.warnings == ()
    assert report.normalized == {"size": "large", "shots": 1}
    assert report.to_dict()["normalized"] == report.normalized
    bad = schema.validate(message(shots="two", extras="cinnamon", surprise=1))
    assert not bad.valid and bad.normalized is None
    assert [(i.code, i.path) for i in bad.errors] == [
        ("type_mismatch", "/payload/extras"),
        ("type_mismatch", "/payload/shots"),
        ("missing_required_key", "/payload/size"),
        ("unknown_key", "/payload/surprise"),
    ]
    issue = bad.errors[0]
    # The crate's own form, as the CLI writes it: a type mismatch says what
    # was expected and found.
    assert issue.message and issue.to_dict() == {"code": "type_mismatch", "path": "/payload/extras",
                                                 "message": issue.message, "expected": "array", "found": "string"}
    assert bad.to_dict()["errors"][0] == issue.to_dict()
    assert "type_mismatch" in repr(issue) and "Report(valid=False, errors=4" in repr(bad)


def test_str_bytes_bytearray_and_dict_agree(schema):
    for payload in [dict(size="s"), dict(shots=2.0, size="m"), dict(size=3), dict(other=["a", 1], size="l")]:
        text = json.dumps(message(**payload))
        forms = [message(**payload), text, text.encode(), bytearray(text.encode())]
        reports = [schema.validate(form) for form in forms]
        assert len({(r.valid, tuple((i.code, i.path) for i in r.errors)) for r in reports}) == 1, payload
        assert len({json.dumps(r.normalized, sort_keys=True) for r in reports}) == 1, payload
        assert len({schema.is_valid(form) for form in forms}) == 1


def test_numbers_match_the_text_path(schema):
    # A whole float is an integer (JSON Schema), normalized to an int; an int
    # beyond 64 bits is read as JSON text would be.
    report = schema.validate(message(size="s", shots=3.0))
    assert report.normalized["shots"] == 3 and isinstance(report.normalized["shots"], int)
    huge = 18446744073709551616
    from_dict = schema.validate(message(size="s", shots=huge))
    from_text = schema.validate(json.dumps(message(size="s", shots=huge)))
    assert from_dict.valid == from_text.valid
    assert [(i.code, i.path) for i in from_dict.errors] == [(i.code, i.path) for i in from_text.errors]
    strict = sdsi.CompiledSchema(COFFEE, big_integers="reject")
    assert not strict.is_valid(message(size="s", shots=huge))


def test_an_int_subclass_is_read_by_its_value(schema):
    class Lying(int):
        def __float__(self):
            return 1.0

    strict = sdsi.CompiledSchema(COFFEE, big_integers="reject")
    big = Lying(2**70)
    as_dict = strict.validate(message(size="s", shots=big))
    as_text = strict.validate(json.dumps(message(size="s", shots=big)))
    assert [(i.code, i.path) for i in as_dict.errors] == [(i.code, i.path) for i in as_text.errors] != []
    with pytest.raises(sdsi.InputError, match="range of a double"):
        schema.validate(message(size="s", shots=10**400))


def test_subclasses_and_tuples_are_json(schema):
    ordered = OrderedDict([("schema_id", "coffee_v1"), ("payload", OrderedDict(size="s", extras=("a", "b")))])
    assert schema.validate(ordered).valid
    assert schema.validate(ordered).normalized["extras"] == ["a", "b"]


@pytest.mark.parametrize("bad,words", [
    ({1, 2}, "set is not JSON"),
    (float("nan"), "not a JSON number"),
    (math.inf, "not a JSON number"),
    (datetime(2026, 1, 1), "datetime is not JSON"),
    ({1: "x"}, "dict key must be a str"),
    (object(), "object is not JSON"),
])
def test_values_that_are_not_json_raise_input_error(schema, bad, words):
    with pytest.raises(sdsi.InputError, match=words):
        schema.validate(message(size="s", extras=[bad]))
    with pytest.raises(ValueError):
        schema.is_valid(message(size="s", extras=[bad]))


def test_is_valid_stops_at_the_first_error_and_validate_reads_everything(schema):
    wrong_then_not_json = {"schema_id": "tea_v1", "payload": {"size": "s", "extras": [{1, 2}]}}
    assert schema.is_valid(wrong_then_not_json) is False
    with pytest.raises(sdsi.InputError, match="set is not JSON"):
        schema.validate(wrong_then_not_json)
    # Before any error, what is not JSON is refused by both.
    not_json_first = {"schema_id": "coffee_v1", "payload": {"extras": [{1, 2}], "size": "s"}}
    with pytest.raises(sdsi.InputError):
        schema.is_valid(not_json_first)


def test_a_lone_surrogate_is_refused_where_its_text_is_read(schema):
    bad = "\udcff"
    with pytest.raises(sdsi.InputError, match="lone surrogate"):
        schema.validate({"schema_id": "coffee_v1", "payload": {bad: 1, "size": "s"}})
    with pytest.raises(sdsi.InputError, match="lone surrogate"):
        schema.validate(bad)
    # Inside a member's value only its being a str counts (docs/python.md);
    # the text is read, and refused, when the normalized payload is built.
    report = schema.validate(message(size=bad))
    assert report.valid
    with pytest.raises(sdsi.InputError, match="lone surrogate"):
        report.normalized


def test_a_self_containing_or_very_deep_message_gets_the_depth_limit(schema):
    loop = []
    loop.append(loop)
    report = schema.validate(message(size="s", extras=loop))
    assert [(i.code, i.path) for i in report.errors] == [("limit_exceeded", "/payload/extras")]
    deep = []
    for _ in range(5000):
        deep = [deep]
    assert [(i.code, i.path) for i in schema.validate(message(size="s", extras=deep)).errors] == [
        ("limit_exceeded", "/payload/extras")
    ]
    # Within the limit, the whole value is kept.
    ok = []
    for _ in range(30):
        ok = [ok]
    assert schema.validate(message(size="s", extras=ok)).normalized["extras"] == ok
    # A schema whose own limit is above the converter's bound: an error, not a cut.
    wide = sdsi.CompiledSchema(COFFEE, max_depth=100_000)
    with pytest.raises(sdsi.InputError, match="nested deeper"):
        wide.validate(message(size="s", extras=loop))


def test_exceptions_share_a_base_and_carry_every_issue():
    for cls in [sdsi.TemplateError, sdsi.InputError, sdsi.PatchError, sdsi.EnvelopeError, sdsi.StateError]:
        assert issubclass(cls, sdsi.SdsiError) and issubclass(cls, ValueError)
    broken = dict(COFFEE, schema_id="", keys=[{"key_name": "Bad Name", "key_type": "text", "required": True,
                                                 "semantic_description": "x"}])
    with pytest.raises(sdsi.TemplateError) as raised:
        sdsi.SchemaTemplate.from_dict(broken)
    codes = {(i.code, i.path) for i in raised.value.errors}
    assert len(codes) >= 2 and all(isinstance(i, sdsi.Issue) for i in raised.value.errors)
    assert "invalid schema template" in str(raised.value)
    with pytest.raises(sdsi.TemplateError):
        sdsi.SchemaTemplate.from_json("{not json")
    with pytest.raises(sdsi.InputError, match="str or bytes"):
        sdsi.SchemaTemplate.from_json(42)
    with pytest.raises(sdsi.InputError, match="unknown_keys"):
        sdsi.CompiledSchema(COFFEE, unknown_keys="maybe")


def test_options_change_the_answer():
    warn = sdsi.CompiledSchema(COFFEE, unknown_keys="warn")
    report = warn.validate(message(size="s", surprise=1))
    assert report.valid and [(i.code, i.path) for i in report.warnings] == [("unknown_key", "/payload/surprise")]
    assert warn.options()["unknown_keys"] == "warn"
    small = sdsi.CompiledSchema(COFFEE, max_bytes=16)
    assert [i.code for i in small.validate(json.dumps(message(size="s"))).errors] == ["limit_exceeded"]


def test_exports_are_dicts_that_describe_the_template(schema):
    exported = schema.json_schema()
    assert exported["properties"]["schema_id"]["const"] == "coffee_v1"
    payload = exported["properties"]["payload"]
    assert payload["required"] == ["size"] and "integer" in payload["properties"]["shots"]["type"]
    mcp = schema.mcp_input_schema()
    assert mcp["type"] == "object" and "size" in mcp["properties"]
    assert schema.mcp_output_schema()["type"] == "object"
    strict, warnings = schema.strict_schema()
    assert strict["additionalProperties"] is False and all(isinstance(w, sdsi.Issue) for w in warnings)
    form, _ = schema.mcp_elicitation_schema()
    assert form["type"] == "object"
    assert "coffee_v1" in schema.prompt()
    assert schema.template == sdsi.SchemaTemplate.from_dict(COFFEE)
    assert schema.digest() == schema.template.digest()


def test_exports_list_keys_in_the_template_order(schema):
    # size, shots, extras, other: not the alphabet's extras, other, shots, size.
    order = ["size", "shots", "extras", "other"]
    assert list(schema.json_schema()["properties"]) == ["schema_id", "payload"]
    assert list(schema.json_schema()["properties"]["payload"]["properties"]) == order
    assert list(schema.mcp_input_schema()["properties"]) == order
    assert list(schema.mcp_output_schema()["properties"]) == order
    strict, _ = schema.strict_schema()
    assert list(strict["properties"]) == order and strict["required"] == order
    form, _ = schema.mcp_elicitation_schema()
    assert list(form["properties"]) == ["size", "shots", "other"]
    assert json.dumps(strict).index('"size"') < json.dumps(strict).index('"other"')


def test_exports_bound_integers_when_big_integers_are_rejected():
    reject = sdsi.CompiledSchema(COFFEE, big_integers="reject")
    shots = reject.mcp_input_schema()["properties"]["shots"]
    assert (shots["minimum"], shots["maximum"]) == (-(2**63), 2**64 - 1)
    assert "maximum" not in sdsi.CompiledSchema(COFFEE).mcp_input_schema()["properties"]["shots"]


def test_envelopes_are_built_and_checked(schema, now):
    built = sdsi.make_envelope(agent_id="barista_client", target_agent="cafe", message_type="structured_payload",
                               payload=message(size="s"), now=now + timedelta(hours=1), capabilities=["order"])
    assert built["timestamp"] == "2026-11-23T13:00:00Z" and built["capabilities"] == ["order"]
    report = sdsi.parse_envelope(built, schema=schema)
    assert report.valid and report.normalized == {"size": "s", "shots": 1}
    assert report.envelope["id"] == built["id"]
    other_zone = datetime(2026, 11, 23, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    assert sdsi.make_envelope(agent_id="a", target_agent="b", message_type="t", payload={},
                              now=other_zone, id=built["id"])["timestamp"] == "2026-11-23T12:00:00Z"
    with pytest.raises(sdsi.EnvelopeError):
        sdsi.make_envelope(agent_id="a", target_agent="b", message_type="t", payload={}, now=now, id="not-a-uuid")
    with pytest.raises(sdsi.InputError, match="timezone-aware"):
        sdsi.make_envelope(agent_id="a", target_agent="b", message_type="t", payload={}, now=datetime(2026, 1, 1))


def test_a2a_fields_round_trip_and_validate_data():
    template = sdsi.SchemaTemplate.from_dict(COFFEE)
    fields = sdsi.fields_from_template(template)
    assert [f["name"] for f in fields] == ["size", "shots", "extras", "other"]
    back, warnings = sdsi.template_from_fields("coffee_v1", "coffee_order", fields)
    assert [k["key_name"] for k in back.keys] == ["size", "shots", "extras", "other"] and warnings == []
    compiled = sdsi.CompiledFields(fields)
    assert compiled.validate_data({"size": "s"}).valid
    assert [i.code for i in compiled.validate_data({"shots": 2}).errors] == ["missing_required_key"]
    extension = sdsi.agent_extension([template], required=True)
    card = {"capabilities": {"extensions": [extension]}}
    assert sdsi.templates_from_agent_card(card) == [template]
    assert sdsi.templates_from_agent_card({}) == []
    schema = sdsi.CompiledSchema(template)
    part = sdsi.a2a_data_part(schema, message(size="s"))
    assert part["data"]["payload"] == {"size": "s"}
    assert sdsi.validate_a2a_data_part(schema, part).valid


def test_execution_result_survives_a_bad_suggestion():
    booking = sdsi.CompiledSchema({"schema_id": "booking_result_v1", "scenario": "booking", "keys": [
        {"key_name": "status", "key_type": "string", "required": True, "semantic_description": "Outcome."}]})
    result = {"status": "confirmed", "schema_update_suggestion": {"new_keys": [{"key_name": "Bad Name"}]}}
    report = booking.validate_execution_result(result)
    assert report.errors and all(i.path.startswith("/schema_update_suggestion") for i in report.errors)
    assert booking.validate_execution_result({"status": "confirmed"}).valid


def test_help_shows_docstrings():
    for item in [sdsi.SchemaTemplate, sdsi.CompiledSchema, sdsi.CompiledSchema.validate, sdsi.Report,
                 sdsi.Issue, sdsi.SchemaStore, sdsi.Evolution, sdsi.parse_envelope, sdsi.compat_check]:
        assert item.__doc__ and len(item.__doc__) > 20, item


def _answer(report):
    issues = lambda items: [(i.code, i.path, i.message) for i in items]  # noqa: E731
    return report.valid, issues(report.errors), issues(report.warnings), json.dumps(report.normalized, sort_keys=True)


class _Id(str):
    pass


@pytest.mark.parametrize("unknown_keys", ["reject", "warn"])
def test_message_dicts_of_every_form_agree_with_their_text(unknown_keys):
    # The usual message is settled by asking the payload for each key; any
    # other form goes to the general reader. Both must answer as the text does.
    size = "".join(["si", "ze"])  # equal to the key, but not the same object
    cases = [
        message(size="s"),
        message(size="s", shots=2.0, extras=None),
        message(size="s", shots="two"),
        message(shots=1),
        message(size="s", surprise={"deep": [1]}),
        {"schema_id": "coffee_v1", "payload": {size: "s"}},
        {"schema_id": "coffee_v1", "payload": OrderedDict(size="s", shots=3)},
        {"schema_id": "coffee_v1", "payload": {"size": "s"}, "trace": "x"},
        {"schema_id": "tea_v1", "payload": {"size": "s"}},
        {"schema_id": _Id("coffee_v1"), "payload": {"size": "s"}},
        {"schema_id": "coffee_v1", "payload": []},
        {"schema_id": "coffee_v1"},
    ]
    strict = sdsi.CompiledSchema(COFFEE, unknown_keys=unknown_keys, max_depth=1)
    for m in cases:
        text = json.dumps(m)
        assert strict.is_valid(m) == strict.is_valid(text), text
        assert _answer(strict.validate(m)) == _answer(strict.validate(text)), text


def test_a_key_that_is_not_a_str_is_refused(schema):
    bad = {"schema_id": "coffee_v1", "payload": {"size": "s", 1: "x"}}
    warn = sdsi.CompiledSchema(COFFEE, unknown_keys="warn")
    for call in (schema.validate, schema.is_valid, warn.validate, warn.is_valid):
        with pytest.raises(sdsi.InputError, match="dict key must be a str"):
            call(bad)
    # The verdict stops at the first problem, before the bad key here.
    assert schema.is_valid({"schema_id": "coffee_v1", "payload": {"size": 3, 1: "x"}}) is False


_COLLECTION_DURING_READ = """
import gc, sys
sys.path[:0] = {path!r}
import sdsi
schema = sdsi.CompiledSchema({template!r}, big_integers="reject")
fired = 0
for round in range(40):
    for call in (schema.is_valid, schema.validate):
        # Ints past 64 bits are read through allocating calls; with a
        # threshold of 1 each can start a collection, whose callback empties
        # the message being read. Made at run time, so only the message
        # holds them.
        big = int("1" * (25 + round % 3))
        extras = [int("2" * 25), "a", {{"k": int("3" * 25)}}]
        payload = {{"size": "s", "shots": big, "extras": extras}}
        if round % 4 == 1:
            # First, a name with a lone surrogate: reading it raises (so
            # allocates) inside CPython.
            payload = {{"\\udcff" + "x" * round: 1, **payload}}
        message = {{"schema_id": "coffee_v1", "payload": payload}}
        if round % 4 == 2:
            message["trace"] = [int("4" * 25)]  # three members: the general reader
        del big
        def empty(phase, info, payload=payload, extras=extras):
            global fired
            fired += 1
            payload.clear()
            extras.clear()
        gc.callbacks.append(empty)
        # Nothing between here and the call allocates, so the collections
        # start inside it.
        gc.set_threshold(1)
        try:
            call(message)
        except sdsi.SdsiError:
            pass
        finally:
            gc.set_threshold(700)
            gc.callbacks.remove(empty)
print(fired)
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="from 3.12 a collection runs between bytecodes, never inside an allocation of ours")
def test_a_collection_that_empties_the_message_mid_read_is_safe():
    # Items are read through their container's reference (python/src/borrowed.rs):
    # a finalizer run by a collection mid-read must not free what is being
    # read. Run with CPython's debug allocator, which poisons freed memory,
    # so a use after free crashes the child instead of passing by luck.
    import os
    import subprocess

    script = _COLLECTION_DURING_READ.format(path=[p for p in sys.path if p], template=COFFEE)
    env = dict(os.environ, PYTHONMALLOC="debug")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 0, "no collection ran during the reads"


def test_a_report_builds_its_tuples_once_and_hands_out_a_new_dict_each_read(schema):
    invalid = schema.validate(message(size=3, shots="x"))
    assert invalid.errors is invalid.errors and len(invalid.errors) == 2
    assert isinstance(invalid.errors, tuple) and invalid.warnings == ()
    valid = schema.validate(message(size="s"))
    first = valid.normalized
    assert first is not valid.normalized
    first["note"] = "mine"
    assert "note" not in valid.normalized


def test_mcp_tool_results_are_read_by_protocol_revision(schema):
    done = {"resultType": "complete", "content": [], "structuredContent": {"size": "s"}}
    assert schema.validate_mcp_tool_result(done).valid
    asking = {"resultType": "input_required", "requestState": "opaque"}
    assert [(i.code, i.path) for i in schema.validate_mcp_tool_result(asking).errors] == [
        ("missing_payload", "/resultType")
    ]
    odd = dict(done, resultType="partial")
    assert not schema.validate_mcp_tool_result(odd).valid
    assert schema.validate_mcp_tool_result(odd, protocol_version="2025-11-25").valid
    with pytest.raises(sdsi.InputError, match="2026-07-28"):
        schema.validate_mcp_tool_result(done, protocol_version="2024-01-01")


def test_mcp_exports_follow_the_protocol_revision(schema):
    newest = schema.mcp_input_schema()
    assert newest["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert list(newest)[0] == "$schema"
    older = schema.mcp_input_schema(protocol_version="2025-11-25")
    assert "$schema" not in older and older["properties"] == newest["properties"]
    assert schema.mcp_output_schema(protocol_version="2025-11-25") == older
    asking, warnings = schema.mcp_elicitation_request("Your order?")
    form, form_warnings = schema.mcp_elicitation_schema()
    assert asking["resultType"] == "input_required"
    assert [(i.code, i.path) for i in warnings] == [(i.code, i.path) for i in form_warnings]
    assert asking["inputRequests"]["coffee_v1"]["params"]["requestedSchema"] == form
    own, _ = schema.mcp_elicitation_request("Your order?", protocol_version="2025-11-25")
    assert own["method"] == "elicitation/create" and own["params"]["message"] == "Your order?"
    answer = {"action": "accept", "content": {"size": "s"}}
    assert schema.validate_mcp_elicit_result(answer).valid
    assert [i.code for i in schema.validate_mcp_elicit_result({"action": "decline"}).errors] == ["missing_payload"]
