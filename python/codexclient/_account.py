"""Logging in: :class:`Login` (blocking) and :class:`AsyncLogin` (asyncio), the handle of a
ChatGPT login in progress (browser or device-code flow). The work is the core's
(``codex_client::account``); these classes convert."""

from __future__ import annotations

from typing import Any, Dict, Optional, cast

from . import _native
from ._json import loads

Timeout = Optional[float]


class LoginBase:
    """What both login handles share: what to show the user."""

    __slots__ = ("_client", "_native", "_info")

    def __init__(self, client: Any, native: _native.NativeLogin) -> None:
        self._client = client
        self._native = native
        self._info: Dict[str, Any] = loads(native.info())

    def __repr__(self) -> str:
        # The URL and the code are for the user only: not in reprs (they end up in logs).
        return f"<{type(self).__name__} login_id={self.login_id!r}>"

    @property
    def login_id(self) -> Optional[str]:
        """The login's id (``loginId``)."""
        return self._info.get("login_id")

    @property
    def auth_url(self) -> Optional[str]:
        """Browser flow: the URL the user opens to log in."""
        return self._info.get("auth_url")

    @property
    def user_code(self) -> Optional[str]:
        """Device-code flow: the code the user enters at :attr:`verification_url`."""
        return self._info.get("user_code")

    @property
    def verification_url(self) -> Optional[str]:
        """Device-code flow: the page where the user enters :attr:`user_code`."""
        return self._info.get("verification_url")

    @property
    def outcome(self) -> Optional[Dict[str, Any]]:
        """``{"success": bool, "error": str | None}`` once the server reported the outcome,
        else ``None``."""
        o = self._native.outcome()
        return None if o is None else loads(o)


class Login(LoginBase):
    """A ChatGPT login in progress, from :meth:`CodexClient.login_chatgpt` or
    :meth:`CodexClient.login_device_code`."""

    def wait(self, timeout: Timeout = None) -> Dict[str, Any]:
        """Block until the outcome, ``{"success": bool, "error": str | None}``; at most
        ``timeout`` seconds (:class:`RequestTimeoutError` past it: the login goes on, wait
        again or :meth:`cancel` it)."""
        return cast(Dict[str, Any], loads(self._client._call(lambda aio: self._native.wait(timeout, aio), lambda r: r)))

    def cancel(self) -> None:
        """Cancel the login (``account/login/cancel``); its outcome then is a failure."""
        self._client._call(lambda aio: self._native.cancel(aio), lambda r: None)


class AsyncLogin(LoginBase):
    """A ChatGPT login in progress, from :meth:`AsyncCodexClient.login_chatgpt` or
    :meth:`AsyncCodexClient.login_device_code`."""

    async def wait(self, timeout: Timeout = None) -> Dict[str, Any]:
        """The outcome, ``{"success": bool, "error": str | None}``; at most ``timeout``
        seconds (:class:`RequestTimeoutError` past it: the login goes on)."""
        r = await self._client._call(lambda aio: self._native.wait(timeout, aio), lambda r: r)
        return cast(Dict[str, Any], loads(r))

    async def cancel(self) -> None:
        """Cancel the login (``account/login/cancel``); its outcome then is a failure."""
        await self._client._call(lambda aio: self._native.cancel(aio), lambda r: None)
