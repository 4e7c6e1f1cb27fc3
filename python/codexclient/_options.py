"""The client options as the core's option table states them (``_native.option_keys()``):
the options section of the clients' docstrings is made from it at import, so no default, range
or meaning of 0 is written twice. The table is also the docs' Options page
(``codex-client options``)."""

from __future__ import annotations

import inspect
import json
from typing import Any, Collection, Dict, List, Optional, TypeVar

from . import _native

OPTIONS: List[Dict[str, Any]] = json.loads(_native.option_keys())
"""Every option: ``name``, ``kind``, ``list``, ``secret``, ``doc``, ``default``, ``range``
(``[min, max]`` besides 0, or ``None``), ``unit``, ``zero`` (what 0 means), ``clients``."""

OPTION_NAMES = frozenset(k["name"] for k in OPTIONS)
"""The names of every option of the table."""


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


def _line(k: Dict[str, Any]) -> str:
    facts = [k["kind"] + (" (list)" if k["list"] else "")]
    if k["default"] is not None and not k["secret"]:
        facts.append("default " + json.dumps(k["default"]))
    if k["range"] is not None:
        lo, hi = k["range"]
        facts.append(f"{_number(lo)}..{_number(hi)}" + (f" {k['unit']}" if k["unit"] else ""))
    if k["zero"]:
        facts.append(f"0: {k['zero']}")
    if len(k["clients"]) < 4:
        facts.append("for " + ", ".join(k["clients"]))
    return f"``{k['name']}`` ({'; '.join(facts)}): {k['doc']}"


def options_doc(names: Optional[Collection[str]] = None) -> str:
    """The options section of a client's docstring: the options named ``names`` (``None``:
    every option)."""
    return (
        "Options by keyword (each is the core's option of that name, checked there; ``None``: its "
        "default; ``config`` is a mapping of ``config_overrides``):\n\n"
        + "\n".join("    - " + _line(k) for k in OPTIONS if names is None or k["name"] in names)
    )


OPTIONS_DOC = options_doc()
"""The options section of the deprecated :class:`Client` and :class:`AsyncClient` (every
option)."""


_C = TypeVar("_C", bound=type)


def with_options(cls: _C) -> _C:
    """Append the options section of the options ``cls`` takes (the keywords of its
    generated ``__init__``, :mod:`._option_keywords`) to its docstring."""
    names = set(inspect.signature(getattr(cls, "__init__")).parameters)
    cls.__doc__ = (cls.__doc__ or "").rstrip() + "\n\n    " + options_doc(names) + "\n"
    return cls
