#!/usr/bin/env python3
"""Derives json_schema_suite.json from the JSON-Schema-Test-Suite excerpt.

Usage: python3 gen_json_schema_suite.py ../../../shared/data/json-schema-test-suite > json_schema_suite.json

Each single-type `type` group becomes a template with one required key `value`
of that type; each test's data becomes that key's value with the suite's
verdict. The object cases of the `required validation` group become a template
with `foo` required and `bar` optional. Groups whose semantics the protocol
does not share (union types, non-object instances, non-snake_case names) are
left out.
"""
import json
import sys

src = sys.argv[1]
groups = []


def template(schema_id, keys):
    return {"schema_id": schema_id, "scenario": "conformance", "keys": keys}


def key(name, key_type, required):
    return {"key_name": name, "key_type": key_type, "required": required,
            "semantic_description": f"{name} ({key_type})"}


for g in json.load(open(f"{src}/type.json")):
    t = g["schema"]["type"]
    if isinstance(t, list):
        if len(t) != 1:
            continue
        t = t[0]
    tests = []
    for case in g["tests"]:
        tests.append({
            "description": case["description"],
            "data": {"schema_id": "suite_type", "payload": {"value": case["data"]}},
            "valid": case["valid"],
            "errors": [] if case["valid"] else [["type_mismatch", "/payload/value"]],
        })
    groups.append({
        "description": f"JSON-Schema-Test-Suite type.json: {g['description']}",
        "schema": template("suite_type", [key("value", t, True)]),
        "tests": tests,
    })

for g in json.load(open(f"{src}/required.json")):
    if g["description"] not in ("required validation", "required with empty array"):
        continue
    required = set(g["schema"].get("required", []))
    names = list(g["schema"].get("properties", {}))
    tests = []
    for case in g["tests"]:
        if not isinstance(case["data"], dict):
            continue
        missing = sorted(n for n in required if n not in case["data"])
        tests.append({
            "description": case["description"],
            "data": {"schema_id": "suite_required", "payload": case["data"]},
            "valid": case["valid"],
            "errors": [["missing_required_key", f"/payload/{n}"] for n in missing],
        })
    groups.append({
        "description": f"JSON-Schema-Test-Suite required.json: {g['description']}",
        "schema": template("suite_required", [key(n, "integer", n in required) for n in names]),
        "tests": tests,
    })

json.dump(groups, sys.stdout, indent=1)
print()
