"""The exceptions sdsi raises. Every one is an ``SdsiError``."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence


class IssueList(List[Any]):
    """A list of ``sdsi.Issue`` that, called, gives them in pydantic's
    ``ValidationError.errors()`` shape.

    ``errors()`` is a new list of dicts ``{"type", "loc", "msg", "input"}``
    (``type`` the issue's code, ``loc`` its ``Issue.loc``, ``msg`` its
    message, ``input`` the value found there: for a missing member, the
    object that lacks it; ``None`` where sdsi did not validate an input),
    plus ``ctx`` for the issues that carry one (``limit``; ``expected`` and
    ``found``).
    """

    def __init__(self, issues: Iterable[Any] = (), inputs: Optional[Sequence[Any]] = None) -> None:
        super().__init__(issues)
        self._inputs: Optional[List[Any]] = None if inputs is None else list(inputs)

    def __call__(self, *, include_input: bool = True, include_context: bool = True) -> List[Dict[str, Any]]:
        details = []
        for at, issue in enumerate(self):
            detail: Dict[str, Any] = {"type": issue.code, "loc": issue.loc, "msg": issue.message}
            if include_input:
                known = self._inputs is not None and at < len(self._inputs)
                detail["input"] = self._inputs[at] if known else None  # type: ignore[index]
            if include_context:
                written = issue.to_dict()
                ctx = {k: written[k] for k in ("limit", "expected", "found") if k in written}
                if ctx:
                    detail["ctx"] = ctx
            details.append(detail)
        return details


class SdsiError(Exception):
    """Base class of every exception sdsi raises.

    ``errors`` and ``warnings`` list the problems behind it as ``sdsi.Issue``
    objects (code, path, loc, message); they may be empty. ``errors()``,
    called, gives the errors in pydantic's shape (``IssueList``).
    Picklable, so it crosses a process boundary with its issues.
    """

    def __init__(
        self,
        message: str,
        errors: Iterable[Any] = (),
        warnings: Iterable[Any] = (),
        inputs: Optional[Sequence[Any]] = None,
    ) -> None:
        super().__init__(message)
        self.errors: IssueList = IssueList(errors, inputs)
        self.warnings: IssueList = IssueList(warnings)


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


class ValidationError(SdsiError, ValueError):
    """A message failed validation: what ``Report.raise_for_errors()`` raises.

    ``errors()`` is pydantic's shape, ready for FastAPI's
    ``RequestValidationError`` or a 422 body; ``errors`` (uncalled) is the
    tuple's issues as a list of ``sdsi.Issue``.
    """


class ConversionWarning(UserWarning):
    """What converting into a template could not carry over
    (``SchemaTemplate.from_pydantic``): the template accepts other payloads
    than the source at this place. ``issue`` is the ``sdsi.Issue`` (code
    ``not_expressible``, a JSON Pointer into the source's JSON Schema), or
    ``None`` for a note about the model as a whole."""

    def __init__(self, issue: Any, message: Optional[str] = None) -> None:
        super().__init__(message if message is not None else str(issue))
        self.issue = issue

    def __reduce__(self) -> Any:
        return (type(self), (self.issue, str(self)))
