#!/usr/bin/env python3
"""Generate `core/src/protocol/generated.rs` from the vendored Codex app-server JSON Schemas.

Usage:
    python3 tools/protocol-gen/gen.py --schema-dir schema/codex-0.163.0 [--schema-dir ...]
        [--out FILE] [--compat-out FILE] [--py-out FILE] [--py-requests-out FILE] [--py-keywords-out FILE]
        [--mcp-schema-dir schema/mcp-2025-11-25 ... --mcp-out FILE --mcp-py-out FILE]
(`scripts/gen-protocol.sh` passes one `--schema-dir` per version of CODEX_WINDOW in
scripts/codex-versions.sh.)

Input, per version: `<schema-dir>/stable/codex_app_server_protocol.schemas.json` and
`<schema-dir>/experimental/codex_app_server_protocol.schemas.json` (the single-file bundles that
`codex app-server generate-json-schema [--experimental]` writes; every other file of that dump
holds the same definitions), plus `<schema-dir>/VERSION`. The versions are merged into one schema
(merge.py: the union of the window) and one set of types is generated for it, with per-method
version tables (`CODEX_WINDOW`, `client_method_versions`, ...).
Output: Rust source (not yet rustfmt-ed; `scripts/gen-protocol.sh` runs rustfmt on it), the
Python typing (gen_py.py), and the compatibility report's vendored side (`--compat-out`, the
newest version, see `compat_table`).
The MCP types come from the same pass (`--mcp-schema-dir`, one per vendored MCP version):
gen_mcp.py, with its table of overrides (where the schema says less than the library needs).
Stdlib only, deterministic: the same schemas always yield the same bytes.

Why a custom generator and not `typify` (or `schemafy`, `quicktype`)?
  * Forward compatibility is the point of the module, and none of them generate it:
    every struct needs a `#[serde(flatten)] extra` map so unknown fields survive a
    re-serialisation, every string enum needs an `Unknown(String)` variant, every union
    an `Unknown(serde_json::Value)` variant with a hand-written `Deserialize` that falls back
    to it instead of failing.
  * Experimental API: the generator reads *two* schemas (stable and `--experimental`) and
    diffs them to mark experimental methods, types and fields, and emits the
    `ExperimentalFields` impls the client uses to refuse experimental fields unless
    `experimentalApi` was negotiated. A single-schema generator cannot know this.
  * Method tables: the schema's `ClientRequest` / `ServerRequest` / `ServerNotification`
    unions are turned into zero-sized method markers (`ClientMethod`, `ServerRequestMethod`),
    a `ServerNotification` enum with a never-failing `parse`, and name tables; typify would
    give one giant tagged enum of request envelopes instead.
  * Wire fidelity rules a general tool does not offer: required-but-nullable fields are always
    serialised (as `null` when `None`), optional fields of server-sent types keep their explicit
    `null`s, optional fields of client-sent types are omitted when `None`.
  * No build-time dependency: generated code is committed, the generator is stdlib Python,
    and the only crates the output needs are serde, serde_json and tracing.

Mapping rules (also documented in core/src/protocol/mod.rs):
  * object with properties -> struct (fields snake_case + `#[serde(rename)]`, `extra` map);
    `Default` derived when no field is required-and-non-nullable.
  * plain `{"type": "object"}` definition -> struct with only the `extra` map.
  * `additionalProperties: <schema>` with no properties -> `BTreeMap<String, T>`.
  * string enum (or oneOf of string enums) -> enum + `Unknown(String)`; integer enum -> enum +
    `Unknown(i64)`; boolean enum -> bool; `const` -> a one-value enum.
  * oneOf of objects sharing a single-value string property (`type`, `method`, `mode`, ...)
    -> tagged enum: one newtype variant per tag holding a struct without the tag field,
    + `Unknown(Value)`. Shared `properties` next to the `oneOf` are merged into every variant.
  * oneOf of string constants and single-key objects -> externally tagged enum
    (unit variants for the strings, newtype variants for `{"key": {...}}`) + `Unknown(Value)`.
  * an object whose inline `anyOf` alternatives only add fields -> one struct, those fields optional.
  * any other oneOf/anyOf -> untagged enum + `Unknown`: the first alternative that decodes with no
    drift at any depth wins, else the one with the least drift whose discriminators matched
    (rt::untagged; a union alternative only counts with a known value).
  * every `Unknown` fallback calls `drift::unknown(type, &raw)`, every struct reports its
    `extra` to `drift::extra_fields(type, &extra)` (the property tests watch them).
  * `anyOf [X, null]` / `type: [X, "null"]` -> `Option<X>`.
  * integer: `format: uint*` -> u64, otherwise i64; number -> f64; untyped -> Value.
  * direct recursion is broken with `Box`.
"""

import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import merge  # noqa: E402 - sibling module

# --------------------------------------------------------------------------------------------
# Loading

BUNDLE = "codex_app_server_protocol.schemas.json"
ENVELOPES = ("ClientRequest", "ServerRequest", "ServerNotification", "ClientNotification")

# Client methods whose params type does not follow `XxxParams` -> `XxxResponse` (their params
# are `null` or the response has another name). The schema itself does not link a request to its
# response; these pairs come from codex-rs `app-server-protocol/src/protocol/common.rs`
# (`client_request_definitions!`). The generator checks that every named type exists and lists
# response types that no method uses, so a rename upstream shows up at generation time.
RESPONSE_OVERRIDES = {
    "account/gatewayOAuth/cancel": "GatewayOAuthCancelResponse",
    "account/logout": "LogoutAccountResponse",
    "account/securitySetup/read": "GetAccountSecuritySetupResponse",
    "account/workspaceMessages/read": "GetWorkspaceMessagesResponse",
    "accountSession/list": "AccountSessionsResponse",
    "config/batchWrite": "ConfigWriteResponse",
    "config/mcpServer/reload": "McpServerRefreshResponse",
    "config/value/write": "ConfigWriteResponse",
    "configRequirements/read": "ConfigRequirementsReadResponse",
    "externalAgentConfig/import/readHistories": "ExternalAgentConfigImportHistoriesReadResponse",
    "memory/reset": "MemoryResetResponse",
    # 0.171.0 names no response type for it; codex-rs answers with `ConfigWriteResponse`
    # (checked live against codex 0.171.0 with the mock-model config of docs/real-codex.md:
    # the result has `status`, `version`, `filePath`, `overriddenMetadata`).
    "modelProvider/default/set": "ConfigWriteResponse",
    "remoteControl/status/read": "RemoteControlStatusReadResponse",
    "rollout/compress": "RolloutCompressResponse",
    "windowsSandbox/readiness": "WindowsSandboxReadinessResponse",
}

EXPECTED_COUNTS = {
    # version -> (stable client methods, server notifications, stable server requests)
    "0.169.0": (109, 86, 10),
}


def norm_refs(node):
    """Rewrite `#/definitions/v2/X` and `#/definitions/X` to plain `X` (one namespace)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                out[k] = v.rsplit("/", 1)[-1]
            else:
                out[k] = norm_refs(v)
        return out
    if isinstance(node, list):
        return [norm_refs(x) for x in node]
    return node


def norm_const(node, in_props=False):
    """`{"const": X}` -> `{"enum": [X]}` (the generator reads one form; a property named
    `const` stays a property)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "const" and not in_props:
                out["enum"] = [v]
            else:
                out[k] = norm_const(v, in_props=(k in NAMED_SCHEMAS and not in_props))
        return out
    if isinstance(node, list):
        return [norm_const(x) for x in node]
    return node


def load_defs(path):
    with open(path, encoding="utf-8") as f:
        bundle = json.load(f)
    defs = {}
    top = bundle["definitions"]
    nested = top.get("v2", {})
    for name, schema in list(top.items()) + list(nested.items()):
        if name == "v2":
            continue
        schema = norm_refs(schema)
        schema.pop("$schema", None)
        if name in defs and strip_titles(defs[name]) != strip_titles(schema):
            raise SystemExit(f"gen.py: definition {name} appears twice with different content")
        defs[name] = schema
    return defs


# Keys that describe a schema but are not its shape: the compatibility table drops them (the
# Rust side, core/src/compat/schema.rs, drops the same keys from a live schema).
NOT_SHAPE = ("description", "title", "$schema", "default", "examples")


# Keywords whose value maps names to schemas (the names are kept, even `description`).
NAMED_SCHEMAS = ("properties", "patternProperties", "definitions")


def shape_only(node):
    """`node` without the `NOT_SHAPE` keywords, with `required` lists sorted."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in NOT_SHAPE:
                continue
            if k in NAMED_SCHEMAS and isinstance(v, dict):
                out[k] = {name: shape_only(x) for name, x in v.items()}
            elif k == "required" and isinstance(v, list):
                out[k] = sorted(v)
            else:
                out[k] = shape_only(v)
        return out
    if isinstance(node, list):
        return [shape_only(x) for x in node]
    return node


def compat_table(version, exp_defs, st_defs):
    """The vendored side of `codex_client::compat` (core/src/compat/vendored-schema.json): the
    experimental definitions reduced to their shape, which of them the stable schema has (the
    stable form of those that differ, the methods of the stable envelopes), and the client methods whose response type does not
    follow the `XxxParams` -> `XxxResponse` convention. Compact JSON, sorted keys."""
    exp = {n: shape_only(d) for n, d in exp_defs.items()}
    differing = {n: shape_only(d) for n, d in st_defs.items()
                 if n not in ENVELOPES and shape_only(d) != exp[n]}
    table = {
        "version": version,
        "definitions": exp,
        "stable_definitions": sorted(st_defs),
        "stable_differing": differing,
        # The stable envelopes are the experimental ones cut down to these methods.
        "stable_methods": {k: sorted(m for m, _, _ in envelope_methods(st_defs, k)) for k in ENVELOPES},
        "response_overrides": RESPONSE_OVERRIDES,
    }
    return json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def strip_titles(node):
    if isinstance(node, dict):
        return {k: strip_titles(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [strip_titles(x) for x in node]
    return node


# --------------------------------------------------------------------------------------------
# Naming

RUST_KEYWORDS = {
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
}
NON_RAW = {"self", "Self", "crate", "super", "_"}
# Type names the generated code uses unqualified; a schema type may not shadow them.
RESERVED_TYPES = {
    "Option", "Vec", "String", "Box", "Some", "None", "Ok", "Err", "Result", "Self", "Default",
    "Serialize", "Deserialize", "Serializer", "Deserializer", "Value", "Map", "BTreeMap",
    "NoParams", "ClientMethod", "ServerRequestMethod", "ExperimentalFields", "ServerNotification",
    "ServerRequestKind", "ClientResponse", "CODEX_WINDOW",
}


def pascal(s):
    """`agentMessage` -> `AgentMessage`, `on-request` -> `OnRequest`, `thread/name/set` ->
    `ThreadNameSet`, `:read-only` -> `ReadOnly`."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", s) if p]
    out = "".join(p[0].upper() + p[1:] for p in parts)
    if not out:
        out = "Empty"
    if out[0].isdigit():
        out = "V" + out
    return out


def snake(s):
    s = s.lstrip("_")
    s = re.sub(r"[^A-Za-z0-9]+", "_", s)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    s = s.lower().strip("_")
    s = re.sub(r"_+", "_", s)
    if not s:
        s = "field"
    if s[0].isdigit():
        s = "f_" + s
    return s


def field_ident(name):
    if name in NON_RAW:
        return name + "_"
    if name in RUST_KEYWORDS:
        return "r#" + name
    return name


def clean_title(t):
    return re.sub(r"[^A-Za-z0-9]", "", t.replace("v2::", ""))


def doc_lines(text):
    """Schema description -> safe rustdoc lines (no doctests, no fenced code)."""
    text = text.replace("```", "`").replace("\r", "")
    lines = []
    for line in text.split("\n"):
        line = line.rstrip()
        line = re.sub(r"^ {4,}", "   ", line)  # an indented block would become a doctest
        line = line.replace("\t", " ")
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def serde_camel(field):
    """What `#[serde(rename_all = "camelCase")]` makes of a Rust field name."""
    out, cap = [], True
    for ch in field:
        if ch == "_":
            cap = True
        elif cap:
            out.append(ch.upper())
            cap = False
        else:
            out.append(ch)
    pascal_ = "".join(out)
    return pascal_[:1].lower() + pascal_[1:]


def rust_str(s):
    return json.dumps(s, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Model

class T:
    """A Rust type expression: kind in prim/named/vec/map/opt/box/value/jsonmap."""

    __slots__ = ("kind", "arg")

    def __init__(self, kind, arg=None):
        self.kind = kind
        self.arg = arg

    def render(self):
        k = self.kind
        if k == "prim":
            return self.arg
        if k == "named":
            return self.arg
        if k == "value":
            return "serde_json::Value"
        if k == "jsonmap":
            return "serde_json::Map<String, serde_json::Value>"
        if k == "vec":
            return f"Vec<{self.arg.render()}>"
        if k == "map":
            return f"BTreeMap<String, {self.arg.render()}>"
        if k == "opt":
            return f"Option<{self.arg.render()}>"
        if k == "box":
            return f"Box<{self.arg.render()}>"
        raise AssertionError(k)

    def named_refs(self, direct_only):
        """Named types this expression mentions; `direct_only` skips Vec/Map (heap) indirection."""
        k = self.kind
        if k == "named":
            return [self.arg]
        if k in ("opt", "box"):
            return self.arg.named_refs(direct_only)
        if k in ("vec", "map"):
            return [] if direct_only else self.arg.named_refs(direct_only)
        return []


VALUE = T("value")


class Field:
    def __init__(self, wire, ident, ty, required, nullable, doc, experimental):
        self.wire = wire
        self.ident = ident
        self.ty = ty  # T of the value (without Option)
        self.required = required
        self.nullable = nullable
        self.doc = doc
        self.experimental = experimental
        self.boxed = False

    @property
    def is_option(self):
        return self.nullable or not self.required


class Item:
    kind = None

    def __init__(self, name, doc, experimental_type):
        self.name = name
        self.doc = doc
        self.experimental_type = experimental_type  # only in the experimental schema
        self.source = None  # definition it belongs to (for direction analysis)


class Struct(Item):
    kind = "struct"

    def __init__(self, name, doc, experimental_type, fields):
        super().__init__(name, doc, experimental_type)
        self.fields = fields
        self.inbound_only = False

    def refs(self, direct_only):
        out = []
        for f in self.fields:
            out += f.ty.named_refs(direct_only)
        return out


class StringEnum(Item):
    kind = "string_enum"

    def __init__(self, name, doc, experimental_type, values):
        super().__init__(name, doc, experimental_type)
        self.values = values  # [(wire, ident, doc, experimental)]

    def refs(self, direct_only):
        return []


class IntEnum(Item):
    kind = "int_enum"

    def __init__(self, name, doc, experimental_type, values):
        super().__init__(name, doc, experimental_type)
        self.values = values  # [(int, ident, doc, experimental)]

    def refs(self, direct_only):
        return []


class Tagged(Item):
    kind = "tagged"

    def __init__(self, name, doc, experimental_type, tag_key, variants):
        super().__init__(name, doc, experimental_type)
        self.tag_key = tag_key
        self.variants = variants  # [(tag, ident, struct_name, doc, experimental)]

    def refs(self, direct_only):
        return [v[2] for v in self.variants]


class External(Item):
    kind = "external"

    def __init__(self, name, doc, experimental_type, units, newtypes):
        super().__init__(name, doc, experimental_type)
        self.units = units  # [(wire, ident, doc, experimental)]
        self.newtypes = newtypes  # [(key, ident, T, doc, experimental)]
        self.boxed = set()

    def refs(self, direct_only):
        out = []
        for n in self.newtypes:
            out += n[2].named_refs(direct_only)
        return out


class Untagged(Item):
    kind = "untagged"

    def __init__(self, name, doc, experimental_type, variants):
        super().__init__(name, doc, experimental_type)
        self.variants = variants  # [(ident, T, doc)]
        self.boxed = set()

    def refs(self, direct_only):
        out = []
        for v in self.variants:
            out += v[1].named_refs(direct_only)
        return out


class Alias(Item):
    kind = "alias"

    def __init__(self, name, doc, experimental_type, target):
        super().__init__(name, doc, experimental_type)
        self.target = target

    def refs(self, direct_only):
        return self.target.named_refs(direct_only)


# --------------------------------------------------------------------------------------------
# Schema -> model

class Gen:
    def __init__(self, exp_defs, st_defs):
        self.exp = exp_defs
        self.st = st_defs
        self.items = {}
        self.used = set(RESERVED_TYPES)
        self.def_names = {}
        self.current_def = None
        for name in sorted(exp_defs):
            if name in ENVELOPES:
                continue
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in RESERVED_TYPES:
                raise SystemExit(f"gen.py: definition name {name!r} is not a usable Rust type name")
            self.def_names[name] = name
            self.used.add(name)
        self.warnings = []

    # -- names
    def unique(self, base):
        base = base if base and base[0].isalpha() else "T" + base
        name = base
        i = 2
        while name in self.used:
            name = f"{base}{i}"
            i += 1
        self.used.add(name)
        return name

    def add(self, item):
        assert item.name not in self.items, item.name
        item.source = self.current_def
        self.items[item.name] = item
        return item

    # -- definitions
    def build_all(self):
        for name in sorted(self.def_names):
            self.current_def = name
            self.build_def(name, self.exp[name], self.st.get(name))
        self.current_def = None

    def build_def(self, name, s, st):
        exp_only = st is None
        doc = s.get("description")
        nullable_inner = self.nullable_alias_target(s)
        if nullable_inner is not None:
            ty, _ = self.type_of(nullable_inner, None, name + "Value")
            self.add(Alias(name, doc or f"`{name}`: an optional value.", exp_only, T("opt", ty)))
            return
        if "$ref" in s and len(s) <= 3:
            self.add(Alias(name, doc or f"`{name}`.", exp_only, T("named", s["$ref"])))
            return
        if self.is_object_schema(s) and not s.get("properties") and not self.union_alts(s):
            ap = s.get("additionalProperties")
            if isinstance(ap, dict):
                ty, nullable = self.type_of(ap, (st or {}).get("additionalProperties"), name + "Value")
                if nullable:
                    ty = T("opt", ty)
                self.add(Alias(name, doc or f"`{name}` map.", exp_only, T("map", ty)))
            else:
                self.add(Struct(name, doc, exp_only, []))
            return
        if self.is_complex(s):
            self.build_complex(name, s, st, exp_only)
            return
        ty, nullable = self.type_of(s, st, name)
        if nullable:
            ty = T("opt", ty)
        self.add(Alias(name, doc or f"`{name}`.", exp_only, ty))

    @staticmethod
    def nullable_alias_target(s):
        alts = s.get("anyOf") or s.get("oneOf")
        if not alts or s.get("properties"):
            return None
        non_null = [a for a in alts if a.get("type") != "null"]
        if len(non_null) == 1 and len(alts) == 2:
            return non_null[0]
        return None

    @staticmethod
    def union_alts(s):
        return s.get("oneOf") or s.get("anyOf")

    @staticmethod
    def is_object_schema(s):
        t = s.get("type")
        return t == "object" or (isinstance(t, list) and "object" in t and len([x for x in t if x != "null"]) == 1)

    def is_complex(self, s):
        """Needs its own named item (struct, enum, union)."""
        if not isinstance(s, dict):
            return False
        if "enum" in s:
            return True
        if self.union_alts(s):
            alts = [a for a in self.union_alts(s) if a.get("type") != "null"]
            if len(alts) == 1 and not s.get("properties"):
                return self.is_complex(alts[0])
            return True
        if self.is_object_schema(s) and s.get("properties"):
            return True
        return False

    # -- type expressions
    def type_of(self, s, st, hint):
        """Schema -> (T, nullable). Creates named items for inline complex schemas."""
        if s is True or s is None or s == {}:
            return VALUE, False
        if s is False:
            return VALUE, False
        if "$ref" in s:
            target = s["$ref"]
            if target not in self.exp:
                raise SystemExit(f"gen.py: dangling $ref {target}")
            inner = self.nullable_alias_target(self.exp[target])
            if inner is not None and target in self.def_names:
                # `NullableFoo` definitions: use Option<Foo> directly, never Option<Option<..>>.
                ty, _ = self.type_of(inner, None, target + "Value")
                return ty, True
            return T("named", target), False
        if "allOf" in s and len(s["allOf"]) == 1 and not s.get("properties"):
            return self.type_of(s["allOf"][0], (st or {}).get("allOf", [None])[0] if st else None, hint)
        alts = self.union_alts(s)
        if alts and not s.get("properties"):
            kw = "oneOf" if "oneOf" in s else "anyOf"
            non_null = [a for a in alts if a.get("type") != "null"]
            has_null = len(non_null) != len(alts)
            st_alts = (st or {}).get(kw)
            st_non_null = [a for a in st_alts if a.get("type") != "null"] if st_alts else None
            if len(non_null) == 1:
                ty, n = self.type_of(non_null[0], st_non_null[0] if st_non_null else None, hint)
                return ty, n or has_null
            if has_null:
                s = dict(s)
                s[kw] = non_null
                if st:
                    st = dict(st)
                    st[kw] = st_non_null
            name = self.unique(hint)
            self.build_complex(name, s, st, False, inline=True)
            return T("named", name), has_null
        if alts:
            # properties next to a oneOf: a union whose variants share those properties
            name = self.unique(hint)
            self.build_complex(name, s, st, False, inline=True)
            return T("named", name), False
        t = s.get("type")
        nullable = False
        if isinstance(t, list):
            non_null = [x for x in t if x != "null"]
            nullable = len(non_null) != len(t)
            if len(non_null) != 1:
                return VALUE, nullable
            t = non_null[0]
        if "enum" in s:
            name = self.unique(hint)
            self.build_complex(name, s, st, False, inline=True)
            return T("named", name), nullable
        if t == "string":
            return T("prim", "String"), nullable
        if t == "boolean":
            return T("prim", "bool"), nullable
        if t == "integer":
            fmt = s.get("format", "")
            return T("prim", "u64" if fmt.startswith("uint") else "i64"), nullable
        if t == "number":
            return T("prim", "f64"), nullable
        if t == "null":
            return VALUE, False
        if t == "array":
            items = s.get("items")
            st_items = (st or {}).get("items") if st else None
            if not isinstance(items, dict):
                return T("vec", VALUE), nullable
            ity, inull = self.type_of(items, st_items if isinstance(st_items, dict) else None, hint + "Item")
            if inull:
                ity = T("opt", ity)
            return T("vec", ity), nullable
        if t == "object" or "properties" in s:
            if s.get("properties"):
                name = self.unique(hint)
                self.build_struct(name, s.get("description"), s, st, exp_only=False, drop=None)
                return T("named", name), nullable
            ap = s.get("additionalProperties")
            if isinstance(ap, dict):
                vty, vnull = self.type_of(ap, (st or {}).get("additionalProperties") if st else None, hint + "Value")
                if vnull:
                    vty = T("opt", vty)
                return T("map", vty), nullable
            return T("jsonmap"), nullable
        return VALUE, nullable

    # -- complex items
    def build_complex(self, name, s, st, exp_only, inline=False):
        doc = s.get("description")
        if "enum" in s:
            self.build_string_enum(name, doc, [s], [st] if st else None, exp_only)
            return
        alts = self.union_alts(s)
        if not alts:
            self.build_struct(name, doc, s, st, exp_only, drop=None)
            return
        if merge.alt_fields(s) is not None:
            # an object whose inline alternatives only add fields: one struct
            self.build_struct(name, doc, s, st, exp_only, drop=None)
            return
        kw = "oneOf" if "oneOf" in s else "anyOf"
        st_alts = (st or {}).get(kw) if st else None
        non_null = [a for a in alts if a.get("type") != "null"]
        # 1. all string enums
        if all("enum" in a for a in non_null):
            self.build_string_enum(name, doc, non_null, st_alts, exp_only)
            return
        # 2. tagged by a shared single-value property
        tag = self.find_tag(non_null)
        if tag:
            self.build_tagged(name, doc, s, st, non_null, st_alts, tag, exp_only)
            return
        # 3. string constants + single-key objects (externally tagged)
        ext = self.external_shape(non_null)
        if ext is not None and not s.get("properties"):
            self.build_external(name, doc, non_null, st_alts, exp_only)
            return
        # 4. anything else: untagged
        self.build_untagged(name, doc, non_null, st_alts, exp_only)

    def resolve(self, a):
        while isinstance(a, dict) and "$ref" in a:
            a = self.exp[a["$ref"]]
        return a

    def find_tag(self, alts):
        if not alts:
            return None
        cands = None
        for a in alts:
            if "$ref" in a or not isinstance(a.get("properties"), dict):
                return None
            keys = set()
            for p, ps in a["properties"].items():
                if isinstance(ps, dict) and isinstance(ps.get("enum"), list) and len(ps["enum"]) == 1 \
                        and isinstance(ps["enum"][0], str) and p in a.get("required", []):
                    keys.add(p)
            cands = keys if cands is None else cands & keys
        if not cands:
            return None
        # tag values must be distinct
        for pref in ["type", "method", "mode", "kind", "handlerType"] + sorted(cands):
            if pref in cands:
                vals = [a["properties"][pref]["enum"][0] for a in alts]
                if len(set(vals)) == len(vals):
                    return pref
        return None

    @staticmethod
    def is_catch_all(a):
        """`{"type": ["string", "object"]}`-style alternatives (serde's untagged `Other`)."""
        return set(a.keys()) <= {"type", "description", "title"} and isinstance(a.get("type"), list)

    def external_shape(self, alts):
        n_obj = 0
        for a in alts:
            if "enum" in a and a.get("type") == "string":
                continue
            if self.is_catch_all(a):
                continue
            props = a.get("properties")
            if isinstance(props, dict) and len(props) == 1 and a.get("required") == list(props):
                n_obj += 1
                continue
            return None
        return n_obj

    def build_string_enum(self, name, doc, alts, st_alts, exp_only):
        all_vals = [v for a in alts for v in a["enum"] if v is not None]
        if all_vals and all(isinstance(v, bool) for v in all_vals):
            # a boolean enum: every value of the type is (or may become) valid
            self.add(Alias(name, doc or f"`{name}`.", exp_only, T("prim", "bool")))
            return
        if all_vals and all(isinstance(v, int) and not isinstance(v, bool) for v in all_vals):
            st_ints = None
            if st_alts is not None:
                st_ints = {v for a in st_alts for v in a.get("enum", []) if isinstance(v, int)}
            values = []
            for a in alts:
                for v in a["enum"]:
                    if v is None or any(v == x[0] for x in values):
                        continue
                    values.append((v, ("V" if v >= 0 else "Minus") + str(abs(v)),
                                   a.get("description") if len(a["enum"]) == 1 else None,
                                   st_ints is not None and v not in st_ints))
            self.add(IntEnum(name, doc, exp_only, values))
            return
        if any(not isinstance(v, str) for v in all_vals):
            # mixed kinds of values: kept as JSON
            self.add(Alias(name, doc or f"`{name}`.", exp_only, VALUE))
            return
        st_values = None
        if st_alts is not None:
            st_values = set()
            for a in st_alts:
                st_values.update(x for x in a.get("enum", []) if isinstance(x, str))
        values = []
        idents = {"Unknown"}
        for a in alts:
            vals = [v for v in a["enum"] if v is not None]
            for v in vals:
                if not isinstance(v, str):
                    raise SystemExit(f"gen.py: {name}: non-string enum value {v!r}")
                ident = pascal(v)
                if ident == "Self":
                    ident = "SelfValue"
                if ident == "Unknown":
                    ident = "UnknownValue"
                base, i = ident, 2
                while ident in idents:
                    ident = f"{base}{i}"
                    i += 1
                idents.add(ident)
                vdoc = a.get("description") if len(vals) == 1 else None
                exp = st_values is not None and v not in st_values
                values.append((v, ident, vdoc, exp))
        self.add(StringEnum(name, doc, exp_only, values))

    def build_struct(self, name, doc, s, st, exp_only, drop, extra_props=None, extra_req=(), st_extra_props=None):
        props = dict(extra_props or {})
        props.update(s.get("properties") or {})
        # fields declared inside inline alternatives ("either `fileId` or `result`"): optional
        for wire, ps in (merge.alt_fields(s) or {}).items():
            props[wire] = merge.merge(props[wire], ps) if wire in props else ps
        required = set(extra_req) | set(s.get("required") or [])
        st_props = None
        if st is not None:
            st_props = dict(st_extra_props or {})
            st_props.update(st.get("properties") or {})
            for wire, ps in (merge.alt_fields(st) or {}).items():
                st_props.setdefault(wire, ps)
        fields = []
        idents = {"extra"}
        item = Struct(name, doc, exp_only, fields)
        self.add(item)  # before fields: recursion-safe name reservation
        for wire in sorted(props):
            if wire == drop:
                continue
            ps = props[wire]
            st_ps = st_props.get(wire) if st_props is not None else None
            ty, nullable = self.type_of(ps if isinstance(ps, dict) else ps, st_ps, name + pascal(wire))
            ident = snake(wire)
            if ident == "extra":
                ident = "extra_field"
            base, i = ident, 2
            while ident in idents:
                ident = f"{base}_{i}"
                i += 1
            idents.add(ident)
            pdoc = ps.get("description") if isinstance(ps, dict) else None
            experimental = st_props is not None and wire not in st_props
            fields.append(Field(wire, field_ident(ident), ty, wire in required, nullable, pdoc, experimental))
        return item

    def build_tagged(self, name, doc, s, st, alts, st_alts, tag, exp_only):
        common = s.get("properties") or {}
        common_req = s.get("required") or []
        st_common = (st or {}).get("properties") or {} if st else None
        st_by_tag = {}
        if st_alts:
            for a in st_alts:
                p = (a.get("properties") or {}).get(tag)
                if p and p.get("enum"):
                    st_by_tag[p["enum"][0]] = a
        variants = []
        idents = {"Unknown"}
        item = Tagged(name, doc, exp_only, tag, variants)
        self.add(item)
        for a in alts:
            tv = a["properties"][tag]["enum"][0]
            ident = pascal(tv)
            if ident == "Unknown":
                ident = "UnknownValue"
            if ident == "Self":
                ident = "SelfValue"
            base, i = ident, 2
            while ident in idents:
                ident = f"{base}{i}"
                i += 1
            idents.add(ident)
            sname = self.unique(pascal(tv) + name)
            st_a = st_by_tag.get(tv) if st_alts is not None else None
            vexp = st_alts is not None and st_a is None
            vdoc = a.get("description")
            sdoc = vdoc or f"Payload of [`{name}::{ident}`] (`{tag}: \"{tv}\"`)."
            self.build_struct(sname, sdoc, a, st_a, exp_only or vexp, drop=tag,
                              extra_props=common, extra_req=common_req,
                              st_extra_props=st_common)
            variants.append((tv, ident, sname, vdoc, vexp))

    def build_external(self, name, doc, alts, st_alts, exp_only):
        st_units, st_keys = None, None
        if st_alts is not None:
            st_units, st_keys = set(), {}
            for a in st_alts:
                if "enum" in a:
                    st_units.update(a["enum"])
                elif isinstance(a.get("properties"), dict) and len(a["properties"]) == 1:
                    k = next(iter(a["properties"]))
                    st_keys[k] = a["properties"][k]
        units, newtypes = [], []
        idents = {"Unknown"}

        def mk_ident(v):
            ident = pascal(v)
            if ident in ("Unknown", "Self"):
                ident += "Value"
            base, i = ident, 2
            while ident in idents:
                ident = f"{base}{i}"
                i += 1
            idents.add(ident)
            return ident

        item = External(name, doc, exp_only, units, newtypes)
        self.add(item)
        for a in alts:
            if "enum" in a:
                for v in a["enum"]:
                    units.append((v, mk_ident(v), a.get("description") if len(a["enum"]) == 1 else None,
                                  st_units is not None and v not in st_units))
            elif self.is_catch_all(a):
                continue
            else:
                key = next(iter(a["properties"]))
                ident = mk_ident(key)
                inner = a["properties"][key]
                st_inner = st_keys.get(key) if st_keys is not None else None
                ty, nullable = self.type_of(inner, st_inner, pascal(key) + name)
                if nullable:
                    ty = T("opt", ty)
                newtypes.append((key, ident, ty, a.get("description"),
                                 st_keys is not None and key not in st_keys))

    def build_untagged(self, name, doc, alts, st_alts, exp_only):
        variants = []
        idents = {"Unknown"}
        item = Untagged(name, doc, exp_only, variants)
        self.add(item)
        # properties required by every object alternative do not discriminate
        req_sets = [set(a.get("required") or []) for a in alts if isinstance(a.get("properties"), dict)]
        common_req = set.intersection(*req_sets) if req_sets else set()
        for i, a in enumerate(alts):
            st_a = st_alts[i] if st_alts is not None and i < len(st_alts) else None
            if "$ref" in a:
                ident = a["$ref"]
            elif a.get("title") and self.union_alts(a) and not a.get("properties"):
                ident = clean_title(a["title"])  # a nested union (merge.py titles them)
            elif isinstance(a.get("properties"), dict):
                if a.get("title"):
                    ident = clean_title(a["title"])
                    if ident.endswith(name) and ident != name:
                        ident = ident[: -len(name)]
                else:
                    uniq = [r for r in (a.get("required") or []) if r not in common_req]
                    ident = pascal(uniq[0]) if uniq else f"Variant{i + 1}"
            else:
                t = a.get("type")
                if isinstance(t, list):
                    t = "_".join(x for x in t if x != "null")
                ident = {"string": "String", "integer": "Integer", "number": "Number", "boolean": "Bool",
                         "array": "Array", "object": "Object"}.get(t, f"Variant{i + 1}")
            if ident in ("Unknown", "Self"):
                ident += "Value"
            base, j = ident, 2
            while ident in idents:
                ident = f"{base}{j}"
                j += 1
            idents.add(ident)
            ty, nullable = self.type_of(a, st_a, ident + name if "$ref" not in a else name + ident)
            if nullable:
                ty = T("opt", ty)
            variants.append((ident, ty, a.get("description")))


# --------------------------------------------------------------------------------------------
# Whole-protocol analysis

def tarjan(nodes, edges):
    index, low, on, stack, comp = {}, {}, set(), [], {}
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on.discard(w)
                members.append(w)
                if w == v:
                    break
            for m in members:
                comp[m] = v
    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return comp


def resolve_alias(items, name):
    seen = set()
    while name in items and items[name].kind == "alias" and items[name].target.kind == "named" and name not in seen:
        seen.add(name)
        name = items[name].target.arg
    return name


def apply_boxing(items):
    edges = {n: sorted(set(resolve_alias(items, r) for r in it.refs(True))) for n, it in items.items()}
    comp = tarjan(items.keys(), edges)
    n_boxed = 0

    def cyclic(a, b):
        b = resolve_alias(items, b)
        return comp.get(a) is not None and comp.get(a) == comp.get(b) and (a != b or b in edges.get(a, ()))

    def boxed(ty, owner):
        nonlocal n_boxed
        if ty.kind == "named" and cyclic(owner, ty.arg):
            n_boxed += 1
            return T("box", ty)
        if ty.kind == "opt":
            return T("opt", boxed(ty.arg, owner))
        return ty

    for n, it in items.items():
        if it.kind == "struct":
            for f in it.fields:
                f.ty = boxed(f.ty, n)
        elif it.kind == "external":
            it.newtypes = [(k, i, boxed(t, n), d, e) for (k, i, t, d, e) in it.newtypes]
        elif it.kind == "untagged":
            it.variants = [(i, boxed(t, n), d) for (i, t, d) in it.variants]
        elif it.kind == "tagged":
            for v in it.variants:
                if cyclic(n, v[2]):
                    raise SystemExit(f"gen.py: tagged union {n} contains itself directly via {v[2]}")
    return n_boxed


def reach(items, roots):
    seen = set()
    todo = [r for r in roots if r in items]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(r for r in items[n].refs(False) if r in items and r not in seen)
    return seen


# --------------------------------------------------------------------------------------------
# Emission

HEADER = """\
// @generated by tools/protocol-gen/gen.py from schema/codex-{version}/ (codex app-server
// generate-json-schema, stable + --experimental). DO NOT EDIT: change the generator and run
// scripts/gen-protocol.sh; scripts/check-generated.sh fails when this file is stale.
//
// Counts: {n_defs} schema definitions -> {n_items} Rust items ({n_structs} structs, {n_enums} string
// enums, {n_unions} unions, {n_aliases} aliases); {n_methods} client methods ({n_stable} stable),
// {n_notifs} server notifications, {n_sreq} server requests ({n_sreq_stable} stable).
#![allow(
    clippy::large_enum_variant,
    clippy::enum_variant_names,
    clippy::upper_case_acronyms,
    clippy::doc_lazy_continuation,
    clippy::doc_overindented_list_items,
    clippy::too_long_first_doc_paragraph,
    clippy::struct_excessive_bools,
    clippy::match_single_binding,
    clippy::module_inception,
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls,
    rustdoc::private_intra_doc_links
)]

use std::collections::BTreeMap;

use serde::de::Deserializer;
use serde::ser::{{SerializeMap, Serializer}};
use serde::{{Deserialize, Serialize}};

use super::rt;
use super::{{ClientMethod, ExperimentalFields, NoParams, ServerRequestMethod}};

/// Version of the Codex CLI whose schema this module was generated from (`codex --version`).
pub const SCHEMA_CODEX_VERSION: &str = {version_str};

/// `codex --version` output of the binary the schema was dumped from.
pub const SCHEMA_CODEX_VERSION_LINE: &str = {version_line};

"""

EXP_TYPE_NOTE = "**Experimental API**: only in the `--experimental` schema."
EXP_FIELD_NOTE = "**Experimental field**: only sent when `experimentalApi` was negotiated."
EXP_VARIANT_NOTE = "**Experimental**: only in the `--experimental` schema."


class Out:
    def __init__(self):
        self.buf = []

    def line(self, s=""):
        self.buf.append(s)

    def doc(self, text, fallback, notes=(), indent=""):
        lines = []
        for n in notes:
            lines.append(n)
            lines.append("")
        lines += doc_lines(text) if text else [fallback]
        while lines and lines[-1] == "":
            lines.pop()
        for l in lines:
            self.buf.append(f"{indent}///{(' ' + l) if l else ''}")

    def text(self):
        return "\n".join(self.buf) + "\n"


def emit_struct(o, it, tag_key=None):
    o.doc(it.doc, f"`{it.name}` (schema object).", [EXP_TYPE_NOTE] if it.experimental_type else [])
    derives = "Debug, Clone, PartialEq, Serialize, Deserialize"
    if all(f.is_option for f in it.fields):
        derives = "Debug, Clone, Default, PartialEq, Serialize, Deserialize"
    o.line(f"#[derive({derives})]")
    plain_name = lambda f: f.ident[2:] if f.ident.startswith("r#") else f.ident
    camel = any(plain_name(f) != f.wire and serde_camel(plain_name(f)) == f.wire for f in it.fields)
    if camel:
        o.line('#[serde(rename_all = "camelCase")]')
    o.line(f"pub struct {it.name} {{")
    for f in it.fields:
        notes = [EXP_FIELD_NOTE] if f.experimental and not it.experimental_type else []
        o.doc(f.doc, f"`{f.wire}` field.", notes, indent="    ")
        attrs = []
        plain = plain_name(f)
        if (serde_camel(plain) if camel else plain) != f.wire:
            attrs.append(f"rename = {rust_str(f.wire)}")
        if f.is_option:
            attrs.append("default")
            if not f.required and not (f.nullable and it.inbound_only):
                attrs.append('skip_serializing_if = "Option::is_none"')
        if attrs:
            o.line(f"    #[serde({', '.join(attrs)})]")
        ty = f.ty.render()
        if f.is_option:
            ty = f"Option<{ty}>"
        o.line(f"    pub {f.ident}: {ty},")
    o.line("    /// Fields not in the schema, kept so that re-serialising loses nothing.")
    o.line(f"    #[serde(flatten, deserialize_with = \"rt::extra::<{it.name}, _>\")]")
    o.line("    pub extra: serde_json::Map<String, serde_json::Value>,")
    o.line("}")
    o.line()
    # The drift hook: the decoded `extra` is reported to `drift::extra_fields` under this name
    # (a tagged union's payload does not count its tag, which the union writes and reads).
    tag = f" const TAG: Option<&'static str> = Some({rust_str(tag_key)});" if tag_key else ""
    o.line(f"impl rt::Named for {it.name} {{ const NAME: &'static str = {rust_str(it.name)};{tag} }}")
    o.line()


# Fields whose string enum says which alternative of a union a value is (a `type` of
# `["number", "integer"]`): with single-value enums, the discriminators of untagged unions.
DISCRIMINATOR_FIELDS = ("type", "kind", "mode")


def discriminator_enums(items):
    """String enums an unknown value of which means "not this alternative" (see
    `rt::untagged`): every single-value enum, and every enum typing a `DISCRIMINATOR_FIELDS`
    field."""
    out = {n for n, it in items.items() if it.kind == "string_enum" and len(it.values) == 1}
    for it in items.values():
        if it.kind == "struct":
            for f in it.fields:
                t = f.ty
                while t.kind in ("opt", "box"):
                    t = t.arg
                if f.wire in DISCRIMINATOR_FIELDS and t.kind == "named":
                    target = resolve_alias(items, t.arg)
                    if target in items and items[target].kind == "string_enum":
                        out.add(target)
    return out


def emit_string_enum(o, it, discriminator=False):
    o.doc(it.doc, f"`{it.name}` (schema string enum).", [EXP_TYPE_NOTE] if it.experimental_type else [])
    o.line("#[derive(Debug, Clone, PartialEq, Eq, Hash)]")
    o.line(f"pub enum {it.name} {{")
    for wire, ident, vdoc, exp in it.values:
        notes = [EXP_VARIANT_NOTE] if exp and not it.experimental_type else []
        o.doc(vdoc, f"`{wire}`.", notes, indent="    ")
        if vdoc:
            o.line(f"    ///\n    /// Wire value `{wire}`.")
        o.line(f"    {ident},")
    o.line("    /// A value this version of the schema does not know, kept verbatim.")
    o.line("    Unknown(String),")
    o.line("}")
    o.line()
    o.line(f"impl {it.name} {{")
    o.line("    /// The wire string of this value.")
    o.line("    pub fn as_str(&self) -> &str {")
    o.line("        match self {")
    for wire, ident, _, _ in it.values:
        o.line(f"            Self::{ident} => {rust_str(wire)},")
    o.line("            Self::Unknown(s) => s,")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"impl From<&str> for {it.name} {{")
    o.line("    fn from(s: &str) -> Self {")
    o.line("        match s {")
    for wire, ident, _, _ in it.values:
        o.line(f"            {rust_str(wire)} => Self::{ident},")
    o.line("            other => Self::Unknown(other.to_owned()),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    # A discriminator (`type: "string"` of one alternative): an unknown value there means "not
    # this alternative" to an untagged union (drift::unknown_discriminator).
    hook = "unknown_discriminator" if discriminator else "unknown"
    o.line(f"rt::string_enum_serde!({it.name}, {rust_str(it.name)}, {hook});")
    o.line()


def emit_int_enum(o, it):
    o.doc(it.doc, f"`{it.name}` (schema integer enum).", [EXP_TYPE_NOTE] if it.experimental_type else [])
    o.line("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]")
    o.line(f"pub enum {it.name} {{")
    for v, ident, vdoc, exp in it.values:
        notes = [EXP_VARIANT_NOTE] if exp and not it.experimental_type else []
        o.doc(vdoc, f"`{v}`.", notes, indent="    ")
        o.line(f"    {ident},")
    o.line("    /// A value this version of the schema does not know, kept verbatim.")
    o.line("    Unknown(i64),")
    o.line("}")
    o.line()
    o.line(f"impl {it.name} {{")
    o.line("    /// The wire integer of this value.")
    o.line("    pub fn as_i64(&self) -> i64 {")
    o.line("        match self {")
    for v, ident, _, _ in it.values:
        o.line(f"            Self::{ident} => {v},")
    o.line("            Self::Unknown(n) => *n,")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"impl From<i64> for {it.name} {{")
    o.line("    fn from(n: i64) -> Self {")
    o.line("        match n {")
    for v, ident, _, _ in it.values:
        o.line(f"            {v} => Self::{ident},")
    o.line("            other => Self::Unknown(other),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"rt::int_enum_serde!({it.name}, {rust_str(it.name)});")
    o.line()


def emit_tagged(o, it, items):
    o.doc(it.doc, f"`{it.name}`, tagged by `{it.tag_key}`.", [EXP_TYPE_NOTE] if it.experimental_type else [])
    o.line("///")
    o.line(f"/// Tagged by the `{it.tag_key}` field. An unknown tag, or a known tag whose payload does")
    o.line("/// not match the schema, deserialises to `Unknown` with the raw JSON (logged at debug level).")
    o.line("#[derive(Debug, Clone, PartialEq)]")
    o.line(f"pub enum {it.name} {{")
    for tv, ident, sname, vdoc, exp in it.variants:
        notes = [EXP_VARIANT_NOTE] if exp and not it.experimental_type else []
        o.doc(vdoc, f"`{it.tag_key}: \"{tv}\"`.", notes, indent="    ")
        o.line(f"    {ident}({sname}),")
    o.line("    /// A variant this version of the schema does not know (or a malformed known one), kept")
    o.line("    /// as raw JSON.")
    o.line("    Unknown(serde_json::Value),")
    o.line("}")
    o.line()
    o.line(f"impl {it.name} {{")
    o.line(f"    /// The `{it.tag_key}` tag of this value (`None` for an `Unknown` value without one).")
    o.line("    pub fn tag(&self) -> Option<&str> {")
    o.line("        match self {")
    for tv, ident, _, _, _ in it.variants:
        o.line(f"            Self::{ident}(_) => Some({rust_str(tv)}),")
    o.line(f"            Self::Unknown(v) => v.get({rust_str(it.tag_key)}).and_then(|t| t.as_str()),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"impl Serialize for {it.name} {{")
    o.line("    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {")
    o.line("        match self {")
    for tv, ident, _, _, _ in it.variants:
        o.line(f"            Self::{ident}(v) => rt::serialize_tagged(serializer, {rust_str(it.tag_key)}, {rust_str(tv)}, v),")
    o.line("            Self::Unknown(v) => v.serialize(serializer),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"impl<'de> Deserialize<'de> for {it.name} {{")
    o.line("    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {")
    o.line("        let value = serde_json::Value::deserialize(deserializer)?;")
    o.line(f"        let parsed = match value.get({rust_str(it.tag_key)}).and_then(|t| t.as_str()) {{")
    for tv, ident, sname, _, _ in it.variants:
        o.line(f"            Some({rust_str(tv)}) => rt::parse_variant::<{sname}>(&value, {rust_str(it.name + '::' + ident)}).map(Self::{ident}),")
    o.line("            _ => None,")
    o.line("        };")
    emit_unknown_fallback(o, it.name)
    o.line("    }")
    o.line("}")
    o.line()


def emit_unknown_fallback(o, name):
    """`parsed` (an Option<Self>) or `Unknown(value)`, reported to the drift hook."""
    o.line("        Ok(parsed.unwrap_or_else(|| {")
    o.line(f"            super::drift::unknown({rust_str(name)}, &value);")
    o.line("            Self::Unknown(value)")
    o.line("        }))")


def emit_external(o, it):
    o.doc(it.doc, f"`{it.name}`.", [EXP_TYPE_NOTE] if it.experimental_type else [])
    o.line("///")
    o.line("/// On the wire: a bare string for the unit variants, a single-key object")
    o.line("/// `{\"<variant>\": {...}}` for the others; anything else is kept in `Unknown`.")
    o.line("#[derive(Debug, Clone, PartialEq)]")
    o.line(f"pub enum {it.name} {{")
    for wire, ident, vdoc, exp in it.units:
        notes = [EXP_VARIANT_NOTE] if exp and not it.experimental_type else []
        o.doc(vdoc, f"`\"{wire}\"`.", notes, indent="    ")
        o.line(f"    {ident},")
    for key, ident, ty, vdoc, exp in it.newtypes:
        notes = [EXP_VARIANT_NOTE] if exp and not it.experimental_type else []
        o.doc(vdoc, f"`{{\"{key}\": ...}}`.", notes, indent="    ")
        o.line(f"    {ident}({ty.render()}),")
    o.line("    /// A value this version of the schema does not know (or a malformed known one), kept")
    o.line("    /// as raw JSON.")
    o.line("    Unknown(serde_json::Value),")
    o.line("}")
    o.line()
    o.line(f"impl Serialize for {it.name} {{")
    o.line("    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {")
    o.line("        match self {")
    for wire, ident, _, _ in it.units:
        o.line(f"            Self::{ident} => serializer.serialize_str({rust_str(wire)}),")
    for key, ident, _, _, _ in it.newtypes:
        o.line(f"            Self::{ident}(v) => {{")
        o.line("                let mut map = serializer.serialize_map(Some(1))?;")
        o.line(f"                map.serialize_entry({rust_str(key)}, v)?;")
        o.line("                map.end()")
        o.line("            }")
    o.line("            Self::Unknown(v) => v.serialize(serializer),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"impl<'de> Deserialize<'de> for {it.name} {{")
    o.line("    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {")
    o.line("        let value = serde_json::Value::deserialize(deserializer)?;")
    o.line("        let parsed = match &value {")
    if it.units:
        o.line("            serde_json::Value::String(s) => match s.as_str() {")
        for wire, ident, _, _ in it.units:
            o.line(f"                {rust_str(wire)} => Some(Self::{ident}),")
        o.line("                _ => None,")
        o.line("            },")
    if it.newtypes:
        o.line("            serde_json::Value::Object(map) if map.len() == 1 => {")
        o.line("                let (key, inner) = map.iter().next().expect(\"one entry\");")
        o.line("                match key.as_str() {")
        for key, ident, ty, _, _ in it.newtypes:
            o.line(f"                    {rust_str(key)} => rt::parse_variant::<{ty.render()}>(inner, {rust_str(it.name + '::' + ident)}).map(Self::{ident}),")
        o.line("                    _ => None,")
        o.line("                }")
        o.line("            }")
    o.line("            _ => None,")
    o.line("        };")
    emit_unknown_fallback(o, it.name)
    o.line("    }")
    o.line("}")
    o.line()


def emit_untagged(o, it, items):
    o.doc(it.doc, f"`{it.name}`.", [EXP_TYPE_NOTE] if it.experimental_type else [])
    o.line("///")
    o.line("/// Untagged: deserialises to the first alternative that matches exactly (at any depth: no")
    o.line("/// `Unknown` inside, no field left in `extra`); else to the alternative that matches with")
    o.line("/// the least drift (a nested `Unknown`, extra fields) but never one whose discriminator")
    o.line("/// (`type: \"...\"`) differs; else `Unknown`.")
    o.line("#[derive(Debug, Clone, PartialEq)]")
    o.line(f"pub enum {it.name} {{")
    for ident, ty, vdoc in it.variants:
        o.doc(vdoc, f"A `{ty.render()}`.", indent="    ")
        o.line(f"    {ident}({ty.render()}),")
    o.line("    /// JSON that matches no alternative, kept verbatim.")
    o.line("    Unknown(serde_json::Value),")
    o.line("}")
    o.line()
    o.line(f"impl Serialize for {it.name} {{")
    o.line("    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {")
    o.line("        match self {")
    for ident, _, _ in it.variants:
        o.line(f"            Self::{ident}(v) => v.serialize(serializer),")
    o.line("            Self::Unknown(v) => v.serialize(serializer),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()
    o.line(f"impl<'de> Deserialize<'de> for {it.name} {{")
    o.line("    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {")
    o.line("        let value = serde_json::Value::deserialize(deserializer)?;")
    o.line("        let parsed = rt::untagged(&value, &[")
    for ident, ty, _ in it.variants:
        helper = "alt_known" if is_union_type(items, ty) else "alt"
        o.line(f"            |v| rt::{helper}::<{ty.render()}>(v).map(Self::{ident}),")
    o.line("        ]);")
    emit_unknown_fallback(o, it.name)
    o.line("    }")
    o.line("}")
    o.line()


UNION_KINDS = ("string_enum", "int_enum", "tagged", "external", "untagged")


def is_union_type(items, ty):
    """Whether `ty` (through Box, Option and aliases) is a generated type with `Unknown`."""
    while ty.kind in ("box", "opt"):
        ty = ty.arg
    if ty.kind != "named":
        return False
    name = resolve_alias(items, ty.arg)
    return name in items and items[name].kind in UNION_KINDS


def emit_known(o, it):
    o.line(f"impl rt::Known for {it.name} {{ fn is_known(&self) -> bool {{ !matches!(self, Self::Unknown(..)) }} }}")
    o.line()


def emit_alias(o, it):
    o.doc(it.doc, f"`{it.name}`.", [EXP_TYPE_NOTE] if it.experimental_type else [])
    o.line(f"pub type {it.name} = {it.target.render()};")
    o.line()


def emit_exp_fields(o, it):
    exp = [f for f in it.fields if f.experimental]
    o.line(f"impl ExperimentalFields for {it.name} {{")
    if exp:
        o.line("    fn experimental_fields_in_use(&self) -> Vec<&'static str> {")
        o.line("        let mut used = Vec::new();")
        for f in exp:
            if f.is_option:
                o.line(f"        if self.{f.ident}.is_some() {{")
            else:
                o.line("        {")
            o.line(f"            used.push({rust_str(f.wire)});")
            o.line("        }")
        o.line("        used")
        o.line("    }")
    o.line("}")
    o.line()


def emit_exp_fields_tagged(o, it, items):
    o.line(f"impl ExperimentalFields for {it.name} {{")
    o.line("    fn experimental_fields_in_use(&self) -> Vec<&'static str> {")
    o.line("        match self {")
    for _, ident, sname, _, _ in it.variants:
        o.line(f"            Self::{ident}(v) => v.experimental_fields_in_use(),")
    o.line("            Self::Unknown(_) => Vec::new(),")
    o.line("        }")
    o.line("    }")
    o.line("}")
    o.line()


# --------------------------------------------------------------------------------------------
# Main

def method_ident(method):
    return pascal(method.replace("_", "/"))


def envelope_methods(defs, key):
    out = []
    for v in defs[key]["oneOf"]:
        props = v["properties"]
        m = props["method"]["enum"][0]
        out.append((m, props.get("params"), v.get("description")))
    return out


def version_key(v):
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.-]", v))


def load_version(schema_dir):
    """One vendored version -> (version, version_line, experimental defs, stable defs)."""
    exp_defs = load_defs(os.path.join(schema_dir, "experimental", BUNDLE))
    st_defs = load_defs(os.path.join(schema_dir, "stable", BUNDLE))
    with open(os.path.join(schema_dir, "VERSION"), encoding="utf-8") as f:
        version_line = f.read().strip()
    m = re.search(r"(\d+\.\d+\.\d+\S*)", version_line)
    version = m.group(1) if m else version_line
    for name in st_defs:
        if name not in exp_defs:
            raise SystemExit(f"gen.py: {version}: {name} is in the stable schema but not the experimental one")
    for key in ENVELOPES:
        if key not in exp_defs or key not in st_defs:
            raise SystemExit(f"gen.py: {version}: no {key} in the schema")
    return version, version_line, exp_defs, st_defs


def window_tables(versions):
    """Per method (client, notification, server request): the versions whose stable or
    experimental schema has it, ascending."""
    out = {"ClientRequest": {}, "ServerNotification": {}, "ServerRequest": {}}
    for version, _line, exp_defs, st_defs in versions:
        for key, table in out.items():
            names = {m for m, _, _ in envelope_methods(exp_defs, key)}
            names |= {m for m, _, _ in envelope_methods(st_defs, key)}
            for m in names:
                table.setdefault(m, []).append(version)
    return out


def generate(schema_dirs):
    t0 = time.time()
    versions = sorted((load_version(d) for d in schema_dirs), key=lambda v: version_key(v[0]))
    if len({v[0] for v in versions}) != len(versions):
        raise SystemExit("gen.py: a version is given twice")
    for version, _line, exp_v, st_v in versions:
        expected = EXPECTED_COUNTS.get(version)
        got = (len(envelope_methods(st_v, "ClientRequest")), len(envelope_methods(exp_v, "ServerNotification")),
               len(envelope_methods(st_v, "ServerRequest")))
        if expected and expected != got:
            raise SystemExit(f"gen.py: codex {version}: expected (stable methods, notifications, stable server "
                             f"requests) = {expected}, got {got}")
    version, version_line, newest_exp, newest_st = versions[-1]
    window = [v[0] for v in versions]
    tables = window_tables(versions)
    # One schema for the whole window (merge.py): the union of every version's definitions.
    exp_defs = merge.merge_defs([(v[0], norm_const(v[2])) for v in versions])
    st_defs = merge.merge_defs([(v[0], norm_const(v[3])) for v in versions])

    g = Gen(exp_defs, st_defs)
    g.build_all()
    items = g.items

    # ---- method tables
    def params_type(p, method, kind):
        """-> (rust type string, params definition name or None)"""
        if p is None or p.get("type") == "null":
            return "NoParams", None
        if "$ref" in p:
            return p["$ref"], p["$ref"]
        alts = p.get("anyOf") or p.get("oneOf")
        if alts:
            non_null = [a for a in alts if a.get("type") != "null"]
            if len(non_null) == 1 and "$ref" in non_null[0]:
                return f"Option<{non_null[0]['$ref']}>", non_null[0]["$ref"]
        raise SystemExit(f"gen.py: {kind} {method}: unsupported params schema {p}")

    stable_methods = {m for m, _, _ in envelope_methods(st_defs, "ClientRequest")}
    client = []
    used_responses = set()
    missing_response = []
    for method, p, desc in envelope_methods(exp_defs, "ClientRequest"):
        pty, pname = params_type(p, method, "client method")
        resp = None
        if method in RESPONSE_OVERRIDES:
            resp = RESPONSE_OVERRIDES[method]
            if resp not in items:
                raise SystemExit(f"gen.py: RESPONSE_OVERRIDES[{method!r}] = {resp} is not in the schema")
        elif pname and pname.endswith("Params") and pname[:-6] + "Response" in items:
            resp = pname[:-6] + "Response"
        if resp is None:
            missing_response.append(method)
            resp = "serde_json::Value"
        used_responses.add(resp)
        client.append((method, method_ident(method), pty, pname, resp, method not in stable_methods, desc))
    client.sort()
    idents = [c[1] for c in client]
    if len(set(idents)) != len(idents):
        raise SystemExit("gen.py: two client methods map to the same marker name")

    notifs = []
    for method, p, desc in envelope_methods(exp_defs, "ServerNotification"):
        pty, pname = params_type(p, method, "notification")
        ident = method_ident(method)
        if ident == "Unknown":
            ident = "UnknownMethod"
        notifs.append((method, ident, pty, desc))
    notifs.sort()
    stable_notifs = {m for m, _, _ in envelope_methods(st_defs, "ServerNotification")}

    stable_sreq = {m for m, _, _ in envelope_methods(st_defs, "ServerRequest")}
    sreqs = []
    for method, p, desc in envelope_methods(exp_defs, "ServerRequest"):
        pty, pname = params_type(p, method, "server request")
        resp = pname[:-6] + "Response" if pname and pname.endswith("Params") else None
        if resp not in items:
            raise SystemExit(f"gen.py: server request {method}: no response type {resp}")
        used_responses.add(resp)
        ident = method_ident(method)
        if ident == "Unknown":
            ident = "UnknownMethod"
        sreqs.append((method, ident, pty, resp, method not in stable_sreq, desc))
    sreqs.sort()
    client_notifs = sorted(m for m, _, _ in envelope_methods(exp_defs, "ClientNotification"))

    unused_responses = sorted(n for n in items if n in g.def_names and n.endswith("Response") and n not in used_responses
                              and not n.startswith("JSONRPC"))

    # ---- analysis
    n_boxed = apply_boxing(items)
    def_items = {}
    for n, it in items.items():
        def_items.setdefault(it.source, []).append(n)
    inbound_roots = [c[4] for c in client] + [n[2] for n in notifs] + [s[2] for s in sreqs]
    outbound_roots = [c[3] for c in client if c[3]] + [s[3] for s in sreqs]
    inbound = reach(items, inbound_roots)
    outbound = reach(items, outbound_roots)
    for n, it in items.items():
        if it.kind == "struct":
            it.inbound_only = n in inbound and n not in outbound

    # ---- emit
    o = Out()
    kinds = {}
    for it in items.values():
        kinds[it.kind] = kinds.get(it.kind, 0) + 1
    n_stable = sum(1 for c in client if not c[5])
    header = HEADER.format(
        version=version, version_str=rust_str(version), version_line=rust_str(version_line),
        n_defs=len(exp_defs), n_items=len(items), n_structs=kinds.get("struct", 0),
        n_enums=kinds.get("string_enum", 0),
        n_unions=kinds.get("tagged", 0) + kinds.get("external", 0) + kinds.get("untagged", 0),
        n_aliases=kinds.get("alias", 0), n_methods=len(client), n_stable=n_stable,
        n_notifs=len(notifs), n_sreq=len(sreqs), n_sreq_stable=sum(1 for s in sreqs if not s[4]))
    o.buf.append(header.rstrip("\n"))
    o.line()

    # method tables
    o.line("/// Every client-to-server method: `(name, experimental)`, sorted by name.")
    o.line("///")
    o.line("/// Experimental methods exist only in the `--experimental` schema and need the")
    o.line("/// `experimentalApi` capability.")
    o.line("pub const CLIENT_METHODS: &[(&str, bool)] = &[")
    for c in client:
        o.line(f"    ({rust_str(c[0])}, {'true' if c[5] else 'false'}),")
    o.line("];")
    o.line()
    o.line("/// Every server-to-client notification method, sorted.")
    o.line("pub const SERVER_NOTIFICATION_METHODS: &[&str] = &[")
    for n in notifs:
        o.line(f"    {rust_str(n[0])},")
    o.line("];")
    o.line()
    o.line("/// Every server-to-client request method: `(name, experimental)`, sorted by name.")
    o.line("pub const SERVER_REQUEST_METHODS: &[(&str, bool)] = &[")
    for s in sreqs:
        o.line(f"    ({rust_str(s[0])}, {'true' if s[4] else 'false'}),")
    o.line("];")
    o.line()
    o.line("/// Every client-to-server notification method.")
    o.line("pub const CLIENT_NOTIFICATION_METHODS: &[&str] = &[")
    for n in client_notifs:
        o.line(f"    {rust_str(n)},")
    o.line("];")
    o.line()
    if "initialized" in client_notifs:
        o.line("/// The `initialized` notification the client sends after the `initialize` response.")
        o.line('pub const INITIALIZED_NOTIFICATION: &str = "initialized";')
        o.line()

    o.line("/// Zero-sized markers for every client-to-server method, implementing [`ClientMethod`].")
    o.line("///")
    o.line("/// Named in PascalCase from the method: `thread/start` -> [`ThreadStart`],")
    o.line("/// `thread/name/set` -> [`ThreadNameSet`], `fuzzyFileSearch` -> [`FuzzyFileSearch`].")
    o.line("pub mod methods {")
    o.line("    use super::*;")
    o.line()
    for method, ident, pty, pname, resp, exp, desc in client:
        notes = [EXP_TYPE_NOTE.replace("only in", "method only in")] if exp else []
        o.doc(desc, f"`{method}`.", notes, indent="    ")
        o.line("    ///")
        o.line(f"    /// Method `{method}`: params [`{pty}`], response [`{resp}`].".replace("[`Option<", "`Option<").replace(">`]", ">`").replace("[`serde_json::Value`]", "`serde_json::Value`"))
        o.line("    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]")
        o.line(f"    pub struct {ident};")
        o.line()
        o.line(f"    impl ClientMethod for {ident} {{")
        o.line(f"        const NAME: &'static str = {rust_str(method)};")
        o.line(f"        const EXPERIMENTAL: bool = {'true' if exp else 'false'};")
        o.line(f"        type Params = {pty};")
        o.line(f"        type Response = {resp};")
        o.line("    }")
        o.line()
    o.line("}")
    o.line()

    o.line("/// Zero-sized markers for every server-to-client request method, implementing")
    o.line("/// [`ServerRequestMethod`]. Named like [`methods`]: `item/commandExecution/requestApproval` ->")
    o.line("/// [`ItemCommandExecutionRequestApproval`].")
    o.line("pub mod server_requests {")
    o.line("    use super::*;")
    o.line()
    for method, ident, pty, resp, exp, desc in sreqs:
        notes = [EXP_TYPE_NOTE.replace("only in", "request only in")] if exp else []
        o.doc(desc, f"`{method}`.", notes, indent="    ")
        o.line("    ///")
        o.line(f"    /// Method `{method}`: params [`{pty}`], response [`{resp}`].")
        o.line("    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]")
        o.line(f"    pub struct {ident};")
        o.line()
        o.line(f"    impl ServerRequestMethod for {ident} {{")
        o.line(f"        const NAME: &'static str = {rust_str(method)};")
        o.line(f"        const EXPERIMENTAL: bool = {'true' if exp else 'false'};")
        o.line(f"        type Params = {pty};")
        o.line(f"        type Response = {resp};")
        o.line("    }")
        o.line()
    o.line("}")
    o.line()

    # ---- the window: versions and which of them have each method
    stale_overrides = sorted(m for m in RESPONSE_OVERRIDES if m not in tables["ClientRequest"])
    o.line("/// Every Codex version of the supported window (`scripts/codex-versions.sh`), ascending: the")
    o.line("/// generated types decode what any of them sends.")
    o.line("pub const CODEX_WINDOW: &[&str] = &[" + ", ".join(rust_str(v) for v in window) + "];")
    o.line()
    sets = {}
    for key in ("ClientRequest", "ServerNotification", "ServerRequest"):
        for vs in tables[key].values():
            sets.setdefault(tuple(vs), None)
    set_names = {}
    for i, vs in enumerate(sorted(sets, key=lambda t: (-len(t), [version_key(v) for v in t]))):
        if list(vs) == window:
            set_names[vs] = "CODEX_WINDOW"
            continue
        set_names[vs] = f"VERSIONS_{i}"
        o.line(f"/// Versions {', '.join(vs)}.")
        o.line(f"const VERSIONS_{i}: &[&str] = &[" + ", ".join(rust_str(v) for v in vs) + "];")
    o.line()

    def emit_versions_fn(fn, key, what):
        o.line(f"/// The versions of [`CODEX_WINDOW`] whose schema (stable or experimental) has the {what}")
        o.line("/// `method`, ascending; `None` if none has it.")
        o.line(f"pub fn {fn}(method: &str) -> Option<&'static [&'static str]> {{")
        o.line("    match method {")
        by_set = {}
        for m, vs in sorted(tables[key].items()):
            by_set.setdefault(set_names[tuple(vs)], []).append(m)
        for sname in sorted(by_set, key=lambda n: (n != "CODEX_WINDOW", n)):
            arms = " | ".join(rust_str(m) for m in by_set[sname])
            o.line(f"        {arms} => Some({sname}),")
        o.line("        _ => None,")
        o.line("    }")
        o.line("}")
        o.line()

    emit_versions_fn("client_method_versions", "ClientRequest", "client method")
    emit_versions_fn("notification_versions", "ServerNotification", "server notification")
    emit_versions_fn("server_request_versions", "ServerRequest", "server request")

    # ServerNotification
    def emit_method_enum(name, entries, doc_lines_, what, field="params"):
        for l in doc_lines_:
            o.line(f"/// {l}" if l else "///")
        o.line("#[derive(Debug, Clone, PartialEq)]")
        o.line(f"pub enum {name} {{")
        for method, ident, pty, desc, exp in entries:
            notes = [EXP_VARIANT_NOTE] if exp else []
            o.doc(desc, f"`{method}`.", notes, indent="    ")
            o.line("    ///")
            o.line(f"    /// Method `{method}`.")
            o.line(f"    {ident}({pty}),")
        o.line(f"    /// A {what} this version does not know, or a known one whose {field} do not match the")
        o.line(f"    /// schema: the method and the raw {field}.")
        o.line("    Unknown {")
        o.line("        /// The method name.")
        o.line("        method: String,")
        o.line(f"        /// The {field} as received.")
        o.line(f"        {field}: serde_json::Value,")
        o.line("    },")
        o.line("}")
        o.line()
        o.line(f"impl {name} {{")
        o.line(f"    /// Parses a {what} from its method and params JSON. Never fails: an unknown method, a")
        o.line("    /// params shape that does not match the schema or invalid JSON gives `Unknown` (logged")
        o.line("    /// at debug level; invalid JSON is kept as a JSON string).")
        o.line(f"    pub fn parse(method: &str, params_json: &str) -> {name} {{")
        o.line("        let parsed = match method {")
        for method, ident, pty, _, _ in entries:
            o.line(f"            {rust_str(method)} => rt::parse_params::<{pty}>({rust_str(what)}, method, params_json).map(Self::{ident}),")
        o.line("            _ => None,")
        o.line("        };")
        o.line("        parsed.unwrap_or_else(|| Self::Unknown {")
        o.line("            method: method.to_owned(),")
        o.line(f"            {field}: rt::raw_params(params_json),")
        o.line("        })")
        o.line("    }")
        o.line()
        o.line(f"    /// Like [`{name}::parse`], from an already parsed params value.")
        o.line(f"    pub fn from_value(method: &str, {field}: serde_json::Value) -> {name} {{")
        o.line("        let parsed = match method {")
        for method, ident, pty, _, _ in entries:
            o.line(f"            {rust_str(method)} => rt::params_from_value::<{pty}>({rust_str(what)}, method, &{field}).map(Self::{ident}),")
        o.line("            _ => None,")
        o.line("        };")
        o.line("        parsed.unwrap_or_else(|| Self::Unknown {")
        o.line("            method: method.to_owned(),")
        o.line(f"            {field},")
        o.line("        })")
        o.line("    }")
        o.line()
        o.line("    /// The method name.")
        o.line("    pub fn method(&self) -> &str {")
        o.line("        match self {")
        for method, ident, _, _, _ in entries:
            o.line(f"            Self::{ident}(_) => {rust_str(method)},")
        o.line("            Self::Unknown { method, .. } => method,")
        o.line("        }")
        o.line("    }")
        o.line()
        o.line(f"    /// The {field} as JSON (lossless for known and unknown methods).")
        o.line(f"    pub fn {field}_value(&self) -> serde_json::Value {{")
        o.line("        match self {")
        for method, ident, _, _, _ in entries:
            o.line(f"            Self::{ident}(p) => rt::to_value(p),")
        o.line(f"            Self::Unknown {{ {field}, .. }} => {field}.clone(),")
        o.line("        }")
        o.line("    }")
        o.line("}")
        o.line()

    emit_method_enum(
        "ServerNotification",
        [(m, i, p, d, m not in stable_notifs) for (m, i, p, d) in notifs],
        ["A server-to-client notification, typed by method (one variant per method of the schema's",
         "`ServerNotification`), or `Unknown` with the raw params. Build it with",
         "[`ServerNotification::parse`]."],
        "notification")
    emit_method_enum(
        "ServerRequestKind",
        [(m, i, p, d, e) for (m, i, p, r, e, d) in sreqs],
        ["A server-to-client request, typed by method (one variant per method of the schema's",
         "`ServerRequest`), or `Unknown` with the raw params. The matching response types are",
         "given by the markers in [`server_requests`]."],
        "server request")

    emit_method_enum(
        "ClientResponse",
        [(m, i, r, None, e) for (m, i, p, pn, r, e, d) in client],
        ["A client method's successful `result`, typed by method (one variant per [`CLIENT_METHODS`]",
         "entry, named like its [`methods`] marker), or `Unknown` with the raw result. Build it with",
         "[`ClientResponse::from_value`]."],
        "response", field="result")

    # ExperimentalFields impls: structs with experimental-only fields, and every params type.
    exp_impl = set()
    for n, it in items.items():
        if it.kind == "struct" and any(f.experimental for f in it.fields) and not it.experimental_type:
            exp_impl.add(n)
    for c in client:
        if c[3]:
            exp_impl.add(resolve_alias(items, c[3]))
    for s in sreqs:
        exp_impl.add(resolve_alias(items, s[3]))

    # items, sorted by name
    discriminators = discriminator_enums(items)
    tag_of = {}
    for it in items.values():
        if it.kind == "tagged":
            for v in it.variants:
                tag_of[v[2]] = it.tag_key
    for n in sorted(items):
        it = items[n]
        if it.kind == "struct":
            emit_struct(o, it, tag_of.get(n))
        elif it.kind == "string_enum":
            emit_string_enum(o, it, n in discriminators)
        elif it.kind == "int_enum":
            emit_int_enum(o, it)
        elif it.kind == "tagged":
            emit_tagged(o, it, items)
        elif it.kind == "external":
            emit_external(o, it)
        elif it.kind == "untagged":
            emit_untagged(o, it, items)
        elif it.kind == "alias":
            emit_alias(o, it)
        if it.kind in UNION_KINDS:
            emit_known(o, it)
    tagged_needing = set()
    for n in sorted(exp_impl):
        it = items[n]
        if it.kind == "struct":
            emit_exp_fields(o, it)
        elif it.kind == "tagged":
            for v in it.variants:
                if v[2] not in exp_impl:
                    tagged_needing.add(v[2])
            emit_exp_fields_tagged(o, it, items)
        else:
            o.line(f"impl ExperimentalFields for {n} {{}}")
            o.line()
    for n in sorted(tagged_needing):
        emit_exp_fields(o, items[n])

    # The table of the round-trip property tests (core/src/protocol/tests.rs): every item that
    # is a schema definition of its own (not an alias), with its serde round trip.
    o.line("/// Every generated type that is a schema definition, with a function that deserializes")
    o.line("/// JSON text into it and serializes it back (the round-trip property tests).")
    o.line("#[cfg(test)]")
    o.line("#[allow(clippy::type_complexity)]")
    o.line("pub(crate) const ROUNDTRIP: &[(&str, fn(&str) -> Result<String, String>)] = &[")
    for n in sorted(items):
        if n in exp_defs and items[n].kind != "alias":
            o.line(f"    ({rust_str(n)}, super::roundtrip::<{n}>),")
    o.line("];")
    o.line()

    text = o.text()
    exp_fields = {n: [f.wire for f in it.fields if f.experimental] for n, it in items.items()
                  if it.kind == "struct" and any(f.experimental for f in it.fields) and not it.experimental_type}
    stats = {
        "version": version,
        "window": window,
        "definitions": len(exp_defs),
        "stable_definitions": len(st_defs),
        "items": len(items),
        "kinds": kinds,
        "client_methods": len(client),
        "stable_client_methods": n_stable,
        "experimental_client_methods": len(client) - n_stable,
        "server_notifications": len(notifs),
        "server_requests": len(sreqs),
        "stable_server_requests": sum(1 for s in sreqs if not s[4]),
        "client_notifications": len(client_notifs),
        "methods_without_response_type": missing_response,
        "response_types_without_method": unused_responses,
        "boxed_fields": n_boxed,
        "stale_overrides": stale_overrides,
        "structs_with_experimental_fields": exp_fields,
        "seconds": round(time.time() - t0, 2),
        # the model, for the Python typing emitter (gen_py.py); not printed
        "model": {"items": items, "client": client, "notifs": notifs, "sreqs": sreqs,
                  "version": version, "version_line": version_line, "window": window,
                  "tables": tables},
    }
    # The compatibility report compares a live Codex with the newest version of the window.
    stats["compat_table"] = compat_table(version, newest_exp, newest_st)
    return text, stats


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schema-dir", action="append", required=True,
                    help="a vendored version (schema/codex-<v>); repeat it for every version of the window")
    ap.add_argument("--out", default=os.path.join(root, "core", "src", "protocol", "generated.rs"))
    ap.add_argument("--compat-out", default=os.path.join(root, "core", "src", "compat", "vendored-schema.json"))
    ap.add_argument("--py-out", help="also write the Python typing module (TypedDicts) here")
    ap.add_argument("--py-requests-out", help="and the typed request() overloads here")
    ap.add_argument("--py-keywords-out", help="and the typed keyword methods (thread_start, run, ...) here")
    ap.add_argument("--mcp-schema-dir", action="append", default=[],
                    help="a vendored MCP version (schema/mcp-<v>); repeat it for every version (gen_mcp.py)")
    ap.add_argument("--mcp-out", help="write the MCP types (core/src/protocol/mcp/generated.rs) here")
    ap.add_argument("--mcp-py-out", help="and their TypedDicts (python/codexclient/mcp_types.py) here")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.mcp_schema_dir:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import gen_mcp  # noqa: E402 - sibling module: the MCP types of the same pass
        mcp_rs, mcp_py, mcp_stats = gen_mcp.generate(args.mcp_schema_dir)
        for path, body in ((args.mcp_out, mcp_rs), (args.mcp_py_out, mcp_py)):
            if path:
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(body)
        if not args.quiet:
            print(f"gen.py: mcp {' '.join(os.path.basename(os.path.normpath(d)) for d in args.mcp_schema_dir)}: "
                  f"{mcp_stats['types']} types, {mcp_stats['fields']} fields -> {args.mcp_out}, {args.mcp_py_out}")
    text, stats = generate(args.schema_dir)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    with open(args.compat_out, "w", encoding="utf-8", newline="\n") as f:
        f.write(stats.pop("compat_table"))
    if args.py_out or args.py_requests_out or args.py_keywords_out:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import gen_py  # noqa: E402 - sibling module, only needed for the Python output
        py_text, req_text = gen_py.emit(stats["model"])
        kw_text = gen_py.emit_keywords(stats["model"])
        for path, body in ((args.py_out, py_text), (args.py_requests_out, req_text),
                           (args.py_keywords_out, kw_text)):
            if path:
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(body)
                if not args.quiet:
                    print(f"gen.py: wrote {path} ({body.count(chr(10))} lines)")
    if not args.quiet:
        k = stats["kinds"]
        print(f"gen.py: codex {' '.join(stats['window'])}: {stats['definitions']} definitions "
              f"({stats['stable_definitions']} stable) -> {stats['items']} items: "
              f"{k.get('struct', 0)} structs, {k.get('string_enum', 0)} string enums, "
              f"{k.get('tagged', 0)} tagged / {k.get('external', 0)} externally tagged / "
              f"{k.get('untagged', 0)} untagged unions, {k.get('alias', 0)} aliases; "
              f"{stats['boxed_fields']} boxed (recursive) fields")
        print(f"gen.py: client methods: {stats['stable_client_methods']} stable + "
              f"{stats['experimental_client_methods']} experimental; server notifications: "
              f"{stats['server_notifications']}; server requests: {stats['stable_server_requests']} stable + "
              f"{stats['server_requests'] - stats['stable_server_requests']} experimental; "
              f"client notifications: {stats['client_notifications']}")
        print(f"gen.py: structs with experimental-only fields: {len(stats['structs_with_experimental_fields'])}")
        if stats["methods_without_response_type"]:
            print("gen.py: methods without a response type (serde_json::Value): "
                  + ", ".join(stats["methods_without_response_type"]))
        if stats["stale_overrides"]:
            print("gen.py: RESPONSE_OVERRIDES entries no version of the window has (remove them): "
                  + ", ".join(stats["stale_overrides"]))
        if stats["response_types_without_method"]:
            print("gen.py: response types no method uses: " + ", ".join(stats["response_types_without_method"]))
        if merge.CONFLICTS:
            print(f"gen.py: {len(merge.CONFLICTS)} alternatives changed kind inside a union (the newest shape kept): "
                  + "; ".join(f"{a} -> {b}"[:200] for a, b in merge.CONFLICTS[:5]))
        print(f"gen.py: wrote {args.out} ({text.count(chr(10))} lines before rustfmt) in {stats['seconds']} s")
        print(f"gen.py: wrote {args.compat_out} (the compatibility report's vendored side)")


if __name__ == "__main__":
    main()
