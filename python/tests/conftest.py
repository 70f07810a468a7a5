"""Shared helpers: the repository's data-driven cases and a fixed clock."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, List

import pytest

CASES = Path(__file__).resolve().parents[2] / "tests" / "cases"
FIGURES = Path(__file__).resolve().parents[2] / "tests" / "figures"


# A two-key coffee template (a size and the reserved `other`), the base the
# store and evolution tests patch.
COFFEE_BASE = {
    "schema_id": "coffee_v1",
    "scenario": "coffee_order",
    "keys": [
        {"key_name": "size", "key_type": "string", "required": True, "semantic_description": "Cup size."},
        {"key_name": "other", "key_type": "string", "required": False, "semantic_description": "Anything else."},
    ],
}


# The coffee template with a defaulted integer and an array: the base of the
# error, pickle and normalized-payload tests.
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


def load_cases(name: str) -> List[Any]:
    """One file of tests/cases, the suite the Rust tests run too."""
    return json.loads((CASES / name).read_text(encoding="utf-8"))


def pairs(issues) -> List[List[str]]:
    """Issues as [code, path] pairs, the form the case files use."""
    return [[issue.code, issue.path] for issue in issues]


@pytest.fixture
def now() -> datetime:
    return datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def flight_template_text() -> str:
    return (FIGURES / "fig02_flight_template.json").read_text(encoding="utf-8")
