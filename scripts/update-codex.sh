#!/usr/bin/env bash
# Absorbs a Codex release into the supported window, in one command:
#   scripts/update-codex.sh VERSION            (e.g. 0.171.0)
# 1. installs @openai/codex@VERSION from the npm registry into the shared cache
#    (~/.cache/libcodexclient/codex-VERSION, linked from .cache/codex-VERSION; as scripts/setup.sh);
# 2. dumps its stable and --experimental schema bundles into schema/codex-VERSION/ (+ VERSION);
# 3. widens the window in scripts/codex-versions.sh (CODEX_WINDOW; a version newer than every
#    other one becomes CODEX_DEFAULT, and CODEX_SMOKE becomes the window's oldest and the
#    previous default);
# 4. regenerates the Rust and Python protocol code (scripts/gen-protocol.sh);
# 5. runs the compatibility report of the new binary against the regenerated library
#    (`codex-client compat`; skipped with --no-compat);
# 6. prints a CHANGELOG entry: methods, notifications, server requests, fields and enum values
#    added, removed or changed versus the previous newest version.
# The rule for moving the window (and when to drop the oldest versions) is in docs/compat.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
compat=1
version=""
for a in "$@"; do
  case "$a" in
    --no-compat) compat=0 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) version="$a" ;;
  esac
done
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "usage: scripts/update-codex.sh VERSION [--no-compat]  (e.g. 0.171.0)" >&2; exit 2; }
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
log() { printf '[update-codex] %s\n' "$*" >&2; }
command -v npm >/dev/null || { log "missing npm: install Node.js and npm (apt-get install nodejs npm)"; exit 1; }

# shellcheck source=codex-versions.sh
source scripts/codex-versions.sh
previous_default="$CODEX_DEFAULT"

# 1. install: scripts/setup-codex.sh for this one version (links .cache/codex-VERSION)
CODEX_VERSIONS="$version" LIBCODEXCLIENT_CACHE="$CACHE" bash scripts/setup-codex.sh
bin=$(readlink -f "$ROOT/.cache/codex-$version")
line=$("$bin" --version)
[ "$line" = "codex-cli $version" ] || { log "$bin --version says '$line', not 'codex-cli $version'"; exit 1; }
log "codex $version: $bin"

# 2. dump the schema bundles (only the single-file bundle is vendored: every other file of the
#    dump holds the same definitions)
out="schema/codex-$version"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for kind in stable experimental; do
  flag=()
  [ "$kind" = experimental ] && flag=(--experimental)
  "$bin" app-server generate-json-schema "${flag[@]}" --out "$tmp/$kind" >/dev/null
  [ -s "$tmp/$kind/codex_app_server_protocol.schemas.json" ] \
    || { log "codex $version wrote no codex_app_server_protocol.schemas.json ($kind)"; exit 1; }
done
rm -rf "$out" && mkdir -p "$out/stable" "$out/experimental"
for kind in stable experimental; do
  cp "$tmp/$kind/codex_app_server_protocol.schemas.json" "$out/$kind/"
done
printf '%s\n' "$line" >"$out/VERSION"
log "vendored $out"

# 3. widen the window
window=$(printf '%s\n' $CODEX_WINDOW "$version" | sort -uV | tr '\n' ' ' | sed 's/ $//')
newest=$(printf '%s\n' $window | tail -n1)
oldest=$(printf '%s\n' $window | head -n1)
default="$CODEX_DEFAULT" smoke="$CODEX_SMOKE"
if [ "$newest" = "$version" ] && [ "$version" != "$CODEX_DEFAULT" ]; then
  default="$version"
  smoke="$oldest $previous_default"
fi
sed -i -e "s/^CODEX_DEFAULT=.*/CODEX_DEFAULT=\"$default\"/" \
       -e "s/^CODEX_WINDOW=.*/CODEX_WINDOW=\"$window\"/" \
       -e "s/^CODEX_SMOKE=.*/CODEX_SMOKE=\"$smoke\"/" scripts/codex-versions.sh
log "window: $window (default $default, smoke $smoke)"

# 4. regenerate
bash scripts/gen-protocol.sh

# 5. the compatibility report of the new binary against the regenerated library
if [ "$compat" = 1 ]; then
  log "compatibility report: codex-client compat --codex .cache/codex-$version"
  set +e
  cargo run --quiet -p codex-client --bin codex-client -- compat --codex "$ROOT/.cache/codex-$version"
  rc=$?
  set -e
  [ "$rc" -le 1 ] || { log "the compatibility report failed (exit $rc)"; exit 1; }
fi

# 6. the CHANGELOG entry (versus the previous newest version of the window)
prev=$(printf '%s\n' $window | grep -B1 -x "$version" | head -n1)
[ "$prev" != "$version" ] || prev=""
if [ -n "$prev" ]; then
  python3 tools/protocol-gen/changelog.py "schema/codex-$prev" "$out"
else
  log "no older version in the window: no CHANGELOG entry"
fi
