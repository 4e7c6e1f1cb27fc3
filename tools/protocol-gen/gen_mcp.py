"""The MCP half of the generator: `core/src/protocol/mcp/generated.rs` and
`python/codexclient/mcp_types.py` from the vendored MCP JSON schemas
(`schema/mcp-<version>/schema.json`, copied from modelcontextprotocol/modelcontextprotocol, see
schema/mcp-README.md). `gen.py` calls `generate` in the same pass as the Codex types
(`--mcp-schema-dir`, one per version; `scripts/gen-protocol.sh` passes every `schema/mcp-*`).

What is generated: the MCP types the library exposes (`TYPES`), each from one schema definition
(or a property of one, or several definitions merged), the versions merged: a property only
one version has, or one that is not required in every version, is optional; its doc says
which version has it. Docs are the schema's `description`s (the newest version's).

Mapping (every other shape needs a row of `OVERRIDES`):
  * string -> String, integer -> u64 (MCP's integers here are counts and sizes), number -> f64,
    boolean -> bool (optional: `false` when absent, as the spec reads it), array -> Vec;
    an untyped or free-form object (no `properties`; `additionalProperties` only, also
    through a `$ref`) -> serde_json::Value; a `$ref` to a type of `TYPES` -> that type.
  * required -> plain (a missing value fails the item); optional -> Option (omitted when
    None), a Vec (omitted when empty) or a bool (always written).
  * a `const` property (a discriminator such as `"type": "resource_link"`) and `_meta` are not
    fields: they stay in `extra` as they came (`KEPT_IN_EXTRA`).
  * every struct: `#[non_exhaustive]`, `rename_all = "camelCase"`, unknown fields in
    `#[serde(flatten)] pub extra: Extra`; `Default` derived when no field is plain-required.

`OVERRIDES` is where the schema says less than the library needs (or more than it keeps):
the Rust type of a field the library keeps looser than the schema, a default for a required
field, a serialisation choice; each row has its reason. `HAND_WRITTEN` names what the schema
cannot express at all (it lives in core/src/protocol/mcp/types.rs). A shape without a rule
or a row fails the generation, so the table is complete by construction.
"""

import json
import os
import re

# The MCP types the library exposes: Rust name -> the schema source(s): `Def` or
# `Def/properties/name` (a property's inline object); several sources are merged (the
# properties of all, required only where every source requires them).
TYPES = {
    "Tool": ["Tool"],
    "CallToolResult": ["CallToolResult"],
    "Resource": ["Resource"],
    "ResourceTemplate": ["ResourceTemplate"],
    "ResourceContents": ["TextResourceContents", "BlobResourceContents"],
    "Prompt": ["Prompt"],
    "GetPromptResult": ["GetPromptResult"],
    "Completion": ["CompleteResult/properties/completion"],
    "Progress": ["ProgressNotificationParams"],
    "Root": ["Root"],
    "Icon": ["Icon"],
    "ResourceLink": ["ResourceLink"],
    "Implementation": ["Implementation"],
    "ElicitationComplete": ["ElicitationCompleteNotification/properties/params"],
    "ServerCapabilities": ["ServerCapabilities"],
    "ClientCapabilities": ["ClientCapabilities"],
    # sampling with tools (protocol/mcp/sampling.rs holds the content unions around them)
    "ToolChoice": ["ToolChoice"],
    "ToolUse": ["ToolUseContent"],
    "ToolResult": ["ToolResultContent"],
}

# A type's doc when its schema source has no description (an inline object).
TYPE_DOCS = {
    "Completion": "The `completion` of a `completion/complete` result: the suggested values of an argument.",
    "ElicitationComplete": "The params of `notifications/elicitation/complete`: the server finished a URL-mode "
    "elicitation out of band; requests that failed with "
    "[`Error::UrlElicitationRequired`](crate::Error::UrlElicitationRequired) for it may be sent again.",
}

# Properties that are not fields: they stay in `extra`, as they came.
KEPT_IN_EXTRA = {
    "_meta": "free-form metadata the library reads none of; `extra[\"_meta\"]` keeps it as sent",
    "<const>": "a discriminator (`\"type\": \"resource_link\"`): kept in `extra` so a "
    "re-serialised value is still the block it was",
}

LENIENT = ("required by the schema, but a value without it decodes (as empty), as it always did: "
           "one missing member does not lose the whole item")
CAPS = ("each capability's object as the peer sent it (`{}` or flags such as `listChanged`); "
        "helpers read the flags, a new flag needs no release")

# Where the library keeps a field looser than the schema, or adds to it: "Type.wireName"
# (or "Type.*": every field of the type that needs a row) -> the Rust type and its reason.
#   rust: the field's Rust type as the library exposes it
#   default: `#[serde(default)]` on a required field; always: an optional Vec always written;
#   skip_false: an optional bool omitted when false
#   reason: why
OVERRIDES = {
    "Tool.inputSchema": dict(rust="Value", default=True,
                             reason="a JSON Schema of any dialect, kept as given (the caller validates); " + LENIENT),
    "Tool.outputSchema": dict(rust="Value", reason="a JSON Schema of any dialect, kept as given; "
                              "protocol/mcp/output_schema.rs checks results against it"),
    "Tool.annotations": dict(rust="Value", reason="behaviour hints, advisory and growing; kept as sent"),
    "Tool.execution": dict(rust="Value", reason="2025-11-25 execution hints (`taskSupport`), advisory; kept as sent"),
    "CallToolResult.content": dict(rust="Vec<Value>", default=True,
                                   reason="content blocks are an open union (a block of a newer kind must not "
                                   "fail the result); `text()` and `resource_links()` read them; " + LENIENT),
    "Resource.name": dict(default=True, reason=LENIENT),
    "Resource.annotations": dict(rust="Value", reason="audience/priority hints, advisory; kept as sent"),
    "ResourceTemplate.name": dict(default=True, reason=LENIENT),
    "ResourceTemplate.annotations": dict(rust="Value", reason="audience/priority hints, advisory; kept as sent"),
    "ResourceLink.name": dict(default=True, reason=LENIENT),
    "ResourceLink.annotations": dict(rust="Value", reason="audience/priority hints, advisory; kept as sent"),
    "Prompt.arguments": dict(rust="Vec<Value>", always=True,
                             reason="`{name, description, required}` objects as sent (the library's type "
                             "since 0.1; bindings show them as dicts), written as `[]` when absent as always"),
    "GetPromptResult.messages": dict(rust="Vec<Value>", default=True,
                                     reason="`{role, content}` with open content blocks, as sent; " + LENIENT),
    "Completion.values": dict(default=True, reason=LENIENT),
    "Progress.progressToken": dict(rust="Value", reason="a string or an integer, echoed as the request sent it"),
    "Icon.theme": dict(rust="String", reason="`light` or `dark` today: an open set, a new theme must not fail the icon"),
    "Implementation.name": dict(default=True, reason=LENIENT),
    "Implementation.version": dict(default=True, reason=LENIENT),
    "ToolChoice.mode": dict(rust="String", reason="`auto`, `required` or `none` today: an open set, kept as sent"),
    "ToolUse.input": dict(rust="Value", default=True, reason="the tool's arguments as the model gave them; " + LENIENT),
    "ToolResult.content": dict(rust="Vec<Value>", default=True,
                               reason="content blocks, an open union as in `CallToolResult.content`; " + LENIENT),
    "ToolResult.isError": dict(skip_false=True, reason="omitted when false, as the library always wrote it"),
    "ServerCapabilities.*": dict(rust="Value", reason=CAPS),
    "ClientCapabilities.*": dict(rust="Value", reason=CAPS),
    "Root": dict(eq=True, reason="roots are compared (options, `roots/list` answers): `Eq` as always"),
}

# What the schema cannot express: hand-written in core/src/protocol/mcp/types.rs.
HAND_WRITTEN = {
    "Page<T>": "a page of a paginated list and its cursor: the library's shape of every `*/list` result",
    "CallToolResult::text, ::resource_links": "reading the content blocks",
    "ServerCapabilities::resource_subscribe, ::tools_list_changed": "reading capability flags",
    "ClientCapabilities::none, ::roots, ::sampling, ::sampling_tools, ::elicitation, ::to_value":
        "building the capabilities the client offers",
    "Root::new": "a root from a URI and a name",
    "sampling.rs: SamplingContent, SamplingBlock": "the content unions of sampling (one block or several; "
        "a block tagged by `type`, any other kind kept as it came): the generator maps no union",
    "sampling.rs: CreateMessageParams, SamplingMessage, CreateMessageResult": "the structs that hold those "
        "unions (a generated struct cannot name a hand-written type without an import cycle)",
    "sampling.rs: ToolUse::new, CreateMessageResult::text, ::tool_use, ::to_value": "building answers",
}

RUST_KEYWORDS = {"type", "ref", "self", "match", "mod", "move", "use", "fn", "impl", "struct"}


def version_key(v):
    return tuple(int(x) for x in v.split("-"))


def snake(wire):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", wire.lstrip("_"))
    return s.lower()


def camel(field):
    parts = field.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def load(schema_dirs):
    versions = []
    for d in schema_dirs:
        v = os.path.basename(os.path.normpath(d)).removeprefix("mcp-")
        with open(os.path.join(d, "schema.json"), encoding="utf-8") as f:
            versions.append((v, json.load(f)["$defs"]))
    versions.sort(key=lambda x: version_key(x[0]))
    return versions


def source_node(defs, src):
    parts = src.split("/")
    node = defs.get(parts[0])
    for p in parts[1:]:
        if node is None:
            return None
        node = node.get(p)
    return node


def ref_name(node):
    r = node.get("$ref", "")
    return r.rsplit("/", 1)[-1] if r.startswith("#/$defs/") else None


def is_free_object(node, defs):
    name = ref_name(node)
    if name:
        node = defs[name]
    return node.get("type") == "object" and not node.get("properties")


def def_to_type(defs):
    """Schema definition name -> the Rust type of TYPES generated from it alone."""
    return {srcs[0]: name for name, srcs in TYPES.items() if len(srcs) == 1 and "/" not in srcs[0]}


class Field:
    def __init__(self, wire):
        self.wire = wire
        self.ident = snake(wire)
        if self.ident in RUST_KEYWORDS:
            self.ident = "r#" + self.ident
        self.versions = []  # versions that have it
        self.required_everywhere = True
        self.required_in = []  # versions that require it
        self.node = None  # newest version's node
        self.defs = None
        self.doc = None


def merged_fields(name, versions):
    """The fields of type `name` over every version, in first-seen order (required first)."""
    fields = {}
    n_versions = 0
    for v, defs in versions:
        nodes = [source_node(defs, s) for s in TYPES[name]]
        nodes = [n for n in nodes if n is not None]
        if not nodes:
            continue
        n_versions += 1
        req_all = set.intersection(*(set(n.get("required", [])) for n in nodes))
        for n in nodes:
            for wire, prop in n.get("properties", {}).items():
                f = fields.setdefault(wire, Field(wire))
                if v not in f.versions:
                    f.versions.append(v)
                f.node, f.defs = prop, defs
                if prop.get("description"):
                    f.doc = prop["description"]
                if wire not in req_all:
                    f.required_everywhere = False
                elif v not in f.required_in:
                    f.required_in.append(v)
    present = [v for v, defs in versions if any(source_node(defs, s) is not None for s in TYPES[name])]
    for f in fields.values():
        if len(f.versions) < len(present):
            f.required_everywhere = False
    return fields, present


def type_doc(name, versions):
    for v, defs in reversed(versions):
        for s in TYPES[name]:
            n = source_node(defs, s)
            if n is not None and n.get("description"):
                return n["description"]
    return TYPE_DOCS.get(name, "")


def override(tname, wire):
    return OVERRIDES.get(f"{tname}.{wire}") or OVERRIDES.get(f"{tname}.*")


def rust_type(tname, f, by_def):
    """(Rust type, kind) of field `f` by the mapping rules; kind: value/vec/bool/plain."""
    node, defs = f.node, f.defs
    o = override(tname, f.wire)

    def of(node, top):
        name = ref_name(node)
        if name and name in by_def:
            return by_def[name]
        t = node.get("type")
        if t == "string" and "enum" not in node and "const" not in node:
            return "String"
        if t == "integer":
            return "u64"
        if t == "number":
            return "f64"
        if t == "boolean":
            return "bool"
        if t == "array":
            inner = of(node.get("items", {}), False)
            return f"Vec<{inner}>" if inner else None
        if (t is None and not name and "anyOf" not in node and "oneOf" not in node
                and "enum" not in node) or is_free_object(node, defs):
            return "Value"
        return None

    ty = of(node, True)
    if o and o.get("rust"):
        return o["rust"]
    if ty is None:
        raise SystemExit(f"gen_mcp: {tname}.{f.wire} has a shape without a rule "
                         f"({json.dumps(node)[:160]}): add a row to OVERRIDES with its Rust type and reason")
    return ty


def link(m):
    """`{@link X}` of the TypeScript docs -> `X`; `{@link XRequestmethod/name}` (the link's
    text glued to its target by the schema's conversion) -> the text."""
    body = m.group(1).strip()
    g = re.match(r"([A-Z]\w*?(?:Request|Notification|Object|Result))(\S.*)$", body)
    if g:
        body = g.group(2)
    return body if body.startswith("`") else f"`{body}`"


def clean(text):
    return re.sub(r"\{@link ([^}]*)\}", link, text.replace("\r", ""))


def rust_doc(text, indent=""):
    text = clean(text).replace("```", "`")
    out = []
    for line in text.strip().split("\n"):
        line = re.sub(r"^ {4,}", "   ", line.rstrip())
        out.append(f"{indent}///{' ' if line else ''}{line}")
    return out


def emit_rust(versions, header_versions):
    by_def = def_to_type(versions)
    o = []
    o.append("// @generated by tools/protocol-gen/gen.py (gen_mcp.py) from the vendored MCP schemas")
    o.append(f"// {', '.join(f'schema/mcp-{v}/schema.json' for v in header_versions)} (see schema/mcp-README.md).")
    o.append("// DO NOT EDIT: change the generator (its OVERRIDES table) and run scripts/gen-protocol.sh;")
    o.append("// scripts/check-generated.sh fails when this file is stale.")
    o.append("#![allow(")
    o.append("    clippy::doc_lazy_continuation,")
    o.append("    clippy::doc_overindented_list_items,")
    o.append("    clippy::too_long_first_doc_paragraph,")
    o.append("    rustdoc::broken_intra_doc_links,")
    o.append("    rustdoc::invalid_html_tags,")
    o.append("    rustdoc::bare_urls")
    o.append(")]")
    o.append("")
    o.append("use serde::{Deserialize, Serialize};")
    o.append("use serde_json::{Map, Value};")
    o.append("")
    o.append("/// Fields a type does not name, kept as they came.")
    o.append("pub type Extra = Map<String, Value>;")
    o.append("")
    o.append("/// The MCP protocol versions these types were generated from (the vendored schemas), oldest first.")
    o.append(f"pub const SCHEMA_VERSIONS: &[&str] = &[{', '.join(json.dumps(v) for v, _ in versions)}];")
    used = set()
    stats = {"types": 0, "fields": 0}
    for name in TYPES:
        fields, present = merged_fields(name, versions)
        if not present:
            raise SystemExit(f"gen_mcp: no vendored version has {TYPES[name]}")
        kept = []
        emitted = []
        for f in fields.values():
            if f.wire in KEPT_IN_EXTRA or "const" in f.node:
                kept.append(f.wire)
                continue
            emitted.append(f)
        emitted.sort(key=lambda f: (not f.required_everywhere,))
        strict = False
        body = []
        for f in emitted:
            ov = override(name, f.wire) or {}
            if ov:
                used.add(f"{name}.{f.wire}" if f"{name}.{f.wire}" in OVERRIDES else f"{name}.*")
            ty = rust_type(name, f, by_def)
            doc = f.doc or ""
            if len(f.versions) < len(present):
                doc = (doc + "\n\n" if doc else "") + f"Only in MCP {', '.join(f.versions)}."
            elif not f.required_everywhere and f.required_in:
                doc = (doc + "\n\n" if doc else "") + f"Required in MCP {', '.join(f.required_in)} only."
            if ov.get("reason"):
                doc = (doc + "\n\n" if doc else "") + f"Library: {ov['reason']} (gen_mcp.py `OVERRIDES`)."
            body.extend(rust_doc(doc or f"`{f.wire}`.", "    "))
            attrs = []
            if camel(f.ident.removeprefix("r#")) != f.wire:
                attrs.append(f"rename = {json.dumps(f.wire)}")
            if f.required_everywhere:
                if ov.get("default"):
                    attrs.insert(0, "default")
                    rty = ty
                else:
                    strict = True
                    rty = ty
            elif ty.startswith("Vec<"):
                attrs.insert(0, "default" if ov.get("always") else 'default, skip_serializing_if = "Vec::is_empty"')
                rty = ty
            elif ty == "bool":
                attrs.insert(0, 'default, skip_serializing_if = "std::ops::Not::not"' if ov.get("skip_false") else "default")
                rty = ty
            else:
                attrs.insert(0, 'default, skip_serializing_if = "Option::is_none"')
                rty = f"Option<{ty}>"
            if attrs:
                body.append(f"    #[serde({', '.join(attrs)})]")
            body.append(f"    pub {f.ident}: {rty},")
            stats["fields"] += 1
        kept_doc = ", ".join(f"`{k}`" for k in sorted(kept))
        body.append("    /// Fields this type does not name" + (f" ({kept_doc} among them)" if kept else "")
                    + ", kept as they came.")
        body.append("    #[serde(flatten)]")
        body.append("    pub extra: Extra,")
        o.append("")
        doc = type_doc(name, versions)
        srcs = " + ".join(f"`{s}`" for s in TYPES[name])
        doc = (doc + "\n\n" if doc else "") + f"Generated from {srcs} of MCP {', '.join(present)}."
        o.extend(rust_doc(doc))
        derives = ["Debug", "Clone", "PartialEq"]
        if (OVERRIDES.get(name) or {}).get("eq"):
            derives.append("Eq")
            used.add(name)
        if not strict:
            derives.append("Default")
        derives += ["Serialize", "Deserialize"]
        o.append(f"#[derive({', '.join(derives)})]")
        o.append('#[serde(rename_all = "camelCase")]')
        o.append("#[non_exhaustive]")
        o.append(f"pub struct {name} {{")
        o.extend(body)
        o.append("}")
        stats["types"] += 1
    stale = sorted(set(OVERRIDES) - used)
    if stale:
        raise SystemExit(f"gen_mcp: OVERRIDES rows no field uses (remove them): {', '.join(stale)}")
    return "\n".join(o) + "\n", stats


# ---------------------------------------------------------------------------------------------
# Python: TypedDicts of the same types, by their wire names (what `raw` and the dict-valued
# getters of the extension's result classes hold).

def py_type(tname, f, by_def):
    node, defs = f.node, f.defs

    def of(node):
        name = ref_name(node)
        if name and name in by_def:
            return f'"{by_def[name]}"'
        if "const" in node:
            return f"Literal[{json.dumps(node['const'])}]"
        t = node.get("type")
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "array":
            return f"List[{of(node.get('items', {}))}]"
        if t == "object" or is_free_object(node, defs):
            return "Dict[str, Any]"
        return "Any"

    return of(node)


def py_doc(text, indent):
    text = clean(text).strip().replace('"""', "'''").replace("\\", "\\\\")
    lines = text.split("\n")
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}'] + [f"{indent}{l}".rstrip() for l in lines[1:]] + [f'{indent}"""']


def emit_py(versions):
    by_def = def_to_type(versions)
    vs = [v for v, _ in versions]
    o = ['"""The MCP types the library exposes, as ``TypedDict``s: generated, do not edit.',
         "",
         "Generated by ``tools/protocol-gen/gen.py`` (``scripts/gen-protocol.sh``) from the vendored MCP",
         f"schemas ``schema/mcp-<version>/schema.json`` ({', '.join(vs)}; see ``schema/mcp-README.md``), in the",
         "same pass and from the same model as the Rust types (``core/src/protocol/mcp/generated.rs``): the",
         "wire form (camelCase keys) of each result class's ``raw`` and of the dicts its getters return",
         "(``Tool.icons`` holds :class:`Icon` dicts, ``CallToolResult.resource_links`` :class:`ResourceLink`",
         "dicts). A key only one version has, or one not every version requires, is not required.",
         "Type-checking only: nothing here validates or converts.",
         '"""',
         "",
         "# ruff: noqa",
         "# fmt: off",
         "from typing import Any, Dict, List, Literal, Tuple, TypedDict",
         "",
         f"SCHEMA_VERSIONS: Tuple[str, ...] = ({', '.join(json.dumps(v) for v in vs)},)",
         '"""The MCP protocol versions these types were generated from, oldest first."""',
         ""]
    # Icon first: the others refer to it. The required keys in a base class, the others in
    # the class itself (total=False): no runtime dependency (typing_extensions' NotRequired).
    order = sorted(TYPES, key=lambda n: (n != "Icon",))
    for name in order:
        fields, present = merged_fields(name, versions)
        doc = type_doc(name, versions)
        doc = (doc + "\n\n" if doc else "") + f"Generated from MCP {', '.join(present)}."
        groups = [[f for f in fields.values() if f.required_everywhere],
                  [f for f in fields.values() if not f.required_everywhere]]

        def members(fs):
            out = []
            for f in fs:
                out.append(f"    {f.wire}: {py_type(name, f, by_def)}")
                fdoc = f.doc or ""
                if len(f.versions) < len(present):
                    fdoc = (fdoc + "\n\n" if fdoc else "") + f"Only in MCP {', '.join(f.versions)}."
                elif not f.required_everywhere and f.required_in:
                    fdoc = (fdoc + "\n\n" if fdoc else "") + f"Required in MCP {', '.join(f.required_in)} only."
                if fdoc:
                    out.extend(py_doc(fdoc, "    "))
            return out

        o.append("")
        if groups[0] and groups[1]:
            o.append(f"class _{name}Required(TypedDict):")
            o.append(f'    """The required keys of :class:`{name}`."""')
            o.extend(members(groups[0]))
            o.append("")
            o.append("")
            o.append(f"class {name}(_{name}Required, total=False):")
            o.extend(py_doc(doc, "    "))
            o.extend(members(groups[1]))
        else:
            o.append(f"class {name}(TypedDict{'' if groups[0] else ', total=False'}):")
            o.extend(py_doc(doc, "    "))
            o.extend(members(groups[0] or groups[1]))
        o.append("")
    return "\n".join(o).rstrip() + "\n"


def generate(schema_dirs):
    versions = load(schema_dirs)
    rust, stats = emit_rust(versions, [v for v, _ in versions])
    return rust, emit_py(versions), stats
