"""Emit the Python typing of the protocol from gen.py's model (same schema, same pass).

Called by `gen.py --py-out FILE --py-requests-out FILE` (see scripts/gen-protocol.sh). Writes:
  * `python/codexclient/protocol.py`: a `TypedDict` for every object type of the schema (params,
    results, notifications, server requests and their answers, items, inputs, ...), `Literal`
    aliases for the string enums, `Union` aliases for the unions (tagged unions narrow on their
    tag: `item["type"] == "agentMessage"`), the method tables (`Literal` method names and dicts
    mapping each method to its types) and the typed events: `Notification[Literal[method],
    Params]` per notification and `ServerRequest[Literal[method], Params, Response]` per server
    request, gathered in the `NotificationEvent` / `ServerRequestEvent` / `Event` unions that
    narrow on `event.method == "..."`.
  * `python/codexclient/_requests.py`: the `request()` overloads keyed by the method literal
    (one class for the blocking client, one for the asyncio client).

Mapping (the Rust mapping's forward-compatibility extras have no Python counterpart: a
TypedDict is open anyway, and the unions are closed so that they narrow; values this schema
does not know still arrive at run time, as plain dicts and strings):
  * struct -> `class X(TypedDict)`; a field not in `required` is an optional key (`total=False`
    part: required keys go in a private base class `_XRequired`, so that the runtime
    `__required_keys__` is right on every Python from 3.9, without `NotRequired`); a nullable
    field is `Optional[T]`. Field names that are not identifiers (`async`, `$schema`) use the
    functional `TypedDict("X", {...})` form. A struct without properties -> `Dict[str, Any]`.
  * string enum -> `Literal[...]`; tagged union -> `Union` of one TypedDict per tag, each with
    its tag key typed `Literal["tag"]`; externally tagged -> `Union[Literal[units...],
    {key: T} TypedDicts]`; untagged -> `Union` of the alternatives.
  * String -> str, integers -> int, f64 -> float, bool -> bool, Vec -> List, map -> Dict[str, T],
    Option -> Optional, untyped -> Any, open object -> Dict[str, Any].
Stdlib only, deterministic.
"""

import json
import keyword
import sys

TYPING_NAMES = {"McpNotificationEvent", "McpServerRequest", "Any", "Dict", "List", "Literal", "Optional", "TypedDict", "Union", "Tuple",
                "TYPE_CHECKING", "Notification", "ServerRequest", "ConnectionEvent", "Event",
                "NotificationEvent", "ServerRequestEvent", "ClientRequestMethod",
                "ServerNotificationMethod", "ServerRequestMethod", "CLIENT_REQUESTS",
                "SERVER_NOTIFICATIONS", "SERVER_REQUESTS", "SCHEMA_VERSION", "Mapping", "CODEX_WINDOW",
                "CLIENT_METHOD_VERSIONS", "NOTIFICATION_VERSIONS", "SERVER_REQUEST_VERSIONS",
                "client_method_versions", "notification_versions", "server_request_versions"}

# The same clients speak MCP to any MCP server; its notifications and server requests come
# through the same events, so the typed unions name them too (untyped params), or comparing
# `event.method` with one of them would be a non-overlapping comparison for the checkers.
# From the MCP schema 2025-11-25 (`ServerNotification`, `ServerRequest`; `ping` is answered by
# the core and never delivered).
MCP_NOTIFICATIONS = [
    "notifications/cancelled", "notifications/elicitation/complete", "notifications/message",
    "notifications/progress", "notifications/prompts/list_changed",
    "notifications/resources/list_changed", "notifications/resources/updated",
    "notifications/tasks/status", "notifications/tools/list_changed",
]
MCP_SERVER_REQUESTS = ["elicitation/create", "roots/list", "sampling/createMessage"]

PRIM = {"String": "str", "bool": "bool", "u64": "int", "i64": "int", "f64": "float"}


def py_tuple(items):
    """A tuple literal of strings."""
    return "(" + ", ".join(py_str(x) for x in items) + ("," if len(items) == 1 else "") + ")"


def py_str(s):
    return json.dumps(s, ensure_ascii=False)


def doc_text(text):
    """A schema description as the body of a docstring (no closing quotes, no backslashes)."""
    text = (text or "").replace("\r", "").replace("\\", "\\\\").replace('"""', "'''").strip()
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    if text.endswith('"'):
        text += " "
    return text


def docstring(text, indent):
    """Lines of a docstring at `indent` (empty when there is no text)."""
    body = doc_text(text)
    if not body:
        return []
    lines = body.split("\n")
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    out = [f'{indent}"""{lines[0]}']
    out += [f"{indent}{line}" if line else "" for line in lines[1:]]
    out.append(f'{indent}"""')
    return out


class Emitter:
    def __init__(self, model):
        self.m = model
        self.items = model["items"]
        self.names = set(self.items)
        clash = sorted(self.names & TYPING_NAMES)
        if clash:
            raise SystemExit(f"gen_py.py: schema types shadow names the Python module uses: {clash}")
        self.defs = {}  # name -> (deps, build(quoted names) -> lines)
        self.extra_names = set()

    # -- types
    def render(self, t, quote):
        k = t.kind
        if k == "prim":
            return PRIM[t.arg]
        if k == "named":
            name = self.py_name(t.arg)
            return py_str(name) if name in quote else name
        if k == "value":
            return "Any"
        if k == "jsonmap":
            return "Dict[str, Any]"
        if k == "vec":
            return f"List[{self.render(t.arg, quote)}]"
        if k == "map":
            return f"Dict[str, {self.render(t.arg, quote)}]"
        if k == "opt":
            inner = t.arg.arg if t.arg.kind == "box" else t.arg
            if inner.kind == "value":
                return "Any"
            return f"Optional[{self.render(inner, quote)}]"
        if k == "box":
            return self.render(t.arg, quote)
        raise AssertionError(k)

    def refs(self, t):
        k = t.kind
        if k == "named":
            return [self.py_name(t.arg)]
        if k in ("vec", "map", "opt", "box"):
            return self.refs(t.arg)
        return []

    def py_name(self, name):
        it = self.items[name]
        if it.kind == "struct" and not it.fields:
            return name  # an alias of Dict[str, Any]
        return name

    def fresh(self, base):
        name, i = base, 2
        while name in self.names or name in self.extra_names or name in TYPING_NAMES:
            name = f"{base}{i}"
            i += 1
        self.extra_names.add(name)
        return name

    # -- items (each a definition with its dependencies, emitted in dependency order)
    def field(self, f):
        """A struct field -> (wire, type builder, deps, required, doc)."""
        t = f.ty
        if f.nullable:
            t = type(t)("opt", t)  # the model's T
        return (f.wire, lambda q, t=t: self.render(t, q), self.refs(t), f.required, f.doc)

    def typed_dict(self, name, doc, fields, tag=None):
        """fields: [(wire, type builder, deps, required, doc)]; tag: (key, value), first."""
        fields = list(fields)
        if tag is not None:
            lit = f"Literal[{py_str(tag[1])}]"
            fields.insert(0, (tag[0], lambda q, lit=lit: lit, [], True, None))
        deps = [d for f in fields for d in f[2]]
        req = [f for f in fields if f[3]]
        opt = [f for f in fields if not f[3]]
        functional = any(not f[0].isidentifier() or keyword.iskeyword(f[0]) for f in fields)

        def build(q):
            lines = []

            def body(fs):
                for w, ty, _deps, _req, fdoc in fs:
                    lines.append(f"    {w}: {ty(q)}")
                    lines.extend(docstring(fdoc, "    "))

            if functional:
                # the keys are no identifiers: functional form, one per part
                bases = []
                for part, fs, total in (("Required", req, ""), ("Optional", opt, ", total=False")):
                    if fs:
                        base = f"_{name}{part}"
                        items = ", ".join(f"{py_str(f[0])}: {f[1](q)}" for f in fs)
                        lines.append(f"{base} = TypedDict({py_str(base)}, {{{items}}}{total})")
                        bases.append(base)
                lines += ["", "", f"class {name}({', '.join(bases)}):"]
                lines.extend(docstring(doc, "    ") or ["    pass"])
            elif req and opt:
                base = f"_{name}Required"
                lines.append(f"class {base}(TypedDict):")
                lines.append(f'    """The required keys of :class:`{name}`."""')
                body(req)
                lines += ["", "", f"class {name}({base}, total=False):"]
                lines.extend(docstring(doc, "    "))
                body(opt)
            else:
                lines.append(f"class {name}(TypedDict{'' if req else ', total=False'}):")
                lines.extend(docstring(doc, "    "))
                if not fields and not doc:
                    lines.append("    pass")
                body(fields)
            return lines

        self.defs[name] = (deps, build)

    def alias(self, name, build, deps, doc):
        self.defs[name] = (deps, lambda q: [f"{name} = {build(q)}"] + docstring(doc, ""))

    def build(self):
        for name in sorted(self.items):
            it = self.items[name]
            k = it.kind
            if k == "struct":
                if name in self.tag_of:
                    continue  # emitted with its tag by the tagged union
                if it.fields:
                    self.typed_dict(name, it.doc, [self.field(f) for f in it.fields])
                else:
                    self.alias(name, lambda q: "Dict[str, Any]", [], it.doc or f"`{name}`: any object.")
            elif k == "string_enum":
                vals = ", ".join(py_str(v[0]) for v in it.values)
                self.alias(name, lambda q, vals=vals: f"Literal[{vals}]", [], it.doc)
            elif k == "int_enum":
                vals = ", ".join(str(v[0]) for v in it.values)
                self.alias(name, lambda q, vals=vals: f"Literal[{vals}]", [], it.doc)
            elif k == "tagged":
                members = []
                for tv, _ident, sname, vdoc, _exp in it.variants:
                    st = self.items[sname]
                    vdoc = vdoc or f":data:`{name}` with ``{it.tag_key}: {py_str(tv)}``."
                    self.typed_dict(sname, vdoc, [self.field(f) for f in st.fields], tag=(it.tag_key, tv))
                    members.append(sname)
                self.alias(name, lambda q, ms=members: union([quoted(m, q) for m in ms]), members, it.doc)
            elif k == "external":
                parts, deps = [], []
                if it.units:
                    parts.append("Literal[" + ", ".join(py_str(u[0]) for u in it.units) + "]")
                for key, ident, ty, ndoc, _exp in it.newtypes:
                    cname = self.fresh(name + ident)  # `Decision` + `AcceptWith...`: one key
                    self.typed_dict(cname, ndoc or f"`{name}` `{{{py_str(key)}: ...}}`.",
                                    [(key, lambda q, ty=ty: self.render(ty, q), self.refs(ty), True, None)])
                    parts.append(cname)
                    deps.append(cname)
                self.alias(name, lambda q, ps=parts: union([quoted(x, q) for x in ps]), deps, it.doc)
            elif k == "untagged":
                variants = [v[1] for v in it.variants]
                deps = [r for v in variants for r in self.refs(v)]
                self.alias(name, lambda q, vs=variants: union([self.render(v, q) for v in vs]), deps, it.doc)
            elif k == "alias":
                target = it.target
                self.alias(name, lambda q, t=target: self.render(t, q), self.refs(target), it.doc)
            else:
                raise AssertionError(k)

    def ordered(self):
        """Definitions in dependency order (annotations are evaluated at import: a name is
        defined before its use); a reference that closes a cycle is quoted (a forward
        reference). -> [(name, quoted names)]"""
        order, state = [], {}
        sys.setrecursionlimit(100000)

        def visit(n):
            state[n] = 1
            q = set()
            for d in sorted(set(self.defs[n][0])):
                if d not in self.defs:
                    continue
                if state.get(d) == 1:
                    q.add(d)
                elif d not in state:
                    visit(d)
            state[n] = 2
            order.append((n, q))

        for n in sorted(self.defs):
            if n not in state:
                visit(n)
        return order

    # -- whole module
    def emit(self):
        self.tag_of = {}
        for name, it in self.items.items():
            if it.kind == "tagged":
                for v in it.variants:
                    self.tag_of[v[2]] = name
        self.build()
        m = self.m
        out = []
        w = out.append
        w(f'"""The Codex app-server protocol ({m["window"][0]} to {m["version"]}) as Python types: generated, do not edit.')
        w("")
        w("Generated by ``tools/protocol-gen/gen.py`` (``scripts/gen-protocol.sh``) from the vendored")
        w("JSON Schemas ``schema/codex-<version>/`` of every version of :data:`CODEX_WINDOW` (the Rust")
        w("types come from the same pass): the union of the window, so that what any of them sends")
        w("type-checks.")
        w("")
        w("Type-checking only: nothing here validates or converts values at run time. Params and")
        w("results stay plain dicts; a ``TypedDict`` lets mypy and pyright check them. The unions are")
        w("closed (they narrow on their tag); values a newer server sends still arrive unchanged.")
        w("")
        w("    from codexclient import protocol as p")
        w("")
        w("    def on_item(item: p.ThreadItem) -> None:")
        w('        if item["type"] == "agentMessage":')
        w('            print(item["text"])')
        w('"""')
        w("")
        w("# ruff: noqa")
        w("# fmt: off")
        w("# No `from __future__ import annotations`: evaluated annotations are much cheaper to")
        w("# build (a TypedDict compiles every string annotation), so the definitions come in")
        w("# dependency order and only cycles use forward references.")
        w("from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union")
        w("")
        w("from ._native import ConnectionEvent, Notification, ServerRequest")
        w("")
        w(f"SCHEMA_VERSION = {py_str(m['version'])}")
        w('"""The newest Codex version of the window these types were generated from."""')
        w("")
        w("CODEX_WINDOW: Tuple[str, ...] = " + py_tuple(m["window"]))
        w('"""Every Codex version of the supported window, ascending."""')
        w("")
        for name, q in self.ordered():
            lines = self.defs[name][1](q)
            if lines[0].startswith(("class ", "_")):
                w("")
            out.extend(lines)
            w("")
        public = sorted(set(self.items) | self.extra_names)
        public += self.emit_methods(out)
        w("")
        w("__all__ = [")
        for n in sorted(set(public)):
            if not n.startswith("_"):
                w(f"    {py_str(n)},")
        w("]")
        return "\n".join(out) + "\n"

    def params_info(self, pty):
        """Rust params type -> (python type or None, optional?)."""
        if pty == "NoParams":
            return None, True
        if pty.startswith("Option<"):
            return pty[7:-1], True
        it = self.items[pty]
        optional = it.kind == "struct" and not any(f.required for f in it.fields)
        return pty, optional

    def resp_type(self, resp):
        return "Any" if resp == "serde_json::Value" else resp

    def emit_methods(self, out):
        m = self.m
        w = out.append
        names = []

        def literal_alias(name, methods, doc):
            w(f"{name} = Literal[")
            for meth in methods:
                w(f"    {py_str(meth)},")
            w("]")
            w(f'"""{doc}"""')
            w("")
            names.append(name)

        literal_alias("ClientRequestMethod", [c[0] for c in m["client"]],
                      "Every client-to-server request method (``client.request(method, ...)``).")
        literal_alias("ServerNotificationMethod", [n[0] for n in m["notifs"]],
                      "Every server notification method.")
        literal_alias("ServerRequestMethod", [s[0] for s in m["sreqs"]],
                      "Every server-to-client request method (approvals, user input, ...).")

        w("CLIENT_REQUESTS: Dict[str, Tuple[Any, Any]] = {")
        for method, _ident, pty, _pname, resp, _exp, _desc in m["client"]:
            p, _ = self.params_info(pty)
            w(f"    {py_str(method)}: ({p or 'None'}, {self.resp_type(resp) if resp != 'serde_json::Value' else 'None'}),")
        w("}")
        w('"""Client request method -> (params type, result type); ``None``: no params / untyped."""')
        w("")
        w("SERVER_NOTIFICATIONS: Dict[str, Any] = {")
        for method, _ident, pty, _desc in m["notifs"]:
            p, _ = self.params_info(pty)
            w(f"    {py_str(method)}: {p or 'None'},")
        w("}")
        w('"""Server notification method -> params type."""')
        w("")
        w("SERVER_REQUESTS: Dict[str, Tuple[Any, Any]] = {")
        for method, _ident, pty, resp, _exp, _desc in m["sreqs"]:
            p, _ = self.params_info(pty)
            w(f"    {py_str(method)}: ({p or 'None'}, {resp}),")
        w("}")
        w('"""Server request method -> (params type, answer type)."""')
        w("")
        names += ["CLIENT_REQUESTS", "SERVER_NOTIFICATIONS", "SERVER_REQUESTS", "SCHEMA_VERSION"]

        # the window: which versions have each method (as the Rust functions of the same names)
        window = m["window"]
        for table, key, what in (("CLIENT_METHOD_VERSIONS", "ClientRequest", "client method"),
                                 ("NOTIFICATION_VERSIONS", "ServerNotification", "server notification"),
                                 ("SERVER_REQUEST_VERSIONS", "ServerRequest", "server request")):
            w(f"{table}: Dict[str, Tuple[str, ...]] = {{")
            for meth, vs in sorted(m["tables"][key].items()):
                val = "CODEX_WINDOW" if vs == window else py_tuple(vs)
                w(f"    {py_str(meth)}: {val},")
            w("}")
            w(f'"""{what[:1].upper() + what[1:]} -> the versions of :data:`CODEX_WINDOW` whose schema has it."""')
            w("")
            fn = table.lower()
            w(f"def {fn}(method: str) -> Optional[Tuple[str, ...]]:")
            w(f'    """The versions of :data:`CODEX_WINDOW` whose schema (stable or experimental) has the {what}')
            w('    ``method``, ascending; ``None`` if none has it."""')
            w(f"    return {table}.get(method)")
            w("")
            w("")
            names += [table, fn]
        names.append("CODEX_WINDOW")

        # typed events: one generic alias per method, then the MCP ones, then their union
        def event_union(cls, suffix, rows, mcp_name, mcp_methods, mcp_rest, mcp_doc, union_name, union_doc):
            names_ = []
            for method, ident, pty, rest, desc in rows:
                p, _ = self.params_info(pty)
                name = self.fresh(ident + suffix)
                w(f"{name} = {cls}[Literal[{py_str(method)}], {p or 'None'}{rest}]")
                out.extend(docstring(f"``{method}``" + (f": {desc}" if desc else "."), ""))
                w("")
                names_.append(name)
            lits = ", ".join(py_str(x) for x in mcp_methods)
            w(f"{mcp_name} = {cls}[Literal[{lits}], Dict[str, Any]{mcp_rest}]")
            w(f'"""{mcp_doc}"""')
            w("")
            names_.append(mcp_name)
            w(f"{union_name} = " + union(names_))
            w(f'"""{union_doc}"""')
            w("")
            return names_ + [union_name]

        names += event_union(
            "Notification", "Event", [(n[0], n[1], n[2], "", n[3]) for n in m["notifs"]],
            "McpNotificationEvent", MCP_NOTIFICATIONS, "",
            "A notification of an MCP server (``Client(command=[...])``): its params untyped.",
            "NotificationEvent",
            'A server notification: narrows on ``event.method == "..."`` to its typed ``params``.')
        names += event_union(
            "ServerRequest", "Request", [(r[0], r[1], r[2], f", {r[3]}", r[5]) for r in m["sreqs"]],
            "McpServerRequest", MCP_SERVER_REQUESTS, ", Any",
            "A request of an MCP server (sampling, elicitation, roots): its params untyped.",
            "ServerRequestEvent",
            'A server request: narrows on ``request.method == "..."`` to its typed ``params``.')
        w("Event = Union[NotificationEvent, ServerRequestEvent, ConnectionEvent]")
        w('"""What a turn or ``client.events()`` yields: a notification, a server request or a')
        w('connection event, each narrowing on ``.method`` (connection events on ``.kind``)."""')
        return names + ["Event"]

    # -- request() overloads
    def emit_requests(self):
        m = self.m
        out = []
        w = out.append
        w('"""Typed ``request()`` overloads keyed by the method literal: generated, do not edit.')
        w("")
        w("Generated by ``tools/protocol-gen/gen.py`` (``scripts/gen-protocol.sh``) with")
        w(":mod:`codexclient.protocol`. :class:`CodexClient` and :class:`AsyncCodexClient` inherit these.")
        w('"""')
        w("")
        w("# ruff: noqa")
        w("# fmt: off")
        w("from __future__ import annotations")
        w("")
        w("from typing import TYPE_CHECKING, Any, Callable, Dict, Literal, Mapping, Optional, overload")
        w("")
        w("if TYPE_CHECKING:  # the protocol types are for type checkers: no import cost")
        w("    from . import protocol as p")
        w("")
        for cls, is_async in (("SyncRequests", False), ("AsyncRequests", True)):
            a = "async " if is_async else ""
            w("")
            w(f"class {cls}:")
            w(f'    """``request()`` of the {"asyncio" if is_async else "blocking"} client, typed per method."""')
            w("")
            w("    _request: Callable[[str, Optional[Mapping[str, Any]], Optional[float]], Any]")
            w("")
            for method, _ident, pty, _pname, resp, exp, desc in m["client"]:
                p, optional = self.params_info(pty)
                if p is None:
                    param = "params: None = None"
                elif optional:
                    param = f"params: Optional[p.{p}] = None"
                else:
                    param = f"params: p.{p}"
                r = "Any" if resp == "serde_json::Value" else f"p.{resp}"
                doc = " ".join(x for x in (
                    desc, "Experimental API: needs ``experimental_api=True``." if exp else None) if x)
                w("    @overload")
                w(f"    {a}def request(self, method: Literal[{py_str(method)}], {param}, *, "
                  f"timeout: Optional[float] = None) -> {r}:" + ("" if doc else " ..."))
                out.extend(docstring(doc, "        "))
            # The fallback takes a Dict (not any Mapping): a TypedDict is no Dict, so params of a
            # method's own type match only that method's overload (no ambiguity, no Any).
            w("    @overload")
            w(f"    {a}def request(self, method: str, params: Optional[Dict[str, Any]] = None, *, "
              "timeout: Optional[float] = None) -> Any: ...")
            w(f"    {a}def request(self, method: str, params: Optional[Mapping[str, Any]] = None, *, "
              "timeout: Optional[float] = None) -> Any:")
            if is_async:
                w('        """Send any v2 request and return its result as Python objects (typed by')
                w("        method: ``await client.request(\"thread/start\", {...})`` is a")
                w("        :class:`~codexclient.protocol.ThreadStartResponse`; any other ``str`` gives ``Any``).")
                w("")
                w("        Raises :class:`RequestTimeoutError` after ``timeout`` seconds (default: the client's")
                w("        ``default_timeout``), :class:`RpcError` (or a subclass) for an error answer and")
                w("        :class:`ConnectionClosedError` when the server goes away.")
                w('        """')
                w("        return await self._request(method, params, timeout)")
            else:
                w('        """Send any v2 request and wait (GIL released) for its result, as Python objects')
                w("        (typed by method: ``client.request(\"thread/start\", {...})`` is a")
                w("        :class:`~codexclient.protocol.ThreadStartResponse`; any other ``str`` gives ``Any``).")
                w("")
                w("        Raises :class:`RequestTimeoutError`, :class:`RpcError` (or a subclass) or")
                w("        :class:`ConnectionClosedError`.")
                w('        """')
                w("        return self._request(method, params, timeout)")
            w("")
        w("")
        w('__all__ = ["SyncRequests", "AsyncRequests"]')
        return "\n".join(out) + "\n"


def quoted(name, q):
    return py_str(name) if name in q else name


def union(members):
    members = list(dict.fromkeys(members))
    if len(members) == 1:
        return members[0]
    return "Union[" + ", ".join(members) + "]"


def emit(model):
    e = Emitter(model)
    py = e.emit()
    req = e.emit_requests()
    return py, req


# -- typed keyword methods (python/codexclient/_keywords.py) ---------------------------------
#
# The methods whose keywords are the fields of a request's params: `thread_start`,
# `thread_resume`, `thread_fork` of the clients, `run`, `run_streamed`, `fork` of the threads.
# Each keyword is one field of the params type (snake_case of its wire name, typed by the
# schema, documented by its description); the body hands the wire names to a method the
# hand-written class supplies (`_open`, `_run`, `_run_streamed`, `_fork`).

# Fields left out of the keywords: test-only ones of the schema (still sendable with `extra=`).
KEYWORD_SKIP = {"mockExperimentalField"}

# The hand-written parameters around the generated keywords (no field may take their names).
OWN_KEYWORDS = {"self", "params", "input", "skills", "timeout", "idle_timeout", "extra", "thread_id"}

KW_DOC_PARAMS = ":param params: more params as a mapping of wire names (sent as given; the keywords win)."
KW_DOC_EXTRA = (":param extra: fields this schema does not know, sent as given (wire names, "
                "e.g. ``{\"newField\": 1}``): the one way to pass them, as an unknown keyword raises "
                ":class:`TypeError`.")
KW_DOC_TIMEOUT = ":param timeout: seconds to wait for the answer (default: the client's ``default_timeout``)."
KW_DOC_THREAD_ID = ":param thread_id: the thread's id."
KW_DOC_INPUT = (":param input: the turn's input: a string, an input item (``{\"type\": \"text\", ...}``, "
                "see :func:`codexclient.text`) or a list of them.")
KW_DOC_SKILLS = (":param skills: names or paths (``SKILL.md`` or its folder) of skills for the turn, "
                 "sent natively where the server can, else as the ``skill_emulation`` option allows "
                 "(see :attr:`TurnResult.emulated_skills`); a missing or unknown skill raises "
                 ":class:`InvalidArgumentError` before anything is sent.")
KW_DOC_TURN_TIMEOUT = (":param timeout: seconds the whole turn may take (``None``: no bound); past it "
                       "the turn is interrupted and :class:`RequestTimeoutError` is raised, naming the "
                       "bound and the last event seen.")
KW_DOC_IDLE = (":param idle_timeout: seconds the turn may stay silent between two events (``None``: "
               "no bound); past it as for ``timeout``.")
KW_NOTE = ("A keyword left ``None`` is not sent; an unknown keyword raises :class:`TypeError` "
           "naming it and the closest valid one.")


def _one_line(text):
    """A schema description as one line of a ``:param:`` field."""
    body = doc_text(text)
    return " ".join(part.strip() for part in body.split("\n") if part.strip())


class Keywords:
    """The keyword methods, from the model's params structs."""

    def __init__(self, emitter):
        self.e = emitter
        self.m = emitter.m
        self.by_method = {c[0]: c for c in self.m["client"]}

    def ptype(self, t):
        """A field's value type for an annotation in the generated module (``p.`` names)."""
        k = t.kind
        if k == "prim":
            return PRIM[t.arg]
        if k == "named":
            return f"p.{self.e.py_name(t.arg)}"
        if k == "value":
            return "Any"
        if k == "jsonmap":
            return "Dict[str, Any]"
        if k == "vec":
            return f"List[{self.ptype(t.arg)}]"
        if k == "map":
            return f"Dict[str, {self.ptype(t.arg)}]"
        if k in ("opt", "box"):
            return self.ptype(t.arg)
        raise AssertionError(k)

    def fields(self, method, drop):
        """The keyword fields of `method`'s params: [(python name, wire, annotation, doc)]."""
        pty = self.by_method[method][2]
        it = self.m["items"][pty]
        out = []
        for f in it.fields:
            if f.wire in drop or f.wire in KEYWORD_SKIP:
                continue
            name = snake_py(f.wire)
            if name in OWN_KEYWORDS or keyword.iskeyword(name) or not name.isidentifier():
                raise SystemExit(f"gen_py.py: {pty}.{f.wire} cannot be the keyword {name!r}")
            inner = self.ptype(f.ty)
            ann = "Any" if inner == "Any" else f"Optional[{inner}]"
            doc = _one_line(f.doc)
            doc = f"``{f.wire}``" + (f": {doc}" if doc else ".")
            if f.experimental:
                doc += " Experimental API: needs ``experimental_api=True``."
            out.append((name, f.wire, ann, doc))
        names = [x[0] for x in out]
        if len(set(names)) != len(names):
            raise SystemExit(f"gen_py.py: two fields of {pty} make the same keyword")
        return pty, out

    @staticmethod
    def signature(head, fields, tail):
        """The parameter lines: `head` (before the keywords), the fields, `tail`."""
        lines = list(head)
        for name, _wire, ann, _doc in fields:
            lines.append(f"{name}: {ann} = None,")
        lines += tail
        return lines

    @staticmethod
    def given(fields):
        """The dict literal of the keywords by wire name."""
        if not fields:
            return "{}"
        return "{" + ", ".join(f"{py_str(w)}: {n}" for n, w, _a, _d in fields) + "}"

    def method(self, out, *, name, is_async, head, tail, fields, ret, summary, head_docs,
               tail_docs, call, awaited):
        w = out.append
        a = "async " if is_async else ""
        w("    @checked")
        w(f"    {a}def {name}(")
        for line in self.signature(head, fields, tail):
            w(f"        {line}")
        w(f"    ) -> {ret}:")
        doc = [summary, "", KW_NOTE, ""] + head_docs
        doc += [f":param {n}: {d}" for n, _w, _a, d in fields] + tail_docs
        w(f'        """{doc[0]}')
        for line in doc[1:]:
            w(f"        {line}" if line else "")
        w('        """')
        body = ("await " if awaited else "") + call.format(given=self.given(fields))
        w(f"        return cast({py_str(ret)}, {body})")
        w("")

    def emit(self):
        out = []
        w = out.append
        v = self.m["version"]
        w(f'"""Typed keyword methods of the clients and threads (Codex {self.m["window"][0]} to {v}): generated, do not edit.')
        w("")
        w("Generated by ``tools/protocol-gen/gen.py`` (``scripts/gen-protocol.sh``) from the vendored")
        w("JSON Schemas of the window with :mod:`codexclient.protocol`, so the keywords of")
        w("``thread_start``, ``thread_resume``, ``thread_fork``, ``run``, ``run_streamed`` and ``fork``")
        w("are the fields of their params (``approval_policy=`` is ``approvalPolicy``), typed and")
        w("documented by the schema. :class:`CodexClient`, :class:`AsyncCodexClient`, :class:`Thread` and")
        w(":class:`AsyncThread` inherit these; the work is done by the hand-written ``_open``,")
        w("``_run``, ``_run_streamed`` and ``_fork``.")
        w('"""')
        w("")
        w("# ruff: noqa")
        w("# fmt: off")
        w("from __future__ import annotations")
        w("")
        w("from typing import TYPE_CHECKING, Any, Dict, Generic, List, Mapping, Optional, TypeVar, cast")
        w("")
        w("from ._signature import checked")
        w("")
        w("if TYPE_CHECKING:  # the protocol types are for type checkers: no import cost")
        w("    from . import protocol as p")
        w("    from ._inputs import Input, Skills")
        w("    from ._results import TurnResult")
        w("")
        w("# The thread and turn classes the methods return are parameters, bound by the classes that")
        w("# inherit these (`Thread(ThreadKeywords[\"Thread\", \"Turn\"], ...)`): this module imports")
        w("# neither `_sync` nor `_async`, which import it.")
        w('_ThreadT = TypeVar("_ThreadT")')
        w('_TurnT = TypeVar("_TurnT")')
        w("")
        w("")
        params_tail = ["extra: Optional[Mapping[str, Any]] = None,", "timeout: Optional[float] = None,"]
        req_docs = [KW_DOC_EXTRA, KW_DOC_TIMEOUT]
        opens = [
            ("thread_start", "thread/start", ("threadId",), False,
             "``thread/start``: a new thread (its :attr:`~Thread.info` is the answer)."),
            ("thread_resume", "thread/resume", ("threadId",), True,
             "``thread/resume``: load a stored thread (or rejoin a running one)."),
            ("thread_fork", "thread/fork", ("threadId",), True,
             "``thread/fork``: a new thread with a copy of ``thread_id``'s history."),
        ]
        for cls, is_async, thread in (("ClientKeywords", False, "_ThreadT"),
                                      ("AsyncClientKeywords", True, "_ThreadT")):
            w(f"class {cls}(Generic[_ThreadT]):")
            w(f'    """The typed ``thread/*`` methods of :class:`{"AsyncCodexClient" if is_async else "CodexClient"}`."""')
            w("")
            w("    _open: Any")
            w("")
            for name, meth, drop, with_id, summary in opens:
                _pty, fields = self.fields(meth, drop)
                head = ["self,"] + (["thread_id: str,"] if with_id else []) + \
                    ["params: Optional[Mapping[str, Any]] = None,", "*,"]
                head_docs = ([KW_DOC_THREAD_ID] if with_id else []) + [KW_DOC_PARAMS]
                tid = "thread_id" if with_id else "None"
                self.method(out, name=name, is_async=is_async, head=head, tail=params_tail,
                            fields=fields, ret=thread, summary=summary, head_docs=head_docs,
                            tail_docs=req_docs, awaited=is_async,
                            call=f"self._open({py_str(name)}, {tid}, params, {{given}}, extra, timeout)")
            w("")
        _pty, turn_fields = self.fields("turn/start", ("threadId", "input"))
        _pty, fork_fields = self.fields("thread/fork", ("threadId",))
        for cls, is_async, owner in (("ThreadKeywords", False, "Thread"),
                                     ("AsyncThreadKeywords", True, "AsyncThread")):
            thread, turn = "_ThreadT", "_TurnT"
            w(f"class {cls}(Generic[_ThreadT, _TurnT]):")
            w(f'    """The typed turn and fork methods of :class:`{owner}`."""')
            w("")
            w("    _run: Any")
            w("    _run_streamed: Any")
            w("    _fork: Any")
            w("")
            self.method(
                out, name="run", is_async=is_async,
                head=["self,", "input: Input,", "*,", "skills: Skills = None,",
                      "timeout: Optional[float] = None,", "idle_timeout: Optional[float] = None,"],
                tail=["extra: Optional[Mapping[str, Any]] = None,"], fields=turn_fields,
                ret="TurnResult",
                summary="``turn/start`` and the turn to its end: its result (final text, items, usage, "
                        "diff). Server requests of the turn go to the client's handlers.",
                head_docs=[KW_DOC_INPUT, KW_DOC_SKILLS, KW_DOC_TURN_TIMEOUT, KW_DOC_IDLE],
                tail_docs=[KW_DOC_EXTRA], awaited=is_async,
                call="self._run(input, skills, timeout, idle_timeout, {given}, extra)")
            streamed = ("``turn/start``, streamed: the returned :class:`StartingTurn` is awaitable "
                        "(the :class:`AsyncTurn` once ``turn/start`` is answered), async iterable (the "
                        "turn's events, ending with ``turn/completed``) and an async context manager "
                        "(leaving it before the turn completed interrupts it); the request is sent on "
                        "first use.") if is_async else (
                        "``turn/start``, streamed: iterate the returned :class:`Turn` for its events "
                        "(ending with ``turn/completed``), or take its :meth:`~Turn.result`.")
            self.method(
                out, name="run_streamed", is_async=False,
                head=["self,", "input: Input,", "*,", "skills: Skills = None,"],
                tail=["extra: Optional[Mapping[str, Any]] = None,"], fields=turn_fields, ret=turn,
                summary=streamed, head_docs=[KW_DOC_INPUT, KW_DOC_SKILLS], tail_docs=[KW_DOC_EXTRA],
                awaited=False, call="self._run_streamed(input, skills, {given}, extra)")
            self.method(
                out, name="fork", is_async=is_async, head=["self,", "*,"], tail=params_tail,
                fields=fork_fields, ret=thread, summary="``thread/fork`` of this thread.",
                head_docs=[], tail_docs=req_docs, awaited=is_async,
                call="self._fork({given}, extra, timeout)")
            w("")
        w('__all__ = ["ClientKeywords", "AsyncClientKeywords", "ThreadKeywords", "AsyncThreadKeywords"]')
        while out and out[-1] == "":
            out.pop()
        return "\n".join(out) + "\n"


def snake_py(wire):
    """A wire name as a Python keyword: ``approvalPolicy`` -> ``approval_policy``."""
    import re
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", wire)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


def emit_keywords(model):
    e = Emitter(model)
    e.tag_of = {}
    return Keywords(e).emit()
