"""JSON for the requests the clients send: ``dumps`` (raising :class:`InvalidArgumentError`
naming what cannot be sent), ``loads``, request params and snake_case keyword arguments."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Dict, Optional

from ._errors import InvalidArgumentError

Params = Optional[Mapping[str, Any]]
"""Request params: a mapping (``None``: none)."""

loads = json.loads


def type_name(value: Any) -> str:
    """The qualified name of ``value``'s type, for error messages (``builtins`` left out)."""
    t = type(value)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class _Encoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, Mapping):
            return dict(o)
        text = repr(o)
        if len(text) > 80:
            text = text[:77] + "..."
        raise InvalidArgumentError(f"a {type_name(o)} cannot be sent as JSON: {text}")


_encoder = _Encoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def dumps(value: Any) -> str:
    """Compact JSON text of ``value``. Raises :class:`InvalidArgumentError` (naming the
    offending type) for anything JSON cannot hold: other objects, non-string keys, cycles,
    NaN and infinities."""
    try:
        return _encoder.encode(value)
    except InvalidArgumentError:
        raise
    except (TypeError, ValueError, RecursionError) as e:
        raise InvalidArgumentError(f"cannot be sent as JSON: {e}") from e


def as_params(params: Params, what: str = "params") -> Dict[str, Any]:
    """``params`` as a new dict (``None``: empty); anything but a mapping raises
    :class:`InvalidArgumentError`."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise InvalidArgumentError(f"{what} must be a mapping, not {type_name(params)}")
    return dict(params)


def camel(name: str) -> str:
    """``approval_policy`` -> ``approvalPolicy`` (names without ``_`` are kept)."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def build_params(params: Params, kwargs: Mapping[str, Any]) -> str:
    """JSON text of a params mapping merged with snake_case keyword arguments (camel-cased)."""
    out = as_params(params)
    for k, v in kwargs.items():
        out[camel(k)] = v
    return dumps(out)


def keyword_params(params: Params, given: Mapping[str, Any], extra: Params) -> str:
    """JSON text of a request's params from a typed keyword method: ``params`` (a mapping of
    wire names), then the keywords given (by wire name; ``None``: not given), then ``extra``
    (fields the schema does not know, as given)."""
    out = as_params(params)
    out.update((k, v) for k, v in given.items() if v is not None)
    out.update(as_params(extra, "extra"))
    return dumps(out)


def arguments_json(arguments: Optional[Mapping[str, Any]]) -> str:
    """JSON text of tool or prompt arguments (``null``: none)."""
    return "null" if arguments is None else dumps(as_params(arguments, "arguments"))

