"""Many threads validating against one compiled schema at once: every
answer equals the one-thread answer, for dicts (read holding the GIL), small
texts and texts of 16 KiB or more (validated with the GIL released)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import sdsi

TEMPLATE = {
    "schema_id": "notes_v1",
    "scenario": "notes",
    "keys": [
        {"key_name": "title", "key_type": "string", "required": True, "semantic_description": "Title."},
        {"key_name": "lines", "key_type": "array", "required": False, "semantic_description": "Lines of text."},
        {"key_name": "count", "key_type": "integer", "required": False, "default_value": 0,
         "semantic_description": "How many."},
    ],
}


def messages():
    small_ok = {"schema_id": "notes_v1", "payload": {"title": "t"}}
    small_bad = {"schema_id": "notes_v1", "payload": {"count": "x"}}
    # As text, past the 16 KiB from which the GIL is released.
    big_ok = {"schema_id": "notes_v1", "payload": {"title": "t", "lines": [f"line {i}" for i in range(5000)]}}
    big_bad = {"schema_id": "notes_v1", "payload": {"title": 1, "lines": [f"line {i}" for i in range(5000)]}}
    out = []
    for m in [small_ok, small_bad, big_ok, big_bad]:
        out += [m, json.dumps(m), json.dumps(m).encode()]
    return out


def answer(schema, message):
    report = schema.validate(message)
    normalized = None if report.normalized is None else json.dumps(report.normalized, sort_keys=True)
    return (report.valid, [(i.code, i.path) for i in report.errors], normalized, schema.is_valid(message))


def test_threads_get_the_same_answers():
    schema = sdsi.CompiledSchema(TEMPLATE)
    inputs = messages()
    expected = [answer(schema, m) for m in inputs]
    assert len(json.dumps(inputs[6])) > 16 << 10
    assert [e[0] for e in expected] == [True] * 3 + [False] * 3 + [True] * 3 + [False] * 3

    def work(round_):
        order = list(range(len(inputs)))
        order = order[round_ % len(order):] + order[: round_ % len(order)]
        return [(i, answer(schema, inputs[i])) for i in order]

    with ThreadPoolExecutor(max_workers=8) as pool:
        for results in pool.map(work, range(64)):
            for i, got in results:
                assert got == expected[i]
