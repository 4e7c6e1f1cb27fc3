"""What calls return: :class:`InitializeResult`, :class:`TurnResult` and :class:`Page`,
each made from the core's view (JSON) of the result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Generic, List, Optional, TypeVar

if TYPE_CHECKING:
    from . import protocol as p

T = TypeVar("T")

class InitializeResult:
    """What the server answered to ``initialize``: ``raw`` (the whole result); for Codex
    ``user_agent``, ``codex_home``, ``platform_family``, ``platform_os``; for an MCP server
    ``protocol_version`` (the version it chose), ``capabilities`` (``tools``,
    ``resources``, ``prompts``, ``logging``, ...), ``server_info`` (its name, version, ...),
    ``instructions`` (how to use it, when it says) and ``mcp_era`` (``"stateless"``: MCP
    2026-07-28, found with ``server/discover``; ``"handshake"``: the ``initialize`` era) and
    ``mcp_prior`` (that era as a value to keep: ``{"kind": "legacy"}`` or ``{"kind": "modern",
    "discover": {...}}``; pass it back as ``mcp_prior=`` to a later client of the same server
    and its connect skips the ``server/discover`` probe). The others are ``None``."""

    __slots__ = (
        "user_agent", "codex_home", "platform_family", "platform_os", "raw",
        "protocol_version", "capabilities", "server_info", "instructions", "mcp_era",
        "mcp_prior",
    )

    def __init__(
        self,
        raw: Dict[str, Any],
        user_agent: Optional[str] = None,
        codex_home: Optional[str] = None,
        platform_family: Optional[str] = None,
        platform_os: Optional[str] = None,
        protocol_version: Optional[str] = None,
        capabilities: Optional[Dict[str, Any]] = None,
        server_info: Optional[Dict[str, Any]] = None,
        instructions: Optional[str] = None,
        mcp_era: Optional[str] = None,
        mcp_prior: Optional[Dict[str, Any]] = None,
    ) -> None:
        #: The whole result.
        self.raw = raw
        self.user_agent = user_agent
        self.codex_home = codex_home
        self.platform_family = platform_family
        self.platform_os = platform_os
        self.protocol_version = protocol_version
        self.capabilities = capabilities
        self.server_info = server_info
        self.instructions = instructions
        self.mcp_era = mcp_era
        #: The negotiated era, for option ``mcp_prior`` of a later connect (MCP only).
        self.mcp_prior = mcp_prior

    @classmethod
    def _from_view(cls, view: Dict[str, Any]) -> "InitializeResult":
        """From the core's view of the result (``InitializeResult::to_json``)."""
        names = (
            "user_agent", "codex_home", "platform_family", "platform_os", "protocol_version",
            "capabilities", "server_info", "instructions", "mcp_era", "mcp_prior",
        )
        return cls(view.get("raw") or {}, *(view.get(n) for n in names))

    def __repr__(self) -> str:
        if self.protocol_version is not None:
            return (
                f"InitializeResult(protocol_version={self.protocol_version!r}, "
                f"server_info={self.server_info!r})"
            )
        return f"InitializeResult(user_agent={self.user_agent!r}, codex_home={self.codex_home!r})"


class Page(Generic[T]):
    """One page of an MCP list (``list_tools_page`` and friends): ``items`` and
    ``next_cursor``, the cursor of the next page (``None`` on the last one)."""

    __slots__ = ("items", "next_cursor")

    def __init__(self, items: List[T], next_cursor: Optional[str]) -> None:
        self.items = items
        self.next_cursor = next_cursor

    def __repr__(self) -> str:
        return f"Page(items={len(self.items)}, next_cursor={self.next_cursor!r})"


class TurnResult:
    """What a finished turn produced: ``thread_id``, ``turn_id``, ``status`` (``completed``,
    ``interrupted``, ``failed``; empty while the turn runs), ``final_response`` (text of the
    last completed agent message), ``items`` (every item completed during the turn, in order),
    ``usage`` (the last token usage reported), ``diff`` (the turn's last unified diff),
    ``error`` (the turn's error object, when it failed), ``turn`` (the whole ``turn``
    object of ``turn/completed``), ``completed`` (whether the turn completed normally) and
    ``emulated_skills`` (the skills injected into the prompt as text because the server has no
    native skill input — exec, mcp, app-servers before Codex 0.169.0 — each a dict with
    ``name``, ``description`` and ``path``; empty when they went natively)."""

    __slots__ = (
        "thread_id", "turn_id", "status", "final_response", "items", "usage", "diff",
        "error", "turn", "completed", "emulated_skills",
    )

    def __init__(self, data: Dict[str, Any]) -> None:
        self.thread_id: str = data.get("thread_id", "")
        self.turn_id: str = data.get("turn_id", "")
        self.status: str = data.get("status", "")
        self.final_response: Optional[str] = data.get("final_response")
        self.items: List[p.ThreadItem] = data.get("items") or []
        self.usage: Optional[p.ThreadTokenUsage] = data.get("usage")
        self.diff: Optional[str] = data.get("diff")
        self.error: Optional[p.TurnError] = data.get("error")
        self.turn: Optional[p.Turn] = data.get("turn")
        #: Whether the turn completed normally.
        self.completed: bool = bool(data.get("completed"))
        #: The skills emulated in the turn's prompt (``name``, ``description``, ``path``).
        self.emulated_skills: List[Dict[str, str]] = data.get("emulated_skills") or []

    def __repr__(self) -> str:
        return (
            f"TurnResult(turn_id={self.turn_id!r}, status={self.status!r}, "
            f"final_response={self.final_response!r}, items={len(self.items)})"
        )
