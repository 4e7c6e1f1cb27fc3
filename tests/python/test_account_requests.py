"""``account/rateLimits/updated`` received as its typed notification (the fake app-server's
``rate-limits`` mode, and the real codex app-server after a model reply with rate-limit
headers: the mock model's ``MOCK_RATE_LIMITS``), and the server requests
``item/permissions/requestApproval`` and ``attestation/generate`` answered by handlers (the
fake's ``permissions`` and ``attestation`` modes answer their ``test/*`` request with what the
handler's answer held, checked against the vendored schema; without a handler, the fail-closed
answer)."""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

import codexclient
from codexclient import AsyncClient, Client, protocol as p
from helpers import fake, run

RATE_LIMITS = "account/rateLimits/updated"


class Seen:
    """Notifications of one method, collected by a handler on the dispatch thread."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.got: List[Any] = []
        self.arrived = threading.Event()

    def __call__(self, n: Any) -> None:
        if n.method == self.method:
            self.got.append(n)
            self.arrived.set()

    def first(self, timeout: float = 10.0) -> Any:
        assert self.arrived.wait(timeout), f"no {self.method} notification within {timeout} s"
        return self.got[0]


def check_typed(n: Any) -> Dict[str, Any]:
    """``n`` is the typed ``account/rateLimits/updated`` event: its params have the keys of
    the protocol's TypedDicts (every required one, no unknown one); returns its snapshot."""
    assert isinstance(n, codexclient.Notification) and n.method == RATE_LIMITS
    assert p.SERVER_NOTIFICATIONS[RATE_LIMITS] is p.AccountRateLimitsUpdatedNotification
    params = n.params
    td = p.AccountRateLimitsUpdatedNotification
    assert td.__required_keys__ <= params.keys() <= td.__required_keys__ | td.__optional_keys__, params
    snap = params["rateLimits"]
    keys = p.RateLimitSnapshot.__required_keys__ | p.RateLimitSnapshot.__optional_keys__
    assert p.RateLimitSnapshot.__required_keys__ <= snap.keys() <= keys, snap
    for window in ("primary", "secondary"):
        assert p.RateLimitWindow.__required_keys__ <= snap[window].keys(), snap
    assert n.thread_id is None  # not a thread's notification
    return snap


def test_rate_limits_updated_arrives_as_its_typed_notification(fake_bin: str) -> None:
    seen = Seen(RATE_LIMITS)
    with Client(**fake(fake_bin, "rate-limits")) as c:
        c.on_notification(seen)
        assert c.request("test/rateLimitsUpdated", {}) == {}
        snap = check_typed(seen.first())
    assert snap["limitId"] == "codex" and snap["limitName"] == "Codex" and snap["planType"] == "pro"
    assert snap["primary"] == {"usedPercent": 87, "windowDurationMins": 300, "resetsAt": 1_900_000_300}
    assert snap["secondary"] == {"usedPercent": 12, "windowDurationMins": 10_080, "resetsAt": 1_900_600_000}
    assert snap["credits"] == {"hasCredits": True, "unlimited": False, "balance": "12.50"}
    assert snap["rateLimitReachedType"] is None and snap["spendControlReached"] is False


def test_real_codex_sends_rate_limits_updated_from_the_model_reply_headers(client_kwargs: dict) -> None:
    seen = Seen(RATE_LIMITS)
    with Client(**client_kwargs) as c:
        c.on_notification(seen)
        r = c.thread_start().run("MOCK_RATE_LIMITS: 87 12")
        assert r.status == "completed", f"the turn did not complete: {r.status} {r.error}"
        snap = check_typed(seen.first())
    assert snap["limitId"] == "codex"
    assert snap["primary"] == {"usedPercent": 87, "windowDurationMins": 300, "resetsAt": 1_900_000_000}
    assert snap["secondary"] == {"usedPercent": 12, "windowDurationMins": 10_080, "resetsAt": 1_900_500_000}


GRANT = {
    "permissions": {"fileSystem": {"write": ["/tmp/proj/out"]}, "network": {"enabled": False}},
    "scope": "session",
    "strictAutoReview": True,
}


def test_permissions_request_is_answered_by_a_handler(fake_bin: str) -> None:
    asked: List[Any] = []
    with Client(**fake(fake_bin, "permissions")) as c:

        @c.on_permissions_request
        def grant(req: p.ItemPermissionsRequestApprovalRequest) -> p.PermissionsRequestApprovalResponse:
            asked.append(req.params)
            # The folder asked for, not the network, for the session.
            return {
                "permissions": {
                    "fileSystem": {"write": req.params["permissions"]["fileSystem"]["write"]},
                    "network": {"enabled": False},
                },
                "scope": "session",
                "strictAutoReview": True,
            }

        r = c.request("test/requestPermissions", {})
    assert r == {"granted": GRANT}, r
    (params,) = asked
    assert (params["threadId"], params["turnId"], params["itemId"]) == ("thr_fake_1", "turn_1", "item_perm_1")
    assert params["cwd"] == "/tmp/proj" and params["startedAtMs"] == 1_900_000_000_000
    assert params["reason"] == "write the build output and fetch dependencies"
    assert params["permissions"]["network"] == {"enabled": True}
    assert params["permissions"]["fileSystem"]["entries"] == [
        {"access": "write", "path": {"type": "path", "path": "/tmp/proj/out"}}
    ]

    # Without a handler: the fail-closed answer grants nothing.
    with Client(**fake(fake_bin, "permissions")) as c:
        r = c.request("test/requestPermissions", {})
    assert r == {"granted": {"permissions": {}, "scope": "turn"}}, r


def test_permissions_request_is_answered_by_an_async_handler(fake_bin: str) -> None:
    async def main() -> None:
        async with AsyncClient(**fake(fake_bin, "permissions")) as c:

            @c.on_permissions_request
            async def grant(req: p.ItemPermissionsRequestApprovalRequest) -> Dict[str, Any]:
                return GRANT

            r = await c.request("test/requestPermissions", {})
            assert r == {"granted": GRANT}, r

    run(main())


TOKEN = "att.v1.eyJkZXZpY2UiOiJ0ZXN0In0.c2ln"


def test_attestation_is_answered_by_a_handler(fake_bin: str) -> None:
    asked: List[Any] = []
    with Client(**fake(fake_bin, "attestation")) as c:

        def attest(req: p.AttestationGenerateRequest) -> p.AttestationGenerateResponse:
            asked.append((req.method, req.params))
            return {"token": TOKEN}

        c.on_server_request("attestation/generate", attest)
        r = c.request("test/attest", {})
    assert r == {"token": TOKEN}, r
    assert asked == [("attestation/generate", {})]

    # Without a handler: refused with a JSON-RPC error, never answered empty.
    with Client(**fake(fake_bin, "attestation")) as c:
        with pytest.raises(codexclient.RpcError, match="attestation refused") as caught:
            c.request("test/attest", {})
    assert caught.value.code == -32600, repr(caught.value)
