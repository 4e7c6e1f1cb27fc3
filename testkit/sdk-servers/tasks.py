"""The 2025-11-25 tasks utility for server.py, which the Python SDK 2.3.0 does not serve itself:
a `tools/call` with `params.task` answers `{task}` at once and runs in the background;
`tasks/get`, `tasks/result` (waits for the end), `tasks/list`, `tasks/cancel`. A middleware
in front of the SDK's own `tools/call` handler (so the tool runs exactly as when called plainly) and adds the
`tasks` server capability."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CancelTaskRequestParams,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    PaginatedRequestParams,
    Result,
    ServerTasksCapability,
)

TERMINAL = {"completed", "failed", "cancelled"}
RELATED = "io.modelcontextprotocol/related-task"


class _Raw(Result):
    """A result passed through as it is."""

    model_config = {"extra": "allow"}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def install_tasks(mcp: Any) -> None:
    low = mcp._lowlevel_server
    tasks: dict[str, dict[str, Any]] = {}

    def view(t: dict[str, Any]) -> dict[str, Any]:
        v = {k: t[k] for k in ("taskId", "status", "createdAt", "lastUpdatedAt", "ttl")}
        v["pollInterval"] = 50
        if t.get("statusMessage"):
            v["statusMessage"] = t["statusMessage"]
        return v

    def find(task_id: str) -> dict[str, Any]:
        if task_id not in tasks:
            raise MCPError(code=INVALID_PARAMS, message=f"no task {task_id}")
        return tasks[task_id]

    def settle(t: dict[str, Any], status: str, result: Any = None, message: str | None = None) -> None:
        if t["status"] in TERMINAL:
            return
        t.update(status=status, result=result, statusMessage=message, lastUpdatedAt=_now())
        t["done"].set()

    async def task_calls(ctx, call_next):
        params = ctx.params or {}
        if ctx.method != "tools/call" or not params.get("task"):
            return await call_next(ctx)
        now = _now()
        t = {
            "taskId": str(uuid.uuid4()),
            "status": "working",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttl": params["task"].get("ttl") or 60000,
            "done": asyncio.Event(),
        }
        tasks[t["taskId"]] = t
        plain = replace(ctx, params={k: v for k, v in params.items() if k != "task"})

        async def run() -> None:
            try:
                r = await call_next(plain)
                settle(t, "failed" if r.get("isError") else "completed", r)
            except Exception as e:  # noqa: BLE001 - a failed task reports why
                settle(t, "failed", None, str(e))

        t["runner"] = asyncio.create_task(run())
        return {"task": view(t)}

    async def get(ctx, params: GetTaskRequestParams):
        return _Raw(**view(find(params.task_id)))

    async def list_(ctx, params: PaginatedRequestParams):
        return _Raw(tasks=[view(t) for t in tasks.values()])

    async def cancel(ctx, params: CancelTaskRequestParams):
        t = find(params.task_id)
        if t["status"] in TERMINAL:
            raise MCPError(code=INVALID_PARAMS, message=f"task {t['taskId']} is already {t['status']}")
        t["runner"].cancel()
        settle(t, "cancelled", None, "cancelled by the client")
        return _Raw(**view(t))

    async def result(ctx, params: GetTaskPayloadRequestParams):
        t = find(params.task_id)
        await t["done"].wait()
        if t["result"] is None:
            raise MCPError(code=-32603, message=t.get("statusMessage") or f"task {t['status']}")
        body = dict(t["result"])
        body.setdefault("_meta", {})[RELATED] = {"taskId": t["taskId"]}
        return _Raw(**body)

    low.middleware.append(task_calls)
    low.add_request_handler("tasks/get", GetTaskRequestParams, get)
    low.add_request_handler("tasks/list", PaginatedRequestParams, list_)
    low.add_request_handler("tasks/cancel", CancelTaskRequestParams, cancel)
    low.add_request_handler("tasks/result", GetTaskPayloadRequestParams, result)

    plain_caps = low.get_capabilities

    def get_capabilities(*args: Any, **kwargs: Any):
        caps = plain_caps(*args, **kwargs)
        caps.tasks = ServerTasksCapability.model_validate(
            {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        )
        return caps

    low.get_capabilities = get_capabilities
