"""The evolution engine with a Python callable as its embedder."""

from __future__ import annotations

import json
import math
import re
import zlib
from datetime import timedelta

import pytest

import sdsi
from conftest import COFFEE_BASE as BASE


DIMENSION = 64


class BagOfWords:
    """A small real embedder: words hashed into 64 buckets, unit length.
    Records every text it is given, to check what reaches a model."""

    def __init__(self):
        self.seen = []
        self.calls = 0

    def __call__(self, texts):
        self.calls += 1
        self.seen.extend(texts)
        vectors = []
        for text in texts:
            v = [0.0] * DIMENSION
            for word in re.findall(r"[a-z]+", text.lower()):
                v[zlib.crc32(word.encode()) % DIMENSION] += 1.0
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            vectors.append([x / norm for x in v])
        return vectors


BURST = [
    "please use oat milk",
    "oat milk please",
    "can I have oat milk instead",
    "make it with oat milk",
]


def burst(now, extra=lambda minute: ""):
    """Ten clients asking for oat milk in four wordings, a message a minute
    for two hours; `extra(minute)` is appended to each request."""
    embed = BagOfWords()
    engine = sdsi.Evolution(embed, dimension=DIMENSION, threshold=0.5)
    store = sdsi.SchemaStore(BASE)
    events = []
    for minute in range(120):
        text = BURST[minute % len(BURST)] + extra(minute)
        message = {"schema_id": "coffee_v1", "payload": {"size": "m", "other": text}}
        events += engine.observe(store, message, f"client-{minute % 10}", now + timedelta(minutes=minute))
    return embed, engine, store, events


def test_a_burst_from_many_clients_proposes_a_key(now):
    embed, engine, store, events = burst(now)
    kinds = [e["event"] for e in events]
    assert "triggered" in kinds and "proposed" in kinds, kinds
    proposed = [e for e in events if e["event"] == "proposed"]
    new_keys = [k["key_name"] for e in proposed for k in e["patch"]["new_keys"]]
    assert any("oat" in name or "milk" in name for name in new_keys), new_keys
    later = now + timedelta(hours=2)
    assert set(new_keys) <= {k["key_name"] for k in store.template_for(None, later).keys}
    assert embed.calls > 0
    # The state saves and restores into an engine with the same embedder settings.
    state = engine.state()
    twin = sdsi.Evolution(BagOfWords(), dimension=DIMENSION, threshold=0.5)
    twin.restore(state)
    assert twin.state() == state
    with pytest.raises(sdsi.StateError):
        sdsi.Evolution(BagOfWords(), dimension=32, threshold=0.5).restore(state)


def test_personal_data_reaches_neither_the_embedder_nor_any_output(now):
    def contact(minute):
        if minute % 3:
            return ""
        return f", call me at +44 20 7946 {minute:04d} or mail jo.smith{minute}@example.com"

    embed, engine, store, events = burst(now, contact)
    assert any(e["event"] in ("proposed", "held") for e in events), events
    outputs = [json.dumps(events), engine.state(), store.to_json(), *embed.seen]
    for text in outputs:
        assert "7946" not in text and "example.com" not in text, text[:300]
    # Placeholders are not content: the embedder sees the words around them.
    assert not any("<phone>" in t or "<email>" in t for t in embed.seen)
    assert "<phone>" in engine.state()


def test_one_offs_propose_nothing(now):
    engine = sdsi.Evolution(BagOfWords(), dimension=DIMENSION, threshold=0.5)
    store = sdsi.SchemaStore(BASE)
    topics = ["gift wrapping", "parking outside", "birthday candles", "wifi password", "dog bowl",
              "table by the window", "receipt by email", "decaf beans to take home"]
    events = []
    for i, text in enumerate(topics):
        message = {"schema_id": "coffee_v1", "payload": {"size": "s", "other": text}}
        events += engine.observe(store, message, f"c{i}", now + timedelta(minutes=i))
    assert not [e for e in events if e["event"] == "proposed"]
    assert store.patches == []


def test_embedder_errors_reach_the_caller(now):
    message = {"schema_id": "coffee_v1", "payload": {"size": "s", "other": "oat milk"}}

    def broken(texts):
        raise RuntimeError("model server down")

    engine = sdsi.Evolution(broken, dimension=8, threshold=0.5)
    with pytest.raises(RuntimeError, match="model server down") as raised:
        engine.observe(sdsi.SchemaStore(BASE), message, "c1", now)
    assert isinstance(raised.value.events, list)
    # An error belongs to its own call: after a failing call, the same
    # engine's next call with a working embedder raises nothing.
    calls = []

    def fails_once(texts):
        calls.append(texts)
        if len(calls) == 1:
            raise RuntimeError("first call fails")
        return [[1.0] + [0.0] * 7 for _ in texts]

    flaky = sdsi.Evolution(fails_once, dimension=8, threshold=0.5)
    store = sdsi.SchemaStore(BASE)
    with pytest.raises(RuntimeError, match="first call fails"):
        flaky.observe(store, message, "c1", now)
    assert isinstance(flaky.observe(store, message, "c2", now), list)
    assert len(calls) == 2
    short = sdsi.Evolution(lambda texts: [[1.0, 0.0] for _ in texts], dimension=8, threshold=0.5)
    with pytest.raises(sdsi.InputError, match="vector of 2 numbers"):
        short.observe(sdsi.SchemaStore(BASE), message, "c1", now)
    missing = sdsi.Evolution(lambda texts: [], dimension=8, threshold=0.5)
    with pytest.raises(sdsi.InputError, match="0 vectors for 1 texts"):
        missing.observe(sdsi.SchemaStore(BASE), message, "c1", now)
    with pytest.raises(sdsi.InputError, match="dimension"):
        sdsi.Evolution(lambda texts: texts)
    with pytest.raises(sdsi.InputError, match="dimension must be 1 to"):
        sdsi.Evolution(lambda texts: texts, dimension=10**11, threshold=0.5)
    with pytest.raises(sdsi.InputError, match="give dimension= to Evolution"):
        sdsi.Evolution(lambda texts: texts, dimension=8, threshold=0.5, pool={"dimension": 10**9})
    with pytest.raises(sdsi.InputError, match="no setting"):
        sdsi.Evolution(pool={"heat_treshold": 3})


def test_the_default_engine_needs_no_embedder(now):
    engine = sdsi.Evolution()
    store = sdsi.SchemaStore(BASE)
    events = engine.observe(store, {"schema_id": "coffee_v1", "payload": {"size": "s", "other": "oat milk"}}, "c1", now)
    assert isinstance(events, list)
    assert engine.pools()[0]["pool"]["scenario"] == "coffee_order"


def test_a_message_s_fragments_reach_the_embedder_in_one_call(now):
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return [[1.0] + [0.0] * 7 for _ in texts]

    engine = sdsi.Evolution(embed, dimension=8, threshold=0.5)
    message = {"schema_id": "coffee_v1",
               "payload": {"size": "s", "other": ["oat milk", "extra hot", "mail me: ada@example.org"]}}
    engine.observe(sdsi.SchemaStore(BASE), message, "c1", now)
    assert len(calls) == 1 and len(calls[0]) == 3, calls
    assert not any("ada@example.org" in text for text in calls[0])


def test_the_need_threshold_adapts_unless_fixed(now):
    """The hashing embedder's pools adapt their need threshold (the state
    names the contrast); a need threshold given alone is fixed; a callable's
    is fixed unless a contrast is given; a contrast must be positive."""

    def contrast(engine):
        state = json.loads(engine.state())
        return [entry["pool"]["config"]["need_contrast"] for entry in state["pools"]]

    message = {"schema_id": "coffee_v1", "payload": {"size": "m", "other": "oat milk please"}}
    engines = {
        "default": sdsi.Evolution(),
        "fixed": sdsi.Evolution(need_threshold=0.3),
        "both": sdsi.Evolution(need_threshold=0.3, need_contrast=2.5),
        "callable": sdsi.Evolution(BagOfWords(), dimension=DIMENSION, threshold=0.5),
        "callable_adaptive": sdsi.Evolution(
            BagOfWords(), dimension=DIMENSION, threshold=0.5, need_contrast=2.0
        ),
    }
    for engine in engines.values():
        engine.observe(sdsi.SchemaStore(BASE), message, "c1", now)
    found = {name: contrast(engine) for name, engine in engines.items()}
    assert found["default"] == [4.0]
    assert found["fixed"] == [None]
    assert found["both"] == [2.5]
    assert found["callable"] == [None]
    assert found["callable_adaptive"] == [2.0]
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(sdsi.InputError, match="need_contrast"):
            sdsi.Evolution(need_contrast=bad)


def test_lending_is_the_embedder_s_unless_given(now):
    """The pools' lending is the embedder's (silence for the hashing
    embedder and a callable) unless given; an unknown one is refused."""
    message = {"schema_id": "coffee_v1", "payload": {"size": "m", "other": "oat milk please"}}

    def lending(engine):
        engine.observe(sdsi.SchemaStore(BASE), message, "c1", now)
        return [entry["pool"]["config"]["lending"] for entry in json.loads(engine.state())["pools"]]

    assert lending(sdsi.Evolution()) == ["silence"]
    assert lending(sdsi.Evolution(BagOfWords(), dimension=DIMENSION, threshold=0.5)) == ["silence"]
    assert lending(sdsi.Evolution(lending="book")) == ["book"]
    with pytest.raises(sdsi.InputError, match="lending"):
        sdsi.Evolution(lending="lend")


def test_a_state_resumes_under_other_gate_settings(now):
    """A state saved under one heat threshold restores under another; one
    saved with another similarity threshold is refused, naming it."""
    engine = sdsi.Evolution()
    store = sdsi.SchemaStore(BASE)
    for minute in range(12):
        message = {"schema_id": "coffee_v1", "payload": {"size": "m", "other": BURST[minute % 4]}}
        engine.observe(store, message, f"client-{minute % 6}", now + timedelta(minutes=minute))
    state = engine.state()
    tuned = sdsi.Evolution(pool={"heat_threshold": 5.0, "min_clients": 2})
    tuned.restore(state)
    saved = json.loads(state)["pools"][0]["pool"]
    restored = json.loads(tuned.state())["pools"][0]["pool"]
    assert restored["config"]["heat_threshold"] == 5.0
    assert restored["clusters"] == saved["clusters"]
    with pytest.raises(sdsi.StateError, match="another threshold"):
        sdsi.Evolution(threshold=0.5).restore(state)


def card_burst(now):
    """Ten clients paying by card, each request with its own (valid) number."""

    def luhn(seed):
        digits = [4] + [(seed * 7919 + i * 104729) % 10 for i in range(1, 15)]
        total = 0
        for i, d in enumerate(reversed(digits)):
            doubled = d * 2 if i % 2 == 0 else d
            total += doubled - 9 if doubled > 9 else doubled
        return "".join(map(str, digits + [(10 - total % 10) % 10]))

    return burst(now, lambda minute: f" and charge my card {luhn(minute)}")


def test_a_sensitive_proposal_waits_for_an_operator_who_approves_it(now):
    _, _, store, events = card_burst(now)
    held = [e for e in events if e["event"] == "held"]
    assert held and all(e["reason"] == "sensitive" for e in held), events
    pending = store.pending
    assert [p["proposal"] for p in pending] == sorted(e["proposal"] for e in held)
    assert store.patches == []
    later = now + timedelta(days=1)
    with pytest.raises(KeyError):
        store.approve("evo-nothing", later, by="ops")
    submission = store.approve(pending[0]["proposal"], later, by="ops@example.com")
    assert submission["status"] == "applied"
    assert [p["approved_by"] for p in store.patches] == ["ops@example.com"]
    restored = sdsi.SchemaStore.from_json(store.to_json())
    assert len(restored.pending) == len(pending) - 1


def test_a_denied_proposal_is_remembered(now):
    _, _, store, events = card_burst(now)
    proposal = next(e["proposal"] for e in events if e["event"] == "held")
    later = now + timedelta(days=1)
    denial = store.deny(proposal, later, by="ops", reason="no card data")
    assert denial["by"] == "ops" and denial["sequence"] == 1
    assert all(p["proposal"] != proposal for p in store.pending)
    assert [d["proposal"] for d in store.denials] == [proposal]
    with pytest.raises(KeyError):
        store.deny(proposal, later, by="ops", reason="twice")
