// The 2025-11-25 tasks utility for server.mjs, which the TypeScript SDK 2.4.0 does not serve
// itself: a `tools/call` with `params.task` answers `{task}` at once and runs in the
// background; `tasks/get`, `tasks/result` (waits for the end), `tasks/list`, `tasks/cancel`.
// It wraps the SDK's own `tools/call` handler (so the tool runs exactly as when called plainly).
import { randomUUID } from "node:crypto";

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const RELATED = "io.modelcontextprotocol/related-task";

export function tasks(server) {
  const handlers = server._requestHandlers;
  const call = handlers.get("tools/call");
  const all = new Map();
  const view = (t) => ({
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage && { statusMessage: t.statusMessage }),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttl: t.ttl,
    pollInterval: 50,
  });
  const find = (params) => {
    const t = all.get(params?.taskId);
    if (!t) throw Object.assign(new Error(`no task ${params?.taskId}`), { code: -32602 });
    return t;
  };
  const settle = (t, status, result, message) => {
    if (TERMINAL.has(t.status)) return;
    t.status = status;
    t.result = result;
    t.statusMessage = message;
    t.lastUpdatedAt = new Date().toISOString();
    t.done();
    server.notification({ method: "notifications/tasks/status", params: view(t) }).catch(() => {});
  };
  handlers.set("tools/call", async (request, ctx) => {
    const task = request.params?.task;
    if (!task) return call(request, ctx);
    const now = new Date().toISOString();
    const t = { taskId: randomUUID(), status: "working", createdAt: now, lastUpdatedAt: now, ttl: task.ttl ?? 60000 };
    t.finished = new Promise((r) => (t.done = r));
    all.set(t.taskId, t);
    const { task: _, ...params } = request.params;
    call({ ...request, params }, ctx).then(
      (result) => settle(t, result.isError ? "failed" : "completed", result),
      (e) => settle(t, "failed", undefined, String(e?.message ?? e)),
    );
    return { task: view(t) };
  });
  handlers.set("tasks/get", async (request) => view(find(request.params)));
  handlers.set("tasks/list", async () => ({ tasks: [...all.values()].map(view) }));
  handlers.set("tasks/cancel", async (request) => {
    const t = find(request.params);
    if (TERMINAL.has(t.status)) {
      throw Object.assign(new Error(`task ${t.taskId} is already ${t.status}`), { code: -32602 });
    }
    settle(t, "cancelled", undefined, "cancelled by the client");
    return view(t);
  });
  handlers.set("tasks/result", async (request) => {
    const t = find(request.params);
    await t.finished;
    if (t.status !== "completed" && t.status !== "failed") {
      throw Object.assign(new Error(`task ${t.taskId} ${t.status}`), { code: -32603 });
    }
    if (!t.result) throw Object.assign(new Error(t.statusMessage), { code: -32603 });
    return { ...t.result, _meta: { ...(t.result._meta ?? {}), [RELATED]: { taskId: t.taskId } } };
  });
}
