"""The type stub names what the native module has: every public name and
every method is in both (signatures and types are not compared)."""

from __future__ import annotations

import ast
from pathlib import Path

import sdsi
from sdsi import _sdsi

STUB = Path(sdsi.__file__).with_name("_sdsi.pyi")


def stub_items():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    functions, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
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
        declared = {m for m in methods if not m.startswith("__") or m == "__init__"}
        present = {m for m in vars(runtime) if not m.startswith("__")}
        assert declared - {"__init__"} == present, name
