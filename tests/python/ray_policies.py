"""Approval policies that ``test_ray.py`` ships to its Ray actors (a module of their own, on
the workers' ``PYTHONPATH``, so Ray pickles them by reference)."""

from __future__ import annotations

from typing import Any

from codexclient import ServerRequest
from codexclient.ray import FORWARD


def by_command(request: ServerRequest) -> Any:
    """Accept a command holding ``policy-ok`` here, on the actor; forward the rest to the
    driver."""
    command = str(request.params.get("command", ""))
    return "accept" if "policy-ok" in command else FORWARD
