"""Keyword checking for the typed keyword methods (:mod:`._keywords`): an unknown keyword raises
:class:`TypeError` naming it and the closest valid one, on every Python (CPython adds the
suggestion itself only from 3.13), before anything is sent."""

from __future__ import annotations

import difflib
import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, TypeVar

if TYPE_CHECKING:
    # ParamSpec is new in Python 3.10.
    from typing_extensions import ParamSpec

    _P = ParamSpec("_P")

_R = TypeVar("_R")

_KEYWORD_KINDS = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _snake(name: str) -> str:
    """``approvalPolicy`` -> ``approval_policy`` (a wire name given as a keyword)."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def closest(name: str, valid: Collection[str]) -> str | None:
    """The valid keyword ``name`` most likely meant: its snake_case form when ``name`` is a
    wire (camelCase) name, else the nearest spelling (``None`` when none is close)."""
    if _snake(name) in valid:
        return _snake(name)
    found = difflib.get_close_matches(name, sorted(valid), n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_keyword(what: str, given: Mapping[str, Any], valid: Collection[str]) -> TypeError:
    """The :class:`TypeError` for the first keyword of ``given`` not in ``valid``."""
    name = next(k for k in given if k not in valid)
    msg = f"{what}() got an unexpected keyword argument {name!r}"
    near = closest(name, valid)
    if near is not None:
        msg += f"; did you mean {near!r}?"
    return TypeError(msg + " (fields the library does not know go in extra={...})")


def checked(f: Callable[_P, _R]) -> Callable[_P, _R]:
    """``f`` with its keywords checked first (see the module docs); signature, annotations and
    docstring kept. A coroutine function stays one for :mod:`inspect` (the check runs when it
    is called, not when it is awaited)."""
    valid = frozenset(
        n for n, p in inspect.signature(f).parameters.items() if p.kind in _KEYWORD_KINDS
    )
    name = f.__name__

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not valid.issuperset(kwargs):
            owner = type(args[0]).__name__ if args else ""
            raise unknown_keyword(f"{owner}.{name}" if owner else name, kwargs, valid)
        return f(*args, **kwargs)

    if inspect.iscoroutinefunction(f):
        mark = getattr(inspect, "markcoroutinefunction", None)  # Python 3.12+
        if mark is not None:
            mark(call)
    return call
