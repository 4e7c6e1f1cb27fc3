"""Merge the JSON Schemas of every Codex version of the window into one schema whose instances
are the union of every version's instances (used by gen.py; stdlib only, deterministic).

Rules (documented in core/src/protocol/mod.rs and docs/compat.md):
  * a definition of any version is in the merge (a removed one stays);
  * object: the union of the properties; a property is required only if every version that
    has the object has it and requires it; a property's schemas are merged recursively;
  * enum (string, integer): the union of the values, older values first;
  * union (oneOf/anyOf): alternatives are matched across versions (same `$ref`, same tag value,
    same title, same primitive type, ...) and merged; unmatched alternatives are added;
  * a value that becomes nullable, a field that becomes a union: the union of both;
  * a shape that changed kind (an object that became a union tagged by `mode`, ...): a union
    of both shapes, the newest first, each a titled alternative (so both versions decode);
  * `description`/`title`/`default` come from the newest version that has the node.
Experimental marking is not decided here: gen.py merges the stable and the experimental
bundles separately, and something is experimental when no version's stable schema has it.
"""

UNION_KEYS = ("oneOf", "anyOf")


def _union_kw(s):
    for k in UNION_KEYS:
        if k in s:
            return k
    return None


def _is_object(s):
    t = s.get("type")
    return "properties" in s or t == "object" or (isinstance(t, list) and "object" in t
                                                  and not any(x not in ("object", "null") for x in t))


def _types(s):
    t = s.get("type")
    if t is None:
        return None
    return set(t) if isinstance(t, list) else {t}


def alt_fields(s):
    """The properties declared inside the inline alternatives of an object (`properties` next
    to an `anyOf`/`oneOf` of untagged objects: "either `fileId` or `result`"), merged; `None`
    when `s` is not such an object."""
    kw = _union_kw(s)
    if not kw or not s.get("properties"):
        return None
    alts = [a for a in s[kw] if not (isinstance(a, dict) and a.get("type") == "null")]
    if not alts or any(not isinstance(a, dict) or "$ref" in a or not isinstance(a.get("properties"), dict)
                       or _single_consts(a) for a in alts):
        return None
    out = {}
    for a in alts:
        for name, ps in a["properties"].items():
            out[name] = merge(out[name], ps) if name in out else ps
    return out


def _single_consts(a):
    """The required single-value string-enum properties of an object alternative (its tag)."""
    out = []
    props = a.get("properties") if isinstance(a, dict) else None
    if not isinstance(props, dict):
        return ()
    for p, ps in sorted(props.items()):
        if isinstance(ps, dict) and isinstance(ps.get("enum"), list) and len(ps["enum"]) == 1 \
                and isinstance(ps["enum"][0], str) and p in (a.get("required") or []):
            out.append((p, ps["enum"][0]))
    return tuple(out)


def alt_key(a):
    """What identifies an alternative of a union across versions."""
    if not isinstance(a, dict):
        return ("lit", repr(a))
    if "$ref" in a:
        return ("ref", a["$ref"])
    if a.get("type") == "null":
        return ("null",)
    if "enum" in a:
        if len(a["enum"]) == 1:
            return ("enum1", repr(a["enum"][0]))
        return ("enumN", repr(a.get("type")))
    consts = _single_consts(a)
    if consts:
        return ("tag",) + consts
    if a.get("title"):
        return ("title", a["title"])
    if _union_kw(a):
        return ("union", a.get("title"))
    if _is_object(a):
        props = a.get("properties") or {}
        if len(props) == 1 and a.get("required") == list(props):
            return ("key", next(iter(props)))  # externally tagged `{"key": {...}}`
        return ("object", tuple(sorted(a.get("required") or [])))
    t = a.get("type")
    return ("type", repr(sorted(t) if isinstance(t, list) else t))


def _merge_enum(a, b):
    vals = list(a["enum"])
    for v in b["enum"]:
        if v not in vals:
            vals.append(v)
    out = dict(b)
    out["enum"] = vals
    ta, tb = _types(a), _types(b)
    if ta and tb and ta != tb:
        out["type"] = sorted(ta | tb)
    return out


def _merge_objects(a, b):
    out = {k: v for k, v in b.items() if k not in ("properties", "required")}
    pa, pb = a.get("properties") or {}, b.get("properties") or {}
    props = {}
    for name in list(pa) + [n for n in pb if n not in pa]:
        if name in pa and name in pb:
            props[name] = merge(pa[name], pb[name])
        else:
            props[name] = pb.get(name, pa.get(name))
    ra, rb = set(a.get("required") or []), set(b.get("required") or [])
    required = sorted(n for n in ra & rb if n in pa and n in pb)
    if props or "properties" in a or "properties" in b:
        out["properties"] = props
    if required:
        out["required"] = required
    ap_a, ap_b = a.get("additionalProperties"), b.get("additionalProperties")
    if isinstance(ap_a, dict) and isinstance(ap_b, dict):
        out["additionalProperties"] = merge(ap_a, ap_b)
    if (_union_kw(a) or _union_kw(b)):
        kw = _union_kw(b) or _union_kw(a)
        out[kw] = _merge_alts(a.get(_union_kw(a) or kw, []), b.get(kw, []), nested=True)
        for k in UNION_KEYS:
            if k != kw:
                out.pop(k, None)
    return out


def _merge_alts(alts_a, alts_b, nested=False):
    out = []
    keys = []
    for a in alts_a:
        out.append(a)
        keys.append(alt_key(a))
    for b in alts_b:
        k = alt_key(b)
        if k in keys:
            i = keys.index(k)
            out[i] = merge(out[i], b, nested=nested)
        else:
            out.append(b)
            keys.append(k)
    # an enum that grew is one alternative (`enumN`); single values already deduplicated
    return out


def _as_alts(s):
    kw = _union_kw(s)
    if kw and not s.get("properties"):
        return s[kw]
    return [s]


def _tag_of_union(s):
    kw = _union_kw(s)
    if not kw:
        return None
    alts = [a for a in s[kw] if not (isinstance(a, dict) and a.get("type") == "null")]
    common = None
    for a in alts:
        keys = {p for p, _ in _single_consts(a)}
        common = keys if common is None else common & keys
    if not common:
        return None
    for pref in ("type", "method", "mode", "kind"):
        if pref in common:
            return pref
    return sorted(common)[0]


CONFLICTS = []


def merge(a, b, nested=False):
    """The schema of the values of `a` (older) and of `b` (newer). `nested`: called on two
    alternatives of a union that were matched (a second kind mismatch there keeps the newer)."""
    if a == b:
        return b
    if not isinstance(a, dict) or not isinstance(b, dict):
        return b
    if a in (True, {}) or b in (True, {}):
        return {}
    if "$ref" in a and "$ref" in b and a["$ref"] == b["$ref"]:
        return b
    ua, ub = _union_kw(a), _union_kw(b)
    oa, ob = _is_object(a) and not ua, _is_object(b) and not ub
    # objects, possibly with fields declared in inline alternatives (`properties` + `anyOf`)
    if (oa or (ua and a.get("properties"))) and (ob or (ub and b.get("properties"))):
        return _merge_objects(a, b)
    if ua and ub:
        # two unions (one may have shared properties): alternatives matched and merged
        return _merge_objects(a, b)
    if "enum" in a and "enum" in b:
        return _merge_enum(a, b)
    ta, tb = _types(a), _types(b)
    plain = lambda s: not ({"enum", "$ref", "properties", "items", "additionalProperties"} & set(s)) \
        and not _union_kw(s)
    if plain(a) and plain(b) and ta and tb:
        out = dict(b)
        union = ta | tb
        if {"integer", "number"} <= union:
            union.discard("integer")
            out.pop("format", None)
        elif a.get("format") != b.get("format"):
            fa, fb = a.get("format", ""), b.get("format", "")
            out["format"] = fa if fa.startswith("int") else fb if fb.startswith("int") else "int64"
        out["type"] = sorted(union) if len(union) > 1 else next(iter(union))
        if len([x for x in union if x != "null"]) <= 1:
            return out
    if ta == tb == {"array"} and isinstance(a.get("items"), dict) and isinstance(b.get("items"), dict):
        out = dict(b)
        out["items"] = merge(a["items"], b["items"])
        return out
    if ta and tb and ta >= {"array"} and tb >= {"array"} and "items" in a and "items" in b:
        out = dict(b)
        out["items"] = merge(a["items"], b["items"])
        out["type"] = sorted(ta | tb)
        return out
    # A shape that changed kind: an object <-> a tagged union. Both shapes, newest first, as
    # titled alternatives, so that the tagged union stays one typed alternative.
    tag_b = _tag_of_union(b) if ub else None
    tag_a = _tag_of_union(a) if ua else None
    if (oa and tag_b) or (ob and tag_a):
        new_alt = dict(b)
        old_alt = dict(a)
        for alt, tag in ((new_alt, tag_b), (old_alt, tag_a)):
            # the alternative's name: the union's tag (`Mode`) or the object's first required
            # field (`Action`)
            key = tag or (sorted(alt.get("required") or []) or ["previous"])[0]
            alt["title"] = key[:1].upper() + key[1:]
            alt.pop("description", None)
        return {"description": b.get("description", a.get("description")), "oneOf": [new_alt, old_alt]}
    # Anything else: a union of both (alternatives matched and merged).
    if nested:
        CONFLICTS.append((a, b))
        return b
    kw = ub or ua or "anyOf"
    out = {k: v for k, v in b.items() if k in ("description", "title")}
    if "description" not in out and "description" in a:
        out["description"] = a["description"]
    out[kw] = _merge_alts(_as_alts(a), _as_alts(b), nested=True)
    return out


def merge_defs(versions):
    """[(version, defs)] oldest first -> merged defs (every definition of any version)."""
    out = {}
    for _version, defs in versions:
        for name, schema in defs.items():
            out[name] = merge(out[name], schema) if name in out else schema
    return out
