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
from conftest import COFFEE


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


class _Name(str):
    pass


class _Count(int):
    pass


class _Ratio(float):
    pass


def _exact_json_types(value, at="normalized"):
    """Every object in `value` is of a type json.loads makes, not a subclass."""
    assert type(value) in (dict, list, str, int, float, bool, type(None)), (at, type(value))
    if type(value) is dict:
        for name, item in value.items():
            assert type(name) is str, (at, type(name))
            _exact_json_types(item, f"{at}/{name}")
    elif type(value) is list:
        for i, item in enumerate(value):
            _exact_json_types(item, f"{at}/{i}")


def test_normalized_is_plain_json_and_fixed_at_every_depth():
    from types import MappingProxyType

    schema = sdsi.CompiledSchema(COFFEE)
    inner, behind_proxy, in_tuple = [1, _Count(2)], {"x": [True]}, ["deep"]
    item = {
        _Name("k"): _Name("v"), "n": _Count(3), "r": _Ratio(0.5), "big": 2**70, "none": None,
        "t": ("a", in_tuple), "m": MappingProxyType(behind_proxy), "inner": inner,
    }
    m = message(size=_Name("s"), extras=[item, (4, 5)], other="ok")
    report = schema.validate(m)
    want = {"size": "s", "extras": [{"k": "v", "n": 3, "r": 0.5, "big": float(2**70), "none": None,
                                     "t": ["a", ["deep"]], "m": {"x": [True]}, "inner": [1, 2]}, [4, 5]],
            "other": "ok", "shots": 1}
    assert report.normalized == want
    _exact_json_types(report.normalized)
    # The text of the same message normalizes alike.
    assert schema.validate(json.dumps(m, default=dict)).normalized == want
    # Every container the message holds, changed in place afterwards.
    inner.append(3)
    behind_proxy["x"].append(False)
    behind_proxy["y"] = 1
    in_tuple.clear()
    item["n"] = "three"
    m["payload"]["extras"].append("more")
    assert report.normalized == want
    _exact_json_types(report.normalized)


def test_a_dict_subclass_is_normalized_from_what_it_stores():
    class Lying(dict):
        def keys(self):
            return ["size", "seat"]

        def items(self):
            return [("size", 3), ("seat", "1")]

        def __iter__(self):
            return iter(["size", "seat"])

        def __getitem__(self, name):
            return 3

    # CPython's own copy of such a dict would ask its keys() and
    # __getitem__, giving {"size": 3, "seat": 3}: not what was validated.
    schema = sdsi.CompiledSchema(COFFEE)
    for payload, want in (
        (Lying(size="s"), {"size": "s", "shots": 1}),
        (Lying(size="s", extras=[Lying(a=1)]), {"size": "s", "extras": [{"a": 1}], "shots": 1}),
    ):
        report = schema.validate({"schema_id": "coffee_v1", "payload": payload})
        assert report.valid and report.normalized == want


_NAMES_WITH_THEIR_OWN_HASH = """
import itertools, sys
sys.path[:0] = {path!r}
import sdsi
schema = sdsi.CompiledSchema({template!r})
calls = itertools.count()

class Fickle(str):
    # A new hash on every call: a copy that wrote under this name would add
    # a member each time, and a walk of that copy would never end.
    def __hash__(self):
        return next(calls)

    def __eq__(self, other):
        return self is other

message = {{"schema_id": "coffee_v1", "payload": {{"size": "s", "extras": [{{Fickle("k"): [1]}}]}}}}
live = [1]
message["payload"][Fickle("other_list")] = live
report = sdsi.CompiledSchema({template!r}, unknown_keys="warn").validate(message)
live.append({{1, 2}})  # not JSON: it must not reach the report
print(report.valid, report.normalized["extras"], report.normalized["other_list"])
"""


def test_names_with_their_own_hash_neither_hang_nor_leak():
    import subprocess
    import sys

    script = _NAMES_WITH_THEIR_OWN_HASH.format(path=[p for p in sys.path if p], template=COFFEE)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "[{'k':", "[1]}]", "[1]"]


def test_a_name_whose_equality_changes_cannot_redirect_the_copy():
    flag = [False]

    class Shifty(str):
        __hash__ = str.__hash__

        def __eq__(self, other):
            return flag[0]

    live = [1]
    inner = {Shifty("a"): 2, "a": live}
    flag[0] = True
    report = sdsi.CompiledSchema(COFFEE).validate(message(size="s", extras=[inner]))
    live.append(2)
    # Two members both named "a", as the message's JSON text would have
    # them; text keeps the last, and so does the copy, as it was then.
    assert report.normalized["extras"] == [{"a": [1]}]


def test_a_report_whose_payload_cannot_be_read_still_pickles():
    schema = sdsi.CompiledSchema(COFFEE)
    report = schema.validate(message(size="s", extras=["\udcff"]))
    assert report.valid
    back = round_trip(report)
    assert back.valid and back.errors == report.errors
    with pytest.raises(sdsi.InputError, match="lone surrogate"):
        back.normalized


def test_names_that_compare_in_python_are_never_compared_by_the_copy():
    armed = [False]

    class Loud(str):
        def __hash__(self):
            return 7

        def __eq__(self, other):
            if armed[0] and isinstance(other, Loud) and str(other) != str(self):
                raise RuntimeError("a name's __eq__ ran")
            return str.__eq__(self, other)

    payload = {"size": "s", Loud("aa"): 1, Loud("bb"): 2}
    # Deleted members make CPython copy the dict by inserting each member
    # again, comparing names whose hashes are equal.
    for i in range(20):
        payload[f"j{i}"] = i
    for i in range(20):
        del payload[f"j{i}"]
    armed[0] = True
    report = sdsi.CompiledSchema(COFFEE, unknown_keys="warn").validate({"schema_id": "coffee_v1", "payload": payload})
    assert report.valid and report.normalized == {"size": "s", "aa": 1, "bb": 2, "shots": 1}


def test_an_object_that_reads_differently_the_second_time_is_not_normalized_unchecked():
    from decimal import Decimal

    class Flip(Decimal):
        reads = 0

        def as_tuple(self):
            Flip.reads += 1
            shape = Decimal.as_tuple(self)
            # A whole number to the validation pass, 2.5 afterwards.
            return shape._replace(exponent=0) if Flip.reads == 1 else shape

    report = sdsi.CompiledSchema(COFFEE).validate(message(size="s", shots=Flip("2.5")))
    assert report.valid  # 25, an integer, when it was validated
    with pytest.raises(sdsi.InputError, match="changed while it was validated"):
        report.normalized


def test_a_lone_surrogate_deep_inside_is_refused_when_normalized_is_read():
    schema = sdsi.CompiledSchema(COFFEE)
    for extras in ([{"\udcff": 1}], [["\udcff"]], [{"k": {"\udcff": "x"}}]):
        report = schema.validate(message(size="s", extras=extras))
        assert report.valid
        with pytest.raises(sdsi.InputError, match="lone surrogate"):
            report.normalized


def test_validate_can_skip_the_normalized_payload():
    from types import MappingProxyType

    schema = sdsi.CompiledSchema(COFFEE)
    valid, invalid = message(size="s", extras=[{"a": [1]}]), message(shots="x")
    mapping = {"schema_id": "coffee_v1", "payload": MappingProxyType({"size": "s"})}
    for m in (valid, json.dumps(valid), json.dumps(valid).encode(), invalid, mapping):
        full, bare = schema.validate(m), schema.validate(m, normalized=False)
        assert (bare.valid, bare.errors, bare.warnings) == (full.valid, full.errors, full.warnings)
        assert bare.normalized is None and bare.to_dict()["normalized"] is None
        assert (full.normalized is None) == (not full.valid)
        assert round_trip(bare).normalized is None
    with pytest.raises(sdsi.ValidationError):
        schema.validate(invalid, normalized=False).raise_for_errors()


def test_a_mapping_message_is_normalized_as_its_dict():
    from types import MappingProxyType

    schema = sdsi.CompiledSchema(COFFEE)
    proxied = message(size="s")
    proxied["payload"] = MappingProxyType(proxied["payload"])
    report = schema.validate(proxied)
    assert report.valid and report.normalized == {"size": "s", "shots": 1}
