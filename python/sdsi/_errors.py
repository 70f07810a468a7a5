"""The exceptions sdsi raises. Every one is an ``SdsiError``."""

from __future__ import annotations

from typing import Any, List


class SdsiError(Exception):
    """Base class of every exception sdsi raises.

    ``errors`` and ``warnings`` list the problems behind it as ``sdsi.Issue``
    objects (code, path, message); they may be empty.
    """

    def __init__(self, message: str, errors: List[Any] = (), warnings: List[Any] = ()) -> None:  # type: ignore[assignment]
        super().__init__(message)
        self.errors: List[Any] = list(errors)
        self.warnings: List[Any] = list(warnings)


class TemplateError(SdsiError, ValueError):
    """A schema template breaks a rule of the draft; ``errors`` lists every problem."""


class InputError(SdsiError, ValueError):
    """An argument is not JSON (a set, NaN, a non-str dict key, too deep)
    or not of the shape asked for, or a time is not a timezone-aware datetime."""


class PatchError(SdsiError, ValueError):
    """A schema patch was refused, or a per-client schema cannot be built."""


class EnvelopeError(SdsiError, ValueError):
    """A message envelope breaks a rule of the Universal Schema envelope."""


class StateError(SdsiError, ValueError):
    """A saved store or evolution state cannot be read back."""
