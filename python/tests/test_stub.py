"""The type stub says what the native module has: mypy's stubtest compares
every name, signature and default (with python/stubtest-allowlist.txt for
the stub's typing-only names), and a plainer check that needs no mypy
compares the names."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import sdsi
from sdsi import _sdsi

STUB = Path(sdsi.__file__).with_name("_sdsi.pyi")
ALLOWLIST = Path(__file__).resolve().parents[1] / "stubtest-allowlist.txt"


def stub_items():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    functions, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            # TypedDicts are for annotations only.
            if any(isinstance(b, ast.Name) and b.id == "TypedDict" for b in node.bases):
                continue
            classes[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return functions, classes


def test_stub_names_match_the_module():
    functions, classes = stub_items()
    public = {name for name in dir(_sdsi) if not name.startswith("_")}
    assert public == functions | set(classes)
    assert set(sdsi.__all__) >= public


def test_stub_methods_exist_and_every_method_is_stubbed():
    _, classes = stub_items()
    for name, methods in classes.items():
        runtime = getattr(_sdsi, name)
        # Private names (`_from_dict`, what unpickling calls) are not API.
        declared = {m for m in methods if not m.startswith("_")}
        present = {m for m in vars(runtime) if not m.startswith("_")}
        assert declared == present, name


def test_stubtest_finds_the_stub_true():
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "sdsi._sdsi", "--allowlist", str(ALLOWLIST)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
