"""Options, table-driven: each client class takes, as generated keywords, the option keys of
its ``clients`` column (the deprecated ``Client``/``AsyncClient`` every key), and for
every edge value of every key (the core's ``options::cases()``: 0, the maximum, past it,
negative, the wrong type, ``None``) Python gives exactly the core's outcome: the client is
refused with :class:`InvalidArgumentError` exactly when the core refuses the value (or the
options it makes do not build), and otherwise the option's effective value is the core's."""

from __future__ import annotations

import importlib.util
import inspect
import json
import pathlib
from typing import Any, Dict, List

import pytest

import codexclient
from codexclient import AsyncClient, AsyncCodexClient, AsyncMcpClient, Client, CodexClient, InvalidArgumentError
from codexclient import McpClient, _native

KEYS: List[Dict[str, Any]] = json.loads(_native.option_keys())
CASES: List[Dict[str, Any]] = json.loads(_native.option_cases())
# How events are delivered is the client class's choice (the sync client runs handlers on the
# core's dispatch thread, the async one drains on the loop), not a keyword.
NOT_KEYWORDS = {"delivery"}
ROOT = pathlib.Path(__file__).resolve().parents[2]


CODEX = {"app-server", "exec", "codex-mcp-server"}


@pytest.mark.parametrize(
    "cls, applies",
    [
        (CodexClient, lambda clients: bool(CODEX & clients)),
        (AsyncCodexClient, lambda clients: bool(CODEX & clients)),
        (McpClient, lambda clients: "mcp" in clients),
        (AsyncMcpClient, lambda clients: "mcp" in clients),
        (Client, lambda clients: True),
        (AsyncClient, lambda clients: True),
    ],
)
def test_each_client_takes_the_keys_of_its_clients_column(cls: type, applies: Any) -> None:
    names = {k["name"] for k in KEYS if applies(set(k["clients"]))} - NOT_KEYWORDS
    assert len({k["name"] for k in KEYS}) >= 40 and "exec_model" in {k["name"] for k in KEYS}
    params = inspect.signature(cls.__init__).parameters
    taken = {n for n, p in params.items() if p.kind == p.KEYWORD_ONLY}
    own = {"config"} if cls in (CodexClient, AsyncCodexClient) else {"authorize", "token_store"}
    if cls in (Client, AsyncClient):
        own = {"config", "authorize", "token_store"}
    assert taken == names | own, (sorted(names - taken), sorted(taken - names - own))
    # no default is written in Python: every keyword's is None (the table's default)
    assert all(params[n].default is None for n in taken)


def test_the_keywords_module_is_generated_from_this_table() -> None:
    # scripts/gen-options.sh (tools/options-gen/gen_py.py) run on the core's table gives the
    # shipped module byte for byte (scripts/check-generated.sh checks the same from the CLI).
    spec = importlib.util.spec_from_file_location("gen_options_py", ROOT / "tools" / "options-gen" / "gen_py.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    shipped = pathlib.Path(codexclient.__file__).parent / "_option_keywords.py"
    assert gen.generate(KEYS) == shipped.read_text(encoding="utf-8")


def test_another_clients_option_is_the_cores_error_and_a_typo_a_type_error() -> None:
    with pytest.raises(InvalidArgumentError, match="mcp_cache"):
        CodexClient(mcp_cache=False)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="codex_home"):
        McpClient(command=["node", "s.js"], codex_home="/tmp")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="did you mean 'codex_home'"):
        CodexClient(codex_hom="/tmp")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="AsyncMcpClient.*did you mean 'command'"):
        AsyncMcpClient(comand=["x"])  # type: ignore[arg-type]


def test_cases_cover_every_key() -> None:
    assert {c["key"] for c in CASES} == {k["name"] for k in KEYS}
    assert any(not c["ok"] for c in CASES) and any(c["ok"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['key']}={json.dumps(c['value'])}")
def test_python_agrees_with_the_core(case: Dict[str, Any]) -> None:
    key, value = case["key"], case["value"]
    # The effective value, through the same conversion the clients' keywords go through.
    if case["ok"]:
        assert json.loads(_native.effective_option(key, value)) == case["effective"]
    else:
        with pytest.raises(InvalidArgumentError) as ei:
            _native.effective_option(key, value)
        assert key in str(ei.value)
    if key in NOT_KEYWORDS:
        return
    # The clients: refused exactly when the core refuses the value or cannot build options.
    for cls in (Client, AsyncClient):
        if case["ok"] and case["builds"]:
            c = cls(**{key: value})
            c._life.release(False)
        else:
            with pytest.raises(InvalidArgumentError) as ei2:
                cls(**{key: value})
            assert isinstance(ei2.value, codexclient.CodexError)


def test_secret_values_never_appear_in_errors() -> None:
    secret = "sk-secret-value-789"
    with pytest.raises(InvalidArgumentError) as ei:
        Client(token=secret, transport="stdio")
    assert secret not in str(ei.value)
    assert json.loads(_native.effective_option("token", secret)) == "<redacted>"


def test_python_idioms() -> None:
    """Path-like objects are their path, tuples lists, mappings lists of pairs in order."""
    import pathlib

    assert json.loads(_native.effective_option("cwd", pathlib.Path("/tmp/x y"))) == "/tmp/x y"
    assert json.loads(_native.effective_option("args", ("a", pathlib.Path("b")))) == ["a", "b"]
    c = Client(env={"B": "1", "A": 2}, config={"model": "m", "n": [1, 2]})
    c._life.release(False)
    with pytest.raises(InvalidArgumentError, match="cannot be sent as JSON"):
        Client(mcp_capabilities={"x": object()})


def test_docstrings_state_the_table_not_prose() -> None:
    """The options section of both clients' docstrings is made from the core's table: every
    key with its range and what 0 means, as the table has them."""
    for cls in (Client, AsyncClient, CodexClient, AsyncCodexClient, McpClient, AsyncMcpClient):
        doc = cls.__doc__ or ""
        taken = set(inspect.signature(cls.__init__).parameters)
        for k in KEYS:
            if k["name"] not in taken:  # another client's option: not in this class's section
                assert f"    - ``{k['name']}`` (" not in doc, (cls.__name__, k["name"])
                continue
            assert f"``{k['name']}``" in doc, (cls.__name__, k["name"])
            line = next(ln for ln in doc.splitlines() if f"``{k['name']}`` (" in ln)
            if k["zero"]:
                assert f"0: {k['zero']}" in line, line
            if k["range"] is not None:
                assert k["unit"] in line, line
        # No default restated in the written prose (the "default 300", "at most 0.01").
        prose = doc.split("Options by keyword")[0]
        assert "default 300" not in prose and "at most 0.01" not in prose and "default 30 s" not in prose


def _edges(k: Dict[str, Any]) -> List[Any]:
    """The edge values of a key with a range, as the C and C++ agreement tests take them
    (tests/c/option_edges.h): (label, value, taken, effective, zero_is_off)."""
    lo, hi = k["range"]
    default, zero = k["default"], k["zero"]

    def expect(label: str, v: float) -> Any:
        if v == 0 and zero in ("the default", "off"):
            return (label, v, True, default, zero == "off")
        if lo <= v <= hi:
            return (label, v, True, v, False)
        return (label, v, False, default, False)

    out = [("default", default, True, default, False), ("None", None, True, default, False)]
    if lo != 0:
        out.append(expect("min", lo))
    out += [expect("max", hi), expect("min-1", lo - 1), expect("max+1", hi + 1), expect("0", 0)]
    if k["kind"] == "count":  # whole numbers: given as int, as a Python caller would
        out = [(lb, int(v) if isinstance(v, float) else v, ok, eff, off) for lb, v, ok, eff, off in out]
    return out


RANGED = [k for k in KEYS if k["range"] is not None]


def _companions(name: str, tmp: pathlib.Path) -> Dict[str, Any]:
    """The options a ranged key needs beside it for a client to be made (the core's rules
    between options): ``ws_token_lifetime`` is for ``ws_auth="signed-bearer-token"``, which
    needs a ``ws://`` transport and a readable shared secret."""
    if not name.startswith("ws_"):
        return {}
    secret = tmp / "ws-secret"
    secret.write_text("0123456789abcdef" * 4)
    secret.chmod(0o600)
    return {"transport": "ws://127.0.0.1:9/", "ws_auth": "signed-bearer-token",
            "ws_shared_secret_file": secret}


@pytest.mark.parametrize("key", RANGED, ids=lambda k: k["name"])
def test_every_ranged_key_at_min_max_and_past_them(
    key: Dict[str, Any], tmp_path: pathlib.Path
) -> None:
    """Every key with a range, at min, max, min-1, max+1, 0, its default and None: taken or
    refused (InvalidArgumentError naming the key) and read back as the table's row says; a
    keyword of the Codex clients (with the options it needs beside it) refused exactly when
    the row refuses the value."""
    assert len(RANGED) >= 16
    name = key["name"]
    companions = _companions(name, tmp_path)
    for label, value, ok, effective, off in _edges(key):
        if ok:
            got = json.loads(_native.effective_option(name, value))
            assert got == pytest.approx(effective) or (off and got == 0), (name, label, value, got)
        else:
            with pytest.raises(InvalidArgumentError) as ei:
                _native.effective_option(name, value)
            assert name in str(ei.value), (label, str(ei.value))
        if "app-server" not in key["clients"]:
            continue  # an option of another client is refused on a Codex client by design
        for cls in (CodexClient, AsyncCodexClient, Client, AsyncClient):
            if ok:
                c = cls(**companions, **{name: value})
                c._life.release(False)
            else:
                with pytest.raises(InvalidArgumentError):
                    cls(**companions, **{name: value})
