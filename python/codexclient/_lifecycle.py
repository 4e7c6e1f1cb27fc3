"""Clean-up: a client garbage-collected while connected stops its server (with a
:class:`ResourceWarning`), and every client still alive at interpreter exit is disconnected."""

from __future__ import annotations

import atexit
import warnings
import weakref
from typing import Any

from . import _native


class Lifecycle:
    """What a client's finalizer needs: a handle on its native client and whether it is open.

    It never refers to the client, so that nothing keeps an unreferenced client alive: the
    core's handler table holds the handlers' callables, which the native client shows to the
    cycle collector; this handle (``NativeClient.handle()``), which the loop's reader (async)
    holds too, does not keep them reachable.
    """

    __slots__ = ("native", "kind", "open", "__weakref__")

    def __init__(self, native: _native.ClientHandle, kind: str) -> None:
        self.native = native
        self.kind = kind
        #: Connected and not closed since.
        self.open = False

    def release(self, warn: bool) -> None:
        """Stop the server (blocking); with ``warn``, emit a :class:`ResourceWarning` if the
        client was left open."""
        if self.open and warn:
            warnings.warn(
                f"unclosed {self.kind}: call close() or use it as a context manager",
                ResourceWarning,
            )
        self.open = False
        self.native.disconnect()


_lifecycles: "weakref.WeakSet[Lifecycle]" = weakref.WeakSet()


def track_client(client: Any, native: _native.NativeClient) -> Lifecycle:
    """The :class:`Lifecycle` of a new client: when the client is garbage-collected its server
    is stopped (with a :class:`ResourceWarning` if it was not closed); at interpreter exit
    every client still alive is disconnected."""
    life = Lifecycle(native.handle(), type(client).__name__)
    fin = weakref.finalize(client, life.release, True)
    fin.atexit = False
    _lifecycles.add(life)
    return life


@atexit.register
def _shutdown() -> None:
    for life in list(_lifecycles):
        try:
            life.release(False)
        except Exception:
            pass
    _native.shutdown_logging()
