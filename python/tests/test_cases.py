"""The Rust suite's data-driven cases (tests/cases/*.json) through Python:
the same verdicts, codes and paths from a dict, a str and bytes."""

from __future__ import annotations

import json

import pytest

import sdsi
from conftest import load_cases, pairs

PAYLOAD_FILES = ["draft_figures.json", "payload_codes.json", "options.json", "json_schema_suite.json"]


def compile_group(group):
    options = group.get("options", {})
    return sdsi.CompiledSchema(
        sdsi.SchemaTemplate.from_dict(group["schema"]),
        unknown_keys=options.get("unknown_keys", "reject"),
        max_depth=options.get("max_depth"),
        max_keys=options.get("max_keys"),
        max_bytes=options.get("max_bytes"),
        big_integers=options.get("big_integers", "accept"),
    )


def payload_cases():
    for name in PAYLOAD_FILES:
        for group in load_cases(name):
            for case in group["tests"]:
                yield pytest.param(group, case, id=f"{name}: {group['description']} / {case['description']}")


@pytest.mark.parametrize("group,case", list(payload_cases()))
def test_payload_case(group, case):
    schema = compile_group(group)
    text = json.dumps(case["data"])
    # A str argument is JSON text, so a message that is itself a JSON string
    # goes in as text only.
    as_object = not isinstance(case["data"], str)
    reports = {
        "dict": schema.validate(case["data"] if as_object else text),
        "str": schema.validate(text),
        "bytes": schema.validate(text.encode()),
    }
    for form, report in reports.items():
        assert report.valid == case["valid"], (form, report.errors)
        assert pairs(report.errors) == case["errors"], form
        assert pairs(report.warnings) == case.get("warnings", []), form
        assert all(issue.message for issue in report.errors + report.warnings)
        if "normalized" in case:
            # As JSON text, so that `1` and `1.0` differ.
            assert json.dumps(report.normalized, sort_keys=True) == json.dumps(case["normalized"], sort_keys=True), form
        if not case["valid"]:
            assert report.normalized is None
    assert schema.is_valid(case["data"] if as_object else text) == case["valid"]
    assert schema.is_valid(text) == case["valid"]
    assert schema.is_valid(text.encode()) == case["valid"]


def test_every_payload_file_has_cases():
    counts = {name: sum(len(g["tests"]) for g in load_cases(name)) for name in PAYLOAD_FILES}
    assert counts["payload_codes.json"] >= 25 and counts["json_schema_suite.json"] >= 60, counts


@pytest.mark.parametrize("case", load_cases("templates.json"), ids=lambda c: c["description"])
def test_template_case(case):
    if case["valid"]:
        template = sdsi.SchemaTemplate.from_dict(case["template"])
        assert pairs(template.check()) == case.get("warnings", [])
        assert template.to_dict() == case["template"]
        sdsi.CompiledSchema(template)
    else:
        with pytest.raises(sdsi.TemplateError) as raised:
            sdsi.SchemaTemplate.from_dict(case["template"])
        assert pairs(raised.value.errors) == case["errors"]
        with pytest.raises(sdsi.TemplateError) as from_text:
            sdsi.SchemaTemplate.from_json(json.dumps(case["template"]))
        assert pairs(from_text.value.errors) == case["errors"]


def envelope_cases():
    for name in ["envelope.json", "envelope_structured.json"]:
        for group in load_cases(name):
            for case in group["tests"]:
                yield pytest.param(group, case, id=f"{name}: {group['description']} / {case['description']}")


@pytest.mark.parametrize("group,case", list(envelope_cases()))
def test_envelope_case(group, case):
    schema = sdsi.CompiledSchema(group["schema"]) if "schema" in group else None
    text = json.dumps(case["data"])
    as_object = case["data"] if not isinstance(case["data"], str) else text
    for message in [as_object, text, text.encode()]:
        report = sdsi.parse_envelope(message, schema=schema)
        assert report.valid == case["valid"], report.errors
        assert pairs(report.errors) == case["errors"]
        assert pairs(report.warnings) == case["warnings"]
        assert (report.envelope is not None) == case["valid"]
        if schema is not None:
            assert (report.normalized is not None) == case["valid"]


@pytest.mark.parametrize("case", load_cases("import.json"), ids=lambda c: c["description"])
def test_import_case(case):
    if case.get("error"):
        with pytest.raises(sdsi.TemplateError):
            if case["from"] == "mcp-tool":
                sdsi.import_mcp_tool(case["input"])
            else:
                sdsi.import_json_schema(case["input"], case["schema_id"], case["scenario"])
        return
    if case["from"] == "mcp-tool":
        template, unsupported = sdsi.import_mcp_tool(case["input"])
    else:
        template, unsupported = sdsi.import_json_schema(case["input"], case["schema_id"], case["scenario"])
    if "schema_id_out" in case:
        assert template.schema_id == case["schema_id_out"]
    keys = sorted(
        [[k["key_name"], k["key_type"], k["required"], k.get("default_value")] for k in template.keys],
        key=lambda k: k[0],
    )
    assert keys == case["keys"]
    assert sorted(issue.path for issue in unsupported) == case["unsupported"]
    assert all(issue.code == "not_expressible" for issue in unsupported)


def compat_cases():
    for group in load_cases("compat.json"):
        for case in group["cases"]:
            yield pytest.param(group, case, id=f"{group['description']} ({case['mode']})")


@pytest.mark.parametrize("group,case", list(compat_cases()))
def test_compat_case(group, case):
    history = [sdsi.SchemaTemplate.from_dict(t) for t in group["history"]]
    report = sdsi.compat_check(history, group["new"], case["mode"])
    assert report["compatible"] == case["compatible"]
    assert [[c["code"], c["path"], c["direction"]] for c in report["changes"]] == case["changes"]
