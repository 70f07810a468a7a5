"""Pickle and copy for every class a worker process needs (templates,
compiled schemas, issues, reports, the exceptions), immutable results,
hashes that agree with equality, and a normalized payload that later
changes to the message cannot reach."""

from __future__ import annotations

import copy
import json
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import sdsi

COFFEE = {
    "schema_id": "coffee_v1",
    "scenario": "coffee_order",
    "keys": [
        {"key_name": "size", "key_type": "string", "required": True, "semantic_description": "Cup size."},
        {"key_name": "shots", "key_type": "integer", "required": False, "default_value": 1,
         "semantic_description": "Espresso shots."},
        {"key_name": "extras", "key_type": "array", "required": False, "semantic_description": "Add-ons."},
        {"key_name": "other", "key_type": "string", "required": False, "semantic_description": "Anything else."},
    ],
}


def message(**payload):
    return {"schema_id": "coffee_v1", "payload": payload}


def round_trip(thing):
    return pickle.loads(pickle.dumps(thing))


def test_templates_and_schemas_pickle_and_copy():
    template = sdsi.SchemaTemplate.from_dict(COFFEE)
    assert round_trip(template) == template and hash(round_trip(template)) == hash(template)
    assert copy.copy(template) is template and copy.deepcopy(template) is template
    schema = sdsi.CompiledSchema(template, unknown_keys="warn", max_depth=3, max_keys=9, big_integers="reject")
    back = round_trip(schema)
    assert back.template == template and back.options() == schema.options()
    assert back.digest() == schema.digest()
    assert copy.deepcopy(schema) is schema


def test_issues_pickle_equal_with_everything_they_carry():
    schema = sdsi.CompiledSchema(COFFEE, max_keys=2)
    issues = list(schema.validate(message(size=3, shots="x", extras=1, seat="12A")).errors)
    issues += list(sdsi.CompiledSchema(COFFEE).validate(message(size=3, extras=[1, 2])).errors)
    assert {i.code for i in issues} >= {"limit_exceeded", "type_mismatch"}
    for issue in issues:
        back = round_trip(issue)
        assert back == issue and hash(back) == hash(issue)
        assert back.to_dict() == issue.to_dict() and back.loc == issue.loc
    assert len(set(issues) | {round_trip(i) for i in issues}) == len(set(issues))


def test_a_payload_member_named_like_an_index_stays_a_name_after_pickling():
    report = sdsi.CompiledSchema(COFFEE).validate(message(size="s", **{"7": 1}))
    [issue] = round_trip(report).errors
    assert issue.loc == ("payload", "7")


@pytest.mark.parametrize("as_text", [False, True])
def test_reports_pickle_with_their_verdict_issues_payload_and_inputs(as_text):
    schema = sdsi.CompiledSchema(COFFEE)
    # The valid payload out of alphabetical order, which a JSON map imposes.
    for m in (message(size="s", extras=["oat"], shots=2.0), message(shots="x", seat=[1])):
        subject = json.dumps(m) if as_text else m
        report = schema.validate(subject)
        back = round_trip(report)
        assert back.valid == report.valid
        assert back.errors == report.errors and back.warnings == report.warnings
        assert back.normalized == report.normalized and back.to_dict() == report.to_dict()
        if report.valid:
            assert list(back.normalized) == list(report.normalized)
        assert copy.copy(report) is report
        if not report.valid:
            with pytest.raises(sdsi.ValidationError) as before:
                report.raise_for_errors()
            with pytest.raises(sdsi.ValidationError) as after:
                back.raise_for_errors()
            assert after.value.errors() == before.value.errors()


def test_exceptions_pickle_with_their_issues():
    with pytest.raises(sdsi.TemplateError) as raised:
        sdsi.CompiledSchema(dict(COFFEE, keys=[dict(COFFEE["keys"][0], key_type="text")]))
    back = round_trip(raised.value)
    assert type(back) is sdsi.TemplateError and str(back) == str(raised.value)
    assert back.errors == raised.value.errors and back.errors
    with pytest.raises(sdsi.ValidationError) as raised:
        sdsi.CompiledSchema(COFFEE).validate(message(shots="x")).raise_for_errors()
    back = round_trip(raised.value)
    assert isinstance(back, sdsi.ValidationError) and back.errors() == raised.value.errors()


def _validate_in_worker(schema, text):
    report = schema.validate(text)
    try:
        report.raise_for_errors()
    except sdsi.ValidationError as error:
        return report, error
    return report, None


def test_a_process_pool_takes_schemas_and_gives_back_reports_and_errors():
    schema = sdsi.CompiledSchema(COFFEE)
    texts = [json.dumps(message(size="s")), json.dumps(message(shots="x"))]
    with ProcessPoolExecutor(max_workers=1) as pool:
        (good, none), (bad, error) = pool.map(_validate_in_worker, [schema, schema], texts)
    assert good.valid and good.normalized == {"size": "s", "shots": 1} and none is None
    assert not bad.valid and [d["loc"] for d in error.errors()] == [("payload", "shots"), ("payload", "size")]


def test_results_are_immutable():
    report = sdsi.CompiledSchema(COFFEE).validate(message(shots="x"))
    assert isinstance(report.errors, tuple) and isinstance(report.warnings, tuple)
    with pytest.raises(AttributeError):
        report.errors[0].code = "other"  # type: ignore[misc]
    assert sdsi.SchemaTemplate.from_dict(COFFEE).keys is not sdsi.SchemaTemplate.from_dict(COFFEE).keys


def test_normalized_is_fixed_when_the_message_is_validated():
    schema = sdsi.CompiledSchema(COFFEE)
    extras = ["oat"]
    m = message(size="s", extras=extras, shots=None)
    report = schema.validate(m)
    # Every later change to the message: a new member, a wrong type, a
    # nested list changed in place, the payload swapped out.
    m["payload"]["seat"] = "12A"
    m["payload"]["size"] = 3
    extras.append(4)
    assert report.normalized == {"size": "s", "extras": ["oat"], "shots": 1}
    m["payload"] = "gone"
    assert report.normalized == {"size": "s", "extras": ["oat"], "shots": 1}
    # Nor does changing what a read handed out.
    report.normalized["extras"].append("x")
    assert report.normalized["extras"] == ["oat"]


def test_a_mapping_message_is_normalized_as_its_dict():
    from types import MappingProxyType

    schema = sdsi.CompiledSchema(COFFEE)
    proxied = message(size="s")
    proxied["payload"] = MappingProxyType(proxied["payload"])
    report = schema.validate(proxied)
    assert report.valid and report.normalized == {"size": "s", "shots": 1}
