"""What unpickling calls: each function rebuilds one kind of sdsi object
from the arguments its ``__reduce__`` saved. Not part of the API; the names
stay, since pickles made by one version are read by the next."""

from __future__ import annotations

from typing import Any, Dict, Optional

from . import _sdsi


def issue(written: Dict[str, Any], names_at: Optional[int] = None) -> _sdsi.Issue:
    return _sdsi.Issue._from_dict(written, names_at)


def template(text: str) -> _sdsi.SchemaTemplate:
    return _sdsi.SchemaTemplate.from_json(text)


def report(state: Dict[str, Any]) -> _sdsi.Report:
    return _sdsi.Report._from_state(state)


def schema(text: str, options: Dict[str, Any]) -> _sdsi.CompiledSchema:
    return _sdsi.CompiledSchema(
        _sdsi.SchemaTemplate.from_json(text),
        unknown_keys=options["unknown_keys"],
        big_integers=options["big_integers"],
        **options["limits"],
    )
