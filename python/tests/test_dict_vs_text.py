"""A dict and its JSON text get the same answer: random messages (a fixed
seed, so a failure reproduces) against templates of every key type, under
varied options, through both paths: verdict, codes, paths, messages,
warnings and the normalized payload."""

from __future__ import annotations

import json
import random

import sdsi

TYPES = ["string", "integer", "number", "boolean", "array", "object"]


def template(rng: random.Random):
    keys = []
    for i in range(rng.randint(1, 6)):
        kind = rng.choice(TYPES)
        key = {"key_name": f"k{i}_{kind}", "key_type": kind, "required": rng.random() < 0.5,
               "semantic_description": f"Key {i}, a {kind}."}
        if not key["required"] and rng.random() < 0.3:
            key["default_value"] = value_of_type(rng, kind, 1)
        keys.append(key)
    keys.append({"key_name": "other", "key_type": "string", "required": False,
                 "semantic_description": "Anything else."})
    return {"schema_id": "rand_v1", "scenario": "random", "keys": keys}


def value_of_type(rng: random.Random, kind: str, depth: int):
    return {
        "string": lambda: rng.choice(["", "a", "ünï", "x" * 40]),
        "integer": lambda: rng.choice([0, -1, 7, 2**63, 2**64 + 1, 2**70]),
        "number": lambda: rng.choice([0.5, -0.0, 1e20, 3.0, 2]),
        "boolean": lambda: rng.random() < 0.5,
        "array": lambda: [any_value(rng, depth + 1) for _ in range(rng.randint(0, 3))],
        "object": lambda: {f"m{j}": any_value(rng, depth + 1) for j in range(rng.randint(0, 3))},
    }[kind]()


def any_value(rng: random.Random, depth: int):
    if depth > 6 or rng.random() < 0.4:
        return rng.choice([None, True, 3, 2.0, 1.5, "s", 2**65])
    return value_of_type(rng, rng.choice(TYPES), depth)


def clean_message(rng: random.Random, t):
    """A message the template accepts (nested values may still break the
    depth limit): the required keys and some optional ones, typed right."""
    payload = {}
    for key in t["keys"]:
        if key["required"] or rng.random() < 0.5:
            if key["key_name"] == "other":
                payload["other"] = "window seat"
            else:
                payload[key["key_name"]] = value_of_type(rng, key["key_type"], 2)
    return {"schema_id": "rand_v1", "payload": payload}


def message(rng: random.Random, t):
    if rng.random() < 0.5:
        return clean_message(rng, t)
    payload = {}
    for key in t["keys"]:
        roll = rng.random()
        if roll < 0.15:
            continue
        if roll < 0.25:
            payload[key["key_name"]] = None
        elif roll < 0.45:
            payload[key["key_name"]] = any_value(rng, 2)
        elif key["key_name"] == "other":
            payload["other"] = rng.choice(["window seat", ["a", "b"], ["a", 1], 5])
        else:
            payload[key["key_name"]] = value_of_type(rng, key["key_type"], 2)
    if rng.random() < 0.2:
        payload["surprise"] = any_value(rng, 2)
    shown = {"schema_id": rng.choice(["rand_v1", "rand_v1", "rand_v1", "other_v1", 3]), "payload": payload}
    if rng.random() < 0.05:
        shown["payload"] = rng.choice([[], "text", None])
    if rng.random() < 0.05:
        del shown["schema_id"]
    return shown


def answer(report):
    issues = lambda items: [(i.code, i.path, i.message) for i in items]  # noqa: E731
    # As JSON text: `1`, `1.0` and `true` differ there (they are equal in
    # Python); member order is not part of the answer.
    normalized = json.dumps(report.normalized, sort_keys=True)
    return report.valid, issues(report.errors), issues(report.warnings), normalized


def test_random_messages_agree_as_dict_and_as_text():
    rng = random.Random(20261123)
    valid = 0
    for _ in range(60):
        t = template(rng)
        options = dict(
            unknown_keys=rng.choice(["reject", "warn"]),
            max_depth=rng.choice([None, 0, 1, 3]),
            max_keys=rng.choice([None, 1, 3]),
            big_integers=rng.choice(["accept", "reject"]),
        )
        schema = sdsi.CompiledSchema(t, **options)
        for _ in range(40):
            m = message(rng, t)
            text = json.dumps(m)
            assert answer(schema.validate(m)) == answer(schema.validate(text)), (options, text)
            assert schema.is_valid(m) == schema.is_valid(text), (options, text)
            valid += schema.is_valid(m)
    # Enough valid messages that the normalized payloads are compared often.
    assert valid >= 500, valid


def nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def test_a_dict_and_its_text_agree_on_names_repeated_inside_values():
    """JSON text may repeat a member name inside a value; `json.loads` keeps
    the last occurrence, as the crate's reader of the text must: a deep first
    occurrence replaced by a shallow one is no depth error."""
    t = {"schema_id": "notes_v1", "scenario": "notes", "keys": [
        {"key_name": "meta", "key_type": "object", "required": True,
         "semantic_description": "Anything about the note."},
        {"key_name": "tags", "key_type": "array", "required": False,
         "semantic_description": "Labels."}]}
    deep = nested(40)
    payloads = [
        f'{{"meta":{{"a":{deep},"a":1}}}}',
        f'{{"meta":{{"a":1,"a":{deep}}}}}',
        f'{{"meta":{{"list":[{{"b":{{"a":{deep},"a":[]}}}}]}}}}',
        f'{{"meta":{{}},"tags":[1,{{"a":{deep},"a":"x"}}]}}',
        f'{{"meta":{{}},"extra":{{"a":{deep},"a":null}}}}',
        f'{{"meta":{{}},"extra":{{"a":null,"a":{deep}}}}}',
        '{"meta":{"a":[[1]],"a":1}}',
    ]
    schemas = [sdsi.CompiledSchema(t, unknown_keys=u, max_depth=d)
               for u in ("reject", "warn") for d in (None, 2)]
    for payload in payloads:
        text = f'{{"schema_id":"notes_v1","payload":{payload}}}'
        m = json.loads(text)
        for schema in schemas:
            assert answer(schema.validate(m)) == answer(schema.validate(text)), text
            assert schema.is_valid(m) == schema.is_valid(text), text
    # The issue's example is valid either way.
    text = f'{{"schema_id":"notes_v1","payload":{payloads[0]}}}'
    assert schemas[0].is_valid(text) and schemas[0].is_valid(json.loads(text))


def test_a_dict_and_its_text_agree_at_the_deepest_nesting():
    # JSON text past serde_json's nesting bound is `invalid_json`; the dict
    # reader stops at the same level with an InputError (docs/python.md,
    # "Nesting"): a dict one level deeper than text allows is never valid.
    template = {"schema_id": "deep_v1", "scenario": "deep", "keys": [
        {"key_name": "v", "key_type": "array", "required": True, "semantic_description": "Nested."}]}
    for max_depth in (None, 118, 119, 200):
        options = {} if max_depth is None else {"max_depth": max_depth}
        schema = sdsi.CompiledSchema(template, **options)
        for levels in range(118, 130):
            for make in (lambda v: [v], lambda v: {"k": v}):
                value: object = []
                for _ in range(levels):
                    value = make(value)
                message = {"schema_id": "deep_v1", "payload": {"v": [value]}}
                try:
                    as_dict = schema.validate(message)
                except sdsi.InputError:
                    as_dict = None
                as_text = schema.validate(json.dumps(message))
                if as_dict is None:
                    assert [i.code for i in as_text.errors] == ["invalid_json"], (max_depth, levels)
                else:
                    assert as_dict.valid == as_text.valid, (max_depth, levels)
