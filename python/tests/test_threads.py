"""Many threads validating against one compiled schema at once: every
answer equals the one-thread answer, for dicts (read holding the GIL), small
texts and texts of 16 KiB or more (validated with the GIL released); and a
store another thread uses while the evolution engine's embedder runs."""

from __future__ import annotations

import json
import threading
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


def test_the_store_is_free_while_a_python_embedder_runs(now):
    """Evolution.observe calls a Python embedder before it borrows the store,
    so another thread may use the store meanwhile (no "Already borrowed")."""
    from conftest import COFFEE_BASE

    store = sdsi.SchemaStore(COFFEE_BASE)
    entered, release = threading.Event(), threading.Event()

    def slow_model(texts):
        entered.set()
        assert release.wait(10)
        return [[1.0] + [0.0] * 7 for _ in texts]

    engine = sdsi.Evolution(slow_model, dimension=8, threshold=0.5)
    message = {"schema_id": "coffee_v1", "payload": {"size": "s", "other": "oat milk"}}
    done = {}

    def observe():
        try:
            done["events"] = engine.observe(store, message, "c1", now)
        except BaseException as error:  # noqa: BLE001 - reported below
            done["error"] = error

    worker = threading.Thread(target=observe)
    worker.start()
    try:
        assert entered.wait(10)
        # The embedder is running on the other thread: the store is free.
        store.record(message, "c2", now)
        assert store.patches == [] and store.to_json()
    finally:
        release.set()
        worker.join(10)
    assert "error" not in done, done.get("error")
    assert isinstance(done["events"], list)
    assert json.loads(engine.state())
