"""Patches, per-client schemas and the key lifecycle through the store."""

from __future__ import annotations

from datetime import timedelta

import pytest

import sdsi
from conftest import COFFEE_BASE as BASE



def patch(patch_id, now, name, *, client=None, key_type="string", days=30):
    body = {
        "patch_id": patch_id,
        "parent_schema_id": "coffee_v1",
        "timestamp": now.isoformat().replace("+00:00", "Z"),
        "expires_at": (now + timedelta(days=days)).isoformat().replace("+00:00", "Z"),
        "new_keys": [{"key_name": name, "key_type": key_type, "required": False, "experimental": True,
                      "semantic_description": f"The customer's {name.replace('_', ' ')}."}],
    }
    if client:
        body["scope"] = {"client": client}
    return body


def names(template):
    return [k["key_name"] for k in template.keys]


def test_global_and_personal_patches_give_each_client_its_schema(now):
    store = sdsi.SchemaStore(BASE)
    assert store.submit(patch("p1", now, "milk_type"), now) == {"status": "applied"}
    assert store.submit(patch("p2", now, "cup_sleeve", client="alice"), now)["status"] == "applied"
    later = now + timedelta(minutes=1)
    assert names(store.template_for(None, later)) == ["size", "other", "milk_type"]
    assert names(store.template_for("alice", later)) == ["size", "other", "milk_type", "cup_sleeve"]
    assert names(store.template_for("bob", later)) == ["size", "other", "milk_type"]
    alice = store.compile_for("alice", later)
    bob = store.compile_for("bob", later)
    message = {"schema_id": "coffee_v1", "payload": {"size": "s", "cup_sleeve": "yes"}}
    assert alice.validate(message).valid and not bob.validate(message).valid
    assert store.digest_for("alice", later) != store.digest_for("bob", later)
    assert [p["patch_id"] for p in store.patches] == ["p1", "p2"]
    assert store.state_of("milk_type", later) == "experimental"
    assert store.state_of("cup_sleeve", later, client="alice") == "experimental"
    assert store.state_of("size", later) is None
    effective = sdsi.effective_template(BASE, [patch("p1", now, "milk_type")], later)
    assert names(effective) == ["size", "other", "milk_type"]
    suggestion = store.suggestion_for("bob", later)
    assert [k["key_name"] for k in suggestion["new_keys"]] == ["milk_type"]
    assert store.suggestion_for("bob", later) is None  # each key is told once


def test_refusals_are_patch_errors_with_issues(now):
    store = sdsi.SchemaStore(BASE)
    store.submit(patch("p1", now, "milk_type"), now)
    with pytest.raises(sdsi.PatchError) as raised:
        store.submit(patch("p2", now, "milk_type", key_type="integer"), now)
    assert raised.value.errors and all(isinstance(i, sdsi.Issue) for i in raised.value.errors)
    with pytest.raises(sdsi.PatchError):
        store.submit({"patch_id": "broken"}, now)
    with pytest.raises(sdsi.PatchError) as sensitive:
        store.submit(patch("p3", now, "card_pin"), now)
    assert any(i.code == "unauthorized_sensitive_change" for i in sensitive.value.errors)
    approved = sdsi.SchemaStore(BASE, allow_sensitive=True)
    assert approved.submit(patch("p3", now, "card_pin"), now)["status"] == "applied"


def test_a_used_key_is_promoted_after_its_trial_and_the_store_round_trips(now):
    policy = {"trial": timedelta(days=2), "max_experimental": 3}
    store = sdsi.SchemaStore(BASE, policy=policy)
    store.submit(patch("p1", now, "milk_type"), now)
    for hour in range(1, 49):
        at = now + timedelta(hours=hour)
        store.record({"schema_id": "coffee_v1", "payload": {"size": "s", "milk_type": "oat"}}, f"c{hour % 5}", at)
        store.record_alignment("milk_type", True, at)
    metrics = store.metrics("milk_type", now + timedelta(days=2))
    assert metrics["value_type_correctness"] == 1.0
    result = store.evaluate(now + timedelta(days=3))
    moves = [(t["key_name"], t["to"]) for t in result["transitions"]]
    assert ("milk_type", "stable") in moves, result
    assert store.state_of("milk_type", now + timedelta(days=3)) == "stable"
    saved = store.to_json()
    again = sdsi.SchemaStore.from_json(saved)
    assert again.to_json() == saved
    assert again.state_of("milk_type", now + timedelta(days=3)) == "stable"
    with pytest.raises(sdsi.StateError):
        sdsi.SchemaStore.from_json("{}")
    with pytest.raises(sdsi.InputError, match="no setting"):
        sdsi.SchemaStore(BASE, policy={"trail": timedelta(days=1)})


def test_queue_behind_the_convergence_guard(now):
    store = sdsi.SchemaStore(BASE, policy={"max_experimental": 1})
    assert store.submit(patch("p1", now, "milk_type"), now)["status"] == "applied"
    assert store.submit(patch("p2", now, "syrup"), now) == {"status": "queued", "ahead": 0}
    assert [p["patch_id"] for p in store.queued] == ["p2"]
