#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against our conformance client
# (testkit/mcp-conformance-client, built here; see its SCENARIOS.md for what each scenario asks)
# and prints one line per scenario, `PASS <scenario>` or `FAIL <scenario>`, on stdout; for a FAIL
# the failed checks and the client's stderr follow on stderr. Exits non-zero when one of the
# required scenarios fails.
#   scripts/mcp-conformance.sh [--all] [--reference] [scenario...]
#     --all        also every other client scenario `conformance list --client` names (auth/*)
#     --reference  use the official TypeScript SDK client (scripts/mcp/sdk-client.mjs)
#   MCP_CONFORMANCE_CLIENT="cmd args"  any other client (the suite appends the server URL)
#   MCP_CONFORMANCE_TIMEOUT=ms         per scenario (default 30000, the suite's)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
REQUIRED="initialize tools_call elicitation-sep1034-client-defaults sse-retry"
log() { printf '[mcp-conformance] %s\n' "$*" >&2; }

all=0 reference=0 scenarios=()
for a in "$@"; do
  case $a in
    --all) all=1 ;;
    --reference) reference=1 ;;
    -h|--help) sed -n '2,/^set/{/^#/p}' "$0"; exit 0 ;;
    -*) log "unknown option $a"; exit 2 ;;
    *) scenarios+=("$a") ;;
  esac
done

bash scripts/setup-mcp.sh
# shellcheck source=/dev/null
. "$ROOT/.cache/mcp.env"
suite() { "$MCP_NODE" --import "$ROOT/scripts/mcp/loopback.mjs" "$MCP_CONFORMANCE" "$@"; }

if [ $reference = 1 ]; then
  client="$MCP_NODE $ROOT/scripts/mcp/sdk-client.mjs"
elif [ -n "${MCP_CONFORMANCE_CLIENT:-}" ]; then
  client=$MCP_CONFORMANCE_CLIENT
else
  log "building mcp-conformance-client"
  cargo build --quiet -p mcp-conformance-client || {
    log "cannot build mcp-conformance-client (testkit/mcp-conformance-client, a workspace member);"
    log "--reference or MCP_CONFORMANCE_CLIENT=... runs another client"; exit 1; }
  client="$CARGO_TARGET_DIR/debug/mcp-conformance-client"
fi

if [ ${#scenarios[@]} = 0 ]; then
  read -ra scenarios <<<"$REQUIRED"
  if [ $all = 1 ]; then
    for s in $(suite list --client | sed -n 's/^  - \([^ ]*\).*/\1/p'); do
      case " $REQUIRED " in *" $s "*) ;; *) scenarios+=("$s") ;; esac
    done
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed_required=0
for s in "${scenarios[@]}"; do
  out="$work/${s//\//_}"
  mkdir -p "$out"
  rc=0
  (cd "$work" && suite client --command "$client" --scenario "$s" -o "$out" \
    --timeout "${MCP_CONFORMANCE_TIMEOUT:-30000}" >"$out/suite.log" 2>&1) || rc=$?
  checks=$(find "$out" -name checks.json | head -1)
  bad=""
  # shellcheck disable=SC2016 # JavaScript template literal
  [ -z "$checks" ] || bad=$("$MCP_NODE" -e 'for (const c of require(process.argv[1]))
    if (c.status === "FAILURE" || c.status === "WARNING")
      console.log(`  ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`)' "$checks")
  if [ $rc = 0 ] && [ -n "$checks" ] && [ -z "$bad" ]; then
    echo "PASS $s"
  else
    echo "FAIL $s"
    case " $REQUIRED " in *" $s "*) failed_required=1 ;; esac
    {
      echo "  suite exit status $rc$([ -n "$checks" ] || echo ', no checks.json')"
      [ -z "$bad" ] || echo "$bad"
      grep -E '^Client (timed out|exited|test error)' "$out/suite.log" | sed 's/^/  /' || true
      stderr=$(dirname "${checks:-$out/x}")/stderr.txt
      if [ -s "$stderr" ]; then echo "  client stderr:"; sed 's/^/    /' "$stderr"
      elif [ -z "$checks" ]; then echo "  suite output:"; sed 's/^/    /' "$out/suite.log"; fi
    } >&2
  fi
done
exit $failed_required
