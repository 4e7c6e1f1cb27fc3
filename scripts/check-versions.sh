#!/usr/bin/env bash
# One version number: checks that the crate (codex-client), the Python wheel (codexclient, whose
# version maturin reads from python/Cargo.toml), the C library (ffi-c: codex_version(),
# pkg-config, CMake) and CHANGELOG.md's newest entry all carry the workspace version
# ([workspace.package] in Cargo.toml); that the C ABI version agrees between ffi-c/src/abi.rs,
# include/codexclient.h and the README's ABI policy line; and that `rust-version` is the highest
# `rust-version` declared by a locked dependency (the real MSRV; `cargo metadata`, so the
# registry index may be read once). Prints `version-checks: N passed, M failed`; exits
# non-zero on a mismatch.
#   scripts/check-versions.sh            # all checks
#   NO_MSRV=1 scripts/check-versions.sh  # skip the dependency scan (offline)
set -euo pipefail
cd "$(dirname "$0")/.."
pass=0; fail=0
ok() { pass=$((pass + 1)); printf '[versions] ok: %s\n' "$*" >&2; }
bad() { fail=$((fail + 1)); printf '[versions] MISMATCH: %s\n' "$*" >&2; }
same() { # $1 what, $2 expected, $3 found
  if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 is '$3', expected '$2'"; fi
}

ws_field() { sed -n '/^\[workspace\.package\]/,/^\[/s/^'"$1"' = "\(.*\)"/\1/p' Cargo.toml; }
VERSION=$(ws_field version)
MSRV=$(ws_field rust-version)
[ -n "$VERSION" ] || { bad "no version in [workspace.package] of Cargo.toml"; exit 1; }

for toml in core/Cargo.toml ffi-c/Cargo.toml python/Cargo.toml; do
  if grep -q '^version\.workspace = true' "$toml"; then
    ok "$toml inherits the workspace version"
  else
    same "$toml version" "$VERSION" "$(sed -n 's/^version = "\(.*\)"/\1/p' "$toml" | head -1)"
  fi
  if grep -q '^rust-version\.workspace = true' "$toml"; then
    ok "$toml inherits rust-version"
  else
    bad "$toml does not inherit rust-version from the workspace"
  fi
done
for name in codex-client codex-client-ffi codexclient-py; do
  same "Cargo.lock $name" "$VERSION" "$(awk -v n="$name" '$0=="name = \""n"\"" {getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)"
done
if grep -q '^dynamic = \["version"\]' pyproject.toml && ! grep -q '^version = ' pyproject.toml \
   && grep -q '^manifest-path = "python/Cargo.toml"' pyproject.toml; then
  ok "pyproject.toml takes its version from python/Cargo.toml (dynamic)"
else
  bad "pyproject.toml must have dynamic = [\"version\"] and manifest-path = \"python/Cargo.toml\""
fi
same "CHANGELOG.md newest entry" "$VERSION" "$(sed -n 's/^## \([0-9][0-9.]*[0-9a-z.-]*\).*/\1/p' CHANGELOG.md | head -1)"

abi_rs() { sed -n 's/^pub const CODEX_ABI_VERSION_'"$1"': u32 = \([0-9]*\);/\1/p' ffi-c/src/abi.rs; }
abi_h() { sed -n 's/^#define CODEX_ABI_VERSION_'"$1"' \([0-9]*\)$/\1/p' include/codexclient.h; }
MAJ=$(abi_rs MAJOR); MIN=$(abi_rs MINOR)
same "include/codexclient.h CODEX_ABI_VERSION_MAJOR" "$MAJ" "$(abi_h MAJOR)"
same "include/codexclient.h CODEX_ABI_VERSION_MINOR" "$MIN" "$(abi_h MINOR)"
same "README ABI policy line" "$MAJ.$MIN, $((MAJ * 1000 + MIN))" \
  "$(sed -n 's/.*this release: ABI \*\*\([0-9.]*\)\*\*, \([0-9]*\)).*/\1, \2/p' README.md | head -1)"

if [ -z "${NO_MSRV:-}" ]; then
  # The highest rust-version among the packages Cargo.lock resolves for this platform (normal,
  # build and dev dependencies of the workspace members; members themselves excluded).
  found=$(cargo metadata --format-version 1 --locked --filter-platform "$(rustc -vV | sed -n 's/^host: //p')" \
    | python3 -c '
import json, sys
m = json.load(sys.stdin)
ws = set(m["workspace_members"])
best = max(((tuple(int(x) for x in p["rust_version"].split(".")), p["name"], p["version"])
            for p in m["packages"] if p.get("rust_version") and p["id"] not in ws),
           default=((0,), "", ""))
v = best[0][:2]
print("%d.%d %s %s" % (v[0], v[1] if len(v) > 1 else 0, best[1], best[2]))')
  need=${found%% *}
  same "rust-version (the highest dependency MSRV: ${found#* })" "$need" "$MSRV"
fi

printf 'version-checks: %d passed, %d failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
