#!/usr/bin/env python3
"""Print a CHANGELOG entry for the protocol changes between two vendored Codex versions.

Usage: python3 tools/protocol-gen/changelog.py schema/codex-OLD schema/codex-NEW

Lists client methods, server notifications and server requests added/removed (and those that
moved between the stable and the experimental schema), then per definition: definitions
added/removed, fields added/removed/changed (type, required), enum values and union variants
added/removed. Compares the experimental bundles (a superset of the stable ones), shapes only
(descriptions and titles ignored). Stdlib only, deterministic.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import merge  # noqa: E402

KINDS = (("ClientRequest", "Client methods"), ("ServerNotification", "Server notifications"),
         ("ServerRequest", "Server requests"))


def methods(defs, key):
    return {m for m, _, _ in gen.envelope_methods(defs, key)}


def shape(node):
    return json.dumps(gen.shape_only(node), sort_keys=True)


def short(node):
    """A one-line description of a property schema."""
    if not isinstance(node, dict):
        return json.dumps(node)
    if "$ref" in node:
        return node["$ref"]
    kw = merge._union_kw(node)
    if kw:
        return " | ".join(short(a) for a in node[kw])
    t = node.get("type")
    if "enum" in node:
        return "enum " + ", ".join(json.dumps(v) for v in node["enum"])
    if t == "array" or (isinstance(t, list) and "array" in t):
        return f"{json.dumps(t)} of {short(node.get('items', {}))}"
    return json.dumps(t) if t is not None else "any"


def enum_values(node):
    if "enum" in node:
        return list(node["enum"])
    kw = merge._union_kw(node)
    if kw and all(isinstance(a, dict) and "enum" in a for a in node[kw]):
        return [v for a in node[kw] for v in a["enum"]]
    return None


def variants(node):
    kw = merge._union_kw(node)
    if not kw:
        return None
    return {merge.alt_key(a): a for a in node[kw]}


def key_name(k):
    if k[0] == "tag":
        return ", ".join(f"{p}: {json.dumps(v)}" for p, v in k[1:])
    return " ".join(str(x) for x in k[1:]) or k[0]


def diff_def(name, a, b, out):
    if shape(a) == shape(b):
        return
    ea, eb = enum_values(a), enum_values(b)
    if ea is not None and eb is not None:
        added = [v for v in eb if v not in ea]
        removed = [v for v in ea if v not in eb]
        if added:
            out.append(f"`{name}`: enum values added: {', '.join(json.dumps(v) for v in added)}")
        if removed:
            out.append(f"`{name}`: enum values removed: {', '.join(json.dumps(v) for v in removed)}")
        return
    pa, pb = a.get("properties"), b.get("properties")
    va, vb = variants(a), variants(b)
    if va is not None and vb is not None:
        for k in vb:
            if k not in va:
                out.append(f"`{name}`: variant added ({key_name(k)})")
        for k in va:
            if k not in vb:
                out.append(f"`{name}`: variant removed ({key_name(k)})")
        for k in va:
            if k in vb:
                diff_def(f"{name} ({key_name(k)})", va[k], vb[k], out)
        if pa is None and pb is None:
            return
    if isinstance(pa, dict) or isinstance(pb, dict):
        if (va is None) != (vb is None):
            out.append(f"`{name}`: changed from {'a union' if va else 'an object'} to "
                       f"{'a union' if vb else 'an object'}")
        pa, pb = pa or {}, pb or {}
        ra, rb = set(a.get("required") or []), set(b.get("required") or [])
        for f in sorted(pb):
            if f not in pa:
                out.append(f"`{name}.{f}` added ({short(pb[f])}{', required' if f in rb else ''})")
        for f in sorted(pa):
            if f not in pb:
                out.append(f"`{name}.{f}` removed")
        for f in sorted(set(pa) & set(pb)):
            if shape(pa[f]) != shape(pb[f]):
                ea_, eb_ = enum_values(pa[f]), enum_values(pb[f])
                if ea_ is not None and eb_ is not None:
                    diff_def(f"{name}.{f}", pa[f], pb[f], out)
                else:
                    out.append(f"`{name}.{f}` changed: {short(pa[f])} -> {short(pb[f])}")
            if (f in ra) != (f in rb):
                out.append(f"`{name}.{f}` is now {'required' if f in rb else 'optional'}")
        return
    if va is None and vb is None:
        out.append(f"`{name}` changed: {short(a)} -> {short(b)}")
    elif (va is None) != (vb is None):
        out.append(f"`{name}`: changed from {'a union' if va else short(a)} to {'a union' if vb else short(b)}")


def changelog(old_dir, new_dir):
    vo, _, eo, so = gen.load_version(old_dir)
    vn, _, en, sn = gen.load_version(new_dir)
    lines = [f"### Codex {vn} (protocol changes since {vo})", ""]
    for key, title in KINDS:
        mo, mn = methods(eo, key), methods(en, key)
        st_o, st_n = methods(so, key), methods(sn, key)
        rows = []
        rows += [f"added `{m}`" + (" (experimental)" if m not in st_n else "") for m in sorted(mn - mo)]
        rows += [f"removed `{m}`" for m in sorted(mo - mn)]
        rows += [f"`{m}` is now stable" for m in sorted((mo & mn) & (st_n - st_o))]
        rows += [f"`{m}` is now experimental only" for m in sorted((mo & mn) & (st_o - st_n))]
        if rows:
            lines.append(f"- {title}: " + "; ".join(rows) + ".")
    types = []
    for n in sorted(set(en) - set(eo)):
        if n not in gen.ENVELOPES:
            types.append(f"`{n}` added")
    for n in sorted(set(eo) - set(en)):
        if n not in gen.ENVELOPES:
            types.append(f"`{n}` removed")
    for n in sorted(set(eo) & set(en)):
        if n not in gen.ENVELOPES:
            diff_def(n, eo[n], en[n], types)
    if types:
        lines.append("- Types:")
        lines += [f"  - {t}" for t in types]
    if len(lines) == 2:
        lines.append("- No protocol changes.")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.strip().split("\n\n")[1])
    sys.stdout.write(changelog(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
