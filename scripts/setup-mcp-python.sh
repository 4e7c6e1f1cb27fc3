#!/usr/bin/env bash
# Idempotent: installs the official Python MCP SDK (`mcp` 2.3.0 and its dependencies, pinned in
# scripts/mcp/requirements.txt) from PyPI into a cached venv (mcp-py-<hash of the pins>) and
# links its interpreter as .cache/mcp-sdk-python: the Python SDK server of testkit/sdk-servers
# (server.py) and the bench's Python client run on it. Called by scripts/setup-mcp.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
PINS=scripts/mcp/requirements.txt
PY="${CODEXCLIENT_MCP_PYTHON:-python3.11}"
dir="$CACHE/mcp-py-$( (cat "$PINS"; "$PY" --version) | sha256sum | cut -c1-12)"
mkdir -p "$CACHE" "$ROOT/.cache"
log() { printf '[setup-mcp-python] %s\n' "$*" >&2; }
command -v "$PY" >/dev/null 2>&1 || { log "missing $PY: install Python 3.11 (apt-get install python3.11 python3.11-venv) or set CODEXCLIENT_MCP_PYTHON"; exit 1; }

ok() { "$1/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")' 2>/dev/null; }
if ! ok "$dir"; then
  log "installing the Python MCP SDK from PyPI into $dir"
  rm -rf "$dir.tmp"
  "$PY" -m venv "$dir.tmp"
  "$dir.tmp/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$PINS" >&2
  "$dir.tmp/bin/pip" check >&2 || { log "the pinned packages do not fit together"; exit 1; }
  ok "$dir.tmp" || { log "mcp 2.3.0 did not install"; exit 1; }
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
# A wrapper, not a link: a venv's interpreter only finds its venv when started by its own path.
rm -f "$ROOT/.cache/mcp-sdk-python"
printf '#!/bin/sh\nexec %q "$@"\n' "$dir/bin/python" >"$ROOT/.cache/mcp-sdk-python"
chmod +x "$ROOT/.cache/mcp-sdk-python"
log "Python MCP SDK $("$dir/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))'): $dir (.cache/mcp-sdk-python)"
