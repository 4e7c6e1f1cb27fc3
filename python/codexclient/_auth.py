"""MCP authorization (OAuth 2.1) from Python: the types of the ``authorize=`` and
``token_store=`` keywords and their adapters. The flow (discovery, registration, PKCE,
refresh, step-up), the stored format and every rule are the Rust core's; this module only
makes a Python callable (plain or ``async def``) and a store object callable from it.

The core calls both off its connection threads (on its runtime's blocking pool), so a plain
``authorize`` callable may block (a prompt, a GUI); an ``async def`` one runs on the
:class:`AsyncMcpClient`'s event loop (or, for the sync :class:`McpClient`, on a loop of its own),
bounded by the client's ``oauth_authorize_timeout`` option (its value as the core has it:
the core's option table owns the default). When the bound passes, the core fails the
authorization with its timeout error and the coroutine is cancelled.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import weakref
import warnings
from typing import Any, Awaitable, Callable, Dict, Optional, Protocol, Union, runtime_checkable


from ._errors import InvalidArgumentError
from . import _native
from ._native import LoopbackBrowser

_CANCEL_GRACE = 0.5
"""Seconds past the bound before the binding cancels an ``async def`` authorize callable: the
core's own timer (started first, at the same bound) ends the authorization, so the caller
always sees the core's timeout error; the coroutine is cancelled just after."""


def authorize_timeout(value: Optional[float]) -> float:
    """The effective ``oauth_authorize_timeout`` in seconds for the keyword's ``value``
    (``None``: the default), as the core computes it."""
    effective: float = json.loads(_native.effective_option("oauth_authorize_timeout", value))
    return float(effective)


def __getattr__(name: str) -> Any:
    if name == "AUTHORIZE_TIMEOUT":
        warnings.warn(
            "codexclient.AUTHORIZE_TIMEOUT is deprecated: an async def authorize callable is bounded "
            "by the client's oauth_authorize_timeout option (this is its default)",
            DeprecationWarning,
            stacklevel=3,  # the caller of codexclient.AUTHORIZE_TIMEOUT
        )
        return authorize_timeout(None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

Authorize = Callable[[str], Union[str, Awaitable[str]]]
"""The browser step: ``authorize(authorization_url)`` takes the user to the URL and returns
the URL the authorization server redirected to (with ``code``, ``state``, maybe ``iss``), or
an awaitable of it. Raising fails the authorization: the request that needed it raises the
server's refusal (an :class:`RpcError` for HTTP 401/403) whose message names the exception."""


@runtime_checkable
class TokenStore(Protocol):
    """Where MCP authorization keeps each server's credentials between runs, as JSON text the
    core writes and reads (it holds tokens and maybe a client secret: keep it private). Keyed
    by the MCP server's URL. Called off the event loop, on the library's threads: keep each
    call short. An exception is reported as an authorization failure."""

    def load(self, server: str) -> Optional[str]:
        """The JSON text saved for ``server``, or ``None``."""
        ...

    def save(self, server: str, json: str) -> None:
        """Replace what is saved for ``server`` with ``json``."""
        ...

    def clear(self, server: str) -> None:
        """Forget what is saved for ``server``."""
        ...


def _loop_of(client: Any) -> Optional[asyncio.AbstractEventLoop]:
    """The running event loop an :class:`AsyncMcpClient` calls on, if any."""
    bridge = getattr(client, "_bridge", None)
    loop: Optional[asyncio.AbstractEventLoop] = getattr(bridge, "loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def _await(value: Awaitable[Any], loop: Optional[asyncio.AbstractEventLoop], bound: float) -> Any:
    """Await ``value`` from a thread that runs no loop: on ``loop`` when given (the caller
    awaits the client there, so it is free), else on a loop of its own; cancelled
    :data:`_CANCEL_GRACE` seconds after ``bound`` (the core gave up at ``bound``)."""

    async def bounded() -> Any:
        return await asyncio.wait_for(value, bound + _CANCEL_GRACE)

    if loop is None:
        return asyncio.run(bounded())
    fut = asyncio.run_coroutine_threadsafe(bounded(), loop)
    try:
        return fut.result(bound + 2 * _CANCEL_GRACE)
    except concurrent.futures.TimeoutError:  # the loop is stuck: give up on it
        fut.cancel()
        raise TimeoutError(f"the authorize callable did not finish within {bound} s")


def authorize_adapter(authorize: Authorize, client: Any, bound: float) -> Callable[[str], str]:
    """``authorize`` as the core calls it (a plain function on one of the library's threads):
    an awaitable result is awaited where it belongs (:func:`_await`), for at most ``bound``
    seconds (the effective ``oauth_authorize_timeout``)."""
    ref = weakref.ref(client)

    def run(url: str) -> str:
        value = authorize(url)
        if inspect.isawaitable(value):
            value = _await(value, _loop_of(ref()), bound)
        if not isinstance(value, str):
            raise TypeError(
                f"the authorize callable must return the redirect URL (str), not {type(value).__name__}"
            )
        return value

    return run


def auth_options(
    authorize: Any, token_store: Any, client: Any, authorize_timeout_s: Optional[float] = None
) -> Dict[str, Any]:
    """The native client's ``authorize`` and ``token_store`` arguments (only those given);
    ``authorize_timeout_s``: the ``oauth_authorize_timeout`` keyword (``None``: the default)."""
    opts: Dict[str, Any] = {}
    if authorize is not None:
        if isinstance(authorize, LoopbackBrowser):
            opts["authorize"] = authorize
        elif callable(authorize):
            opts["authorize"] = authorize_adapter(authorize, client, authorize_timeout(authorize_timeout_s))
        else:
            raise InvalidArgumentError(
                f"authorize= takes a callable or a LoopbackBrowser, not {type(authorize).__name__}"
            )
    if token_store is not None:
        missing = [m for m in ("load", "save", "clear") if not callable(getattr(token_store, m, None))]
        if missing:
            raise InvalidArgumentError(
                f"token_store= needs load, save and clear methods; {type(token_store).__name__} "
                f"lacks {', '.join(missing)}"
            )
        opts["token_store"] = token_store
    return opts


__all__ = ["Authorize", "LoopbackBrowser", "TokenStore"]
