#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against our conformance client
# (testkit/mcp-conformance-client, built here; see its SCENARIOS.md for what each scenario asks)
# and prints one line per scenario, `PASS <scenario>` or `FAIL <scenario>`, on stdout; for a FAIL
# the failed checks and the client's stderr follow on stderr. A scenario passes only when the
# suite ran it, at least one of its checks is SUCCESS and none is FAILURE or WARNING (a run
# whose checks were all skipped did not pass). Exits non-zero when a required scenario fails.
# Two suites are pinned (scripts/mcp/package.json): the current one, and 0.1.16, whose four
# core scenarios are kept (printed as `PASS 0.1.16/<scenario>`).
#   scripts/mcp-conformance.sh [--all] [--reference] [scenario...]
#     (none)       the required scenarios: scripts/mcp/required.txt on the current suite, and
#                  the four core scenarios on 0.1.16
#     --all        every client scenario `conformance list --client` names, and the 0.1.16 four
#     --reference  use the official TypeScript SDK client (scripts/mcp/sdk-client.mjs)
#     scenario...  just these (current suite; `0.1.16/<name>` for the old one)
#   MCP_CONFORMANCE_CLIENT="cmd args"  any other client (the suite appends the server URL)
#   MCP_CONFORMANCE_TIMEOUT=ms         per scenario (default 30000, the suite's)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
CORE_0_1="initialize tools_call elicitation-sep1034-client-defaults sse-retry"
# The scenarios of the current suite the test command requires (one per line, # comments).
REQUIRED=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/mcp/required.txt)
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
suite_0_1() { "$MCP_NODE" --import "$ROOT/scripts/mcp/loopback.mjs" "$MCP_CONFORMANCE_0_1" "$@"; }

if [ $reference = 1 ]; then
  client="$MCP_NODE $ROOT/scripts/mcp/sdk-client.mjs"
elif [ -n "${MCP_CONFORMANCE_CLIENT:-}" ]; then
  client=$MCP_CONFORMANCE_CLIENT
else
  log "building mcp-conformance-client"
  # The whole workspace, as scripts/setup.sh builds it (`-p` alone resolves other features for
  # shared dependencies and compiles them and the core again).
  cargo build --quiet --workspace --all-targets || {
    log "cannot build mcp-conformance-client (testkit/mcp-conformance-client, a workspace member);"
    log "--reference or MCP_CONFORMANCE_CLIENT=... runs another client"; exit 1; }
  client="$CARGO_TARGET_DIR/debug/mcp-conformance-client"
fi

if [ ${#scenarios[@]} = 0 ]; then
  if [ $all = 1 ]; then
    read -ra scenarios <<<"$(suite list --client | sed -n 's/^  - \([^ ]*\).*/\1/p' | tr '\n' ' ')"
  else
    read -ra scenarios <<<"$(echo $REQUIRED)"
  fi
  for s in $CORE_0_1; do scenarios+=("0.1.16/$s"); done
fi
required() {
  case $1 in 0.1.16/*) return 0 ;; esac
  case " $(echo $REQUIRED) " in *" $1 "*) return 0 ;; esac
  return 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed_required=0
for s in "${scenarios[@]}"; do
  out="$work/${s//\//_}"
  mkdir -p "$out"
  rc=0
  run=suite name=$s
  case $s in 0.1.16/*) run=suite_0_1 name=${s#0.1.16/} ;; esac
  (cd "$work" && $run client --command "$client" --scenario "$name" -o "$out" \
    --timeout "${MCP_CONFORMANCE_TIMEOUT:-30000}" >"$out/suite.log" 2>&1) || rc=$?
  checks=$(find "$out" -name checks.json | head -1)
  bad=""
  # shellcheck disable=SC2016 # JavaScript template literal
  [ -z "$checks" ] || bad=$("$MCP_NODE" -e 'const checks = require(process.argv[1]);
    for (const c of checks)
      if (c.status === "FAILURE" || c.status === "WARNING")
        console.log(`  ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    if (!checks.some((c) => c.status === "SUCCESS"))
      console.log(`  no SUCCESS check (${checks.length} checks: ${[...new Set(checks.map((c) => c.status))].join(", ") || "none"})`);' "$checks")
  if [ $rc = 0 ] && [ -n "$checks" ] && [ -z "$bad" ]; then
    echo "PASS $s"
  else
    echo "FAIL $s"
    if required "$s"; then failed_required=1; fi
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
