#!/usr/bin/env bash
# Reads the native Codex binaries of the given versions (default: every ./.cache/codex-*) once
# from start to end, so that a test's first spawn of one does not page its ~280 MB in by
# faults inside the test's connect bound. Why: on the CI machine (a VM whose page cache the
# host reclaims within minutes, measured with fincore) a Codex binary not run for ~10 minutes
# took ~30 s from spawn to its `initialize` answer (arg0 set up after 14 s, its databases
# after 28 s; 18 ms and 34 ms when resident), which is the whole 30 s connect_timeout. A
# sequential read of the file costs < 1 s cold. Called by the test scripts before a step that
# starts a version (scripts/test.sh, test-c.sh, test-python.sh, test-elixir.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
if [ "${#versions[@]}" -eq 0 ]; then
  for l in .cache/codex-*; do [ -e "$l" ] && versions+=("${l#.cache/codex-}"); done
  [ "${#versions[@]}" -gt 0 ] || { echo "page-in-codex: no .cache/codex-* (run scripts/setup-codex.sh)" >&2; exit 1; }
fi
for v in "${versions[@]}"; do
  bin=.cache/codex-$v
  [ -e "$bin" ] || { echo "page-in-codex: no $bin (run scripts/setup-codex.sh)" >&2; exit 1; }
  timeout 120 cat "$(readlink -f "$bin")" >/dev/null
done
